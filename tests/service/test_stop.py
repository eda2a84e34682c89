"""Stopping the service: SIGTERM (systemctl stop) and SIGINT (Ctrl-C) end the loop, every action the
table accepted is in the journal, the display is left "Paused" (or blanked, per the profile), the
pins are released, the exit status is 0; the next start shows the same game."""

import dataclasses
import os
import signal
import threading
import uuid
from pathlib import Path

import pytest
from gpiozero import Button
from PIL import Image

from drivers.buttons import ButtonEvent
from drivers.display import DisplaySpec
from drivers.readers import TagEvent
from firmware import script, tagfile
from firmware.app import App
from firmware.config import StoreConfig, load_profile
from firmware.journal import Journal
from firmware.screens import Screen
from firmware.script import VirtualClock, VirtualTime
from firmware.sdnotify import Notifier
from firmware.store import connect, memory_server
from firmware.views import MessageView

from .support import DEMOS, desktop_profile, entries_of, script_prefix, unit_seconds

GAME = "thurn_und_taxis"
TAGS = DEMOS / f"{GAME}.tags.toml"
PAUSED = Screen().render(MessageView("Paused", ("tablemate stopped", "Game kept")))
#: the same with a memory:// store, which ends with the process: no game is kept
PAUSED_IN_MEMORY = Screen().render(MessageView("Paused", ("tablemate stopped", "Memory store: not kept")))
STOP_S = unit_seconds("TimeoutStopSec")


def reference_entries(profile: Path, steps: list[script.Step]) -> list[tuple]:
    """The journal entries the table writes for `steps`, played in virtual time in this process on a
    store of its own: what a real process given the same script journals, or a prefix when stopped early."""
    built = load_profile(profile)
    built = dataclasses.replace(built, store=StoreConfig(f"memory://reference-{uuid.uuid4().hex}"),
                                display=DisplaySpec(driver="dummy"))
    clock = VirtualClock()
    app = App.build(built, clock=clock, web=False)
    try:
        app.loop.table.tags.set_many(tagfile.load(TAGS))
        app.loop.start()
        VirtualTime(app, clock).play(steps)
        session = app.loop.table.session
        return app.loop.table.journal.entries(session.gid)
    finally:
        app.close()


def frames(directory: Path) -> list[bytes]:
    """The PNG display's frames, oldest first, as 1-bit pixel data."""
    return [Image.open(path).convert("1").tobytes() for path in sorted(directory.glob("frame-*.png"))]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_mid_game_exits_0_with_everything_journaled_and_the_next_start_shows_the_same_game(
        sig, tmp_path, redis_server, notify_socket, tablemate):
    notify = notify_socket("abstract")
    png = tmp_path / "png"
    profile = desktop_profile(tmp_path, store=redis_server.url, display={"driver": "png", "png_dir": str(png)}, gap_ms=150)
    played = script_prefix(GAME, 60, tmp_path)
    reference = reference_entries(profile, script.load(played))
    first = tablemate(profile, tmp_path, notify=notify.address, script=played, tags=[TAGS])

    notify.wait_for(lambda m: m.get("READY") == "1", 30, "READY=1")
    notify.wait_for(lambda m: m.get("STATUS", "").endswith(" 10 entries"), 60, "the tenth journal entry")
    first.signal(sig)  # while the script still plays: mid-game, mid-input
    notify.wait_for(lambda m: m.get("STOPPING") == "1", STOP_S, "STOPPING=1")
    assert first.wait(STOP_S) == 0, first.stderr()
    assert "Traceback" not in first.stderr() and "not yet in Redis" not in first.stderr(), first.stderr()

    last_status = [m["STATUS"] for m in notify.received if "STATUS" in m and "STOPPING" not in m][-1]
    accepted = entries_of(last_status)
    journal = Journal(connect(redis_server.url), "desktop")
    gid = journal.current()
    stored = journal.entries(gid)
    assert len(stored) == accepted, f"the table reported {last_status!r}"
    assert 10 <= accepted < len(reference), "stopped after the script ended, not mid-game"
    assert stored == reference[:accepted]
    shown = frames(png)
    assert shown[-1] == PAUSED.tobytes() and shown[-2] != PAUSED.tobytes()

    second = tablemate(profile, tmp_path, notify=notify.address)
    ready = notify.wait_for(lambda m: m.get("READY") == "1", 30, "READY=1 of the second start")
    assert ready["STATUS"] == last_status  # the same game, phase and entry count, recovered from Redis
    assert journal.current() == gid and len(journal.entries(gid)) == accepted
    assert frames(png)[-1] != PAUSED.tobytes()  # the game is on screen again
    second.signal(signal.SIGTERM)
    assert second.wait(STOP_S) == 0, second.stderr()


@pytest.mark.parametrize("on_stop", ["paused", "blank"])
def test_the_last_frame_is_paused_or_left_to_be_blanked_per_the_profile(on_stop, tmp_path, notify_socket, tablemate):
    notify = notify_socket("path")
    png = tmp_path / "png"
    profile = desktop_profile(tmp_path, store="memory://", display={"driver": "png", "png_dir": str(png), "on_stop": on_stop})
    process = tablemate(profile, tmp_path, notify=notify.address)
    notify.wait_for(lambda m: m.get("READY") == "1", 30, "READY=1")
    process.signal(signal.SIGTERM)
    assert process.wait(STOP_S) == 0, process.stderr()
    shown = frames(png)
    assert shown and (shown[-1] == PAUSED_IN_MEMORY.tobytes()) is (on_stop == "paused")
    assert PAUSED_IN_MEMORY.tobytes() not in shown[:-1]


