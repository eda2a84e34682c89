"""Club mode end to end: three tables (three `tablemate run` processes on mocked hardware, each with
its own redis-server) copy their games to one club redis-server through per-table ACL users, while
the club's Redis is stopped mid-game and restarted, and one table is SIGKILLed and restarted while
its uplink catches up. At the end the club holds every entry of every table exactly once and in
order, and the club page, in headless Chromium, shows the right scores and each player's record.

A table whose club login is wrong plays on and says so on STATUS= and in the doctor.
"""

import io
import signal
import time

import pytest

import engines
from firmware.club import create_app
from firmware.club.acl import page_line, table_line, table_user
from firmware.club.players import card, player_id
from firmware.config import load_profile
from firmware.doctor import run_checks
from firmware.journal import Journal
from firmware.store import connect
from firmware.web import Background
from tests.firmware.web.test_browser import browser  # noqa: F401 (the module's headless Chromium)
from tests.redis_server import RedisServer
from tests.service.conftest import notify_socket, tablemate  # noqa: F401 (fixtures)
from tests.service.support import DEMOS, desktop_profile, entries_of, script_prefix

from .appliance import Appliance, script_seconds
from .autopilot import Autopilot
from .games import bot_game, components, enrol
from .resume import NotingRig, journal_signature

GAME, TITLE = "mongols", "Mongols"
#: table -> (bot seed, the player cards tapped on seats 0 and 1 at set-up: None keeps the default name)
TABLES = {"t1": (1, ("Zoé", "Max")), "t2": (2, ("Max", None)), "t3": (3, (None, "Zoé"))}
CARDS = {"Zoé": "0c0c0c01", "Max": "0c0c0c02"}
#: the player cards as the owner exported them from the table that enrolled them to the others (their tickets the same)
CARD_TAGS = {uid: card(uid, name) for name, uid in CARDS.items()}
PASSWORDS = {name: f"secret-{name}" for name in TABLES}


class Played:
    """One table's game played uninterrupted at a rig: the inputs, the signature after each, the
    tags it needs, and the final totals and winners."""

    def __init__(self, table: str, url: str):
        seed, claims = TABLES[table]
        actions = bot_game(GAME, 2, {}, seed)
        self.tags = {**components(GAME, actions), **CARD_TAGS}
        rig = NotingRig(url, table)
        uids = enrol(rig.table.tags, self.tags)
        rig.choose(TITLE)
        for seat, name in enumerate(claims):
            if name:
                rig.tap(CARDS[name], seat)
        rig.choose("2 players")
        while rig.table.running.request.question != "Hints?":
            rig.press("ok")  # the game's options, as offered
        rig.choose("Hints on")
        Autopilot(rig.table, rig, lambda d: uids[d["id"]]).play(actions)
        session = rig.table.session
        assert session.game.is_over(session.state)
        self.lines, self.marks = rig.lines, rig.marks
        self.names = session.players
        self.cards = [player_id(CARDS[name]) if name else None for name in claims]
        self.totals = [s.total for s in session.game.scores(session.state)]
        self.winners = session.game.winners(session.state)
        rig.close()

    def resume_at(self, journal: Journal) -> int:
        now = journal_signature(journal)
        return 0 if now is None else self.marks.index(now) + 1


def expected_records(played: dict[str, Played]) -> dict[str, dict]:
    """Card id -> played, won, best, average of the Mongols games, from the uninterrupted runs."""
    records: dict[str, dict] = {}
    for game in played.values():
        for seat, player in enumerate(game.cards):
            if player:
                totals = records.setdefault(player, {"totals": [], "won": 0})
                totals["totals"].append(game.totals[seat])
                totals["won"] += seat in game.winners
    return {player: {"played": str(len(r["totals"])), "won": str(r["won"]), "best": str(max(r["totals"])),
                     "average": str(round(sum(r["totals"]) / len(r["totals"]), 1))} for player, r in records.items()}


def club_server(directory) -> RedisServer:
    """The club's redis-server: AOF on, a user per table and the page's read-only user, from an ACL file."""
    directory.mkdir()
    acl = directory / "users.acl"
    lines = [table_line(name, PASSWORDS[name]) for name in TABLES] + [page_line("page-secret")]
    acl.write_text("".join(line.replace("ACL SETUSER ", "user ", 1) + "\n" for line in lines) + "user default on nopass ~* &* +@all\n")
    return RedisServer(directory, args=("--aclfile", str(acl)))


