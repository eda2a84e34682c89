"""The journal's local copy (firmware/journal/local.py): written before Redis, it brings back at the
next start what Redis lacks or lost, exactly once, and moves a game Redis changed to a new gid; a
torn, damaged or unwritable file never stops the table. A "kill" here is a journal dropped with
its writes still waiting (a process killed keeps nothing else: each line was synced as it was written)."""

import errno
import json

import pytest

from firmware.journal import CorruptJournal, Journal
from firmware.journal import local as local_module
from firmware.journal.check import repair
from firmware.journal.local import LocalCopy
from firmware.store import connect, memory_server, table_key

from .test_journal import xsetid

T = "thurn_und_taxis"


class Table:
    """One table's store and local directory; `start()` is a run of the appliance (claim, reconcile)."""

    def __init__(self, url: str, directory):
        self.url, self.directory = url, directory
        self.client = connect(url)
        self.runs: list[Journal] = []

    def start(self, local: bool = True) -> Journal:
        for run in self.runs:
            run.close()  # the last run is killed: its file is closed, nothing more
        journal = Journal(connect(self.url), "t1", clock=lambda: 1000.0,
                          local=LocalCopy(self.directory, "t1") if local else None)
        journal.claim()
        journal.reconcile()
        self.runs.append(journal)
        return journal

    def recovered(self, journal: Journal) -> str:
        """The game a starting table recovers (Session.recover), adopted: its gid."""
        gid = journal.resumable()
        journal.adopt(journal.load(gid))
        return gid

    def down(self, down: bool = True) -> None:
        memory_server(self.url).connected = not down

    def stream(self, gid: str) -> list:
        return self.client.xrange(table_key("t1", "game", gid, "log"))

    def file(self):
        return LocalCopy(self.directory, "t1").load()


@pytest.fixture
def table(store_url, tmp_path):
    """On the in-memory store and on a Redis Cluster; a test that asks for `memory_url` too cuts
    fakeredis's connection (an outage) and runs on the in-memory store alone."""
    return Table(store_url, tmp_path / "state")


def played(journal: Journal, n: int, first: int = 1, gid: str = "g1") -> None:
    if first == 1:
        journal.begin_game(gid, T, ["Ana", "Ben"], {})
    for number in range(first, first + n):
        journal.append(gid, number, {"n": number})


def numbers(journal: Journal, gid: str) -> list:
    return [action["n"] for action in journal.load(gid).actions]


def test_what_waited_for_redis_when_the_table_was_killed_is_written_once_at_the_next_start(table, memory_url):
    journal = table.start()
    played(journal, 2)
    table.down()
    journal.append("g1", 3, {"n": 3})
    journal.append("g1", 4, None, {"n": 4})  # a replaced play: undo and action in one write
    journal.set_status("g1", "over", [])
    assert journal.pending == 3 and journal.kept == table.directory / "t1.jsonl"
    table.down(False)  # killed before the loop's next tick; Redis answers again

    journal = table.start()
    assert [kind for kind, _ in journal.load("g1").entries] == ["action"] * 3 + ["undo", "action"]
    assert numbers(journal, "g1") == [1, 2, 4] and journal.load("g1").status == "over"
    assert journal.notices == [(("Redis lacked 3 entries", "Saved from local copy"),
                                "Redis lacked 3 entries of game g1: written from the local copy")]
    assert table.recovered(journal) == "g1" and [g.gid for g in table.file().games] == ["g1"]
    journal.append("g1", 6, {"n": 5})  # the game goes on
    assert len(table.stream("g1")) == 7

    journal = table.start()  # and once more: nothing is written twice
    assert len(table.stream("g1")) == 7 and not journal.notices


def test_a_game_begun_while_redis_was_down_is_written_whole_and_made_current(table, memory_url):
    played(table.start(), 2)
    table.down()
    journal = table.runs[-1]
    journal.set_status("g1", "abandoned")
    played(journal, 2, gid="g2")
    table.down(False)

    journal = table.start()
    assert journal.load("g1").status == "abandoned" and numbers(journal, "g2") == [1, 2]
    assert journal.current() == "g2" and journal.games() == ["g1", "g2"]
    assert journal.notices[-1][0] == ("Redis lacked the game", "Saved from local copy")
    assert table.recovered(journal) == "g2" and [g.gid for g in table.file().games] == ["g2"]


