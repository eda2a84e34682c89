"""The table's buttons, by role, as events: gpiozero Buttons (and an optional rotary encoder).

    panel = open_buttons(profile.buttons, events.put)
    ...   # ButtonEvent(role, kind="press"|"hold"|"turn", seat, steps)
    panel.close()

Roles: withdraw, pass, undo, next, ok, and a withdraw button per seat (role "withdraw" with its
seat). A press is reported on release when shorter than hold_ms; a hold is reported once when the
button has been down for hold_ms, and its release reports nothing (see debounce.py). The encoder
reports ButtonEvent("encoder", "turn", None, steps=+1) per detent clockwise, -1 counter-clockwise.
Wire each button between its GPIO (BCM numbering) and ground: the internal pull-up is used.

Drivers: "gpio" (gpiozero's default pin factory: lgpio on a Pi), "mock" (a private gpiozero
MockFactory, `panel.factory`; drive `panel.factory.pin(panel.pin("undo"))` low to press), "none".
Callbacks come from gpiozero's thread on a Pi and synchronously under the mock; a small thread
times debouncing and holds. Tests inject a clock and call `panel.update()` after moving it; hands that
press and then tap (a real-time script, the simulator) wait on `panel.reported()`, so that a tap never
overtakes a press the thread has not reported yet.

GPIOs that cannot be claimed (no lgpio, no permission on /dev/gpiochip0, a line busy) are hardware,
not a wrong profile: given `report`, the panel tells it what is wrong in a few words (the whole story
goes to the log), keeps trying with a back-off (1 s doubling to 30 s) and reports None once every
button is claimed; the table plays on with its readers meanwhile. Without `report` (the doctor, a
script) the problem is raised as a ButtonError. A bad spec is always raised, before any pin is taken.
"""

import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from drivers.pins import gpio, gpio_problem

from .debounce import Debouncer

log = logging.getLogger(__name__)

ROLES = ("withdraw", "pass", "undo", "next", "ok")
DRIVERS = ("gpio", "mock", "none")
KINDS = ("press", "hold", "turn")
TICK = 0.005  # how often the timing thread looks while a button settles or may become a hold
RETRY = (1.0, 30.0)  # first and longest wait before claiming the GPIOs again after they failed

__all__ = ["DRIVERS", "KINDS", "ROLES", "ButtonError", "ButtonEvent", "ButtonPanel", "ButtonSpec", "Debouncer",
           "open_buttons"]


class ButtonError(Exception):
    """The buttons cannot be set up (a bad spec, no GPIO access)."""


@dataclass(frozen=True)
class ButtonEvent:
    """A button press or hold, or an encoder turn (`steps` = +1 clockwise, -1 counter-clockwise)."""

    role: str
    kind: str
    seat: int | None = None
    steps: int = 0


@dataclass(frozen=True)
class ButtonSpec:
    """The profile's [buttons] and [encoder]: BCM pins by role and by seat, timing in milliseconds."""

    driver: str = "none"
    pins: Mapping[str, int] = field(default_factory=dict)
    seat_withdraw: Mapping[int, int] = field(default_factory=dict)
    encoder: tuple[int, int] | None = None
    bounce_ms: int = 20
    hold_ms: int = 800


Sink = Callable[[ButtonEvent], object]
Report = Callable[[str | None], object]


