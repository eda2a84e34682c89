"""Buttons on gpiozero's own MockFactory: press, hold, debouncing with an injected clock, encoder steps."""

import queue
import time
import warnings

import pytest
from gpiozero import Button, Device
from gpiozero.pins.mock import MockFactory

from drivers.buttons import ButtonError, ButtonEvent, ButtonSpec, Debouncer, open_buttons

PINS = {"withdraw": 5, "pass": 6, "undo": 13, "next": 19, "ok": 26}
SPEC = ButtonSpec(driver="gpio", pins=PINS, seat_withdraw={0: 12, 3: 16}, encoder=(20, 21), bounce_ms=20, hold_ms=800)


@pytest.fixture
def panel_events(mock_factory, clock):
    events = []
    panel = open_buttons(SPEC, events.append, pin_factory=mock_factory, clock=clock)
    yield panel, events
    panel.close()


def press(factory, pin):
    factory.pin(pin).drive_low()


def release(factory, pin):
    factory.pin(pin).drive_high()


def settle(panel, clock, seconds):
    clock.advance(seconds)
    panel.update()


def test_a_short_press_is_reported_once_at_its_release(panel_events, mock_factory, clock):
    panel, events = panel_events
    press(mock_factory, PINS["undo"])
    settle(panel, clock, 0.3)
    assert events == []
    release(mock_factory, PINS["undo"])
    settle(panel, clock, 0.018)  # the release is still settling (bounce_ms = 20)
    assert events == []
    settle(panel, clock, 0.004)
    assert events == [ButtonEvent("undo", "press", None)]
    settle(panel, clock, 5)
    assert events == [ButtonEvent("undo", "press", None)]


def test_a_hold_is_reported_once_when_reached_and_its_release_reports_nothing(panel_events, mock_factory, clock):
    panel, events = panel_events
    press(mock_factory, PINS["undo"])
    settle(panel, clock, 0.798)
    assert events == []
    settle(panel, clock, 0.004)
    assert events == [ButtonEvent("undo", "hold", None)]
    settle(panel, clock, 3)
    release(mock_factory, PINS["undo"])
    settle(panel, clock, 1)
    assert events == [ButtonEvent("undo", "hold", None)]


def test_chatter_shorter_than_the_bounce_time_is_ignored(panel_events, mock_factory, clock):
    panel, events = panel_events
    for _ in range(3):
        press(mock_factory, PINS["ok"])
        settle(panel, clock, 0.004)
        release(mock_factory, PINS["ok"])
        settle(panel, clock, 0.004)
    settle(panel, clock, 1)
    assert events == []


def test_a_press_with_chattering_contacts_is_one_press(panel_events, mock_factory, clock):
    panel, events = panel_events
    for level in (press, release, press, release, press):  # closing: contacts bounce, then stay closed
        level(mock_factory, PINS["next"])
        settle(panel, clock, 0.003)
    settle(panel, clock, 0.15)
    for level in (release, press, release):  # opening: bounce again
        level(mock_factory, PINS["next"])
        settle(panel, clock, 0.003)
    settle(panel, clock, 0.1)
    assert events == [ButtonEvent("next", "press", None)]


def test_a_hold_seen_only_at_the_release_is_still_a_hold(panel_events, mock_factory, clock):
    panel, events = panel_events
    press(mock_factory, PINS["pass"])
    clock.advance(1.0)  # nobody looked in between
    release(mock_factory, PINS["pass"])
    settle(panel, clock, 0.05)
    assert events == [ButtonEvent("pass", "hold", None)]


def test_a_release_just_before_the_hold_time_is_a_press(panel_events, mock_factory, clock):
    panel, events = panel_events
    press(mock_factory, PINS["pass"])
    settle(panel, clock, 0.79)
    release(mock_factory, PINS["pass"])
    settle(panel, clock, 0.015)  # 0.805 s after the press, the release still settling
    settle(panel, clock, 0.01)
    assert events == [ButtonEvent("pass", "press", None)]


def test_a_press_whose_edges_arrive_together_late_is_timed_by_the_edges_own_ticks(panel_events, mock_factory, clock,
                                                                                 monkeypatch):
    """A busy process runs the callbacks of a 100 ms press and of its release in one burst, 0.3 s
    late: timed on arrival the press lasted nothing (a bounce); the pins' ticks (lgpio's: the
    kernel's timestamp of each edge) say it lasted 100 ms."""
    panel, events = panel_events
    settle(panel, clock, 1.0)
    ticks = {"now": time.monotonic()}
    monkeypatch.setattr(mock_factory, "ticks", lambda: ticks["now"])
    pin = mock_factory.pin(PINS["ok"])
    edge_at = ticks["now"] - 0.4
    for level, at in ((False, edge_at), (True, edge_at + 0.1)):
        pin._change_state(level)
        pin._last_change = at  # when the kernel saw the edge, in the factory's ticks
        pin._call_when_changed()
    settle(panel, clock, 0.0)
    assert events == [ButtonEvent("ok", "press", None)]


