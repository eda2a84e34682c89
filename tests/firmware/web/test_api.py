"""The view's endpoints over real HTTP: what each returns, unknown games, refusals, and an outage."""

import json
import socket

import httpx
import pytest

import engines
from firmware.adapters import adapter_for
from firmware.journal import Journal
from firmware.store import connect
from firmware.web import Background

from .conftest import TABLE, demo, play

GAME = engines.get("thurn_und_taxis")
PAGES = ["/", "/games", "/games/g1", "/api/state", "/api/games", "/api/games/g1", "/static/style.css", "/static/live.js"]


def expected_scores(actions: list[dict]) -> list[dict]:
    log = demo()
    state = GAME.replay(log["players"], log["options"], actions)
    return [{"player": s.player, "total": s.total, "breakdown": s.breakdown} for s in GAME.scores(state)]


def test_state_with_no_game_says_so(http):
    assert http.get("/api/state").json() == {"table": TABLE, "game": None}
    page = http.get("/")
    assert page.status_code == 200 and "No game yet at table t1" in page.text


def test_state_has_the_scores_breakdowns_prompt_view_and_state(http, journal):
    actions = demo()["actions"][:120]
    play(journal, actions)
    game = http.get("/api/state").json()["game"]
    assert [{k: s[k] for k in ("player", "total", "breakdown")} for s in game["scores"]] == expected_scores(actions)
    state = GAME.replay(demo()["players"], {}, actions)
    assert game["gid"] == "g1" and game["entries"] == 120 and game["status"] == "playing"
    assert game["phase"] == GAME.phase(state)
    assert game["prompt"] == {
        "player": GAME.prompt(state).player,
        "name": state.players[GAME.prompt(state).player],
        "expects": list(GAME.prompt(state).expects),
        "text": GAME.prompt(state).text,
        "said": adapter_for("thurn_und_taxis").waiting(GAME.prompt(state)),  # the screen's words: "Ana: tap a card"
    }
    assert f'<p class="prompt"><span class="swatch seat{game["prompt"]["player"]}"></span>{game["prompt"]["said"]}</p>' in http.get("/").text
    assert game["state"]["houses"] == [sorted(h) for h in state.houses]  # sets as sorted lists
    assert "actions" not in game["state"]
    assert set(game["view"]["seats"][0]) == {"Route", "Houses", "Carriage", "Bonus tiles", "Turns played"}
    assert [step["n"] for step in game["timeline"]] == list(range(109, 121))


def test_the_live_page_shows_the_same_scores(http, journal):
    actions = demo()["actions"][:200]
    play(journal, actions)
    page = http.get("/").text
    for seat, score in enumerate(expected_scores(actions)):
        row = page.split(f'id="score-{seat}"')[1].split("</tr>")[0]
        assert f'<td class="total">{score["total"]}</td>' in row
    assert "<svg" in page and "Thurn und Taxis map" in page


def test_history_lists_games_newest_first_with_final_scores(http, journal, memory_url):
    log = demo()
    play(journal, log["actions"], gid="a-finished")
    later = Journal(connect(memory_url), TABLE, clock=lambda: 2e9)  # started after the first
    play(later, log["actions"][:10], gid="b-playing")
    listing = http.get("/api/games").json()
    assert listing["total"] == 2
    newest, finished = listing["games"]
    assert newest["gid"] == "b-playing" and newest["current"] and newest["status"] == "playing"
    final = GAME.replay(log["players"], {}, log["actions"])
    assert finished["gid"] == "a-finished" and not finished["current"] and finished["status"] == "over"
    assert [(s["player"], s["total"]) for s in finished["scores"]] == [(s.player, s.total) for s in GAME.scores(final)]
    assert finished["winners"] == GAME.winners(final)
    page = http.get("/games").text
    assert page.index("/games/b-playing") < page.index("/games/a-finished")


def test_a_finished_game_has_its_whole_timeline_with_events_and_undo(http, journal):
    log = demo()
    session = play(journal, log["actions"][:30])
    session.undo()
    session.undo()
    session.apply(log["actions"][28])
    game = http.get("/api/games/g1").json()
    steps = game["timeline"]
    assert [s["n"] for s in steps] == list(range(1, 34))
    assert [s["kind"] for s in steps[-3:]] == ["undo", "undo", "action"]
    assert steps[-3]["undoes"] == 30 and steps[-2]["undoes"] == 29
    assert steps[29]["undone"] and steps[28]["undone"] and not steps[27]["undone"]
    assert steps[-1]["action"] == log["actions"][28]
    assert game["entries"] == 33
    # each step keeps what the engine announced then
    state = GAME.start(log["players"], {})
    for step, action in zip(steps[:28], log["actions"]):
        state = GAME.apply(state, action)
        assert step["events"] == list(state.events)
        assert step["totals"] == [s.total for s in GAME.scores(state)]
    page = http.get("/games/g1").text
    assert page.count('class="undo"') == 2 and page.count('class="action undone"') == 2
    assert '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 600 220" role="img"' in page  # the score chart


def test_a_game_over_names_its_winner(http, journal):
    log = demo()
    play(journal, log["actions"])
    game = http.get("/api/games/g1").json()
    final = GAME.replay(log["players"], {}, log["actions"])
    assert game["status"] == "over" and game["prompt"] is None and game["winners"] == GAME.winners(final)
    assert [s["winner"] for s in game["scores"]] == [seat in GAME.winners(final) for seat in range(3)]
    assert "Winner: " in http.get("/").text


