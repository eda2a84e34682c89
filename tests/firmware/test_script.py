"""Scripts (firmware/script.py) played in real time: every step reaches the loop in the script's
order, whatever the machine's load does to the threads that report inputs."""

import queue

from drivers.buttons import ButtonEvent, ButtonPanel
from drivers.readers import TagEvent
from firmware.app import App
from firmware.script import RealTime, parse
from tests.e2e.rig import mocked_profile

UID = "04a1b2c3"


def test_a_press_reaches_the_loop_before_the_tap_that_follows_it_when_the_buttons_thread_is_late(memory_url, monkeypatch):
    """A press is reported once it has settled past its debounce, by the buttons' timing thread;
    a tap at once, by the hand that taps. The timing thread stalled (a loaded machine), the press
    is still ahead of the tap."""
    monkeypatch.setattr(ButtonPanel, "_run", lambda panel: None)  # the timing thread never gets the CPU
    app = App.build(mocked_profile(memory_url), web=False)
    try:
        RealTime(app).play(parse(f"press ok\ntap seat1 {UID}"))
        events = []
        while True:
            try:
                events.append(app.loop.events.get_nowait())
            except queue.Empty:
                break
    finally:
        app.close()
    assert [type(event) for event in events[:2]] == [ButtonEvent, TagEvent]
    assert (events[0].role, events[0].kind) == ("ok", "press") and (events[1].uid, events[1].kind) == (UID, "arrived")
