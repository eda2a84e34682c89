"""Appliance speed and size: tap-to-frame latency, time to recover a finished game, peak memory.

As on the Pi: a real redis-server (AOF, appendfsync always) on loopback, started here; the appliance
built from the demos' profile (mock readers, gpiozero's mock buttons, luma's dummy display).

- Tap to frame: a 5-player Taj Mahal game (a bot game of tests/e2e/games.py) is half played into the
  journal; the appliance recovers it and its loop runs in its own thread, the readers polled by
  theirs, as in `tablemate run`. The player to move taps a card on their mock reader: the time runs
  from `MockReader.tap()` to the return of the `display.show()` that hands the frame this tap caused
  to the display thread (the engine and the drawing are inside; the journal's writes, the XADD and
  the fsyncs, are made behind it on the writer thread; the wire is measured below); and the loop
  thread's own CPU time for the tap (thread CPU, not wall). Each accepted
  play is then undone (an undo press handed to the loop), so every tap is the same mid-game move.
  Under a Pi-class CPU cap, and with the card's fsync slowed, bench/storage.py measures it again.
- The same with the journal's local copy ([store] local_dir, as on the Pi) in a temporary directory
  on this machine's disk: the writer thread appends each batch of writes to the file and syncs it
  (fdatasync) before sending it to Redis. Its tap-to-frame, the latency the copy adds to it (the
  difference of the medians: none is expected, the sync is on the writer thread), and the time of
  the fdatasync itself. On the Pi the file is on the SD card, whose sync takes longer than this
  disk's: the sync time is what to compare with the card's.
- Recovery: the complete 12-round game in the journal; `App.build` and `loop.start()` (tag map,
  XRANGE, replay of 260 actions, the first frame), as at power-on once Python has started.
- Peak RSS: a subprocess plays the recorded 5-player demo (firmware/demos/taj_mahal.script) through
  the appliance on this redis-server, in virtual time, and reports its own peak (VmHWM); once with
  the live web view in the same process (as config/pi.toml runs it), once without.

- The wire: every recorded demo (firmware/demos/<game>.script) played through the appliance in
  virtual time on this redis-server, with the profile's panel (an SSD1306, and an SH1106) driven by
  luma's real device classes over luma's real I2C interface, the bus itself counted byte by byte
  (tests/drivers/i2c_oled.py: address byte, control byte, payload; 9 clock cycles a byte). Per game:
  bytes on the bus per frame (p50, p99, max); frames per accepted action; bytes per accepted action
  (everything on the bus from one accepted action to the next: its frames, the chooser's steps and
  flashes in between, the periodic refreshes), also as a share of a full frame as luma sends it; the
  bytes of the accepting input alone (the tap or press that completed the action and the frame it
  drew, without the questions that led to it), reported beside the target, not judged; and
  the modelled tap-to-photon of every input that changed the screen: the software time measured
  from the loop taking the input to the last byte the display thread hands to the bus (engine,
  drawing, the hand-over, working out the changed bytes; the journal's writer thread runs as in
  `tablemate run`), plus the time the input's bytes take on the wire at 100 kHz (the Pi's default)
  and at 400 kHz. The reader's poll interval (up to poll_ms before a tap is seen) comes
  on top and is the same for any display.

Targets on the 2-core dev machine: p99 tap-to-frame <= 5 ms, recovery <= 100 ms (median of 20), peak RSS
<= 80 MB (with the web view); for every game, bytes per accepted action p50 <= 25 % of a full frame and
tap-to-photon p99 at 400 kHz <= 15 ms.
"""

import dataclasses
import json
import queue
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable

from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from drivers.buttons import ButtonEvent  # noqa: E402
from drivers.display import DisplaySpec  # noqa: E402
from drivers.readers import ReaderTiming, TagEvent  # noqa: E402
from firmware import script, tagfile  # noqa: E402
from firmware.app import App  # noqa: E402
from firmware.config import WebConfig  # noqa: E402
from firmware.journal import Journal  # noqa: E402
from firmware.journal.local import LocalCopy  # noqa: E402
from firmware.session import Session  # noqa: E402
from firmware.store import connect  # noqa: E402
from firmware.tagmap import TagMap  # noqa: E402
from firmware.views import OverView  # noqa: E402
from tests.e2e.games import NAMES, bot_game, components, enrol  # noqa: E402
from tests.drivers.i2c_oled import CountingBus, bus_seconds, wired  # noqa: E402
from tests.e2e.rig import mocked_profile  # noqa: E402
from tests.redis_server import RedisServer, free_port  # noqa: E402

