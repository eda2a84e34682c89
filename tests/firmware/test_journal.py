"""The Redis journal: key layout, ordered writes through outages without loss or duplicates, corruption."""

import json

import pytest

from firmware.journal import CorruptJournal, Journal
from firmware.store import connect, memory_server


@pytest.fixture
def journal(memory_url):
    return Journal(connect(memory_url), "t1", clock=lambda: 1000.0)


def test_keys_follow_the_architecture(journal):
    journal.begin_game("g1", "thurn_und_taxis", ["Ana", "Ben"], {})
    journal.append("g1", 1, {"type": "end_turn", "player": 0})
    r = journal.client
    assert r.get("tablemate:t1:current") == "g1"
    assert r.zrange("tablemate:t1:games", 0, -1) == ["g1"]
    assert r.hget("tablemate:t1:game:g1", "game") == "thurn_und_taxis"
    assert r.hget("tablemate:t1:game:g1", "status") == "playing"
    entries = r.xrange("tablemate:t1:game:g1:log")
    assert entries[0][0] == "1-0"
    assert json.loads(entries[0][1]["action"]) == {"type": "end_turn", "player": 0}


def test_undo_markers_remove_the_last_standing_action(journal):
    journal.begin_game("g1", "thurn_und_taxis", ["Ana", "Ben"], {})
    for n, (kind, action) in enumerate([("a", {"n": 1}), ("a", {"n": 2}), ("u", None), ("a", {"n": 3}), ("u", None), ("u", None), ("u", None), ("a", {"n": 4})], start=1):
        journal.append("g1", n, action)
    record = journal.load("g1")
    assert len(record.entries) == 8  # the audit trail keeps everything
    assert record.actions == [{"n": 4}]


def test_outage_keeps_writes_in_order_and_flushes_them_once(journal, memory_url):
    journal.begin_game("g1", "thurn_und_taxis", ["Ana", "Ben"], {})
    server = memory_server(memory_url)
    server.connected = False
    journal.append("g1", 1, {"n": 1})
    journal.append("g1", 2, {"n": 2})
    assert journal.offline and journal.pending == 2
    assert not journal.flush()
    server.connected = True
    assert journal.flush() and not journal.offline and journal.pending == 0
    assert journal.load("g1").actions == [{"n": 1}, {"n": 2}]


def test_a_write_repeated_after_a_lost_reply_is_not_stored_twice(journal):
    journal.begin_game("g1", "thurn_und_taxis", ["Ana", "Ben"], {})
    journal.append("g1", 1, {"n": 1})
    journal.append("g1", 1, {"n": 1})  # what a retry after a dropped reply does
    assert journal.load("g1").entries == [("action", {"n": 1})]


def test_updates_are_published(journal):
    pubsub = journal.client.pubsub()
    pubsub.subscribe("tablemate:t1:updates")
    pubsub.get_message(timeout=1)
    journal.begin_game("g1", "thurn_und_taxis", ["Ana", "Ben"], {})
    journal.append("g1", 1, {"n": 1})
    messages = [pubsub.get_message(timeout=1) for _ in range(2)]
    assert [json.loads(m["data"])["event"] for m in messages] == ["new_game", "action"]


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"kind": "action", "action": "{not json"}, "entry 2-0 holds no readable action"),
        ({"kind": "action"}, "entry 2-0 holds no readable action"),
        ({"kind": "action", "action": "[1, 2]"}, "entry 2-0 is not an action object"),
        ({"kind": "bogus"}, "entry 2-0 has unknown kind 'bogus'"),
    ],
)
def test_corrupt_entries_are_named(journal, fields, message):
    journal.begin_game("g1", "thurn_und_taxis", ["Ana", "Ben"], {})
    journal.append("g1", 1, {"n": 1})
    journal.client.xadd(journal.log_key("g1"), fields, id="2-0")
    with pytest.raises(CorruptJournal, match=message):
        journal.load("g1")


def test_a_missing_entry_is_corruption_not_a_shorter_game(journal):
    journal.begin_game("g1", "thurn_und_taxis", ["Ana", "Ben"], {})
    journal.append("g1", 1, {"n": 1})
    journal.append("g1", 3, {"n": 3})
    with pytest.raises(CorruptJournal, match="entry 2-0 is missing"):
        journal.load("g1")


def test_real_redis_round_trip(redis_server):
    journal = Journal(connect(redis_server.url), "t1")
    journal.begin_game("g1", "thurn_und_taxis", ["Ana", "Ben"], {})
    journal.append("g1", 1, {"n": 1})
    journal.append("g1", 2, None)
    journal.append("g1", 3, {"n": 2})
    assert Journal(connect(redis_server.url), "t1").load("g1").actions == [{"n": 2}]


def test_real_redis_outage_then_recovery(redis_server):
    journal = Journal(connect(redis_server.url), "t1")
    journal.begin_game("g1", "thurn_und_taxis", ["Ana", "Ben"], {})
    journal.append("g1", 1, {"n": 1})
    redis_server.stop()
    journal.append("g1", 2, {"n": 2})
    journal.append("g1", 3, {"n": 3})
    assert journal.offline and journal.pending == 2
    redis_server.start()
    assert journal.flush()
    assert journal.load("g1").actions == [{"n": 1}, {"n": 2}, {"n": 3}]


def test_entries_after_a_known_count(journal):
    journal.begin_game("g1", "thurn_und_taxis", ["Ana", "Ben"], {})
    for n in range(1, 5):
        journal.append("g1", n, {"n": n})
    assert journal.entries("g1", after=2) == [("action", {"n": 3}), ("action", {"n": 4})]
    assert journal.entries("g1", after=1, upto=2) == [("action", {"n": 2})]
    with pytest.raises(CorruptJournal, match="entry 5-0 is missing"):
        journal.entries("g1", after=2, upto=6)


def test_several_entries_are_written_all_or_none(journal, memory_url):
    journal.begin_game("g1", "thurn_und_taxis", ["Ana", "Ben"], {})
    journal.append("g1", 1, {"n": 1})
    memory_server(memory_url).connected = False
    journal.append("g1", 2, None, {"n": 2})  # an undo and its replacement, while Redis is away
    assert journal.pending == 1
    memory_server(memory_url).connected = True
    journal.flush()
    journal.append("g1", 2, None, {"n": 2})  # written again after a lost reply: harmless
    assert journal.load("g1").entries == [("action", {"n": 1}), ("undo", None), ("action", {"n": 2})]

