"""The appliance put together from a profile: store, journal, tag map, table, display, readers,
buttons, the loop, and optionally the live web view.

`App.build(profile)` opens everything; `app.run()` serves until SIGTERM or SIGINT (the handlers only
ask the loop to stop: it flushes the journal and leaves its last frame), then releases the display,
the readers, the buttons and the web view, and returns the exit code. The web view is a side
feature: a port in use or a crash of its thread is noted on the STATUS= line and the table plays on.
While it serves, faulthandler is on: when systemd's watchdog kills a stuck loop (SIGABRT), every
thread's stack goes to stderr, i.e. to the system journal, and says where the loop was stuck. The
display is driven by its own thread (drivers/display/sender.py); it and the readers' thread are
watched the same way: while one of them is dead or stuck, the loop stops pinging the watchdog. With
`[club]`, the uplink copies the table's games to the club from a thread of its own (firmware.club);
its troubles are shown like a reader's, and play goes on.

Hardware never stops the start: a reader, a display or the buttons' GPIOs missing, not permitted,
busy or silent are logged, shown, and retried while the table runs (a wrong profile is another matter: exit status 78).
"""

import faulthandler
import logging
import signal
import time
from dataclasses import dataclass
from typing import Any, Callable, TextIO

from drivers.buttons import ButtonPanel, open_buttons
from drivers.display import DisplayThread, care_for, open_display
from drivers.gpio_check import check_rpi_gpio
from drivers.readers import ReaderGroup, open_readers

from .boards import Boards
from .config import Profile
from .journal import Journal
from .journal.local import LocalCopy
from .loop import Loop, PartStatus
from .sdnotify import Notifier
from .store import Choice, choose, connect
from .table import Table, TableSettings
from .tagmap import TagEntry, TagMap

log = logging.getLogger(__name__)

PANELS = ("ssd1306", "sh1106")


def table_settings(profile: Profile, store: Choice) -> TableSettings:
    """What the table needs of the profile; `store` is the store chosen (the memory fallback, whose
    set-up is not Redis's to check, or the profile's url)."""
    return TableSettings(
        players=list(profile.table.players),
        game=profile.table.game,
        hints=profile.hints,
        boards=Boards(profile.boards.dir),
        store_url=store.url if store.durable else None,
        require_aof=profile.store.require_aof,
    )


def check_gpio(profile: Profile) -> None:
    """On real hardware, say so when RPi.GPIO is not rpi-lgpio's (hardware.md): an SPI panel needs it
    for its D/C and reset lines, so without it the panel stays dark (and is retried) while play goes on."""
    spi_panel = profile.display.driver in PANELS and profile.display.interface == "spi"
    real = profile.display.driver in PANELS or profile.buttons.driver == "gpio" or any(r.driver == "mfrc522" for r in profile.readers)
    if not real:
        return
    problem = check_rpi_gpio(required=spi_panel)
    if problem:
        log.log(logging.ERROR if spi_panel else logging.WARNING, "%s", problem)


@dataclass
class App:
    profile: Profile
    loop: Loop
    display: DisplayThread
    readers: ReaderGroup
    buttons: ButtonPanel
    store: Choice
    web: Any = None
    uplink: Any = None

    @classmethod
    def build(cls, profile: Profile, *, clock: Callable[[], float] = time.monotonic,
              sleep: Callable[[float], None] = time.sleep, stream: TextIO | None = None,
              notifier: Notifier | None = None, web: bool | None = None,
              tags: dict[str, TagEntry] | None = None) -> "App":
        """Open everything the profile names. `clock` and `sleep` are the time the loop and the drivers
        see (virtual-time scripts and tests replace them); `tags` (from tag files) are enrolled once
        the store answers."""
        check_gpio(profile)
        store = choose(profile.store.url, profile.store.fallback)
        client = connect(store.url)
        local_dir = profile.store.copy_dir(store.url)
        local = LocalCopy(local_dir, profile.table.id) if local_dir is not None else None
        journal = Journal(client, profile.table.id, local=local)
        table = Table(journal, TagMap(client, profile.table.id, local_dir), table_settings(profile, store), clock, imports=tags)
        display = DisplayThread(open_display(profile.display, stream=stream, clock=clock),
                                care=care_for(profile.display, clock), clock=clock)
        display.start()
        loop = Loop(table, display, notifier=notifier or Notifier(), clock=clock, on_stop=profile.display.on_stop,
                    durable=store.durable)
        if store.note:
            loop.notes["store"] = f"in memory, no Redis at {profile.store.url}"
            log.warning("store: %s", store.note)
        loop.watch("tablemate-display", display.alive)
        readers = open_readers(profile.readers, loop.post, timing=profile.reader_timing, clock=clock, sleep=sleep)
        loop.watch("readers", readers.alive)
        buttons = open_buttons(profile.buttons, loop.post, clock=clock,
                               report=lambda trouble: loop.post(PartStatus("buttons", trouble)))
        app = cls(profile, loop, display, readers, buttons, store)
        if profile.web.enabled if web is None else web:
            from .web import Background

            app.web = Background(store.url, profile.table.id, profile.web.bind, profile.web.port,
                                 on_failure=lambda text: loop.note("web view", text), hosts=profile.web.hosts)
        if profile.club is not None:
            from .club import Uplink

            app.uplink = Uplink(store.url, profile.table.id, profile.club,
                                report=lambda trouble: loop.post(PartStatus("club", trouble)))
        return app

    def run(self, started: Callable[[], None] | None = None) -> int:
        """Serve until stopped by a signal; 0 on a clean stop. `started` is called once SIGTERM and
        SIGINT stop the table cleanly, so what it announces (an address) can be stopped at once."""
        previous = {sig: signal.signal(sig, lambda *_: self.loop.stop()) for sig in (signal.SIGTERM, signal.SIGINT)}
        tracebacks = not faulthandler.is_enabled()
        if tracebacks:
            faulthandler.enable()
        try:
            if started is not None:
                started()
            self._start_web()
            if self.uplink is not None:
                self.uplink.start()
            self.readers.start()
            self.loop.run()
            return 0
        finally:
            self.close()
            if tracebacks:
                faulthandler.disable()
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def _start_web(self) -> None:
        """Start the live view; when it cannot start (its port taken...), say so and play on without it."""
        if self.web is None:
            return
        try:
            self.web.start()
        except RuntimeError as error:
            self.loop.notes["web view"] = str(error)
            log.warning("web view: %s; the table plays on without it", error)

    def close(self) -> None:
        """Release everything this app opened (idempotent)."""
        self.readers.close()
        self.buttons.close()
        if self.web is not None:
            self.web.stop()
        if self.uplink is not None:
            self.uplink.stop()
        self.display.close(blank=self.profile.display.on_stop == "blank")
        self.loop.table.journal.close()