class ButtonPanel:
    """The open buttons. `close()` releases their pins only (idempotent)."""

    def __init__(self, spec: ButtonSpec, sink: Sink, *, pin_factory: Any = None,
                 clock: Callable[[], float] = time.monotonic, report: Report | None = None):
        _check(spec)
        self._spec = spec
        self._sink = sink
        self._clock = clock
        self._report = report
        #: what keeps the buttons from working, in a few words (None: they work)
        self.trouble: str | None = None
        self._problem = ""
        self._opening = 0
        self._delay = RETRY[0]
        self._retry_at = 0.0
        self._lock = threading.Lock()
        #: notified once the buttons have reported what was due: reported() waits on it
        self._reporting = threading.Condition(self._lock)
        self._wake = threading.Event()
        self._closed = False
        self._keys: dict[tuple[str, int | None], tuple[Any, Debouncer, Callable[[float, int], None]]] = {}
        self._pins = {**{(role, None): pin for role, pin in spec.pins.items()},
                      **{("withdraw", seat): pin for seat, pin in sorted(spec.seat_withdraw.items())}}
        self.encoder: Any = None
        if pin_factory is None and spec.driver == "mock":
            from gpiozero.pins.mock import MockFactory

            pin_factory = MockFactory()
        self.factory = pin_factory
        self._thread: threading.Thread | None = None
        if spec.driver == "none":
            return
        if not self._claim() and report is None:
            raise ButtonError(self._problem)
        self._thread = threading.Thread(target=self._run, name="tablemate-buttons", daemon=True)
        self._thread.start()

    def pin(self, role: str, seat: int | None = None) -> int:
        """The GPIO of a role's button (with `seat` for a seat's own withdraw button)."""
        return self._pins[role, seat]

    def update(self) -> None:
        """Report whatever debouncing and holds make due at the clock's current time; claim the GPIOs
        again when they failed and the back-off has run out."""
        with self._lock:
            if self._closed:
                return
            now = self._clock()
            if self.trouble is not None and now >= self._retry_at:
                self._claim()
            for (role, seat), (_button, debouncer, _handler) in self._keys.items():
                self._emit(role, seat, debouncer.step(now))
            self._reporting.notify_all()

    def reported(self, timeout: float = 5.0) -> bool:
        """Wait until every level the buttons saw has been reported (a release settled into its press,
        a hold reached), so that an input made next, on another path (a tap, reported at once), cannot
        overtake it however late a busy machine runs the buttons' thread: the hands of a script and of
        the simulator wait so. False after `timeout` seconds."""
        with self._reporting:
            return self._reporting.wait_for(lambda: self._closed or not self._busy(), timeout)

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._reporting.notify_all()
        self._wake.set()
        if self._thread is not None:
            self._thread.join()
        self._release()

    def __enter__(self) -> "ButtonPanel":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals -------------------------------------------------------------------------------
    def _claim(self) -> bool:
        """Claim every button's GPIO (all or none); on failure note why and when to try again."""
        try:
            self._open(self._spec)
        except Exception as error:
            self._release()
            self._problem, trouble = self._explain(error)
            if trouble != self.trouble:
                log.error("buttons: %s; the table plays on without them and tries again", self._problem)
                self.trouble = trouble
                if self._report is not None:
                    self._report(f"Buttons: {trouble}")
            self._retry_at = self._clock() + self._delay
            self._delay = min(self._delay * 2, RETRY[1])
            return False
        if self.trouble is not None:
            log.info("buttons: every GPIO claimed, the buttons work again")
            self.trouble = None
            self._delay = RETRY[0]
            if self._report is not None:
                self._report(None)
        return True

    def _explain(self, error: Exception) -> tuple[str, str]:
        """Why the GPIOs could not be claimed, and the same in a few words."""
        from gpiozero.exc import BadPinFactory

        if isinstance(error, BadPinFactory):
            return (f"no GPIO access ({error}): on a Pi install lgpio (pip install lgpio); "
                    "on a desktop set [buttons] driver = \"mock\" or \"none\""), "no GPIO access"
        return gpio_problem(error, f"the button on {gpio(self._opening)}")

    def _open(self, spec: ButtonSpec) -> None:
        from gpiozero import Button, RotaryEncoder

        bounce, hold = spec.bounce_ms / 1000, spec.hold_ms / 1000
        for key, pin in self._pins.items():
            self._opening = pin
            button = Button(pin, pull_up=True, bounce_time=None, pin_factory=self.factory)
            debouncer = Debouncer(bounce=bounce, hold=hold, pressed=button.is_pressed, now=self._clock())
            handler = self._edge_handler(key, button.pin_factory)
            button.pin.when_changed = handler  # the pin holds it weakly: _keys holds it
            self._keys[key] = (button, debouncer, handler)
        if spec.encoder is not None:
            self._opening = spec.encoder[0]
            self.encoder = RotaryEncoder(*spec.encoder, max_steps=0, pin_factory=self.factory)
            self.encoder.when_rotated_clockwise = lambda: self._sink(ButtonEvent("encoder", "turn", None, 1))
            self.encoder.when_rotated_counter_clockwise = lambda: self._sink(ButtonEvent("encoder", "turn", None, -1))

    def _edge_handler(self, key: tuple[str, int | None], factory: Any) -> Callable[[float, int], None]:
        """The pin's callback: its level (low is pressed: the pull-up) and when it changed, in the
        factory's ticks (lgpio: the kernel's timestamp of the edge). An edge is timed when it
        happened, not when its callback ran: a busy process may run the callbacks of a press and of
        its release together, which timed on arrival would be a bounce, and the press lost."""
        def handle(ticks: float, state: int) -> None:
            with self._lock:
                if not self._closed:
                    now = self._clock()
                    at = now - max(0.0, factory.ticks_diff(factory.ticks(), ticks))
                    self._emit(*key, self._keys[key][1].edge(not state, at))
            self._wake.set()

        return handle

    def _emit(self, role: str, seat: int | None, kinds: list[str]) -> None:
        for kind in kinds:
            self._sink(ButtonEvent(role, kind, seat))

    def _busy(self) -> bool:
        """True while a level the buttons saw is not reported yet: it settles, or may become a hold
        (the caller holds the lock)."""
        return any(debouncer.busy for _button, debouncer, _handler in self._keys.values())

    def _run(self) -> None:
        while not self._closed:
            with self._lock:
                busy = self._busy()
            self._wake.wait(TICK if busy else max(TICK, self._retry_at - self._clock()) if self.trouble else None)
            self._wake.clear()
            self.update()

    def _release(self) -> None:
        devices = [button for button, _debouncer, _handler in self._keys.values()]
        if self.encoder is not None:
            devices.append(self.encoder)
        self._keys, self.encoder = {}, None
        for device in devices:
            try:
                device.close()
            except Exception as error:  # releasing one pin must not keep the others held
                log.warning("button on %s: closing failed: %s", device, error)


