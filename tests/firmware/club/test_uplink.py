"""The uplink copies a table's games to the club exactly once, in order, whatever stops it."""

import threading

import pytest

from firmware.club.uplink import ClubTrouble, Uplink
from firmware.config import ClubConfig
from firmware.journal import Journal
from firmware.journal.lease import Holder
from firmware.store import connect, memory_server


@pytest.fixture(params=["memory", "cluster"])
def urls(request):
    """The table's store (in memory) and the club's: in memory, or a 3-master Redis Cluster."""
    base = f"memory://{request.node.nodeid}"
    if request.param == "cluster":
        if "outage" in request.function.__name__:
            pytest.skip("simulates an outage with fakeredis")
        yield f"{base}/table", request.getfixturevalue("cluster_url")
        return
    yield f"{base}/table", f"{base}/club"
    memory_server(f"{base}/club").connected = True


def table(url: str) -> Journal:
    return Journal(connect(url), "t1")


def club_of(url: str, name: str = "t1") -> Journal:
    return Journal(connect(url), name)


def play(journal: Journal, gid: str, first: int, count: int) -> None:
    for n in range(first, first + count):
        journal.append(gid, n, {"type": "lay", "n": n} if n % 5 else None)


def same(source: Journal, dest: Journal, gid: str) -> None:
    assert dest.client.xrange(dest.log_key(gid)) == source.client.xrange(source.log_key(gid))
    assert dest.client.hgetall(dest.key("game", gid)) == source.client.hgetall(source.key("game", gid))


def test_every_entry_and_header_goes_once_in_order_and_a_second_pass_copies_nothing(urls):
    source = table(urls[0])
    source.begin_game("g1", "thurn_und_taxis", ["Ana", "Ben"], {})
    play(source, "g1", 1, 12)
    uplink = Uplink(urls[0], "t1", ClubConfig(urls[1], "t1"))
    assert uplink.sync() == 13  # the header's entry 0-1 and 12 entries
    assert uplink.sync() == 0
    dest = club_of(urls[1])
    same(source, dest, "g1")
    assert dest.current() == "g1" and dest.games() == ["g1"]
    play(source, "g1", 13, 3)
    source.set_status("g1", "over", [{"player": "Ana", "total": 3}])
    source.begin_game("g2", "mongols", ["Cy", "Dee"], {})
    play(source, "g2", 1, 2)
    assert uplink.sync({"g1", "g2"}) == 6  # 3 entries of g1, the header and 2 entries of g2
    same(source, dest, "g1")
    same(source, dest, "g2")
    assert dest.current() == "g2" and dest.games() == ["g1", "g2"]


def test_a_new_uplink_resumes_after_the_clubs_last_entry(urls):
    source = table(urls[0])
    source.begin_game("g1", "thurn_und_taxis", ["Ana", "Ben"], {})
    play(source, "g1", 1, 7)
    Uplink(urls[0], "t1", ClubConfig(urls[1], "t1")).sync()
    play(source, "g1", 8, 5)
    again = Uplink(urls[0], "t1", ClubConfig(urls[1], "t1"))
    assert again.sync() == 5
    same(source, club_of(urls[1]), "g1")


def test_a_club_copy_that_is_not_the_start_of_the_tables_game_is_replaced_whole(urls):
    source = table(urls[0])
    source.begin_game("g1", "thurn_und_taxis", ["Ana", "Ben"], {})
    play(source, "g1", 1, 6)
    dest = club_of(urls[1])
    dest.client.xadd(dest.log_key("g1"), {"kind": "action", "action": "{}"}, id="1-0")
    dest.client.xadd(dest.log_key("g1"), {"kind": "action", "action": "{\"other\": 1}"}, id="2-0")
    Uplink(urls[0], "t1", ClubConfig(urls[1], "t1")).sync()
    same(source, dest, "g1")


