"""Store URLs (cluster ones included) and the move of a table's keys under their hash tag."""

import fakeredis
import pytest

from firmware.store import BadStoreURL, KeyClash, cluster_nodes, migrate_keys, table_key, url_problem
from firmware.table import Table, TableSettings
from firmware.journal import Journal
from firmware.tagmap import TagMap


def test_every_key_of_a_table_carries_its_hash_tag():
    assert table_key("t1", "game", "g1", "log") == "tablemate:{t1}:game:g1:log"


@pytest.mark.parametrize("url, problem", [
    ("redis+cluster://10.0.0.5:7000,10.0.0.6:7001", None),
    ("rediss+cluster://user:secret@club.local:7000", None),
    ("redis+cluster://club.local:7000/0", "no database number"),
    ("redis+cluster://club.local", "not host:port"),
    ("cluster://club.local:7000", "must start with"),
])
def test_cluster_urls_name_their_nodes(url, problem):
    found = url_problem(url)
    assert found is None if problem is None else problem in found


def test_a_cluster_url_gives_its_credentials_and_nodes():
    assert cluster_nodes("redis+cluster://t1:p%40ss@a:7000,b:7001") == ("t1", "p@ss", [("a", 7000), ("b", 7001)])
    with pytest.raises(BadStoreURL):
        cluster_nodes("redis+cluster://a:x")


def old_store(r) -> dict:
    """A table's keys as stored before the hash tag: a game, the index, current, tags, a lease."""
    r.hset("tablemate:t1:game:g1", mapping={"game": "mongols", "status": "playing"})
    r.xadd("tablemate:t1:game:g1:log", {"kind": "undo"}, id="1-0")
    r.zadd("tablemate:t1:games", {"g1": 1.0})
    r.set("tablemate:t1:current", "g1")
    r.hset("tablemate:t1:tags", "04a1", "{}")
    r.set("tablemate:t1:writer", "someone", px=60_000)
    r.set("tablemate:t10:current", "not t1's")
    return {key: r.dump(key) for key in r.keys("tablemate:t1:*")}


def test_old_keys_move_once_whole_and_a_second_run_moves_nothing():
    r = fakeredis.FakeRedis(decode_responses=True)
    before = old_store(r)
    assert migrate_keys(r, "t1") == len(before) == 6
    after = {key: r.dump(key) for key in r.keys("tablemate:{t1}:*")}
    assert after == {key.replace("tablemate:t1:", "tablemate:{t1}:"): value for key, value in before.items()}
    assert 0 < r.pttl("tablemate:{t1}:writer") <= 60_000 and r.get("tablemate:t10:current") == "not t1's"
    assert migrate_keys(r, "t1") == 0


def test_a_key_left_under_both_names_is_dropped_when_equal_and_refused_when_not():
    r = fakeredis.FakeRedis(decode_responses=True)
    old_store(r)
    r.set("tablemate:{t1}:current", "g1")  # an interrupted move
    assert migrate_keys(r, "t1") == 5 and not r.exists("tablemate:t1:current")
    r.set("tablemate:t1:current", "g2")
    with pytest.raises(KeyClash, match=r"tablemate:t1:current and tablemate:\{t1\}:current both exist and differ"):
        migrate_keys(r, "t1")


def test_a_table_started_on_an_old_store_finds_its_game(memory_url):
    from firmware.store import connect

    client = connect(memory_url)
    journal = Journal(client, "t1")
    journal.begin_game("g1", "thurn_und_taxis", ["Ana", "Ben"], {})
    journal.append("g1", 1, {"type": "lay", "player": 0, "card": {"id": "ulm-1", "city": "ulm"}})
    journal.release()
    for key in client.keys("tablemate:{t1}:*"):
        client.rename(key, key.replace("{t1}", "t1"))  # as a store written before the hash tag
    table = Table(Journal(client, "t1"), TagMap(client, "t1"), TableSettings(players=["Ana", "Ben"]))
    table.boot()
    assert table.session is not None and table.session.gid == "g1" and table.session.entries == 1
    assert client.keys("tablemate:t1:*") == []
