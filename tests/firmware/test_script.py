"""Scripts played in real time (`tablemate run --script --realtime`, the SSH console's keys): each
step reaches the table in order, as one input, even when the drivers' threads run late (a machine
too busy for them: a loaded desktop, a VM in emulation)."""

import queue
import time

import drivers.buttons
from drivers.buttons import ButtonEvent
from drivers.readers import TagEvent
from drivers.readers.group import ReaderGroup
from firmware.app import App
from firmware.config import DESKTOP, load_profile
from firmware.script import RealTime, parse
from tests.firmware.profiles import with_store


def inputs(app: App) -> list[tuple]:
    """What the drivers posted to the loop so far, in order: ("press", role) and ("arrived", uid)."""
    found = []
    while True:
        try:
            event = app.loop.events.get_nowait()
        except queue.Empty:
            return found
        if isinstance(event, ButtonEvent):
            found.append((event.kind, event.role))
        elif isinstance(event, TagEvent) and event.kind == "arrived":
            found.append((event.kind, event.uid))


def table(tmp_path, memory_url) -> App:
    path = tmp_path / "profile.toml"
    path.write_text(with_store(DESKTOP.read_text(), memory_url))
    return App.build(load_profile(path), web=False)


def test_a_tap_never_overtakes_the_press_before_it_when_the_buttons_thread_runs_late(tmp_path, memory_url, monkeypatch):
    monkeypatch.setattr(drivers.buttons, "TICK", 0.4)  # a press's debounced release is reported 0.4 s late
    app = table(tmp_path, memory_url)
    try:
        RealTime(app).play(parse("press ok\ntap seat0 04000001\npress next"))
        assert inputs(app) == [("press", "ok"), ("arrived", "04000001"), ("press", "next")]
    finally:
        app.close()


def test_the_same_card_tapped_twice_is_two_taps_when_the_readers_thread_polls_late(tmp_path, memory_url, monkeypatch):
    poll_once = ReaderGroup.poll_once

    def late(group):
        time.sleep(1.2)  # the lifted card's empty field is seen again only after more than the gap and a half
        poll_once(group)

    monkeypatch.setattr(ReaderGroup, "poll_once", late)
    app = table(tmp_path, memory_url)
    app.readers.start()
    try:
        RealTime(app).play(parse("tap seat0 04000001\ntap seat0 04000001"))
        assert inputs(app) == [("arrived", "04000001"), ("arrived", "04000001")]
    finally:
        app.close()
