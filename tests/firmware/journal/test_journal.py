"""The Redis journal: key layout, exactly-once writes through outages and lost replies, the writer
lease, a store that departs from the game (written again, or as a new game), corruption named."""

import json
import textwrap
import time

import pytest
import redis

from firmware.journal import CorruptJournal, Journal, NoSuchGame, Refused, trouble
from firmware.journal.check import examine
from firmware.journal.lease import Holder, this_process
from firmware.journal.records import Tail
from firmware.screens import Screen
from firmware.store import connect, memory_server, migrate_keys

T = "thurn_und_taxis"
OTHER_PI = Holder("other-pi", "5d1e", 4321, "99")


@pytest.fixture
def journal(store_url):
    return Journal(connect(store_url), "t1", clock=lambda: 1000.0)


def played(journal: Journal, n: int, gid: str = "g1") -> None:
    journal.begin_game(gid, T, ["Ana", "Ben"], {})
    for number in range(1, n + 1):
        journal.append(gid, number, {"n": number})


def test_keys_follow_the_architecture(journal):
    played(journal, 1)
    r = journal.client
    assert r.get("tablemate:{t1}:current") == "g1"
    assert r.zrange("tablemate:{t1}:games", 0, -1) == ["g1"]
    assert r.hget("tablemate:{t1}:game:g1", "game") == T
    assert r.hget("tablemate:{t1}:game:g1", "status") == "playing"
    (head_id, head), (entry_id, entry) = r.xrange("tablemate:{t1}:game:g1:log")
    assert (head_id, head["kind"], head["game"], json.loads(head["players"])) == ("0-1", "header", T, ["Ana", "Ben"])
    assert entry_id == "1-0" and json.loads(entry["action"]) == {"n": 1}
    assert r.get("tablemate:{t1}:writer") == this_process().text and 0 < r.pttl("tablemate:{t1}:writer") <= 15000


def test_undo_markers_remove_the_last_standing_action(journal):
    journal.begin_game("g1", T, ["Ana", "Ben"], {})
    for n, action in enumerate([{"n": 1}, {"n": 2}, None, {"n": 3}, None, None, None, {"n": 4}], start=1):
        journal.append("g1", n, action)
    record = journal.load("g1")
    assert len(record.entries) == 8  # the audit trail keeps everything
    assert record.actions == [{"n": 4}]


def test_outage_keeps_writes_in_order_and_flushes_them_once(journal, memory_url):
    played(journal, 0)
    server = memory_server(memory_url)
    server.connected = False
    journal.append("g1", 1, {"n": 1})
    journal.append("g1", 2, {"n": 2})
    assert journal.offline and journal.pending == 2 and journal.trouble.short == "Store unreachable"
    assert not journal.flush()
    server.connected = True
    assert journal.flush() and not journal.offline and journal.pending == 0
    assert journal.load("g1").actions == [{"n": 1}, {"n": 2}]


def test_a_write_whose_reply_was_lost_is_not_made_twice(journal, memory_url):
    """The transaction ran but its reply never came: the retry finds the entries there and counts them."""
    played(journal, 1)
    memory_server(memory_url).connected = False
    journal.append("g1", 2, None, {"n": 2})
    memory_server(memory_url).connected = True
    fields = journal._queue[0].mirror.entries[1:]
    journal.client.xadd(journal.log_key("g1"), fields[0], id="2-0")  # what the lost transaction wrote
    journal.client.xadd(journal.log_key("g1"), fields[1], id="3-0")
    assert journal.flush() and not journal.notices
    assert journal.load("g1").entries == [("action", {"n": 1}), ("undo", None), ("action", {"n": 2})]


def test_updates_are_published(journal):
    pubsub = journal.client.pubsub()
    pubsub.subscribe("tablemate:{t1}:updates")
    pubsub.get_message(timeout=1)
    played(journal, 1)
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
def test_corrupt_entries_are_named_with_the_entry_to_repair_at(journal, fields, message):
    played(journal, 1)
    journal.client.xadd(journal.log_key("g1"), fields, id="2-0")
    with pytest.raises(CorruptJournal, match=message) as raised:
        journal.load("g1")
    assert raised.value.entry == 2 and raised.value.repair == "tablemate log repair g1 --truncate-at 2"