PLAYERS, SEED = 5, 7
TAPS = 300
RECOVERIES = 20
#: quick reader timing, so the same card can be tapped again soon (the latency does not depend on it)
TIMING = ReaderTiming(poll_ms=5, gap_ms=15)
WAIT_S = 10.0
DEMO = ROOT / "firmware" / "demos"
#: recovery happens once per power-on: its typical time (the median of RECOVERIES) is judged
TARGETS = {"tap_to_frame_p99_ms": 5.0, "recovery_median_ms": 100.0, "peak_rss_mb": 80.0}
#: per game, on the SSD1306 and the SH1106
WIRE_TARGETS = {"bytes_per_action_p50_pct_of_full_frame": 25.0, "tap_to_photon_400khz_p99_ms": 15.0}
GAMES = ("taj_mahal", "maharani", "thurn_und_taxis", "mongols")
PANELS = ("ssd1306", "sh1106")
BUS_HZ = {"100khz": 100_000, "400khz": 400_000}


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 2)


def _journal_game(url: str, table: str, actions: list[dict], played: int) -> dict[str, str]:
    """The first `played` actions of a game of Taj Mahal for five in the journal, as the table would
    have written them, with every component of the game enrolled; component id -> uid."""
    client = connect(url)
    uids = enrol(TagMap(client, table), components("taj_mahal", actions))
    session = Session.start(Journal(client, table), "taj_mahal", NAMES[:PLAYERS], {})
    for action in actions[:played]:
        session.apply(action)
    return uids


class Frames:
    """Every frame the loop shows, with the event it was handling then (None: a tick) and the time
    `display.show()` returned; and the loop thread's own CPU time (thread CPU, not wall) for each
    tap, from the event to the frame handed over and what follows it (the note, the report)."""

    def __init__(self, app: App):
        self.shown: queue.Queue = queue.Queue()
        self.tap_cpu: list[float] = []
        self._handling = None
        show, handle = app.display.show, app.loop.handle

        def shown(image) -> None:
            show(image)
            self.shown.put((self._handling, time.perf_counter()))

        def handling(event) -> None:
            self._handling = event
            started = time.thread_time()
            try:
                handle(event)
            finally:
                self._handling = None
            if isinstance(event, TagEvent) and event.kind == "arrived":
                self.tap_cpu.append(time.thread_time() - started)

        app.display.show = shown
        app.loop.handle = handling

    def of(self, event) -> float:
        """When the frame caused by `event` was shown."""
        while True:
            try:
                cause, at = self.shown.get(timeout=WAIT_S)
            except queue.Empty:
                raise RuntimeError(f"no frame followed {event!r} within {WAIT_S} s") from None
            if cause == event:
                return at


