"""`tablemate log check` and `log repair` on a game damaged in several places (firmware/journal/check.py)."""

import json

import pytest

from firmware.journal import Journal, NoSuchGame
from firmware.journal.check import RepairRefused, examine, repair
from firmware.session import Session
from firmware.store import connect

LAYS = [{"type": "lay", "player": 0, "card": {"id": "ulm-1", "city": "ulm"}}, {"type": "end_turn", "player": 0},
        {"type": "lay", "player": 1, "card": {"id": "augsburg-1", "city": "augsburg"}}, {"type": "end_turn", "player": 1}]


@pytest.fixture
def journal(store_url):
    journal = Journal(connect(store_url), "t1")
    session = Session.start(journal, "thurn_und_taxis", ["Ana", "Ben"], gid="g1")
    for action in LAYS:
        session.apply(action)
    return journal


def test_a_whole_game_is_reported_healthy(journal):
    report = examine(journal, "g1")
    assert not report.damages and report.lines()[0] == "game g1: Thurn und Taxis, 2 players, 4 entries"
    assert report.lines()[-1] == "  ok: every entry is readable and the rules accept every action"
    with pytest.raises(NoSuchGame):
        examine(journal, "nothing")


def test_every_damaged_part_is_listed_with_the_repair_for_the_first(journal):
    r, key = journal.client, journal.log_key("g1")
    stored = r.xrange(key)
    r.delete(key)
    for entry_id, fields in stored:
        if entry_id == "2-0":
            fields = {**fields, "action": json.dumps({"type": "end_turn", "player": 1})}  # refused: not Ben's turn
        if entry_id != "3-0":
            r.xadd(key, fields, id=entry_id)
    r.xadd(key, {"kind": "mystery"}, id="5-0")
    r.hset(journal.header_key("g1"), "players", "{oops")
    report = examine(journal, "g1")
    assert [(d.entry, d.reason.split(":")[0]) for d in report.damages] == [
        (None, "unreadable header hash (Expecting property name enclosed in double quotes"),
        (2, "is refused by the rules"), (3, "is missing (found 4-0 instead)"), (5, "has unknown kind 'mystery'")]
    assert "  repair: tablemate log repair g1 --truncate-at 2 (keeps entries 1-1)" in report.lines()
    assert "entries after 2-0 are not judged by the rules: each depends on the ones before" in report.notes


def test_a_repair_keeps_a_backup_and_refuses_what_it_cannot_mend(journal, tmp_path):
    with pytest.raises(RepairRefused, match="no entry is damaged"):
        repair(journal, "g1", 2, tmp_path)
    journal.client.xdel(journal.log_key("g1"), "3-0")
    with pytest.raises(RepairRefused, match="entry 3-0 is the first damaged one: truncate at 3 or before"):
        repair(journal, "g1", 4, tmp_path)
    lines = repair(journal, "g1", 2, tmp_path)
    assert lines[0] == "game g1: kept entries 1-1, removed 2 from 2-0 on"
    assert [kind for kind, _ in journal.load("g1").entries] == ["action"] and journal.load("g1").notes["repaired"]
    (backup,) = tmp_path.glob("tablemate-t1-g1-*.json")
    saved = json.loads(backup.read_text())
    assert [entry_id for entry_id, _ in saved["stream"]] == ["0-1", "1-0", "2-0", "4-0"]
    assert [entry_id for entry_id, _ in journal.client.xrange(saved["key"])] == ["0-1", "1-0", "2-0", "4-0"]


def rewrite_head(journal, **fields) -> None:
    r, key = journal.client, journal.log_key("g1")
    stored = r.xrange(key)
    r.delete(key)
    for entry_id, stored_fields in stored:
        r.xadd(key, {**stored_fields, **fields} if entry_id == "0-1" else stored_fields, id=entry_id)


#: damage to a game's header alone, what `log check` says of it, and how many entries a repair keeps
HEADER_DAMAGE = {
    "hash of another type": (lambda j: (j.client.delete(j.header_key("g1")), j.client.rpush(j.header_key("g1"), "x")),
                             "holds a list, not a game's data", 4),
    "hash unreadable": (lambda j: j.client.hset(j.header_key("g1"), "players", "{oops"), "unreadable header hash", 4),
    "scores unreadable": (lambda j: j.client.hset(j.header_key("g1"), "scores", "{oops"), "unreadable header (scores", 4),
    "hash names another game": (lambda j: j.client.hset(j.header_key("g1"), "players", '["Cy", "Dee"]'), "name different games", 4),
    "entry 0-1 unreadable": (lambda j: rewrite_head(j, options="{oops"), "unreadable entry 0-1", 4),
    "stream gone": (lambda j: j.client.delete(j.log_key("g1")), "its entries are gone: Redis holds its header (status playing)", 0),
}