def test_a_missing_entry_is_corruption_not_a_shorter_game(journal):
    played(journal, 1)
    journal.client.xadd(journal.log_key("g1"), {"kind": "undo"}, id="3-0")
    with pytest.raises(CorruptJournal, match="entry 2-0 is missing"):
        journal.load("g1")


def test_the_stream_alone_rebuilds_a_game_whose_header_hash_is_gone(journal):
    played(journal, 2)
    journal.client.delete(journal.header_key("g1"))
    record = journal.load("g1")
    assert (record.game, record.players, record.status, record.actions) == (T, ["Ana", "Ben"], "playing", [{"n": 1}, {"n": 2}])
    journal.client.delete(journal.log_key("g1"))
    with pytest.raises(NoSuchGame, match="no game 'g1' is stored at table 't1'"):
        journal.load("g1")


def test_a_header_left_without_its_stream_is_corruption_not_a_game_with_no_entries(journal):
    played(journal, 3)
    journal.set_status("g1", "over", [])
    journal.client.delete(journal.log_key("g1"))  # while no table ran: nobody wrote it again
    with pytest.raises(CorruptJournal, match=r"its entries are gone: Redis holds its header \(status over\) but no stream") as gone:
        Journal(journal.client, "t1").load("g1")
    assert gone.value.entry is None and gone.value.repair == "tablemate log check g1"


def test_real_redis_round_trip(redis_server):
    journal = Journal(connect(redis_server.url), "t1")
    journal.begin_game("g1", T, ["Ana", "Ben"], {})
    journal.append("g1", 1, {"n": 1})
    journal.append("g1", 2, None)
    journal.append("g1", 3, {"n": 2})
    assert Journal(connect(redis_server.url), "t1").load("g1").actions == [{"n": 2}]


def test_real_redis_outage_then_recovery(redis_server):
    journal = Journal(connect(redis_server.url), "t1")
    journal.begin_game("g1", T, ["Ana", "Ben"], {})
    journal.append("g1", 1, {"n": 1})
    redis_server.stop()
    journal.append("g1", 2, {"n": 2})
    journal.append("g1", 3, {"n": 3})
    assert journal.offline and journal.pending == 2
    redis_server.start()
    assert journal.flush()
    assert journal.load("g1").actions == [{"n": 1}, {"n": 2}, {"n": 3}]


# -- entries deleted from the end of the stream (records.deleted_tail) -----------------------------


def xsetid(r: redis.Redis, key: str, *args: str) -> None:
    """XSETID as someone runs it by hand; skipped where the server refuses to set the last id below
    the largest deleted one (Redis 7.4 and 8), so no store can be left in that state."""
    try:
        r.execute_command("XSETID", key, *args)
    except redis.ResponseError as error:
        if "max_deleted_entry_id" not in str(error):
            raise
        pytest.skip(f"this Redis refuses it, so no stream can be left so: {error}")


def record_of(journal: Journal, gid: str) -> tuple:
    """Redis's record of game `gid`'s stream: its last id, its newest entry, entries added, its length."""
    info = journal.client.xinfo_stream(journal.log_key(gid))
    return info["last-generated-id"], info["last-entry"][0], info["entries-added"], info["length"]


#: what is done to a game of 6 entries while no table runs, the first entry it lacks, what load() says,
#: and what Redis records (`log check` says it)
TAIL = {
    "the newest entry deleted": (lambda r, key: r.xdel(key, "6-0"), 6, "entry 6-0 is missing (deleted from the end)",
                                 "its last id is 6-0, past its newest entry 5-0"),
    "the newest three deleted": (lambda r, key: r.xdel(key, "4-0", "5-0", "6-0"), 4,
                                 "entry 4-0 is missing, and 5-0 to 6-0 (deleted from the end)",
                                 "its last id is 6-0, past its newest entry 3-0"),
    "every entry but the header deleted": (lambda r, key: r.xdel(key, *(f"{n}-0" for n in range(1, 7))), 1,
                                           "entry 1-0 is missing, and 2-0 to 6-0 (deleted from the end)",
                                           "its last id is 6-0, past its newest entry 0-1"),
    "then the last id set back (XSETID)": (lambda r, key: (r.xdel(key, "5-0", "6-0"), xsetid(r, key, "4-0")), 5,
                                           "entry 5-0 is missing, and 6-0 (deleted from the end)",
                                           "Redis deleted ids up to 6-0, past its newest entry 4-0"),
    "then the last id and the largest deleted id set back": (
        lambda r, key: (r.xdel(key, "5-0", "6-0"), xsetid(r, key, "4-0", "MAXDELETEDID", "4-0")), 5,
        "entry 5-0 is missing, and 6-0 (deleted from the end)",
        "Redis counts 7 entries ever added to it, entry 0-1 and entries up to 4-0 account for 5"),
    "another writer's entry added, then deleted": (lambda r, key: (r.xadd(key, {"kind": "undo"}, id="6-1"), r.xdel(key, "6-1")), 7,
                                                   "entries after entry 6-0 are missing (deleted from the end)",
                                                   "its last id is 6-1, past its newest entry 6-0"),
}


