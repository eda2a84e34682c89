"""The journal's writer thread (firmware/journal/writer.py): the table hands a write over and goes
on at once; the writes that queued up while the disk was slow go out together, in order; a write
that waits too long is marked on the screen until it is on the disk; and at the next start the
inputs shown but never saved are named."""

import threading
import time

import pytest

from firmware.journal import SAVE_MARK_S, Journal, Writer
from firmware.journal.local import LocalCopy
from firmware.journal.records import REPLACING, replacing
from firmware.journal.shown import Shown
from firmware.screens import Screen
from firmware.store import connect, table_key
from tests.e2e.autopilot import Autopilot
from tests.e2e.games import bot_game, components, enrol
from tests.e2e.rig import Rig

from .test_local import T, Table, numbers, played


class SlowCard:
    """The local copy's fdatasync held until `release()` (a card's controller stalling), counted."""

    def __init__(self, monkeypatch):
        self.gate, self.syncs, self.entered = threading.Event(), 0, threading.Event()
        sync = LocalCopy.sync

        def slow(copy):
            if copy._unsynced:
                self.syncs += 1
                self.entered.set()
                assert self.gate.wait(10)
            sync(copy)

        monkeypatch.setattr(LocalCopy, "sync", slow)

    def release(self) -> None:
        self.gate.set()


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def writer(url, tmp_path, clock=None) -> Writer:
    journal = Journal(connect(url), "t1", clock=lambda: 1000.0, local=LocalCopy(tmp_path / "state", "t1"))
    writer = Writer(journal, clock or Clock())
    writer.claim()
    writer.reconcile()
    return writer


def test_a_slow_disk_never_holds_the_table_and_what_queued_up_goes_out_together_in_order(memory_url, tmp_path, monkeypatch):
    clock = Clock()
    journal = writer(memory_url, tmp_path, clock)
    journal.start()
    journal.begin_game("g1", T, ["Ana", "Ben"], {})
    journal.send()
    assert journal.wait(5)
    card = SlowCard(monkeypatch)
    journal.append("g1", 1, {"n": 1})
    journal.send()
    assert card.entered.wait(5)  # the writer thread is in the card's fdatasync...
    for number in range(2, 6):  # ...and the table goes on taking actions
        journal.append("g1", number, {"n": number})
        journal.send()
    assert journal.unsaved == 5 and not journal.offline
    clock.now = SAVE_MARK_S + 0.01  # long enough: the screen says so
    assert journal.tick(clock.now) and journal.offline and journal.trouble.short == "Not saved yet"
    card.release()
    assert journal.wait(5)
    assert card.syncs == 2  # the action that was being written, then the four that queued up behind it
    assert numbers(journal, "g1") == [1, 2, 3, 4, 5] and journal.unsaved == 0
    journal.tick(clock.now)
    assert not journal.offline
    journal.close()


def test_at_the_table_taps_are_shown_while_the_card_stalls_and_marked_until_they_are_on_the_disk(redis_server, tmp_path,
                                                                                                     monkeypatch):
    """The appliance (mock readers and buttons, its loop, its writer thread, a local copy): while the
    card holds the writer in its first fdatasync, the players' next inputs are applied and drawn, and
    what each frame shows is noted only once that frame is out; after SAVE_MARK_S the table says
    "Not saved yet"; once the card answers, everything is saved, the queued writes with one fsync."""
    actions = bot_game("taj_mahal", 3, {}, 7)
    rig = Rig(redis_server.url, local_dir=tmp_path / "state")
    uids = enrol(rig.table.tags, components("taj_mahal", actions))
    for label in ("Taj Mahal", "3 players", "Hints on"):
        rig.choose(label)
    writer = rig.table.journal
    writer.start()
    card, order = SlowCard(monkeypatch), []
    show, note = rig.app.display.show, writer.shown.note
    monkeypatch.setattr(rig.app.display, "show", lambda image: (order.append("frame"), show(image)))
    monkeypatch.setattr(writer.shown, "note", lambda shown: (order.append("note"), note(shown)))
    try:
        Autopilot(rig.table, rig, lambda component: uids[component["id"]]).play(actions[:3])
        assert card.syncs == 1 and writer.unsaved == 3  # the first write is in the card's fdatasync
        assert len(rig.table.session.actions) == 3 and rig.image == Screen().render(rig.table.view())
        assert order.count("note") == 3 and all(order[n - 1] == "frame" for n, what in enumerate(order) if what == "note")
        assert not rig.table.view().offline
        time.sleep(SAVE_MARK_S + 0.05)
        rig.app.loop.idle()
        view = rig.table.view()
        assert view.offline and view.hint == "! Not saved yet" and "3 action(s) shown are not yet on the disk" in rig.app.loop.status()
    finally:
        card.release()
    assert writer.wait(5)
    rig.app.loop.idle()
    assert not rig.table.view().offline and "not yet on the disk" not in rig.app.loop.status()
    assert card.syncs == 2 and writer.load(rig.table.session.gid).actions == actions[:3]
    rig.close()