@pytest.mark.parametrize("damage", HEADER_DAMAGE)
def test_a_damaged_header_alone_is_repaired_keeping_every_entry(journal, tmp_path, damage):
    tamper, said, kept = HEADER_DAMAGE[damage]
    journal.client.hset(journal.header_key("g1"), "forked_from", "g0")
    tamper(journal)
    report = examine(journal, "g1")
    assert [d.entry for d in report.damages] == [None] and said in report.damages[0].reason
    assert report.lines()[-1] == "  repair: tablemate log repair g1 (rebuilds the header, keeps every entry)"

    lines = repair(journal, "g1", None, tmp_path / "backups")
    assert lines[0] == f"game g1: header rebuilt, every entry kept ({kept})" and said in lines[1] and lines[1].endswith(": mended")
    record = Journal(journal.client, "t1").load("g1")
    assert record.actions == LAYS[:kept] and record.players == ["Ana", "Ben"] and record.status == "playing"
    assert record.notes["repaired"].split(": ", 1)[1].startswith("header rebuilt, every entry kept")
    assert not examine(journal, "g1").damages and len(list((tmp_path / "backups").glob("tablemate-t1-g1-*.json"))) == 1
    if damage != "hash of another type":
        assert record.notes["forked_from"] == "g0"  # the notes it had are kept


def test_a_header_that_names_a_game_the_rules_refuse_is_not_mended_by_a_repair(journal, tmp_path):
    journal.client.hset(journal.header_key("g1"), "game", "chess")
    rewrite_head(journal, game="chess")
    with pytest.raises(RepairRefused, match="unknown game 'chess': no repair mends that"):
        repair(journal, "g1", None, tmp_path)


def test_entries_deleted_from_the_end_are_listed_and_a_repair_accepts_their_loss(real_url, tmp_path):
    journal = Journal(connect(real_url), "t1")
    session = Session.start(journal, "thurn_und_taxis", ["Ana", "Ben"], gid="g1")
    for action in LAYS:
        session.apply(action)
    journal.release()
    key = journal.log_key("g1")
    journal.client.xdel(key, "3-0", "4-0")
    stored = journal.client.xrange(key)

    report = examine(journal, "g1")
    assert report.lines() == [
        "game g1: Thurn und Taxis, 2 players, 2 entries", "  note: status playing",
        "  note: Redis's record of the stream (XINFO STREAM): its last id is 4-0, past its newest entry 2-0",
        "  entry 3-0: is missing, and 4-0 (deleted from the end)",
        "  repair: tablemate log repair g1 --truncate-at 3 (keeps entries 1-2)"]
    with pytest.raises(RepairRefused, match="entry 3-0 is damaged: give --truncate-at 3 "):
        repair(journal, "g1", None, tmp_path)

    lines = repair(journal, "g1", 3, tmp_path)
    assert lines[:2] == ["game g1: kept entries 1-2, every one stored",
                         "  entry 3-0 is missing, and 4-0 (deleted from the end): accepted as lost "
                         "(the stream's last id is 2-0 again)"]
    info = journal.client.xinfo_stream(key)
    assert (info["last-generated-id"], info["entries-added"], info["max-deleted-entry-id"], info["length"]) == ("2-0", 3, "0-0", 3)
    (backup,) = tmp_path.glob("tablemate-t1-g1-*.json")
    saved = json.loads(backup.read_text())
    assert journal.client.xrange(saved["key"]) == stored and journal.client.xinfo_stream(saved["key"])["last-generated-id"] == "4-0"
    assert not examine(journal, "g1").damages
    assert journal.load("g1").notes["repaired"].split(": ", 1)[1].startswith("truncated at entry 3-0")
    session = Session.recover(journal)  # the table goes on from entry 3
    session.apply(LAYS[2])
    assert journal.load("g1").actions == LAYS[:3]