def test_each_seat_has_its_own_withdraw_button(panel_events, mock_factory, clock):
    panel, events = panel_events
    for pin in (16, 12, PINS["withdraw"]):
        press(mock_factory, pin)
        settle(panel, clock, 0.1)
        release(mock_factory, pin)
        settle(panel, clock, 0.1)
    assert events == [ButtonEvent("withdraw", "press", 3), ButtonEvent("withdraw", "press", 0),
                      ButtonEvent("withdraw", "press", None)]
    assert panel.pin("withdraw", 3) == 16 and panel.pin("ok") == 26


def test_the_encoder_reports_each_detent_with_its_direction(panel_events, mock_factory):
    panel, events = panel_events
    a, b = mock_factory.pin(20), mock_factory.pin(21)
    for _ in range(2):  # clockwise: A leads B
        a.drive_low(); b.drive_low(); a.drive_high(); b.drive_high()
    b.drive_low(); a.drive_low(); b.drive_high(); a.drive_high()
    assert events == [ButtonEvent("encoder", "turn", None, 1)] * 2 + [ButtonEvent("encoder", "turn", None, -1)]


def test_a_button_down_at_start_reports_nothing_until_pressed_again(mock_factory, clock):
    press(mock_factory, PINS["ok"])
    events = []
    with open_buttons(ButtonSpec(driver="gpio", pins={"ok": PINS["ok"]}), events.append,
                      pin_factory=mock_factory, clock=clock) as panel:
        settle(panel, clock, 2)
        release(mock_factory, PINS["ok"])
        settle(panel, clock, 0.1)
        assert events == []
        press(mock_factory, PINS["ok"])
        settle(panel, clock, 0.1)
        release(mock_factory, PINS["ok"])
        settle(panel, clock, 0.1)
        assert events == [ButtonEvent("ok", "press", None)]


def test_the_timing_thread_reports_holds_with_the_real_clock(mock_factory):
    events = queue.Queue()
    with open_buttons(ButtonSpec(driver="gpio", pins={"undo": 13}, bounce_ms=5, hold_ms=50), events.put,
                      pin_factory=mock_factory) as panel:
        press(mock_factory, 13)
        assert events.get(timeout=5) == ButtonEvent("undo", "hold", None)
        release(mock_factory, 13)
        time.sleep(0.02)  # the player lifts the finger for 20 ms (more than bounce_ms)...
        press(mock_factory, 13)
        time.sleep(0.02)  # ...and presses again for 20 ms
        release(mock_factory, 13)
        assert events.get(timeout=5) == ButtonEvent("undo", "press", None)
        assert panel.pin("undo") == 13


def test_reported_returns_once_the_timing_thread_has_reported_the_press_however_late_it_runs(mock_factory, monkeypatch):
    """The timing thread looks every 0.3 s here (a loaded machine): reported() returns once the press
    is in the sink, not before; while a button is down it may still become a hold, so it waits."""
    import drivers.buttons

    monkeypatch.setattr(drivers.buttons, "TICK", 0.3)
    events = queue.Queue()
    with open_buttons(ButtonSpec(driver="gpio", pins={"ok": 26}, bounce_ms=5, hold_ms=5000), events.put,
                      pin_factory=mock_factory) as panel:
        assert panel.reported(0)
        press(mock_factory, 26)
        assert not panel.reported(0.05)  # down: a press or a hold, not yet known
        time.sleep(0.02)
        release(mock_factory, 26)
        assert panel.reported(5)
        assert events.get_nowait() == ButtonEvent("ok", "press", None)


def test_close_releases_only_the_panels_pins(mock_factory, clock):
    other = Button(4, pin_factory=mock_factory)
    events = []
    panel = open_buttons(SPEC, events.append, pin_factory=mock_factory, clock=clock)
    panel.close()
    panel.close()
    press(mock_factory, PINS["ok"])
    settle(panel, clock, 0.1)
    release(mock_factory, PINS["ok"])
    settle(panel, clock, 0.1)
    assert events == []
    again = Button(PINS["ok"], pin_factory=mock_factory)  # the pin is free again
    assert not other.closed and not again.closed


def test_the_mock_driver_brings_its_own_mock_factory(clock):
    events = []
    with open_buttons(ButtonSpec(driver="mock", pins={"ok": 26}), events.append, clock=clock) as panel:
        assert isinstance(panel.factory, MockFactory) and panel.factory is not Device.pin_factory
        panel.factory.pin(panel.pin("ok")).drive_low()
        settle(panel, clock, 0.1)
        panel.factory.pin(panel.pin("ok")).drive_high()
        settle(panel, clock, 0.1)
    assert events == [ButtonEvent("ok", "press", None)]


def test_no_buttons_is_a_valid_panel(clock):
    with open_buttons(ButtonSpec(driver="none"), print, clock=clock) as panel:
        panel.update()