def wait_for(what: str, done, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, f"waited {timeout} s for {what}"
        time.sleep(0.05)


def streams(url: str, table: str) -> dict[str, list]:
    """Every game's stream of `table` at `url`, and its header, as stored."""
    journal = Journal(connect(url), table)
    return {gid: (journal.client.xrange(journal.log_key(gid)), journal.client.hgetall(journal.key("game", gid))) for gid in journal.games()}


def test_three_tables_copy_every_entry_once_through_a_club_outage_and_a_kill(tmp_path, browser):  # noqa: F811
    played = {name: Played(name, f"memory://club-e2e-{name}-{tmp_path.name}") for name in TABLES}
    club = club_server(tmp_path / "club").start()
    servers = {name: RedisServer(tmp_path / f"redis-{name}").start() for name in TABLES}
    appliances = {}
    page = None
    try:
        for name in TABLES:
            (tmp_path / name).mkdir()
            section = {"url": club.url, "table": name, "user": table_user(name), "password": PASSWORDS[name]}
            appliances[name] = Appliance(tmp_path / name, servers[name].url, played[name].tags, name, club=section)
            appliances[name].start(played[name].lines)
        longest = max(script_seconds(game.lines) for game in played.values())
        time.sleep(longest / 4)
        club.stop()  # mid-game: the tables play on and keep their copies waiting
        time.sleep(longest / 4)
        club.start()
        held = len(streams(club.url, "t2").get(Journal(connect(servers["t2"].url), "t2").current(), ([], {}))[0])
        wait_for("t2's uplink to catch up after the club came back",
                 lambda: len(next(iter(streams(club.url, "t2").values()), ([], {}))[0]) > held, 15)
        appliances["t2"].kill()  # during the burst
        t2 = Journal(connect(servers["t2"].url), "t2")
        appliances["t2"].start(played["t2"].lines[played["t2"].resume_at(t2):])
        for name, game in played.items():
            journal = Journal(connect(servers[name].url), name)
            wait_for(f"table {name} to finish its game", lambda: journal_signature(journal) == game.marks[-1],
                     3 * script_seconds(game.lines) + 30)
        for name in TABLES:
            wait_for(f"the club to hold table {name}'s games", lambda: streams(club.url, name) == streams(servers[name].url, name), 30)
        for name, appliance in appliances.items():
            appliance.stop()

        for name in TABLES:
            here, there = streams(servers[name].url, name), streams(club.url, name)
            assert there == here and len(here) == 1, f"table {name}: the club's copy differs"
            (entries, header), = there.values()
            ids = [entry_id for entry_id, _ in entries]
            assert ids == ["0-1"] + [f"{n}-0" for n in range(1, len(ids))], f"table {name}: not every entry once, in order"
            assert header["status"] == "over"

        page = Background(None, None, port=0, app=create_app(club.url, "club-page", "page-secret")).start()
        browser.get(page.url + "/")
        for name, game in played.items():
            shown = browser.execute_script(f"return [...document.querySelectorAll('#table-{name} td.total')].map(e => e.textContent)")
            names = browser.execute_script(f"return [...document.querySelectorAll('#table-{name} .name')].map(e => e.textContent)")
            assert shown == [str(t) for t in game.totals] and names == game.names, f"table {name} on the club page"
        browser.get(page.url + "/players")
        for player, record in expected_records(played).items():
            row = f"#player-{player} tr.game-{GAME}"
            shown = browser.execute_script(f"const r = document.querySelector('{row}'); "
                                           "return r && Object.fromEntries(['played', 'won', 'best', 'average'].map(k => [k, r.querySelector('.' + k).textContent]))")
            assert shown == record, f"player {player}'s record on the club page"
    finally:
        if page is not None:
            browser.get("about:blank")
            page.stop()
        for appliance in appliances.values():
            appliance.close()
        for server in (club, *servers.values()):
            server.stop()


def test_a_table_whose_club_login_is_wrong_plays_on_and_says_so(tmp_path, redis_server, notify_socket, tablemate):
    connect(redis_server.url).execute_command(*table_line("desktop", "right").split())
    profile = desktop_profile(tmp_path, store="memory://", display={"driver": "dummy"}, gap_ms=150)
    with profile.open("a", encoding="utf-8") as out:
        out.write(f'\n[club]\nurl = "{redis_server.url}"\nuser = "table-desktop"\npassword = "wrong"\n')
    notify = notify_socket("path")
    run = tablemate(profile, tmp_path, notify=notify.address, script=script_prefix(GAME, 40, tmp_path),
                    tags=[DEMOS / f"{GAME}.tags.toml"])
    notify.wait_for(lambda m: "Club: Redis password refused" in m.get("STATUS", ""), 30, "the club's refusal on STATUS=")
    playing = notify.wait_for(lambda m: " entr" in m.get("STATUS", "") and entries_of(m["STATUS"]) >= 3, 60, "the table playing on")
    assert playing["STATUS"].endswith("; Club: Redis password refused")
    out = io.StringIO()
    assert run_checks(load_profile(profile), out) == 1
    assert f"PROBLEM: club at {redis_server.url} as table 'desktop' (user table-desktop): the club's Redis refuses the password" in out.getvalue()
    assert connect(redis_server.url).keys("*") == []  # nothing reached the club
    run.signal(signal.SIGTERM)
    assert run.wait(20) == 0