@pytest.mark.parametrize("gid", ["nope", "20261121-194501-3fa2"])
def test_an_unknown_game_is_a_404_with_a_clear_message(http, journal, gid):
    play(journal, [])
    answer = http.get(f"/api/games/{gid}")
    assert answer.status_code == 404 and answer.json() == {"error": f"no game '{gid}' at table 't1'"}
    page = http.get(f"/games/{gid}")
    assert page.status_code == 404 and f"no game &#39;{gid}&#39; at table &#39;t1&#39;" in page.text


@pytest.mark.parametrize("gid", ["a:b", "*", "x" * 65, "-lead", "g1%20", "%2e%2e", "g%00"])
def test_a_malformed_game_id_is_refused_as_such(http, journal, gid):
    play(journal, [])
    answer = http.get(f"/api/games/{gid}")
    assert answer.status_code == 404 and "is not a game id" in answer.json()["error"]


@pytest.mark.parametrize(
    "path",
    ["/static/../app.py", "/static/%2e%2e/app.py", "/static/..%2fapp.py", "/static/%2e%2e%2f%2e%2e%2fjournal.py",
     "/static//etc/passwd", "/static/../../../../etc/passwd", "/games/..%2f..%2fetc%2fpasswd", "/static/", "/static"],
)
def test_path_tricks_reach_no_file_outside_the_static_folder(served, path):
    with socket.create_connection(("127.0.0.1", served.port)) as raw:  # sent as written, not normalised by a client
        raw.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        answer = b"".join(iter(lambda: raw.recv(65536), b""))
    status = int(answer.split(b" ", 2)[1])
    assert status == 404, answer[:200]
    assert b"create_app" not in answer and b"root:" not in answer and b"Journal" not in answer


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"])
@pytest.mark.parametrize("path", ["/", "/api/state", "/api/games/g1", "/events", "/static/style.css", "/nowhere"])
def test_only_get_and_head_are_served_and_nothing_changes(http, journal, method, path):
    play(journal, demo()["actions"][:5])
    before = _dump(journal)
    answer = http.request(method, path, content=b'{"type": "end_turn", "player": 0}')
    assert answer.status_code == 405 and answer.headers["allow"] == "GET, HEAD"
    assert "read-only" in answer.text
    assert _dump(journal) == before


def test_head_answers_without_a_body(http, journal):
    play(journal, [])
    for path in PAGES + ["/events"]:
        answer = http.head(path)
        assert answer.status_code == 200 and answer.content == b"", path


def test_requests_with_a_body_or_a_huge_address_are_refused(http, served):
    assert http.request("GET", "/api/state", content=b"x" * 10).status_code == 413
    assert http.get("/api/state?" + "q" * 2000).status_code == 414
    with socket.create_connection(("127.0.0.1", served.port)) as raw:
        raw.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"y" * 40000 + b"\r\n\r\n")
        answer = raw.recv(65536)
    assert answer.startswith(b"HTTP/1.1 431"), answer[:80]


def test_every_response_carries_the_protective_headers(http, journal):
    play(journal, [])
    for path in PAGES + ["/api/games/nope", "/nowhere"]:
        headers = http.get(path).headers
        assert "script-src 'self'" in headers["content-security-policy"], path
        assert headers["x-content-type-options"] == "nosniff" and headers["x-frame-options"] == "DENY", path
        assert headers["cache-control"] in ("no-store", "no-cache"), path
        assert "server" not in headers, path
    assert http.post("/").headers["x-frame-options"] == "DENY"


def test_player_names_are_escaped_everywhere(http, journal):
    log = {**demo(), "players": ["<script>alert(1)</script>", "Ben & Co", 'C"y']}
    play(journal, log["actions"][:60], log=log)
    for path in ["/", "/games", "/games/g1"]:
        page = http.get(path).text
        assert "<script>alert" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page, path
    assert http.get("/api/state").json()["game"]["players"][0] == "<script>alert(1)</script>"


def test_a_game_the_rules_refuse_is_reported_not_shown(http, journal):
    play(journal, [])
    journal.client.xadd(journal.log_key("g1"), {"kind": "action", "action": json.dumps({"type": "end_turn", "player": 0})}, id="1-0")
    answer = http.get("/api/games/g1")
    assert answer.status_code == 500 and "entry 1-0 is refused by the rules" in answer.json()["error"]
    assert "The current game cannot be shown" in http.get("/").text
    assert "cannot be replayed" in http.get("/api/games").json()["games"][0]["error"]


def test_a_game_of_an_engine_not_installed_is_reported(http, journal):
    journal.begin_game("old-1", "chess", ["Ana", "Ben"], {})
    answer = http.get("/api/games/old-1")
    assert answer.status_code == 500 and "unknown game 'chess'" in answer.json()["error"]
    assert "chess" in http.get("/games").text


def test_an_outage_is_reported_and_the_view_recovers(redis_server):
    journal = Journal(connect(redis_server.url), TABLE)
    actions = demo()["actions"][:40]
    play(journal, actions)
    server = Background(redis_server.url, TABLE, port=0).start()
    try:
        with httpx.Client(base_url=server.url, timeout=5) as http:
            before = http.get("/api/state").json()
            redis_server.stop()
            down = http.get("/api/state")
            assert down.status_code == 503 and "not answering" in down.json()["error"]
            page = http.get("/")
            assert page.status_code == 503 and "is not answering" in page.text and 'data-events="/events"' in page.text
            listing = http.get("/games")
            assert listing.status_code == 503 and '<meta http-equiv="refresh"' in listing.text
            assert http.get("/api/games/g1").status_code == 503
            redis_server.start()
            assert http.get("/api/state").json() == before
            assert http.get("/").status_code == 200
    finally:
        server.stop()


def _dump(journal: Journal) -> dict:
    client = journal.client
    return {key: (client.type(key), client.xrange(key) if client.type(key) == "stream" else client.dump(key)) for key in client.keys("*")}
