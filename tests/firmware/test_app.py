"""The appliance put together: hardware missing at boot never stops it, a failing reader is on the
screen and in STATUS= while the others play on, and the readers' thread is watched for the watchdog."""

import dataclasses
import sys
from pathlib import Path

import pytest

from gpiozero import Button, Device
from gpiozero.pins.mock import MockFactory

from drivers.readers import ReaderStatus
from firmware.app import App
from firmware.config import StoreConfig, WebConfig, load_profile
from firmware.screens import Screen
from firmware.views import MessageView
from firmware.sdnotify import Notifier
from tests.drivers.fake_rc522 import FakeBus, FakeCard
from tests.drivers.support import FakeClock

CONFIG = Path(__file__).resolve().parents[2] / "config"


class Recorder(Notifier):
    """A notifier that keeps every STATUS= and counts the watchdog pings (one allowed per call)."""

    def __init__(self):
        super().__init__("", "", "")
        self.watchdog_interval = 0.0
        self.statuses: list[str] = []
        self.pings = 0

    def notify(self, *lines: str) -> bool:
        self.statuses += [line.removeprefix("STATUS=") for line in lines if line.startswith("STATUS=")]
        return True

    def watchdog(self) -> bool:
        self.pings += 1
        return True


@pytest.fixture
def pi_app(memory_url, monkeypatch):
    """Builds config/pi.toml's app on this machine (closed after the test): fake RC522s behind a fake
    spidev (none at `missing`), gpiozero's MockFactory for every pin, and no /dev/i2c-1 for the SSD1306."""
    apps = []

    def build(missing=(), busy=()):
        clock, factory = FakeClock(), MockFactory()
        squatters = [Button(pin, pin_factory=factory) for pin in busy]  # another program holds these GPIOs
        bus = FakeBus(clock)
        profile = load_profile(CONFIG / "pi.toml")
        profile = dataclasses.replace(profile, store=StoreConfig(memory_url), web=WebConfig(enabled=False))
        chips = {}
        for spec in profile.readers:
            if (spec.bus, spec.device) not in missing:
                chips[spec.name] = bus.add_chip(spec.bus, spec.device, miss=0, garble=0)
                chips[spec.name].wire_reset(factory, spec.rst)
        monkeypatch.setitem(sys.modules, "spidev", bus.module())
        monkeypatch.setattr(Device, "pin_factory", factory)
        notifier = Recorder()
        apps.append(App.build(profile, clock=clock, sleep=clock.sleep, notifier=notifier))
        app = apps[-1]
        app.squatters = squatters
        return app, clock, chips, notifier

    yield build
    for app in apps:
        app.close()


def poll(app, clock, seconds):
    for _ in range(round(seconds / 0.05)):
        app.readers.poll_once()
        clock.advance(0.05)


def test_readers_and_a_display_missing_at_boot_are_shown_and_the_others_play_on(pi_app):
    app, clock, chips, notifier = pi_app(missing={(1, 1), (1, 2)})
    assert app.display.failed and "i2c" in app.display.error.lower()  # no panel here: tolerated
    app.loop.start()
    app.readers.settle(1.0, clock.sleep)
    app.loop.drain()
    assert app.loop.table.notice == "Reader 4: SPI1 is off; Reader 5: SPI1 is off"
    assert app.loop.table.view().notice == app.loop.table.notice
    assert notifier.statuses[-1] == "Choosing a game; Reader 4: SPI1 is off; Reader 5: SPI1 is off"
    assert Screen().render(app.loop.table.view()).tobytes() == app.display.image.tobytes()

    chips["seat2"].place(FakeCard("04a1b2c3d4e5f6"))
    clock.advance(0.01)
    app.readers.poll_once()
    events = []
    while not app.loop.events.empty():
        events.append(app.loop.events.get())
    assert [(e.reader, e.uid) for e in events] == [("seat2", "04a1b2c3d4e5f6")]  # the others read on