def test_a_table_stream_that_lost_its_end_does_not_shorten_the_clubs_copy_until_repaired(urls, caplog):
    source = table(urls[0])
    source.begin_game("g1", "thurn_und_taxis", ["Ana", "Ben"], {})
    play(source, "g1", 1, 6)
    uplink = Uplink(urls[0], "t1", ClubConfig(urls[1], "t1"))
    uplink.sync()
    dest = club_of(urls[1])
    longer = dest.client.xrange(dest.log_key("g1"))
    source.client.xdel(source.log_key("g1"), "5-0", "6-0")
    for running in (uplink, Uplink(urls[0], "t1", ClubConfig(urls[1], "t1"))):  # one that copied, one just started
        assert running.sync() == 0
        assert dest.client.xrange(dest.log_key("g1")) == longer
    assert caplog.text.count("entry 5-0 is missing, and 6-0 (deleted from the end)") == 2  # once per uplink
    uplink.sync()
    assert caplog.text.count("deleted from the end") == 2
    kept = source.client.xrange(source.log_key("g1"))  # the table's log repaired: its stream written again
    source.client.delete(source.log_key("g1"))
    for entry_id, fields in kept:
        source.client.xadd(source.log_key("g1"), fields, id=entry_id)
    uplink.sync()
    same(source, dest, "g1")


def test_the_club_name_of_a_table_names_its_keys_there(urls):
    source = table(urls[0])
    source.begin_game("g1", "mongols", ["Ana", "Ben"], {})
    play(source, "g1", 1, 2)
    Uplink(urls[0], "t1", ClubConfig(urls[1], "back-room")).sync()
    same(source, club_of(urls[1], "back-room"), "g1")
    assert club_of(urls[1], "t1").games() == []


def test_a_club_outage_is_reported_once_then_the_copy_catches_up(urls):
    source = table(urls[0])
    source.begin_game("g1", "mongols", ["Ana", "Ben"], {})
    play(source, "g1", 1, 3)
    memory_server(urls[1]).connected = False
    with pytest.raises(ClubTrouble, match="does not answer"):
        Uplink(urls[0], "t1", ClubConfig(urls[1], "t1")).sync()
    reports, changed = [], threading.Event()
    uplink = Uplink(urls[0], "t1", ClubConfig(urls[1], "t1"), report=lambda short: (reports.append(short), changed.set()),
                    poll_s=0.02, retry_s=0.02)
    uplink.start()
    try:
        assert changed.wait(5) and reports == ["Club unreachable"]
        changed.clear()
        play(source, "g1", 4, 2)
        memory_server(urls[1]).connected = True
        assert changed.wait(5) and reports == ["Club unreachable", None]
        same(source, club_of(urls[1]), "g1")
    finally:
        uplink.stop()
    assert not uplink.alive()


def test_a_second_table_uplinking_under_the_same_name_is_refused_and_copies_nothing(urls):
    first, second = table(urls[0]), Journal(connect(urls[0] + "-other"), "t1")
    first.begin_game("g1", "mongols", ["Ana", "Ben"], {})
    second.begin_game("g2", "mongols", ["Cy", "Dee"], {})
    Uplink(urls[0], "t1", ClubConfig(urls[1], "t1")).sync()
    other = Uplink(urls[0] + "-other", "t1", ClubConfig(urls[1], "t1"))
    other.me = Holder("other-pi", "5d1e", 4321, "99")
    with pytest.raises(ClubTrouble, match=r"another table uplinks to the club as 't1': \S+ \(pid \d+\) holds its lease") as refused:
        other.sync()
    assert refused.value.short == "Club: t1 taken" and club_of(urls[1]).games() == ["g1"]


def test_the_tables_player_cards_are_published_and_claimed_before_a_game_names_them(urls):
    from firmware.club.players import Players, player_id
    from firmware.club.roster import Cards, registry_key
    from firmware.tagmap import TagMap

    source = table(urls[0])
    uplink = Uplink(urls[0], "t1", ClubConfig(urls[1], "t1"))
    uplink.sync()
    Players(TagMap(source.client, "t1"), "t1").enrol("0c0c0c01", "Zoé")  # enrolled after the first full pass
    source.begin_game("g1", "mongols", ["Zoé", "Ben"], {}, cards=[player_id("0c0c0c01"), None])
    uplink.sync({"g1"})
    club = connect(urls[1])
    assert club.get(registry_key(player_id("0c0c0c01"))) == "t1"
    cards = Cards.read(club, ["t1"], {player_id("0c0c0c01")})
    assert cards.counts("t1", player_id("0c0c0c01")) and cards.name(player_id("0c0c0c01")) == "Zoé"