def test_at_the_table_an_input_shown_and_lost_with_the_power_is_named_on_the_screen_at_the_next_start(redis_server,
                                                                                                     tmp_path, monkeypatch):
    """The power goes while Redis is down: the last play was shown, its write never reached Redis,
    and the card lost the local copy's record of it, but the note of what was shown reached it. The
    table started again says so on its screen, naming the play, and goes on from the play before."""
    actions = bot_game("taj_mahal", 3, {}, 7)
    rig = Rig(redis_server.url, local_dir=tmp_path / "state")
    uids = enrol(rig.table.tags, components("taj_mahal", actions))
    for label in ("Taj Mahal", "3 players", "Hints on"):
        rig.choose(label)
    hands = Autopilot(rig.table, rig, lambda component: uids[component["id"]])
    hands.play(actions[:2])
    redis_server.kill()
    monkeypatch.setattr(LocalCopy, "entries", lambda *args: None)
    hands.play(actions[2:3])
    assert len(rig.table.session.actions) == 3 and rig.table.journal.pending
    rig.close()  # the power is gone: nothing more reaches Redis or the card
    monkeypatch.undo()
    redis_server.start()

    rig = Rig(redis_server.url, local_dir=tmp_path / "state")
    rig.app.loop.idle()  # the first tick after the start, as the loop's
    view = rig.table.view()
    assert view.lines[:2] == ("Not saved before", "the power went:") and view.lines[-1] == "Tap it again"
    assert view.lines[2].startswith(rig.table.session.players[actions[2]["player"]])
    assert rig.table.session.actions == tuple(actions[:2])
    rig.close()


def test_a_write_is_saved_once_the_local_copy_holds_it_on_the_disk_while_redis_is_down(memory_url, tmp_path):
    """The store down: the write waits for Redis with its reason, but it is on the disk, so it is
    not "not saved yet"."""
    clock = Clock()
    journal = writer(memory_url, tmp_path, clock)
    journal.start()
    played(journal, 1)
    journal.send()
    assert journal.wait(5)
    Table(memory_url, tmp_path).down()
    journal.append("g1", 2, {"n": 2})
    journal.send()
    clock.now = 10.0
    assert journal.wait(5)
    journal.tick(clock.now)
    assert journal.trouble.short == "Store unreachable" and journal.pending and journal.unsaved == 0
    Table(memory_url, tmp_path).down(False)
    journal.close()


def test_every_call_runs_on_the_writer_thread_in_the_order_made(memory_url, tmp_path, monkeypatch):
    threads = set()
    append = Journal.append

    def noted(self, *args, **kwargs):
        threads.add(threading.current_thread().name)
        append(self, *args, **kwargs)

    monkeypatch.setattr(Journal, "append", noted)
    journal = writer(memory_url, tmp_path)
    journal.start()
    played(journal, 20)
    assert journal.flush() and threads == {"tablemate-journal"} and numbers(journal, "g1") == list(range(1, 21))
    journal.close()