FOREIGN = {"kind": "action", "at": "1.0", "action": json.dumps({"n": "theirs"})}


def change_entry_2(r) -> None:
    key = table_key("t1", "game", "g1", "log")
    entries = r.xrange(key)
    r.delete(key)
    for entry_id, fields in entries:
        r.xadd(key, FOREIGN if entry_id == "2-0" else fields, id=entry_id)


TAMPER = {
    "stream deleted": (lambda r: r.delete(table_key("t1", "game", "g1", "log")), "Game gone from Redis", True),
    "header deleted": (lambda r: r.delete(table_key("t1", "game", "g1")), "Game header gone", True),
    "FLUSHALL": (lambda r: r.flushall(), "Redis lacked the game", True),
    "a foreign entry at the next id": (lambda r: r.xadd(table_key("t1", "game", "g1", "log"), FOREIGN, id="4-0"),
                                       "Another table writes as t1", False),
    "an entry changed": (change_entry_2, "Game changed in Redis", False),
}


@pytest.mark.parametrize("tamper", TAMPER)
def test_a_store_tampered_with_just_before_a_kill_gets_the_tables_game_back(table, tamper):
    change, said, same_gid = TAMPER[tamper]
    played(table.start(), 3)
    change(table.client)
    before = table.stream("g1")

    journal = table.start()
    gid = table.recovered(journal)
    assert numbers(journal, gid) == [1, 2, 3] and len(journal.load(gid).entries) == 3
    assert journal.notices[-1][0][0] == said
    if same_gid:
        assert gid == "g1"
    else:  # what the table did not write is left as it was; the game goes on under a new gid
        assert gid != "g1" and table.stream("g1") == before
        assert journal.load(gid).notes["forked_from"] == "g1" and journal.load("g1").notes == {"forked_to": gid}
        assert sorted(journal.games()) == sorted(["g1", gid])
    assert [g.gid for g in table.file().games] == [gid]
    table.start()
    assert table.runs[-1].current() == gid and sorted(journal.games()) == sorted({"g1", gid})  # not forked twice


LOG = table_key("t1", "game", "g1", "log")


def record_of(client) -> tuple:
    """Redis's record of game g1's stream: its last id, entries added, its length."""
    info = client.xinfo_stream(LOG)
    return info["last-generated-id"], info["entries-added"], info["length"]


#: entries deleted from the end of game g1's stream (6 entries) while no table runs, and how many
DELETED_END = {
    "the newest three": (lambda r: r.xdel(LOG, "4-0", "5-0", "6-0"), 3),
    "every entry but the header": (lambda r: r.xdel(LOG, *(f"{n}-0" for n in range(1, 7))), 6),
    "the newest three, then the last id set back": (
        lambda r: (r.xdel(LOG, "4-0", "5-0", "6-0"), xsetid(r, LOG, "3-0", "MAXDELETEDID", "3-0")), 3),
}


@pytest.mark.parametrize("deleted", DELETED_END)
def test_entries_deleted_from_the_end_of_the_stream_are_written_back_at_their_ids(real_url, tmp_path, deleted):
    """XADD refuses an id at or below the stream's last id, and Redis 8 any XSETID below the largest
    deleted id: the stream is written anew, and Redis's record of it ends as if nothing had been
    deleted."""
    table = Table(real_url, tmp_path / "state")
    played(table.start(), 6)
    before = table.stream("g1")
    delete, lacked = DELETED_END[deleted]
    delete(table.client)

    journal = table.start()
    assert journal.notices == [((f"Redis lacked {lacked} entries", "Saved from local copy"),
                                f"Redis lacked {lacked} entries of game g1: written from the local copy")]
    assert table.stream("g1") == before and record_of(table.client) == ("6-0", 7, 7)
    assert table.recovered(journal) == "g1"
    journal.append("g1", 7, {"n": 7})  # the game goes on
    assert numbers(journal, "g1") == list(range(1, 8))