def test_gpio_without_a_pin_factory_says_what_to_install(monkeypatch):
    monkeypatch.setattr(Device, "pin_factory", None)
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ButtonError, match="install lgpio.*driver = \"mock\""):
            open_buttons(ButtonSpec(driver="gpio", pins={"ok": 26}), print)


class RefusingFactory(MockFactory):
    """gpiozero's MockFactory whose GPIO chip refuses this user `refusals` times, as /dev/gpiochip0
    does for a service user outside the gpio group."""

    def __init__(self, refusals):
        super().__init__()
        self.refusals = refusals

    def pin(self, spec, **kwargs):
        if self.refusals:
            self.refusals -= 1
            raise PermissionError(13, "Permission denied", "/dev/gpiochip0")
        return super().pin(spec, **kwargs)


def test_gpios_refused_at_start_are_reported_and_claimed_once_the_back_off_runs_out(clock):
    factory, events, reports = RefusingFactory(refusals=2), [], []
    with open_buttons(SPEC, events.append, pin_factory=factory, clock=clock, report=reports.append) as panel:
        assert reports == ["Buttons: no permission"] and panel.trouble == "no permission"
        settle(panel, clock, 0.9)
        assert factory.refusals == 1  # the back-off (1 s) has not run out: no second try yet
        settle(panel, clock, 0.1)
        assert factory.refusals == 0 and reports == ["Buttons: no permission"]  # refused again: said once
        settle(panel, clock, 1.9)
        assert reports == ["Buttons: no permission"]  # the back-off doubled to 2 s
        settle(panel, clock, 0.1)
        assert reports == ["Buttons: no permission", None] and panel.trouble is None
        press(factory, PINS["ok"])
        settle(panel, clock, 0.1)
        release(factory, PINS["ok"])
        settle(panel, clock, 0.1)
    assert events == [ButtonEvent("ok", "press", None)]


def test_a_gpio_busy_is_named_and_every_button_claimed_once_it_is_free(mock_factory, clock, caplog):
    squatter = Button(PINS["next"], pin_factory=mock_factory)  # another program holds GPIO19
    reports = []
    with open_buttons(SPEC, print, pin_factory=mock_factory, clock=clock, report=reports.append) as panel:
        assert reports == ["Buttons: GPIO busy"]
        assert "GPIO19 (pin 35) is in use by another program" in caplog.text
        Button(PINS["withdraw"], pin_factory=mock_factory).close()  # all or none: the others were let go
        squatter.close()
        settle(panel, clock, 1.0)
        assert reports == ["Buttons: GPIO busy", None] and panel.pin("next") == PINS["next"]


def test_without_a_report_gpios_refused_are_an_error_that_says_how_to_fix_it(clock):
    with pytest.raises(ButtonError, match="permission denied on /dev/gpiochip0.*sudo usermod -aG gpio"):
        open_buttons(SPEC, print, pin_factory=RefusingFactory(refusals=1), clock=clock)


@pytest.mark.parametrize("spec, message", [
    (ButtonSpec(driver="serial"), "driver 'serial'"),
    (ButtonSpec(driver="gpio", pins={"menu": 5}), "unknown button role.*menu"),
    (ButtonSpec(driver="gpio", pins={"ok": 5, "next": 5}), "GPIO 5 used by more than one"),
    (ButtonSpec(driver="gpio", pins={"ok": 5}, encoder=(5, 6)), "GPIO 5 used by more than one"),
    (ButtonSpec(driver="gpio", pins={"ok": 5}, seat_withdraw={0: 6, 1: 6}), "GPIO 6 used by more than one"),
    (ButtonSpec(driver="gpio", pins={"ok": 5}, bounce_ms=50, hold_ms=40), "hold_ms"),
])
def test_bad_specs_are_refused_before_any_pin_is_taken(mock_factory, spec, message):
    with pytest.raises(ButtonError, match=message):
        open_buttons(spec, print, pin_factory=mock_factory)
    Button(5, pin_factory=mock_factory).close()


def test_the_debouncer_is_a_function_of_edges_and_time_only():
    """Looking more often reports exactly the same thing as looking once at the end."""
    edges = [(0.0, True), (0.002, False), (0.004, True), (0.5, False), (0.502, True), (0.504, False),
             (1.0, True), (2.0, False)]
    sparse = Debouncer(bounce=0.02, hold=0.8, pressed=False, now=0.0)
    dense = Debouncer(bounce=0.02, hold=0.8, pressed=False, now=0.0)
    sparse_events, dense_events = [], []
    t = 0.0
    for at, level in edges:
        while t < at:
            dense_events += dense.step(t)
            t = round(t + 0.001, 3)
        sparse_events += sparse.edge(level, at)
        dense_events += dense.edge(level, at)
    sparse_events += sparse.step(3.0)
    dense_events += dense.step(3.0)
    assert sparse_events == dense_events == ["press", "hold"]
