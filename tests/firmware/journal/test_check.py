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