@pytest.mark.parametrize("tamper", TAIL)
def test_entries_deleted_from_the_end_of_the_stream_are_corruption_not_a_shorter_game(real_url, tamper):
    journal = Journal(connect(real_url), "t1")
    played(journal, 6)
    journal.release()
    do, first, message, evidence = TAIL[tamper]
    do(journal.client, journal.log_key("g1"))
    with pytest.raises(CorruptJournal) as raised:
        Journal(journal.client, "t1").load("g1")
    assert raised.value.reason == message and raised.value.entry == first
    assert raised.value.repair == f"tablemate log repair g1 --truncate-at {first}"
    assert f"Redis's record of the stream (XINFO STREAM): {evidence}" in examine(journal, "g1").notes


@pytest.mark.parametrize("last", [1888, 1889, 2000, None])
def test_a_deleted_end_is_said_in_three_lines_of_the_screen_whatever_its_entry_numbers(last):
    """A halted table shows the reason above "Run: tablemate log repair <gid> --truncate-at N" (three
    lines) and "Hold undo: menu", under the title: seven lines in all."""
    assert len(textwrap.wrap(Tail(1888, last, "Redis's record").reason, Screen().columns)) <= 3


def test_the_in_memory_store_keeps_the_same_record_of_a_stream(journal):
    """fakeredis reports XINFO STREAM's last-generated-id, max-deleted-entry-id and entries-added as
    Redis does: a table on it finds a deleted end too."""
    played(journal, 3)
    journal.client.xdel(journal.log_key("g1"), "2-0", "3-0")
    with pytest.raises(CorruptJournal, match=r"^game g1: entry 2-0 is missing, and 3-0 \(deleted from the end\)$"):
        Journal(journal.client, "t1").load("g1")


def test_a_gap_in_the_middle_is_named_before_a_deleted_end(real_url):
    journal = Journal(connect(real_url), "t1")
    played(journal, 6)
    journal.client.xdel(journal.log_key("g1"), "3-0", "6-0")
    with pytest.raises(CorruptJournal, match=r"entry 3-0 is missing \(found 4-0 instead\)") as raised:
        Journal(journal.client, "t1").load("g1")
    assert raised.value.entry == 3


def test_the_journals_own_writes_never_look_like_a_deleted_end(real_url):
    """Undo markers, a game written again under its gid or as a new game, keys moved under their hash
    tag: every stream's last id is its newest entry, and Redis counts as many entries added as it holds."""
    client = connect(real_url)
    journal = Journal(client, "t1", clock=lambda: 1000.0)
    played(journal, 3)
    journal.append("g1", 4, None)
    journal.append("g1", 5, None, {"n": 5})
    client.xdel(journal.log_key("g1"), "5-0", "6-0")  # while the table runs: it writes the game again from memory
    journal.append("g1", 7, {"n": 7})
    assert journal.notices[-1][0] == ("Game changed in Redis", "Game saved again")
    client.xadd(journal.log_key("g1"), {"kind": "undo"}, id="8-0")  # another writer's: the game moves to a new gid
    journal.append("g1", 8, {"n": 8})
    new = journal.gid_of("g1")
    assert new != "g1"
    assert record_of(journal, "g1") == ("8-0", "8-0", 9, 9) and record_of(journal, new) == ("8-0", "8-0", 9, 9)
    assert len(journal.load("g1").entries) == len(journal.load(new).entries) == 8
    journal.release()
    if "cluster" in real_url:
        return  # a cluster never held the old key names
    for key in client.keys("tablemate:{t1}:*"):
        client.rename(key, key.replace("{t1}", "t1"))  # as a store written before the hash tag
    client.xdel("tablemate:t1:game:g1:log", "8-0")
    assert migrate_keys(client, "t1") > 0
    assert record_of(journal, new) == ("8-0", "8-0", 9, 9) and len(journal.load(new).entries) == 8
    with pytest.raises(CorruptJournal, match=r"entry 8-0 is missing \(deleted from the end\)"):
        journal.load("g1")  # a deleted end moves with its stream