def serve_until(app: App, sig: signal.Signals, notify, then=lambda: None) -> int:
    """Run `app.run()` here (the main thread, where Python handles signals); once READY=1 arrives,
    another thread does `then()` and sends `sig` to this process, as systemctl stop or Ctrl-C would.
    A failure in that thread stops the loop and is raised here."""
    failures: list[BaseException] = []

    def stop_when_ready() -> None:
        try:
            notify.wait_for(lambda m: m.get("READY") == "1", 10, "READY=1")
            then()
        except BaseException as error:
            failures.append(error)
            app.loop.stop()  # never leave the test hanging
            return
        os.kill(os.getpid(), sig)

    helper = threading.Thread(target=stop_when_ready, name="test-stopper")
    helper.start()
    try:
        code = app.run()
    finally:
        helper.join(10)
    if failures:
        raise failures[0]
    return code


@pytest.mark.parametrize("on_stop", ["paused", "blank"])
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_the_panel_keeps_the_paused_frame_or_is_blanked_and_every_pin_is_released(sig, on_stop, tmp_path, memory_url, notify_socket):
    notify = notify_socket("path")
    display = {"driver": "dummy", "on_stop": on_stop}
    profile = load_profile(desktop_profile(tmp_path, store=memory_url, display=display))
    app = App.build(profile, notifier=Notifier(notify.address, "", ""))
    panel = app.display.display.device  # luma's in-memory panel: it keeps what was last sent to it
    handlers = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)

    assert serve_until(app, sig, notify) == 0
    if on_stop == "paused":
        assert panel.persist and panel.image.tobytes() == PAUSED_IN_MEMORY.tobytes()
    else:
        assert not panel.persist and panel.image.getbbox() is None  # switched off and cleared
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)) == handlers
    for role in ("withdraw", "pass", "undo", "next", "ok"):
        Button(app.buttons.pin(role), pin_factory=app.buttons.factory).close()  # GPIOPinInUse if still held
    app.readers.readers["seat0"].place("04000001")
    assert app.loop.events.empty()  # a closed reader reports nothing


def as_events(app: App, steps: list[script.Step]) -> list:
    """The loop events a script's taps and presses become, posted straight to the loop's queue."""
    events = []
    for step in steps:
        if step.verb == "tap":
            reader = app.readers.readers[step.args[0]]
            events.append(TagEvent(reader.name, step.args[1], "arrived", reader.seat))
        elif step.verb in ("press", "hold"):
            events.append(ButtonEvent(step.args[0], step.verb))
    return events


@pytest.mark.parametrize("store_back", [True, False], ids=["store-back", "store-still-down"])
def test_entries_waiting_for_the_store_are_written_at_the_stop_once_it_answers(store_back, tmp_path, memory_url, notify_socket, caplog):
    notify = notify_socket("path")
    path = desktop_profile(tmp_path, store=memory_url, display={"driver": "dummy"})
    steps = script.load(script_prefix(GAME, 30, tmp_path))
    reference = reference_entries(path, steps)
    app = App.build(load_profile(path), notifier=Notifier(notify.address, "", ""))
    app.loop.tick_s = 3600  # no idle tick retries the store: only the stop can write what waits
    app.loop.table.tags.set_many(tagfile.load(TAGS))
    events = as_events(app, steps)
    split = next(i for i, e in enumerate(events) if isinstance(e, TagEvent)) + 4  # the game is on, a few cards laid
    server = memory_server(memory_url)
    journal = Journal(connect(memory_url), "desktop")
    written = []

    def play_through_an_outage() -> None:
        for event in events[:split]:
            app.loop.post(event)
        notify.wait_for(lambda m: m.get("STATUS", "").endswith(" 1 entry"), 10, "the first entry written")
        server.connected = False
        for event in events[split:]:
            app.loop.post(event)
        notify.wait_for(lambda m: f" {len(reference)} entries; store unreachable" in m.get("STATUS", ""), 10,
                        "every entry accepted, some waiting for the store")
        server.connected = store_back
        if store_back:
            written.append(len(journal.entries(journal.current())))

    with caplog.at_level("WARNING", logger="firmware.loop"):
        assert serve_until(app, signal.SIGTERM, notify, play_through_an_outage) == 0
    server.connected = True
    stored = journal.entries(journal.current())
    if store_back:
        assert written[0] < len(reference), "nothing was waiting when the stop came"
        assert stored == reference
        assert not [r for r in caplog.records if r.name == "firmware.loop"]
    else:
        assert stored == reference[:len(stored)] and len(stored) < len(reference)
        assert [r.getMessage() for r in caplog.records if r.name == "firmware.loop"] == [
            f"stopping with {app.loop.table.journal.pending} journal entries not yet in Redis: they are lost"]