def _check(spec: ButtonSpec) -> None:
    if spec.driver not in DRIVERS:
        raise ButtonError(f"buttons driver {spec.driver!r}: choose one of {', '.join(DRIVERS)}")
    unknown = sorted(set(spec.pins) - set(ROLES))
    if unknown:
        raise ButtonError(f"unknown button role(s) {', '.join(unknown)}: the roles are {', '.join(ROLES)}")
    pins = list(spec.pins.values()) + list(spec.seat_withdraw.values()) + list(spec.encoder or ())
    doubles = sorted({pin for pin in pins if pins.count(pin) > 1})
    if doubles:
        raise ButtonError(f"GPIO {', '.join(map(str, doubles))} used by more than one button")
    if spec.bounce_ms < 0 or spec.hold_ms <= spec.bounce_ms:
        raise ButtonError(f"hold_ms ({spec.hold_ms}) must exceed bounce_ms ({spec.bounce_ms}) >= 0")


def open_buttons(spec: ButtonSpec, sink: Sink, *, pin_factory: Any = None,
                 clock: Callable[[], float] = time.monotonic, report: Report | None = None) -> ButtonPanel:
    """Open the buttons the spec names; every ButtonEvent goes to `sink` (the firmware's queue.put);
    `report` hears of GPIOs that cannot be claimed (and of their recovery) instead of an exception."""
    return ButtonPanel(spec, sink, pin_factory=pin_factory, clock=clock, report=report)