def test_entries_after_a_known_count(journal):
    played(journal, 4)
    assert journal.entries("g1", after=2) == [("action", {"n": 3}), ("action", {"n": 4})]
    assert journal.entries("g1", after=1, upto=2) == [("action", {"n": 2})]
    assert journal.lengths(["g1", "nothing"]) == [4, 0]
    with pytest.raises(CorruptJournal, match="entry 5-0 is missing"):
        journal.entries("g1", after=2, upto=6)


def test_several_entries_are_written_all_or_none(journal, memory_url):
    played(journal, 1)
    memory_server(memory_url).connected = False
    journal.append("g1", 2, None, {"n": 2})  # an undo and its replacement, while Redis is away
    assert journal.pending == 1
    memory_server(memory_url).connected = True
    journal.flush()
    assert journal.load("g1").entries == [("action", {"n": 1}), ("undo", None), ("action", {"n": 2})]


# -- the writer lease ------------------------------------------------------------------------------


def test_a_second_writer_is_refused_and_writes_nothing_until_the_lease_is_free(store_url):
    first = Journal(connect(store_url), "t1")
    played(first, 1)
    second = Journal(connect(store_url), "t1", instance=OTHER_PI)
    me = this_process()
    with pytest.raises(Refused, match=f"another table writes as t1: {me.host} \\(pid {me.pid}\\) holds") as refused:
        second.claim()
    assert refused.value.trouble.short == "Another table writes as t1"
    first.client.set(first.lease_key, OTHER_PI.text, px=15000)  # the other Pi took the lease while this one was cut off
    first.append("g1", 2, {"n": 2})
    assert first.pending == 1 and first.trouble.short == "Another table writes as t1" and "other-pi (pid 4321)" in first.trouble.detail
    assert first.load("g1").actions == [{"n": 1}]
    first.client.delete(first.lease_key)  # it stopped: its lease expired
    assert first.flush() and first.load("g1").actions == [{"n": 1}, {"n": 2}]


def test_a_lease_of_a_process_that_is_gone_is_taken_over_and_one_of_another_machine_expires(store_url):
    client = connect(store_url)
    me = this_process()
    dead = Holder(me.host, me.boot, 999999, "1")  # this machine, this boot, a process that is not running
    client.set("tablemate:{t1}:writer", dead.text, px=15000)
    Journal(client, "t1").claim()
    assert client.get("tablemate:{t1}:writer") == me.text
    client.set("tablemate:{t1}:writer", OTHER_PI.text, px=200)
    with pytest.raises(Refused):
        Journal(client, "t1").claim()
    time.sleep(0.3)
    Journal(client, "t1").claim()
    assert client.get("tablemate:{t1}:writer") == me.text


#: what a hostile store leaves in the lease key: each is no live writer's, so it is taken over at once
STALE_LEASES = {
    "a hash": (lambda r, key: r.hset(key, "host", "x"), "the key holds another kind of data"),
    "a list": (lambda r, key: r.rpush(key, "x"), "the key holds another kind of data"),
    "garbage with a TTL": (lambda r, key: r.set(key, "garbage", px=15000), "its value 'garbage' names no writer"),
    "garbage without a TTL": (lambda r, key: r.set(key, "garbage"), "its value 'garbage' names no writer"),
    "another Pi's without a TTL": (lambda r, key: r.set(key, OTHER_PI.text), "other-pi (pid 4321) holds it without a TTL"),
}


@pytest.mark.parametrize("left", STALE_LEASES)
def test_a_lease_that_names_no_live_writer_is_taken_over_and_said(journal, caplog, left):
    put, why = STALE_LEASES[left]
    put(journal.client, journal.lease_key)
    journal.claim()
    played(journal, 1)
    assert journal.client.get(journal.lease_key) == this_process().text and 0 < journal.client.pttl(journal.lease_key) <= 15000
    assert journal.load("g1").actions == [{"n": 1}]
    assert journal.notices == [(("Writer lease was stale", "Taken over"), journal.notices[0][1])]
    assert why in journal.notices[0][1] and why in caplog.text and "taken over" in caplog.text