def test_entries_the_local_copy_lacks_stay_missing_once_the_others_are_written_back(real_url, tmp_path):
    table = Table(real_url, tmp_path / "state")
    played(table.start(), 4)
    journal = table.start(local=False)  # a run without the local copy: Redis alone gets entries 5 and 6
    table.recovered(journal)
    journal.append("g1", 5, {"n": 5})
    journal.append("g1", 6, {"n": 6})
    before = table.stream("g1")
    table.client.xdel(LOG, "3-0", "4-0", "5-0", "6-0")

    journal = table.start()
    assert journal.notices[-1][0] == ("Redis lacked 2 entries", "Saved from local copy")
    assert table.stream("g1") == before[:5] and record_of(table.client) == ("6-0", 7, 5)
    with pytest.raises(CorruptJournal, match=r"entry 5-0 is missing, and 6-0 \(deleted from the end\)"):
        journal.load("g1")  # the table halts on it, as on any missing entry (tablemate log repair accepts the loss)


def test_a_store_without_xsetid_gets_the_game_written_again_whole_instead(memory_url, tmp_path):
    """fakeredis (the in-memory store) has no XSETID: the entries cannot go back at their ids, so the
    game is written again whole under its gid (the stream anew), as for any other change."""
    table = Table(memory_url, tmp_path / "state")
    played(table.start(), 4)
    before = table.stream("g1")
    table.client.xdel(LOG, "3-0", "4-0")

    journal = table.start()
    assert (("Game changed in Redis", "Game saved again"), "Game changed in Redis: game g1 saved again") in journal.notices
    assert table.stream("g1") == before and record_of(table.client) == ("4-0", 5, 5)
    assert table.recovered(journal) == "g1" and numbers(journal, "g1") == [1, 2, 3, 4]


def test_a_file_made_whole_at_start_is_vouched_for_before_any_write(table):
    played(table.start(), 2)
    table.client.flushall()  # Redis forgets the file's token too: at the next start it is not whole...
    table.recovered(table.start())  # ...until it is written again from what it holds
    table.client.xadd(table_key("t1", "game", "g1", "log"), FOREIGN, id="3-0")  # and killed before any write

    journal = table.start()
    gid = table.recovered(journal)
    assert gid != "g1" and numbers(journal, gid) == [1, 2] and table.stream("g1")[-1] == ("3-0", FOREIGN)


def forking(table, monkeypatch, then):
    """A journal of game g1 (2 entries) whose stream took a foreign entry 3, so that appending entry 3
    forks; `then()` runs right after the local copy recorded the fork's new gid."""
    journal = table.start()
    played(journal, 2)
    table.client.xadd(table_key("t1", "game", "g1", "log"), FOREIGN, id="3-0")
    moved = LocalCopy.moved

    def moved_then(self, *args):
        moved(self, *args)
        then()

    monkeypatch.setattr(LocalCopy, "moved", moved_then)
    return journal


def test_a_fork_cut_short_by_a_kill_is_finished_under_the_gid_the_file_names_not_forked_again(table, monkeypatch, memory_url):
    journal = forking(table, monkeypatch, table.down)
    journal.append("g1", 3, {"n": 3})
    assert journal.pending and journal.gid_of("g1") == "g1"  # the fork's transaction never ran
    monkeypatch.undo()
    table.down(False)

    journal = table.start()
    gid = table.recovered(journal)
    assert gid != "g1" and sorted(journal.games()) == sorted(["g1", gid]) and numbers(journal, gid) == [1, 2, 3]
    assert journal.load(gid).notes["forked_from"] == "g1" and table.stream("g1")[-1] == ("3-0", FOREIGN)
    assert journal.load("g1").notes == {"forked_to": gid}  # the old header is linked in the new game's first write


class Killed(BaseException):
    """The process killed: nothing after this point runs, not even the transaction's cleanup."""


def killed() -> None:
    raise Killed


