"""Service figures: the time from spawning `tablemate run` to its READY=1, and the CPU the running
appliance uses while nobody plays.

Both run the desktop profile (the desktop profile: memory store, terminal display, five mock seat
readers and a shared one polled every 50 ms, mocked buttons, the web view) as a child process that
reports to a notify socket of ours, as under systemd (NOTIFY_SOCKET, WATCHDOG_USEC of the unit's
WatchdogSec). Two changes only: the web view listens on a free port instead of 8080, and the
terminal frames go to a file. Idle CPU is the process's user + system time (all threads, from
/proc/<pid>/stat) over a window after start-up has settled, as a percentage of one core; it is
measured twice: with the mock readers, and with the Pi's five RC522 readers (config/pi.toml's
wiring), our driver polling fake chips behind a stand-in spidev (tests/service/fake_spidev: the
fake chip's Python costs more than spidev's ioctl does on a Pi).
Targets on the 2-core dev machine: READY within 1.0 s, idle CPU at most 2 % of one core (both).
"""

import json
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.redis_server import free_port  # noqa: E402
from tests.service.support import NotifySocket, Tablemate, desktop_profile, unit_seconds  # noqa: E402

READY_RUNS = 7
SETTLE_S = 2.0  # after READY=1: the web view's thread starts, the first frames are drawn
IDLE_S = 10.0  # /proc counts CPU in 10 ms ticks: 10 s measure 0.1 % steps
TARGET_READY_S = 1.0
TARGET_IDLE_PERCENT = 2.0
WATCHDOG_USEC = int(unit_seconds("WatchdogSec") * 1_000_000)


FAKE_CHIPS = ["0.0:25", "0.1:24", "1.0:23", "1.1:22", "1.2:27"]  # bus.device:reset GPIO, as config/pi.toml


def _start(profile: Path, directory: Path, notify: NotifySocket, **options) -> tuple[Tablemate, float]:
    """A `tablemate run` that has said READY=1, and the seconds from its spawn to that message."""
    process = Tablemate(profile, directory, notify=notify.address, watchdog_usec=WATCHDOG_USEC, **options)
    try:
        notify.wait_for(lambda m: m.get("READY") == "1", 30, "READY=1")
    except AssertionError:
        process.kill()
        raise RuntimeError(f"tablemate did not get ready; stderr:\n{process.stderr()}") from None
    return process, time.monotonic() - process.started


def _stop(process: Tablemate) -> None:
    process.signal(signal.SIGTERM)
    if process.wait(unit_seconds("TimeoutStopSec")) != 0:
        raise RuntimeError(f"tablemate did not stop cleanly; stderr:\n{process.stderr()}")


def ready_times(profile: Path, directory: Path) -> list[float]:
    times = []
    for _ in range(READY_RUNS):
        notify = NotifySocket("abstract")
        try:
            process, ready_s = _start(profile, directory, notify)
            times.append(ready_s)
            _stop(process)
        finally:
            notify.close()
    return times


def idle_cpu(profile: Path, directory: Path, **options) -> dict:
    notify = NotifySocket("abstract")
    try:
        process, _ = _start(profile, directory, notify, **options)
        try:
            time.sleep(SETTLE_S)
            cpu_before, wall_before = process.cpu_seconds(), time.monotonic()
            time.sleep(IDLE_S)
            cpu, wall = process.cpu_seconds() - cpu_before, time.monotonic() - wall_before
            threads = len(list(Path(f"/proc/{process.pid}/task").iterdir()))
        finally:
            _stop(process)  # a clean stop: the loop was answering all along
    finally:
        notify.close()
    return {"percent_of_one_core": round(100 * cpu / wall, 2), "cpu_ms": round(cpu * 1000), "window_s": round(wall, 2),
            "threads": threads}


def run() -> dict:
    with tempfile.TemporaryDirectory() as name:
        directory = Path(name)
        profile = desktop_profile(directory, store="memory://", web_port=free_port())
        times = ready_times(profile, directory)
        idle = idle_cpu(profile, directory)
        chips = directory / "rc522"
        chips.mkdir()
        idle_rc522 = idle_cpu(desktop_profile(chips, store="memory://", web_port=free_port(), rc522=True), chips,
                              fake_spidev=FAKE_CHIPS)
    median, worst = statistics.median(times), max(times)
    return {
        "profile": "the desktop profile (web on a free port, frames to a file)",
        "ready_s": {"median": round(median, 3), "max": round(worst, 3), "runs": [round(t, 3) for t in times]},
        "ready_target_s": TARGET_READY_S,
        "idle_cpu": idle,
        "idle_cpu_5_fake_rc522_readers": idle_rc522,
        "idle_cpu_target_percent": TARGET_IDLE_PERCENT,
        "meets_targets": worst <= TARGET_READY_S and max(idle["percent_of_one_core"], idle_rc522["percent_of_one_core"])
        <= TARGET_IDLE_PERCENT,
    }


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