def test_a_clean_stop_releases_the_lease(journal):
    journal.claim()
    journal.release()
    assert journal.holder() == (None, -2)


# -- a store that departs from the game -----------------------------------------------------------


def stored(journal: Journal, gid: str) -> list[dict]:
    return journal.load(gid).actions


SAID = {"stream": "Game gone from Redis", "header": "Game header gone", "current": "Current game lost",
        "flushall": "Game gone from Redis", "entry deleted": "Game changed in Redis"}


@pytest.mark.parametrize("tamper", SAID)
def test_what_vanished_from_the_store_is_written_again_under_the_same_gid(journal, tamper):
    played(journal, 3)
    r = journal.client
    {"stream": lambda: r.delete(journal.log_key("g1")), "header": lambda: r.delete(journal.header_key("g1")),
     "current": lambda: r.delete(journal.key("current")), "flushall": r.flushall,
     "entry deleted": lambda: r.xdel(journal.log_key("g1"), "2-0")}[tamper]()
    journal.append("g1", 4, {"n": 4})
    assert journal.pending == 0 and journal.gid_of("g1") == "g1"
    assert stored(journal, "g1") == [{"n": n} for n in range(1, 5)]
    assert journal.current() == "g1" and journal.games() == ["g1"] and r.hget(journal.header_key("g1"), "status") == "playing"
    assert journal.notices[-1] == ((SAID[tamper], "Game saved again"), f"{SAID[tamper]}: game g1 saved again")


def test_the_idle_check_notices_without_waiting_for_an_action(journal):
    played(journal, 2)
    journal.tick(0.0)
    journal.client.delete(journal.log_key("g1"))
    assert journal.tick(0.5) is False  # checked every CHECK_S
    assert journal.tick(1.5) and journal.notices[0][0] == ("Game gone from Redis", "Game saved again")
    assert stored(journal, "g1") == [{"n": 1}, {"n": 2}]


def test_a_ttl_put_on_the_tables_lasting_keys_is_removed_by_the_idle_check_and_said(journal, caplog):
    played(journal, 2)
    r = journal.client
    r.hset(journal.key("tags"), "04a1b2c3", "{}")
    for key in (journal.log_key("g1"), journal.header_key("g1"), journal.key("current"), journal.key("tags")):
        r.expire(key, 3600)
    assert journal.tick(0.0)
    assert [r.ttl(key) for key in (journal.log_key("g1"), journal.header_key("g1"), journal.key("current"), journal.key("tags"))] == [-1] * 4
    assert journal.notices[-1][0] == ("Redis keys had a TTL", "TTL removed")
    assert "tablemate:{t1}:game:g1:log, tablemate:{t1}:game:g1, tablemate:{t1}:current, tablemate:{t1}:tags had a TTL" in caplog.text
    assert 0 < r.pttl(journal.lease_key) <= 15000  # the lease keeps its own


def test_a_games_index_of_another_type_is_kept_aside_and_built_again_by_the_idle_check(journal, caplog):
    played(journal, 2, "g1")
    played(journal, 1, "g[2]*")  # a gid the SCAN pattern must not take for a glob
    r, index = journal.client, journal.key("games")
    r.delete(index)
    r.set(index, "not an index")
    r.set(journal.key("game", "gx"), "not a header")
    assert journal.games() == [] and journal.notices[-1][0] == ("Games index damaged", "Games not listed")
    assert journal.tick(0.0)
    assert sorted(journal.games()) == ["g1", "g[2]*"]
    aside = [key for key in r.scan_iter(match=f"{index}:damaged-*")]
    assert len(aside) == 1 and r.get(aside[0]) == "not an index"
    assert journal.notices[-1][0] == ("Games index damaged", "Index rebuilt")
    assert f"kept as {aside[0]}, 2 games listed again" in caplog.text
    journal.append("g[2]*", 2, {"n": 2})
    said = len(journal.notices)
    journal.tick(10.0)  # the index is sound again: nothing more to say
    assert len(journal.notices) == said and r.type(index) == "zset"