def test_a_fork_killed_between_its_local_record_and_its_transaction_links_both_headers_at_the_next_start(table, monkeypatch):
    journal = forking(table, monkeypatch, killed)
    with pytest.raises(Killed):
        journal.append("g1", 3, {"n": 3})
    monkeypatch.undo()
    assert table.client.hget(table_key("t1", "game", "g1"), "forked_to") is None

    journal = table.start()
    gid = table.recovered(journal)
    assert gid != "g1" and numbers(journal, gid) == [1, 2, 3]
    assert journal.load(gid).notes["forked_from"] == "g1" and journal.load("g1").notes == {"forked_to": gid}


def test_an_older_local_copy_gives_way_to_what_redis_holds(table):
    played(table.start(), 2)
    other = table.start(local=False)  # a run without the local copy (or `tablemate restore`) writes on
    table.recovered(other)
    other.append("g1", 3, {"n": 3})
    assert table.client.get(table_key("t1", "local")) is None

    journal = table.start()
    assert numbers(journal, "g1") == [1, 2, 3] and journal.games() == ["g1"] and not journal.notices


def test_a_game_repaired_in_redis_is_not_undone_by_the_local_copy(table, tmp_path):
    journal = table.start()
    played(journal, 3)  # {"n": 1} is no Thurn und Taxis action: the rules refuse entry 1
    repair(Journal(connect(table.url), "t1"), "g1", 1, tmp_path)

    journal = table.start()
    assert journal.load("g1").entries == [] and not journal.notices


#: a record the power cut while it was written: its start on the disk and not its end, or its end
#: and not its start (the blocks never written read back as zeros)
RECORD = b'{"t":"entries","gid":"g1","first":4,"fields":[{"kind":"action","action":"{\\"n\\": 4}"}]}\n'
#: what the start says when the local copy gave Redis back entry 3, and no more: nothing of damage
SAVED_FROM_COPY = ("Redis lacked 1 entries", "Saved from local copy")
TORN = {"its start": (RECORD[:40], "its end missing"),
        "its end": (b"\0" * 40 + RECORD[40:], "its start never written: NUL bytes")}


@pytest.mark.parametrize("torn", TORN)
def test_a_torn_last_line_is_ignored_and_a_damaged_line_is_reported_and_kept_aside(table, caplog, memory_url, torn):
    journal = table.start()
    played(journal, 2)
    table.down()
    journal.append("g1", 3, {"n": 3})
    table.down(False)
    path = table.directory / "t1.jsonl"
    data, how = TORN[torn]
    with path.open("ab") as file:
        file.write(data)  # the power went during this write

    journal = table.start()
    assert f"t1.jsonl: its last line was torn by a power cut while it was written ({len(data)} bytes, {how}): ignored" in caplog.text
    assert numbers(journal, "g1") == [1, 2, 3] and [lines for lines, _ in journal.notices] == [SAVED_FROM_COPY]
    assert data not in path.read_bytes()  # compacted away
    table.recovered(journal)

    table.down()
    journal.append("g1", 4, {"n": 4})
    journal.append("g1", 5, {"n": 5})
    table.down(False)
    lines = path.read_bytes().split(b"\n")
    lines[-3] = b'{"t":"entries","gid":"g1","first":4,"fields":[{"kind":"action"}]}'  # entry 4 damaged on the card
    path.write_bytes(b"\n".join(lines))

    journal = table.start()
    (aside,) = table.directory.glob("t1.jsonl.damaged-*")
    assert aside.read_bytes() == b"\n".join(lines)  # nothing dropped: the owner has it all
    assert "the local copy" in caplog.text and "is damaged at line" in caplog.text and "entry 4-0 holds no readable action" in caplog.text
    assert journal.notices[-1][0] == ("Local copy damaged", "Kept aside; play on")
    assert numbers(journal, "g1") == [1, 2, 3]  # what the lines before it hold (Redis already had it)
    assert table.recovered(journal) == "g1" and [len(g.entries) for g in table.file().games] == [3]


