"""STATUS= (sd_notify) says what a hostile environment did to the table's keys and files, each time:
the writer lease taken over, the local copy cut short, tag entries mended, a game whose entries or
header are gone halted with its reason; the lines a person reads with `systemctl status tablemate`."""

import pytest

from drivers.display import DisplaySpec, open_display
from firmware.journal import Journal
from firmware.journal.local import LocalCopy
from firmware.loop import Loop
from firmware.store import connect, table_key
from firmware.table import Table
from firmware.tagmap import TagEntry, TagMap
from tests.status_log import StatusLog

LAY = {"type": "lay", "player": 0, "card": {"id": "ulm-1", "city": "ulm"}}
TAG = TagEntry("thurn_und_taxis", "card", {"id": "ulm-1", "city": "ulm"}, "Ulm")


def run(url: str, local_dir=None) -> tuple[Loop, list[str]]:
    """The appliance started (boot, first frame, READY=1) and one idle tick later: its STATUS= lines."""
    client = connect(url)
    table = Table(Journal(client, "t1", local=LocalCopy(local_dir, "t1") if local_dir else None), TagMap(client, "t1", local_dir))
    statuses = StatusLog()
    loop = Loop(table, open_display(DisplaySpec(driver="dummy")), notifier=statuses)
    loop.start()
    loop.idle()
    return loop, statuses.lines


def played(url: str, local_dir=None) -> str:
    """A run that enrolled a tag, began a game and laid a card, then was killed: the game's gid."""
    loop, _ = run(url, local_dir)
    loop.table.tags.set("04a1b2c3", TAG)
    loop.table.new_game("thurn_und_taxis", ["Ana", "Ben"], {})
    loop.table.session.apply(LAY)
    loop.table.journal.close()
    return loop.table.session.gid


def cut_last_line(local_dir) -> None:
    path = local_dir / "t1.jsonl"
    data = path.read_bytes()
    path.write_bytes(data[:data.rindex(b"\n", 0, -1) + 1])


#: what is done between two runs, whether that run keeps a local copy, and what STATUS= must say
CASES = {
    "a lease of another type": (lambda r, gid, d: (r.delete(table_key("t1", "writer")), r.rpush(table_key("t1", "writer"), "x")), False,
                                "the writer lease was stale (the key holds another kind of data than a writer's name): taken over"),
    "a garbage lease without a TTL": (lambda r, gid, d: r.set(table_key("t1", "writer"), "garbage"), False,
                                      "the writer lease was stale (its value 'garbage' names no writer): taken over"),
    "the local copy cut short": (lambda r, gid, d: cut_last_line(d), True, "lacks its last 1 records (cut short on the disk)"),
    "an unreadable tag entry": (lambda r, gid, d: r.hset(table_key("t1", "tags"), "04a1b2c3", "{oops"), True,
                                "Redis held unreadable tag 04a1b2c3: mended from the local copy"),
    "the stream deleted, no local copy": (lambda r, gid, d: r.delete(table_key("t1", "game", gid, "log")), False,
                                          "Halted: game {gid}: its entries are gone: Redis holds its header (status playing) but no "
                                          "stream (deleted?); repair: tablemate log check {gid}"),
    "the header of another type, no local copy": (lambda r, gid, d: (r.delete(table_key("t1", "game", gid)),
                                                                     r.rpush(table_key("t1", "game", gid), "x")), False,
                                                  "Halted: game {gid}: tablemate:{{t1}}:game:{gid} holds another kind of data than a "
                                                  "game's; repair: tablemate log check {gid}"),
    "the games index of another type": (lambda r, gid, d: (r.delete(table_key("t1", "games")), r.set(table_key("t1", "games"), "x")),
                                        False, "tablemate:{{t1}}:games held another kind of data than the index of games: kept as "),
    "the games index of another type, current gone": (lambda r, gid, d: (r.delete(table_key("t1", "games"), table_key("t1", "current")),
                                                                        r.set(table_key("t1", "games"), "x")), False,
                                                       "Current game lost: game {gid} saved again"),
    "a TTL on the game's stream": (lambda r, gid, d: r.expire(table_key("t1", "game", gid, "log"), 3600), False,
                                   "tablemate:{{t1}}:game:{gid}:log had a TTL (it would have expired, and the game or the tag map "
                                   "with it): removed"),
    "the header of another type, with the local copy": (lambda r, gid, d: (r.delete(table_key("t1", "game", gid)),
                                                                           r.rpush(table_key("t1", "game", gid), "x")), True,
                                                        "Game changed in Redis: game {gid} saved again as game "),
}


@pytest.mark.parametrize("case", CASES)
def test_status_says_what_was_done_to_the_tables_keys_and_files(memory_url, tmp_path, case):
    tamper, local, said = CASES[case]
    local_dir = tmp_path / "state" if local else None
    gid = played(memory_url, local_dir)
    tamper(connect(memory_url), gid, local_dir)
    _, lines = run(memory_url, local_dir)
    assert any(said.format(gid=gid) in line for line in lines), lines