def test_an_entry_another_writer_put_at_the_next_id_moves_the_game_to_a_new_gid(journal):
    played(journal, 2)
    foreign = {"kind": "action", "at": "1.0", "action": json.dumps({"n": "theirs"})}
    journal.client.xadd(journal.log_key("g1"), foreign, id="3-0")
    journal.append("g1", 3, {"n": 3})
    new = journal.gid_of("g1")
    assert new != "g1" and journal.current() == new and sorted(journal.games()) == sorted(["g1", new])
    assert stored(journal, new) == [{"n": 1}, {"n": 2}, {"n": 3}]
    assert journal.client.xrange(journal.log_key("g1"))[-1] == ("3-0", foreign)  # the other writer's data stays
    assert journal.load(new).notes == {"forked_from": "g1", "fork_reason": "entry 3-0 was written by another writer"}
    assert journal.load("g1").notes == {"forked_to": new}
    assert journal.notices[-1] == (("Another table writes as t1", "Saved as a new game"),
                                   f"Another table writes as t1: game g1 saved again as game {new}")
    journal.append("g1", 4, {"n": 4})  # the game goes on under its new gid
    assert stored(journal, new)[-1] == {"n": 4}


def test_an_entry_changed_in_the_middle_is_found_by_the_full_audit(journal):
    played(journal, 3)
    r, key = journal.client, journal.log_key("g1")
    entries = r.xrange(key)
    r.delete(key)
    for entry_id, fields in entries:
        r.xadd(key, {**fields, "action": json.dumps({"n": "changed"})} if entry_id == "2-0" else fields, id=entry_id)
    journal.tick(0.0)
    new = journal.gid_of("g1")
    assert new != "g1" and stored(journal, new) == [{"n": 1}, {"n": 2}, {"n": 3}]


def test_a_key_holding_another_type_of_data_is_left_alone(journal):
    played(journal, 1)
    journal.client.delete(journal.log_key("g1"))
    journal.client.set(journal.log_key("g1"), "not a stream")
    journal.append("g1", 2, {"n": 2})
    new = journal.gid_of("g1")
    assert new != "g1" and journal.client.get(journal.log_key("g1")) == "not a stream"
    assert stored(journal, new) == [{"n": 1}, {"n": 2}]
    assert journal.client.hget(journal.header_key("g1"), "forked_to") == new  # its readable header still links the two


# -- what errors mean ------------------------------------------------------------------------------


@pytest.mark.parametrize("error, short", [
    (redis.ConnectionError("Connection refused"), "Store unreachable"),
    (redis.exceptions.OutOfMemoryError("command not allowed when used memory > 'maxmemory'.", status_code="OOM"), "Redis full"),
    (redis.ResponseError("Command # 1 (XADD s 1-0 a 1) of pipeline caused error: MISCONF Redis is configured to save RDB "
                         "snapshots, but it's currently unable to persist to disk."), "Redis disk error"),
    (redis.exceptions.ReadOnlyError("Command # 1 (SET a 2) of pipeline caused error: You can't write against a read only "
                                    "replica.", status_code="READONLY"), "Redis read-only"),
    (redis.AuthenticationError("invalid username-password pair", status_code="WRONGPASS"), "Redis password refused"),
    (redis.exceptions.NoPermissionError("this user has no permissions to run the 'xadd' command", status_code="NOPERM"), "Redis denies access"),
    (redis.ResponseError("BUSY Redis is busy running a script."), "Redis busy"),
    (redis.exceptions.BusyLoadingError("Redis is loading the dataset in memory", status_code="LOADING"), "Redis loading"),
    (redis.exceptions.ExecAbortError("Transaction discarded because of: NOSCRIPT No matching script."), "Redis script missing"),
    (redis.ResponseError("SOMETHING new"), "Redis error SOMETHING"),
])
def test_every_refusal_has_a_one_line_reason(error, short):
    assert trouble(error).short == short and len(short) <= 25


def test_a_games_index_of_another_type_does_not_stop_the_writes(journal):
    played(journal, 1)
    journal.client.delete(journal.key("games"))
    journal.client.set(journal.key("games"), "not a sorted set")
    journal.append("g1", 2, {"n": 2})
    assert journal.pending == 0 and not journal.offline and stored(journal, "g1") == [{"n": 1}, {"n": 2}]
    journal.client.delete(journal.key("current"))  # and a starting table without its pointer finds no game, but starts
    assert journal.resumable() is None and journal.games() == []