#: how the harness cuts the file after the table wrote game g1 and entries 1-4, each sent to Redis
CUTS = {
    "the last line's newline": lambda data: data[:-1],
    "half of the last line": lambda data: data[:data.rindex(b"\n", 0, -1) + (len(data) - data.rindex(b"\n", 0, -1)) // 2],
    "the last line whole": lambda data: data[:data.rindex(b"\n", 0, -1) + 1],
    "the last two lines whole": lambda data: data[:data.rindex(b"\n", 0, data.rindex(b"\n", 0, -1)) + 1],
}


@pytest.mark.parametrize("cut", CUTS)
def test_a_local_copy_cut_short_on_the_disk_gives_way_to_the_longer_game_redis_holds(table, cut, caplog):
    """The file lost records that were sent (Redis's `local` mark counts them): not whole, so the
    entries Redis holds beyond it are the table's own, not another writer's: no fork, nothing lost."""
    played(table.start(), 4)
    path = table.directory / "t1.jsonl"
    path.write_bytes(CUTS[cut](path.read_bytes()))

    journal = table.start()
    assert table.recovered(journal) == "g1" and numbers(journal, "g1") == [1, 2, 3, 4] and journal.games() == ["g1"]
    assert journal.load("g1").notes == {} and journal.notices[-1][0] == ("Local copy cut short", "Redis keeps the game")
    assert "cut short on the disk" in caplog.text and [len(g.entries) for g in table.file().games] == [4]
    table.start()
    assert table.runs[-1].games() == ["g1"] and not table.runs[-1].notices  # whole again


def test_a_torn_last_line_is_never_taken_for_a_record_even_when_what_is_left_of_it_parses(table, memory_url):
    journal = table.start()
    played(journal, 2)
    table.down()
    journal.append("g1", 3, {"n": 3})  # the power went as this line was written: only its newline is missing
    table.down(False)
    path = table.directory / "t1.jsonl"
    path.write_bytes(path.read_bytes()[:-1])
    assert [len(g.entries) for g in table.file().games] == [2]

    journal = table.start()
    assert numbers(journal, "g1") == [1, 2] and not journal.notices


def test_an_unwritable_directory_is_said_once_and_play_goes_on_with_redis_alone(table, tmp_path, caplog):
    (tmp_path / "a-file").write_text("")
    table.directory = tmp_path / "a-file" / "state"  # cannot be made
    journal = table.start()
    played(journal, 2)
    assert numbers(journal, "g1") == [1, 2] and journal.kept is None
    assert journal.notices == [(("Local copy failed", "Play goes on"), journal.notices[0][1])]
    assert "a-file/state" in journal.notices[0][1] and "Redis alone keeps" in caplog.text
    assert table.client.get(table_key("t1", "local")) is None


def test_a_full_disk_mid_game_turns_the_local_copy_off_and_its_older_file_gives_way_to_redis(table, monkeypatch):
    journal = table.start()
    played(journal, 2)
    assert table.client.get(table_key("t1", "local")) == f"{table.file().token} 3"  # the file's token and its records: game, 2 entries

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(local_module.os, "fdatasync", full)
    journal.append("g1", 3, {"n": 3})
    journal.append("g1", 4, {"n": 4})
    monkeypatch.undo()
    assert numbers(journal, "g1") == [1, 2, 3, 4] and journal.pending == 0
    assert [notice[0] for notice in journal.notices] == [("Local copy failed", "Play goes on")]
    assert table.client.get(table_key("t1", "local")) is None  # the file no longer holds every write

    journal = table.start()
    assert numbers(journal, "g1") == [1, 2, 3, 4] and journal.games() == ["g1"] and not journal.notices


def test_the_file_holds_the_current_game_and_the_games_still_waiting_for_redis(table, memory_url):
    journal = table.start()
    played(journal, 2)
    table.down()
    journal.set_status("g1", "abandoned")
    played(journal, 1, gid="g2")
    assert [g.gid for g in table.file().games] == ["g1", "g2"] and table.file().active == "g2"
    table.down(False)
    journal.flush()
    assert [(g.gid, len(g.entries)) for g in table.file().games] == [("g2", 1)]