def test_a_replacement_s_marker_is_written_noted_and_recorded_as_shown_as_an_undo_marker(memory_url, tmp_path):
    """A card added to a play (firmware.session): its undo marker, noted replaced=1, goes out on the
    writer thread with the action after it, in Redis and in the local copy, and the record of what was
    shown holds it as the undo marker it is."""
    journal = writer(memory_url, tmp_path)
    journal.start()
    played(journal, 1)
    journal.append("g1", 2, REPLACING, {"n": 2})
    assert journal.flush() and numbers(journal, "g1") == [2]
    assert [replacing(fields) for fields in journal.load("g1").raw] == [False, True, False]
    kept = LocalCopy(tmp_path / "state", "t1").load(aside=False).games[-1]
    assert [replacing(fields) for fields in kept.entries] == [False, True, False]
    assert Shown(tmp_path / "state", "t1").read()[1:] == [("g1", 2, None), ("g1", 3, {"n": 2})]
    journal.close()


def test_inputs_shown_and_lost_with_the_power_are_named_at_the_next_start(memory_url, tmp_path, monkeypatch):
    """A power cut drops what was not synced: the local copy's and Redis's last writes were never
    made, but the record of what was shown reached the card (the kernel wrote it back): the next
    start names the two inputs, and only those."""
    table = Table(memory_url, tmp_path / "state")
    journal = writer(memory_url, tmp_path)
    played(journal, 2)
    table.down()  # Redis refuses, and the card loses the local copy's record with the power
    monkeypatch.setattr(LocalCopy, "entries", lambda *args: None)
    journal.append("g1", 3, {"n": 3})
    journal.append("g1", 4, None)
    journal.send()  # their frame shown
    monkeypatch.undo()
    journal.journal.close()
    table.down(False)

    journal = writer(memory_url, tmp_path)
    lines, said = journal.notices[-1]
    assert lines[:2] == ("Not saved before", "the power went:") and lines[-1] == "Tap it again"
    assert said.startswith("not saved before the power went: ") and said.count(";") == 1 and "undo" in said
    assert numbers(journal, "g1") == [1, 2]
    assert Shown(tmp_path / "state", "t1").read() == []  # said once: the record begins again
    journal = writer(memory_url, tmp_path)
    assert not journal.notices


def test_inputs_the_store_holds_are_not_named(memory_url, tmp_path):
    journal = writer(memory_url, tmp_path)
    played(journal, 3)
    journal.send()
    journal.journal.close()
    assert len(Shown(tmp_path / "state", "t1").read()) == 3
    assert not writer(memory_url, tmp_path).notices


def test_a_torn_or_damaged_line_of_the_record_is_skipped(tmp_path):
    shown = Shown(tmp_path, "t1")
    shown.open()
    shown.note([("g1", 1, [{"n": 1}, None])])
    shown.close()
    with open(shown.path, "ab") as file:
        file.write(b'{"gid": "g1", "entry": 3, "act')
    assert shown.read() == [("g1", 1, {"n": 1}), ("g1", 2, None)]


@pytest.mark.parametrize("kind", ["entries", "begin"])
def test_the_local_copy_is_on_the_disk_before_redis_gets_a_write(memory_url, tmp_path, monkeypatch, kind):
    """The order the local copy's promise needs (a file Redis is told holds a write holds it on the
    disk): the Writer's batch syncs first, and so does every transaction."""
    journal = writer(memory_url, tmp_path)
    seen = []
    execute = type(journal.client.pipeline()).execute

    def checked(pipe, *args, **kwargs):
        seen.append(journal.journal.local.synced)
        return execute(pipe, *args, **kwargs)

    monkeypatch.setattr(type(journal.client.pipeline()), "execute", checked)
    played(journal, 2 if kind == "entries" else 0)
    assert seen and all(seen)
    assert journal.client.exists(table_key("t1", "game", "g1", "log"))