def test_a_reader_that_works_again_leaves_the_screen_and_the_status(pi_app):
    app, clock, chips, notifier = pi_app()
    app.loop.start()
    app.readers.settle(1.0, clock.sleep)
    chips["seat2"].unplug()
    poll(app, clock, 0.25)
    app.loop.drain()
    assert notifier.statuses[-1] == "Choosing a game; Reader 3: not answering"
    chips["seat2"].plug()
    poll(app, clock, 6.0)
    app.loop.drain()
    assert notifier.statuses[-1] == "Choosing a game" and app.loop.table.view().notice == ""
    assert [e for e in app.loop.events.queue if isinstance(e, ReaderStatus)] == []


def test_a_phone_held_on_a_reader_is_said_to_be_no_game_piece_once_and_changes_nothing(pi_app):
    """From the chip's answer to the screen: a random ID (ISO/IEC 14443-3: a phone, a bank card) held on
    a seat's reader is refused once, like an unknown tag, however long it stays."""
    app, clock, chips, notifier = pi_app()
    app.loop.start()
    app.readers.settle(1.0, clock.sleep)
    app.loop.drain()
    before = app.loop.table.refusals
    chips["seat1"].place(FakeCard.random_id(seed=3))
    poll(app, clock, 2.0)
    app.loop.drain()
    view = app.loop.table.view()
    assert view.error and view.lines == ("Not a game piece (phone?)",)
    assert app.loop.table.refusals == before + 1
    assert Screen().render(view).tobytes() == app.display.image.tobytes()


def test_buttons_whose_gpio_is_busy_at_boot_are_shown_and_claimed_once_it_is_free(pi_app):
    app, clock, chips, notifier = pi_app(busy=(12,))
    app.loop.start()
    app.readers.settle(1.0, clock.sleep)
    app.loop.drain()
    assert app.loop.table.notice == "Buttons: GPIO busy"
    assert notifier.statuses[-1] == "Choosing a game; Buttons: GPIO busy"
    app.squatters[0].close()
    clock.advance(1.0)
    app.buttons.update()
    app.loop.drain()
    assert notifier.statuses[-1] == "Choosing a game" and app.loop.table.notice == ""
    assert app.buttons.pin("undo") == 12


def test_the_watchdog_is_not_pinged_while_the_readers_thread_is_dead(pi_app):
    app, clock, chips, notifier = pi_app()
    app.readers.start()
    app.loop._ping()
    assert notifier.pings == 1 and app.loop.unwell() == frozenset()
    app.readers._stop.set()  # the thread ends as if it had died
    app.readers._thread.join(10)
    app.loop._ping()
    assert notifier.pings == 1 and app.loop.unwell() == {"readers"}


def test_the_desktop_without_redis_plays_in_memory_and_says_so_without_checking_a_redis_set_up(tmp_path, caplog):
    """config/desktop.toml with no redis-server answering: the table plays on its memory fallback,
    STATUS= and the last frame say so, and the boot check of Redis's set-up (not Redis's here) is
    not made."""
    from tests.redis_server import free_port

    url = f"redis://127.0.0.1:{free_port()}/0"
    text = (CONFIG / "desktop.toml").read_text().replace("redis://127.0.0.1:6379/0", url)
    (tmp_path / "desktop.toml").write_text(text.replace("[web]\nenabled = true", "[web]\nenabled = false"))
    profile = load_profile(tmp_path / "desktop.toml")
    assert profile.store == StoreConfig(url, fallback="memory://")
    notifier = Recorder()
    app = App.build(dataclasses.replace(profile, display=dataclasses.replace(profile.display, driver="dummy")), notifier=notifier)
    try:
        assert app.store.url == "memory://" and not app.store.durable
        app.loop.start()
        assert app.loop.table.session is None and not app.loop.table.waiting  # choosing a game
        assert notifier.statuses[-1] == f"Choosing a game; store: in memory, no Redis at {url}"
        assert not [r for r in caplog.records if "Redis set-up" in r.getMessage() or "not checked" in r.getMessage()]
        app.loop.finish()
        assert app.display.image == Screen().render(MessageView("Paused", ("tablemate stopped", "Memory store: not kept")))
    finally:
        app.close()
