"""A press while the kernel is slow to finish its edges (runs in the VM, as root; prints JSON):

    python3 -m tests.virtualpi.edges

What lost a press in a busy emulated VM, made on purpose: a program watches both edges of a line of
a gpio-sim chip of its own (gpiomon, as lgpio's alerts for gpiozero's Button), and the line's
interrupt thread, which reads the level that tells a press from a release (gpiosim.py), is held
back: real-time busy loops on both virtual CPUs, above the thread's lowered priority, for
`STALL_S` from when both run. A press made with bare writes of the line's pull (down, 100 ms, up)
then reaches the program as one rising edge: lost. The same press made with `Chip.pull`, as the
board makes every press, waits for the thread and reaches it whole: falling, then rising. The first
proves the stall happened; the second that the hands' presses survive it.
"""

import json
import os
import select
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from .gpiosim import Chip

LINE = 5
STALL_S = 2.0
PRESS_S = 0.1


class Stall:
    """Real-time busy loops (SCHED_FIFO 50) on both CPUs, from when both run until `seconds` later,
    when a thread of this process (SCHED_FIFO 99) ends them."""

    def __init__(self, seconds: float = STALL_S):
        self.seconds = seconds

    def __enter__(self) -> "Stall":
        marks = Path(tempfile.mkdtemp(prefix="edges-", dir="/run"))
        self.loops = [subprocess.Popen(["taskset", "-c", str(cpu), "chrt", "-f", "50", "sh", "-c",
                                        f"touch {marks}/{cpu}; while :; do :; done"]) for cpu in (0, 1)]
        deadline = time.monotonic() + 30
        while len(list(marks.iterdir())) < 2:
            if time.monotonic() > deadline:
                raise TimeoutError("the busy loops did not start within 30 s")
            time.sleep(0.01)
        shutil.rmtree(marks)
        self.timer = threading.Timer(self.seconds, self.end)
        self.timer.start()
        return self

    def end(self) -> None:
        for loop in self.loops:
            loop.kill()

    def __exit__(self, *exc: object) -> None:
        self.timer.join()
        for loop in self.loops:
            loop.wait()


def spin(seconds: float) -> None:
    """Wait without sleeping: a sleep would give the CPU to the busy loop for longer."""
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        pass


def edges(monitor: subprocess.Popen) -> list[str]:
    """The edges the monitor reported since last asked ("falling", "rising")."""
    data = b""
    while select.select([monitor.stdout], [], [], 0.5)[0]:
        data += os.read(monitor.stdout.fileno(), 4096)
    return data.decode().split()


def main() -> int:
    chip = Chip("edges")
    name = chip.start()
    monitor = subprocess.Popen(["stdbuf", "-oL", "gpiomon", "-c", name, "-e", "both", "-b", "pull-up", "--format", "%E",
                                str(LINE)], stdout=subprocess.PIPE)
    # above the busy loops on CPU 0, so this process presses on time; the monitor, started before,
    # stays an ordinary process, as the table's lgpio is
    os.sched_setaffinity(0, {0})
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(99))
    try:
        deadline = time.monotonic() + 10
        while (thread := chip.thread(LINE)) is None:
            if time.monotonic() > deadline:
                raise TimeoutError("gpiomon's request of the line has no interrupt thread")
            time.sleep(0.05)
        subprocess.run(["chrt", "-f", "-p", "1", thread.name], check=True)
        pull = chip.sysfs / f"sim_gpio{LINE}" / "pull"
        with Stall():
            pull.write_text("pull-down")
            spin(PRESS_S)
            pull.write_text("pull-up")
        bare = edges(monitor)
        with Stall():
            started = time.monotonic()
            chip.pull(LINE, up=False)
            waited = time.monotonic() - started
            spin(PRESS_S)
            chip.pull(LINE, up=True)
        pulled = edges(monitor)
    finally:
        monitor.terminate()
        monitor.wait()
        chip.stop()
    print(json.dumps({"bare": bare, "pulled": pulled, "waited_s": round(waited, 2)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
