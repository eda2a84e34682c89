"""The club page over a club store: every table live, finished games, player records, tournaments,
JSON and CSV, and the live view's guard."""

import csv
import io
import time

import httpx
import pytest

from firmware.club import create_app
from firmware.club.results import placings
from firmware.club.roster import publish
from firmware.journal import Journal
from firmware.session import Session
from firmware.store import connect
from firmware.web import Background
from tests.firmware.web.conftest import demo

ZOE, MAX = "p-000000000001", "p-000000000002"


def played(client, table: str, gid: str, names: list[str], cards: list, upto: int | None = None) -> None:
    """The recorded game under `names`, started at the time its gid says (local time)."""
    log = demo()
    started = time.mktime(time.strptime(gid[:15], "%Y%m%d-%H%M%S"))
    session = Session.start(Journal(client, table, clock=lambda: started), log["game"], names, log["options"], gid=gid, cards=cards)
    for action in log["actions"][:upto]:
        session.apply(action)
    session.journal.flush()
    session.journal.release()


@pytest.fixture(scope="module")
def club(tmp_path_factory):
    """Two tables: t1 finished the recorded game twice (Zoé and Max on other seats each time), t2 plays."""
    url = f"memory://club-page-{tmp_path_factory.getbasetemp().name}"
    client = connect(url)
    played(client, "t1", "20261120-200000-aaaa", ["Zoé", "Max", "Cy"], [ZOE, MAX, None])
    played(client, "t1", "20261121-200000-bbbb", ["Max", "Zoé", "Cy"], [MAX, ZOE, None])
    played(client, "t2", "20261121-210000-cccc", ["Ana", "Ben"], None, upto=0)
    publish(client, "t1", {ZOE: {"name": "Zoé", "ticket": "1" * 32}, MAX: {"name": "Max", "ticket": "2" * 32}})  # t1's uplink
    server = Background(None, None, port=0, app=create_app(url)).start()
    yield server.url
    server.stop()


def get(url: str, path: str) -> httpx.Response:
    return httpx.get(url + path, timeout=10)


def test_placings_put_the_winners_first_then_the_totals_and_ties_share():
    scores = [{"total": 10, "winner": False}, {"total": 8, "winner": True}, {"total": 10, "winner": False}, {"total": 3, "winner": False}]
    assert placings(scores) == [2, 1, 2, 4]


def test_every_table_is_shown_with_its_game_scores_and_who_acts(club):
    tables = {t["table"]: t for t in get(club, "/api/tables").json()["tables"]}
    assert set(tables) == {"t1", "t2"}
    assert [s["total"] for s in tables["t1"]["game"]["scores"]] == [-12, 13, -15] and tables["t1"]["game"]["status"] == "over"
    assert tables["t2"]["game"]["prompt"]["name"] == "Ana" and not tables["t2"]["online"]
    page = get(club, "/").text
    assert "Table t1" in page and "Table t2" in page and 'data-events="/events"' in page


def test_finished_games_and_player_records_count_card_holders_only(club):
    games = get(club, "/api/games").json()["games"]
    assert [g["gid"] for g in games] == ["20261121-200000-bbbb", "20261120-200000-aaaa"]
    assert [(s["player"], s["place"], s["winner"]) for s in games[1]["seats"]] == [("Zoé", 2, False), ("Max", 1, True), ("Cy", 3, False)]
    players = get(club, "/api/players").json()["players"]
    assert [p["name"] for p in players] == ["Max", "Zoé"]
    max_, zoe = players
    assert max_["games"]["thurn_und_taxis"] == {"title": "Thurn und Taxis", "played": 2, "won": 1, "best": 13, "average": 0.5,
                                                "last_played": max_["last_played"]}
    assert zoe["played"] == 2 and zoe["won"] == 1 and zoe["games"]["thurn_und_taxis"]["best"] == 13
    assert "Zoé" in get(club, "/players").text and "Cy" not in get(club, "/players").text


def test_a_tournament_ranks_by_placings_or_scores_over_the_chosen_games(club):
    both = get(club, "/api/tournament").json()
    assert [(r["rank"], r["name"], r["placings"], r["scores"]) for r in both["standings"]] == [(1, "Max", 3, 1), (1, "Zoé", 3, 1)]
    one = get(club, "/api/tournament?rank=scores&from=2026-11-20&to=2026-11-20").json()
    assert [(r["rank"], r["name"], r["scores"]) for r in one["standings"]] == [(1, "Max", 13), (2, "Zoé", -12)]
    picked = get(club, "/api/tournament?gid=t1/20261121-200000-bbbb").json()
    assert [g["gid"] for g in picked["games"]] == ["20261121-200000-bbbb"] and picked["standings"][0]["name"] == "Zoé"
    assert get(club, "/api/tournament?rank=luck").status_code == 400
    assert get(club, "/tournament?from=yesterday").status_code == 400
    assert "Max" in get(club, "/tournament?game=thurn_und_taxis").text


def test_results_export_as_csv_one_row_per_seat(club):
    response = get(club, "/export/results.csv")
    assert response.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert len(rows) == 6 and rows[0] == {"table": "t1", "gid": "20261120-200000-aaaa", "game": "thurn_und_taxis", "date": "2026-11-20",
                                          "seat": "0", "player": "Zoé", "card": ZOE, "total": "-12", "place": "2", "winner": "False"}
    assert "Max,thurn_und_taxis,2,1,0.5,13" in get(club, "/export/players.csv").text
    assert get(club, "/export/tournament.csv?rank=scores").text.splitlines()[0] == "rank,name,player,games,placings,scores,wins"


def test_a_game_has_its_whole_timeline_and_unknown_ones_are_404(club):
    page = get(club, "/tables/t1/games/20261120-200000-aaaa")
    assert page.status_code == 200 and "Timeline" in page.text and page.text.count("<li") > 300
    assert get(club, "/tables/t9/games/20261120-200000-aaaa").status_code == 404
    assert get(club, "/tables/t1/games/nope").status_code == 404


def test_the_page_is_read_only_and_guarded_like_the_live_view(club):
    response = httpx.post(club + "/api/tables", timeout=10)
    assert response.status_code == 405 and "content-security-policy" in get(club, "/players").headers


def test_the_page_answers_only_at_its_allowed_hosts_when_given(tmp_path, capsys):
    from firmware.cli import main

    server = Background(None, None, port=0, app=create_app(f"memory://club-hosts-{tmp_path.name}", hosts=("club.local",))).start()
    try:
        assert httpx.get(server.url + "/api/tables", headers={"host": "club.local:8080"}, timeout=10).status_code == 200
        assert httpx.get(server.url + "/api/tables", headers={"host": "evil.example"}, timeout=10).status_code == 403
    finally:
        server.stop()
    with pytest.raises(SystemExit):
        main(["club", "--url", "redis://localhost:6379/0", "--allow-host", "evil@club.local"])
    assert "is not a host name or an IP address" in capsys.readouterr().err
