"""The game in progress: engine first, journal second; undo; recovery by replay; corruption refused."""

import json
from pathlib import Path

import pytest

import engines
from firmware import gamelog
from firmware.journal import CorruptJournal, Journal
from firmware.session import Session
from firmware.store import connect

LAY = {"type": "lay", "player": 0, "card": {"id": "ulm-1", "city": "ulm"}}
DEMO = Path(__file__).parent / "thurn_und_taxis.log.json"
END = {"type": "end_turn", "player": 0}


@pytest.fixture
def journal(memory_url):
    return Journal(connect(memory_url), "t1")


def start(journal):
    return Session.start(journal, "thurn_und_taxis", ["Ana", "Ben"], gid="g1")


def test_accepted_actions_reach_the_journal(journal):
    session = start(journal)
    session.apply(LAY)
    session.apply(END)
    assert journal.load("g1").actions == [LAY, END]
    assert session.state.turn == 1


def test_a_refused_action_changes_nothing_and_stores_nothing(journal):
    session = start(journal)
    with pytest.raises(engines.IllegalAction):
        session.apply({"type": "end_turn", "player": 0})
    assert journal.load("g1").entries == [] and len(session.states) == 1 and session.entries == 0


def test_undo_is_repeatable_and_journaled_as_markers(journal):
    session = start(journal)
    session.apply(LAY)
    session.apply(END)
    assert session.undo() and session.undo()
    assert not session.undo()  # nothing left before the start
    assert session.state == session.game.start(["Ana", "Ben"])
    record = journal.load("g1")
    assert [kind for kind, _ in record.entries] == ["action", "action", "undo", "undo"]
    session.apply(LAY)
    assert journal.load("g1").actions == [LAY]


def test_recovery_rebuilds_the_same_state(journal):
    session = start(journal)
    session.apply(LAY)
    session.apply(END)
    session.undo()
    recovered = Session.recover(journal)
    assert recovered.gid == "g1" and recovered.state == session.state and recovered.entries == 3
    recovered.apply(END)
    assert journal.load("g1").actions == [LAY, END]


def test_no_current_game_recovers_to_none(journal):
    assert Session.recover(journal) is None


def test_an_entry_the_rules_refuse_is_corruption(journal):
    session = start(journal)
    session.apply(LAY)
    journal.append("g1", 2, {"type": "lay", "player": 1, "card": {"id": "x", "city": "paris"}})
    with pytest.raises(CorruptJournal, match="entry 2-0 is refused"):
        Session.recover(journal)


def test_status_follows_the_end_of_the_game_and_its_undo(journal):
    log = gamelog.load(DEMO)
    session = Session.start(journal, log.game, log.players, log.options, gid="g1")
    for action in log.actions:
        session.apply(action)
    header = journal.client.hgetall("tablemate:{t1}:game:g1")
    assert header["status"] == "over"
    assert [s["total"] for s in json.loads(header["scores"])] == [s.total for s in session.game.scores(session.state)]
    assert session.undo()
    assert journal.client.hget("tablemate:{t1}:game:g1", "status") == "playing"


def test_replace_journals_the_undo_and_the_new_action_together(journal):
    session = start(journal)
    session.apply(LAY)
    other = {"type": "lay", "player": 0, "card": {"id": "augsburg-1", "city": "augsburg"}}
    session.replace(other)
    assert journal.load("g1").entries == [("action", LAY), ("undo", None), ("action", other)]
    assert session.entries == 3 and len(session.states) == 2
    assert Session.recover(journal).state == session.state
    with pytest.raises(engines.IllegalAction):
        session.replace({"type": "lay", "player": 1, "card": {"id": "x", "city": "ulm"}})
    assert journal.load("g1").actions == [other]


def test_recovery_mends_a_status_the_stop_left_behind(journal):
    log = gamelog.load(DEMO)
    session = Session.start(journal, log.game, log.players, log.options, gid="g1")
    for action in log.actions:
        session.apply(action)
    journal.client.hset("tablemate:{t1}:game:g1", "status", "playing")  # killed before the status write
    Session.recover(journal).mend()
    assert journal.client.hget("tablemate:{t1}:game:g1", "status") == "over"
    session = Session.recover(journal)
    session.undo()
    journal.client.hset("tablemate:{t1}:game:g1", "status", "over")  # killed between the undo and its status write
    Session.recover(journal).mend()
    assert journal.client.hget("tablemate:{t1}:game:g1", "status") == "playing"
