"""Player cards at the club, on a real redis-server with the ACLs as the docs set them (conftest.py): a
table cannot forge another table's player, while a card the owner exported to another table counts
there too."""

import json
import time

import pytest
import redis

from firmware.club.players import Players, player_id
from firmware.club.results import FUTURE_S, Club
from firmware.club.roster import Cards, registry_key, roster_key
from firmware.club.uplink import Uplink
from firmware.config import ClubConfig
from firmware.journal import Journal
from firmware.session import Session
from firmware.store import connect
from firmware.tagfile import export_text, parse
from firmware.tagmap import TagMap
from tests.firmware.web.conftest import demo

ZOE_UID = "0c0c0c01"
ZOE = player_id(ZOE_UID)


def finished(url: str, table: str, gid: str, names: list[str], cards: list, created: float) -> None:
    """The recorded Thurn und Taxis game, played to its end at `table`'s store, started at `created`."""
    log = demo()
    session = Session.start(Journal(connect(url), table, clock=lambda: created), log["game"], names, log["options"], gid=gid, cards=cards)
    for action in log["actions"]:
        session.apply(action)
    session.journal.flush()
    session.journal.release()


def uplink(club, url: str, table: str) -> None:
    Uplink(url, table, ClubConfig(club.url, table, f"table-{table}", club.passwords[table])).sync()


@pytest.fixture
def stores(memory_url):
    """Each table's own store: t1 enrolled Zoé's card; t3 imported t1's tag file (the owner's export)."""
    urls = {table: f"{memory_url}/{table}" for table in ("t1", "t2", "t3")}
    enrolled = TagMap(connect(urls["t1"]), "t1")
    Players(enrolled, "t1").enrol(ZOE_UID, "Zoé")
    TagMap(connect(urls["t3"]), "t3").set_many(parse(export_text(enrolled.items(), "t1")))
    return urls


def records(club) -> dict[str, dict]:
    return {r["player"]: r for r in Club(connect(club.url, username="club-page", password=club.page)).records()}


def test_a_table_cannot_forge_another_tables_player(club, stores):
    now = time.time()
    finished(stores["t1"], "t1", "g-t1", ["Zoé", "Max", "Cy"], [ZOE, None, None], now - 3600)
    uplink(club, stores["t1"], "t1")
    before = records(club)[ZOE]
    assert before["name"] == "Zoé" and before["played"] == 1
    # t2 knows Zoé's id from /api/players, not her card: it writes her into five finished games, some
    # dated 2100, renames her in its roster and tries the registry
    for n in range(5):
        finished(stores["t2"], "t2", f"g-forged-{n}", ["Loser", "Ben", "Cy"], [ZOE, None, None], 4102444800.0 if n % 2 else now - 60)
    uplink(club, stores["t2"], "t2")
    t2 = club.table("t2")
    t2.hset(roster_key("t2"), ZOE, json.dumps({"name": "Loser", "ticket": "0" * 32}))
    assert t2.setnx(registry_key(ZOE), "t2") is False
    for forge in (lambda: t2.set(registry_key(ZOE), "t2"), lambda: t2.delete(registry_key(ZOE)),
                  lambda: t2.hset(roster_key("t1"), ZOE, "{}")):
        with pytest.raises(redis.exceptions.NoPermissionError):
            forge()
    assert records(club)[ZOE] == before
    page = Club(connect(club.url, username="club-page", password=club.page))
    assert {seat.gid for seat in page.seats()} == {"g-t1", "g-forged-0", "g-forged-2", "g-forged-4"}  # 2100 left out
    assert all(seat.player is None for seat in page.seats() if seat.table == "t2")


def test_a_card_exported_to_another_table_counts_there_under_its_enrolling_tables_name(club, stores):
    now = time.time()
    finished(stores["t1"], "t1", "g-t1", ["Zoé", "Max", "Cy"], [ZOE, None, None], now - 7200)
    uplink(club, stores["t1"], "t1")
    finished(stores["t3"], "t3", "g-t3", ["Zozo", "Max", "Cy"], [ZOE, None, None], now - 3600)
    uplink(club, stores["t3"], "t3")
    zoe = records(club)[ZOE]
    assert zoe["played"] == 2 and zoe["name"] == "Zoé"
    tags = TagMap(connect(stores["t1"]), "t1")
    tags.load()
    Players(tags, "t1").rename("Zoé", "Zoe")
    uplink(club, stores["t1"], "t1")
    assert records(club)[ZOE]["name"] == "Zoe"


def test_the_rule_holder_or_holders_ticket():
    cards = Cards({ZOE: "t1"}, {"t1": {ZOE: {"name": "Zoé", "ticket": "a" * 32}}, "t2": {ZOE: {"name": "x", "ticket": "b" * 32}},
                                "t3": {ZOE: {"name": "Zoé", "ticket": "a" * 32}}, "t4": {ZOE: {"name": "Zoé", "ticket": None}}})
    assert [cards.counts(t, ZOE) for t in ("t1", "t2", "t3", "t4", "t5")] == [True, False, True, False, False]
    assert cards.counts("t1", "p-unclaimed") is False and cards.name(ZOE) == "Zoé"
    assert Cards({ZOE: "t1"}, {"t1": {}, "t2": {}}).counts("t2", ZOE) is False


def test_a_game_starting_past_the_clubs_clock_is_left_out(club, stores, caplog):
    finished(stores["t1"], "t1", "g-ahead", ["Zoé", "Max", "Cy"], [ZOE, None, None], time.time() + FUTURE_S + 600)
    finished(stores["t1"], "t1", "g-skew", ["Zoé", "Max", "Cy"], [ZOE, None, None], time.time() + FUTURE_S - 600)
    uplink(club, stores["t1"], "t1")
    page = Club(connect(club.url, username="club-page", password=club.page))
    assert [seat.gid for seat in page.seats() if seat.seat == 0] == ["g-skew"]
    assert "game g-ahead of table t1 starts in the future" in caplog.text