def tap_to_frame(url: str, table: str = "tap", local_dir: Path | None = None) -> dict:
    actions = bot_game("taj_mahal", PLAYERS, {}, SEED)
    cut = next(n for n in range(len(actions) // 2, len(actions))
               if actions[n]["type"] == "play" and len(actions[n]["cards"]) == 1)
    play = actions[cut]
    uid = _journal_game(url, table, actions, cut)[play["cards"][0]["id"]]
    profile = mocked_profile(url, table)
    profile = dataclasses.replace(profile, reader_timing=TIMING, store=dataclasses.replace(profile.store, local_dir=local_dir))
    app = App.build(profile, web=False)
    frames = Frames(app)
    syncs = _timed_syncs(app) if local_dir else []
    latencies = tapped(app, frames, app.readers.readers[f"seat{play['player']}"], uid, cut, TAPS)
    stored = Journal(connect(url), table).load(app.loop.table.session.gid)
    if len(stored.entries) != cut + 2 * TAPS or len(stored.actions) != cut:
        raise RuntimeError("the taps were not each accepted and undone once")
    if local_dir:
        held = LocalCopy(local_dir, table).load(aside=False)
        if [len(game.entries) for game in held.games if game.gid == held.active] != [cut + 2 * TAPS]:
            raise RuntimeError("the local copy does not hold every write")
    latencies.sort()
    figures = {
        "game": f"Taj Mahal, {PLAYERS} players, after {cut} of {len(actions)} actions",
        "taps": TAPS,
        "tap_to_frame_median_ms": _ms(statistics.median(latencies)),
        "tap_to_frame_p99_ms": _ms(statistics.quantiles(latencies, n=100)[98]),
        "tap_to_frame_max_ms": _ms(latencies[-1]),
        "tap_cpu_median_ms": _ms(statistics.median(frames.tap_cpu)),
        "tap_cpu_p99_ms": _ms(statistics.quantiles(frames.tap_cpu, n=100)[98]),
    }
    if syncs:
        figures.update(_percentiles("fdatasync", syncs, "_ms", 1000))
    return figures


def tapped(app: App, frames: Frames, reader, uid: str, cut: int, taps: int, settle: Callable[[], None] | None = None,
           meter: Callable[[], None] | None = None) -> list[float]:
    """Run the app's loop and readers in their threads as `tablemate run` does, tap `uid` on `reader`
    `taps` times, each accepted play undone by a press; each tap's time from `reader.tap()` to its
    frame. `settle()` is called before each tap (None: the taps follow each other at once), and
    `meter()` once the recovered game is on the screen and again after the last tap. The app is
    closed after."""
    undo = ButtonEvent("undo", "press")
    loop = threading.Thread(target=app.loop.run, name="tablemate-loop")
    loop.start()
    app.readers.start()
    latencies = []
    try:
        frames.of(None)  # the recovered game on screen
        if meter:
            meter()
        for _ in range(taps):
            if settle:
                settle()
            started = time.perf_counter()
            reader.tap(uid)
            latencies.append(frames.of(TagEvent(reader.name, uid, "arrived", reader.seat)) - started)
            if len(app.loop.table.session.actions) != cut + 1:
                raise RuntimeError(f"the tap was not accepted: {app.loop.table.view()!r}")
            app.loop.post(undo)
            frames.of(undo)
            while reader.present is not None:  # lifted for a gap: the next tap is a new arrival
                time.sleep(TIMING.poll_ms / 1000)
        if meter:
            meter()
    finally:
        app.loop.stop()
        loop.join(timeout=60)
        app.close()
    return latencies


def _timed_syncs(app: App) -> list[float]:
    """The time of every fdatasync of the journal's local copy that had records to put on the disk."""
    local, times = app.loop.table.journal.local, []
    sync = local.sync

    def timed() -> None:
        if local.synced or not local.on:
            return sync()
        started = time.perf_counter()
        sync()
        times.append(time.perf_counter() - started)

    local.sync = timed
    return times


def recovery(url: str) -> dict:
    actions = bot_game("taj_mahal", PLAYERS, {}, SEED)
    _journal_game(url, "recover", actions, len(actions))
    profile = mocked_profile(url, "recover")
    times = []
    for _ in range(RECOVERIES):
        started = time.perf_counter()
        app = App.build(profile, web=False)
        app.loop.start()
        times.append(time.perf_counter() - started)
        if app.loop.frames != 1 or not isinstance(app.loop.table.view(), OverView):
            raise RuntimeError(f"the finished game was not recovered: {app.loop.table.view()!r}")
        app.close()
    return {
        "recovered_actions": len(actions),
        "recovery_first_ms": _ms(times[0]),
        "recovery_median_ms": _ms(statistics.median(times)),
        "recovery_max_ms": _ms(max(times)),
    }


def play_demo(url: str, table: str, web: bool) -> dict:
    """In a subprocess: the recorded Taj Mahal demo through the appliance; its peak RSS."""
    profile = mocked_profile(url, table)
    if web:
        profile = dataclasses.replace(profile, web=WebConfig(True, "127.0.0.1", free_port()))
    clock = script.VirtualClock()
    app = App.build(profile, clock=clock)
    try:
        if app.web is not None:
            app.web.start()
        app.loop.table.tags.set_many(tagfile.load(DEMO / "taj_mahal.tags.toml"))
        app.loop.start()
        script.VirtualTime(app, clock).play(script.load(DEMO / "taj_mahal.script"))
        session = app.loop.table.session
        if not session.game.is_over(session.state):
            raise RuntimeError("the recorded demo did not finish its game")
        actions = len(session.actions)
    finally:
        app.close()
    return {"actions": actions, "peak_rss_kb": _own_peak_rss_kb()}


def _own_peak_rss_kb() -> int:
    """This process's own peak RSS: VmHWM, the high-water mark of the memory it has had since its
    exec. ru_maxrss is not that on Linux: it keeps the RSS of the process before the exec, which
    after a fork is the parent's size (where /proc is missing, it is all there is)."""
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:"))


def peak_rss(url: str, web: bool) -> dict:
    table = "rss-web" if web else "rss"
    done = subprocess.run([sys.executable, __file__, "--play-demo", url, table, "web" if web else "no-web"],
                          capture_output=True, text=True, timeout=300)
    if done.returncode:
        raise RuntimeError(f"the demo process failed:\n{done.stderr[-2000:]}")
    figures = json.loads(done.stdout)
    return {"actions": figures["actions"], "peak_rss_mb": round(figures["peak_rss_kb"] / 1024, 1)}


def _percentiles(name: str, values: list[float], unit: str = "", scale: float = 1.0) -> dict:
    values = sorted(values)
    p99 = statistics.quantiles(values, n=100, method="inclusive")[98] if len(values) > 1 else values[0]
    return {f"{name}_p50{unit}": round(statistics.median(values) * scale, 2),
            f"{name}_p99{unit}": round(p99 * scale, 2), f"{name}_max{unit}": round(values[-1] * scale, 2)}


def full_frame_bytes(driver: str) -> int:
    """What luma's own device sends on the bus for one frame (the measure of "a full frame")."""
    from luma.core.interface.serial import i2c
    from luma.oled.device import sh1106, ssd1306

    bus = CountingBus()
    with wired(bus):
        device = {"ssd1306": ssd1306, "sh1106": sh1106}[driver](i2c(port=1, address=0x3C))
    mark = bus.mark()
    device.display(Image.new("1", (128, 64), 255))
    return sum(t.wire_bytes for t in bus.since(mark))


class Wire:
    """What crosses the bus for each input the loop takes, each frame and each accepted action."""

    def __init__(self, app: App, bus: CountingBus):
        self.app, self.bus = app, bus
        self.frames: list[int] = []  # wire bytes of every frame transfer
        self.inputs: list[tuple[float, int]] = []  # (software seconds, wire bytes) of inputs that drew
        self.action_marks: list[int] = []  # bus positions where an accepted action's input began
        self.accepting: list[int] = []  # wire bytes of each input that completed an accepted action
        self.actions = 0
        screen, journal, handle = app.display, app.loop.table.journal, app.loop.handle
        panel = screen.display  # the panel behind the display thread
        show, append = panel._show, journal.append

        def frame(image) -> None:
            mark = bus.mark()
            show(image)
            self.frames.append(sum(t.wire_bytes for t in bus.since(mark)))

        def appended(*args, **kwargs) -> None:
            append(*args, **kwargs)
            self.actions += 1

        def handling(event) -> None:
            mark, actions, started = bus.mark(), self.actions, time.perf_counter()
            handle(event)
            if not screen.wait(WAIT_S):  # the display thread sends the frame: until its last byte
                raise RuntimeError(f"the display thread did not send the frame of {event!r}")
            sent = bus.since(mark)
            if self.actions > actions:
                self.action_marks.append(mark)
                self.accepting.append(sum(t.wire_bytes for t in sent))
            if sent:
                self.inputs.append((sent[-1].at - started, sum(t.wire_bytes for t in sent)))

        panel._show, journal.append, app.loop.handle = frame, appended, handling

    def figures(self, full: int) -> dict:
        ends = self.action_marks[1:] + [self.bus.mark()]
        per_action = [sum(t.wire_bytes for t in self.bus.transactions[a:b]) for a, b in zip(self.action_marks, ends)]
        figures = {"accepted_actions": self.actions, "frames": len(self.frames),
                   "frames_per_action": round(len(self.frames) / self.actions, 2)}
        figures.update(_percentiles("bytes_per_frame", self.frames))
        figures.update(_percentiles("bytes_per_action", per_action))
        figures["bytes_per_action_p50_pct_of_full_frame"] = round(100 * statistics.median(per_action) / full, 1)
        figures.update(_percentiles("accepting_input_bytes", self.accepting))
        figures["accepting_input_bytes_p50_pct_of_full_frame"] = round(100 * statistics.median(self.accepting) / full, 1)
        figures.update(_percentiles("software", [s for s, _ in self.inputs], "_ms", 1000))
        for name, hz in BUS_HZ.items():
            photon = [s + bus_seconds(n, hz) for s, n in self.inputs]
            figures.update(_percentiles(f"tap_to_photon_{name}", photon, "_ms", 1000))
        return figures


def wire_game(url: str, game: str, driver: str, full: int) -> dict:
    """A recorded demo played on `driver` over the counted bus; its figures."""
    bus = CountingBus()
    profile = dataclasses.replace(mocked_profile(url, f"wire-{game}-{driver}"), display=DisplaySpec(driver=driver))
    clock = script.VirtualClock()
    with wired(bus):
        app = App.build(profile, clock=clock, web=False)
        try:
            app.loop.table.tags.set_many(tagfile.load(DEMO / f"{game}.tags.toml"))
            app.loop.start()
            app.loop.table.journal.start()  # the writes on the writer thread, as `tablemate run` makes them
            wire = Wire(app, bus)
            script.VirtualTime(app, clock).play(script.load(DEMO / f"{game}.script"))
            session = app.loop.table.session
            if not session.game.is_over(session.state):
                raise RuntimeError(f"the recorded {game} demo did not finish its game")
        finally:
            app.close()
    return wire.figures(full)


def wire(url: str) -> dict:
    figures: dict = {}
    for driver in PANELS:
        full = full_frame_bytes(driver)
        games = {game: wire_game(url, game, driver, full) for game in GAMES}
        figures[driver] = {"full_frame_bytes": full, **games}
    figures["targets"] = WIRE_TARGETS
    figures["meets_targets"] = all(figures[driver][game][key] <= limit for driver in PANELS for game in GAMES
                                   for key, limit in WIRE_TARGETS.items())
    return figures


def run() -> dict:
    with tempfile.TemporaryDirectory() as directory:
        redis = RedisServer(Path(directory)).start()
        try:
            figures = {"store": "redis-server on loopback (AOF, appendfsync always)"}
            figures.update(tap_to_frame(redis.url))
            local = tap_to_frame(redis.url, "tap-local", Path(directory) / "state")
            figures["local_copy"] = {
                "store": "the journal's local copy on this machine's disk, then Redis",
                **{key: local[key] for key in local if key.startswith(("tap_to_frame", "fdatasync"))},
                "added_median_ms": round(local["tap_to_frame_median_ms"] - figures["tap_to_frame_median_ms"], 2),
            }
            figures.update(recovery(redis.url))
            with_web, without_web = peak_rss(redis.url, web=True), peak_rss(redis.url, web=False)
            figures["wire"] = wire(redis.url)
        finally:
            redis.stop()
    figures["full_game_actions"] = with_web["actions"]
    figures["peak_rss_mb"] = with_web["peak_rss_mb"]
    figures["peak_rss_without_web_mb"] = without_web["peak_rss_mb"]
    figures["targets"] = TARGETS
    figures["meets_targets"] = (all(figures[key] <= limit for key, limit in TARGETS.items())
                                and figures["wire"]["meets_targets"])
    return figures


if __name__ == "__main__":
    if sys.argv[1:2] == ["--play-demo"]:
        url, table, web = sys.argv[2:5]
        print(json.dumps(play_demo(url, table, web == "web")))
    else:
        print(json.dumps(run(), indent=2))
