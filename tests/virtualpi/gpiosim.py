"""The header's GPIO lines as a real kernel GPIO chip: the kernel's configfs GPIO simulator
(drivers/gpio/gpio-sim.c, Documentation/admin-guide/gpio/gpio-sim.rst), which Debian's
trixie-backports kernels build (CONFIG_GPIO_SIM=m, with CONFIG_IRQ_SIM for its edge interrupts).

lgpio opens it as it opens a Pi's: /dev/gpiochipN, line requests with bias and edge detection,
"GPIO busy" for a line another program holds, events from the kernel. The chip is made as a Pi 5's
header appears on its current kernels: 54 lines labelled "pinctrl-rp1" (the RP1's bank), the first
chip, gpiochip0 (gpiozero opens gpiochip4 on a Pi 5 when it exists, and Raspberry Pi OS links it to
gpiochip0: the board's udev rules do the same).

What is wired to a line: gpio-sim keeps one "pull" per line, which is the level of an input that
nobody drives; the consumer's bias (lgpio's pull-up for a button) sets it, and so does the sysfs
attribute `sim_gpioN/pull`, last one first: a button pressed is "pull-down" there (its contact to
ground), released "pull-up" again. An output's level is `sim_gpioN/value`: the kernel tells nobody
when it changes, so whoever follows an output reads it (the board does, for the RC522s' resets).

An edge on a line a program watches is an interrupt of the simulator's interrupt chip (irq_sim),
delivered from the kernel's irq_work: a second edge before the first is delivered is lost with it
(one pending bit). And it is finished in two halves (gpiolib-cdev.c): the hard handler only takes
the timestamp; the line's interrupt thread ("irq/N-label") then reads the line's level to tell a
rising edge from a falling one, when both are watched (lgpio's alerts for gpiozero's Button). In a
busy emulated machine that thread, on the other virtual CPU, can run 100 ms late: by then the
button is released, the press is read as a second release, and it is lost. A Pi's kernel runs that
thread at once (SCHED_FIFO), before any finger lets go. So `pull` waits until the kernel has done
both: the line's interrupt count (/sys/kernel/irq/N: chip irq_sim, hwirq = the line) has moved and
its thread has run and gone back to sleep (its voluntary_ctxt_switches in /proc), as a finger stays
on a button longer than a Pi's kernel takes to see it.
"""

import os
import time
from pathlib import Path

CONFIGFS = Path("/sys/kernel/config/gpio-sim")
#: the Pi 5's header chip on Raspberry Pi OS's kernels since 6.6.45
LABEL, LINES = "pinctrl-rp1", 54
IRQS = Path("/sys/kernel/irq")
#: how long an edge's interrupt may take to be delivered in the VM
EDGE_S = 10.0


class Chip:
    """One gpio-sim device with one bank: `start()` makes it (live), `stop()` removes it."""

    def __init__(self, name: str = "virtualpi", label: str = LABEL, lines: int = LINES):
        self.name, self.label, self.lines = name, label, lines
        self.device = CONFIGFS / name
        self.chip_name = ""
        self._values: dict[int, int] = {}
        self._irqs: dict[int, Path | None] = {}
        self._threads: dict[str, Path | None] = {}

    def start(self) -> str:
        """Make the chip; its name ("gpiochip0")."""
        if os.system("modprobe gpio-sim") != 0:
            raise RuntimeError("modprobe gpio-sim failed: the kernel needs CONFIG_GPIO_SIM (Debian's trixie-backports kernel)")
        self.stop()  # a killed board's chip
        bank = self.device / "bank0"
        bank.mkdir(parents=True)
        (bank / "num_lines").write_text(str(self.lines))
        (bank / "label").write_text(self.label)
        (self.device / "live").write_text("1")
        self.chip_name = (bank / "chip_name").read_text().strip()
        self.sysfs = Path("/sys/devices/platform") / (self.device / "dev_name").read_text().strip() / self.chip_name
        return self.chip_name

    def stop(self) -> None:
        for fd in self._values.values():
            os.close(fd)
        self._values.clear()
        self._irqs.clear()
        self._threads.clear()
        if self.device.exists():
            (self.device / "live").write_text("0")
            (self.device / "bank0").rmdir()
            self.device.rmdir()

    def pull(self, line: int, up: bool) -> None:
        """What is wired to `line` pulls it up (a button released) or down (pressed); when a program
        watches the line's edges, once the kernel has delivered this one and read its level."""
        before, level = self.interrupts(line), self.level(line)
        slept = self.sleeps(line)
        (self.sysfs / f"sim_gpio{line}" / "pull").write_text("pull-up" if up else "pull-down")
        deadline = time.monotonic() + EDGE_S
        while before is not None and self.level(line) != level and (
                self.interrupts(line) == before or slept is not None and self.sleeps(line) == slept):
            if time.monotonic() > deadline:
                raise TimeoutError(f"the kernel did not deliver the edge on line {line} within {EDGE_S} s")
            time.sleep(0.005)

    def level(self, line: int) -> int:
        """The line's level now: what an output drives, else the pull."""
        fd = self._values.get(line)
        if fd is None:
            fd = self._values[line] = os.open(self.sysfs / f"sim_gpio{line}" / "value", os.O_RDONLY)
        return int(os.pread(fd, 8, 0))

    def interrupts(self, line: int) -> int | None:
        """The interrupts delivered for `line`'s edges so far; None when nothing watches them."""
        irq = self._irq(line)
        try:
            return None if irq is None else sum(int(count) for count in (irq / "per_cpu_count").read_text().split(","))
        except OSError:  # its mapping went with the program's request
            return None

    def sleeps(self, line: int) -> int | None:
        """How often the interrupt thread of `line`'s edges has gone to sleep, each time after its
        pending edges were read; None when nothing watches them (or the interrupt has no thread)."""
        thread = self.thread(line)
        try:
            status = (thread / "status").read_text() if thread else ""
        except OSError:  # the request went, and its thread with it
            return None
        return next((int(row.split()[1]) for row in status.splitlines() if row.startswith("voluntary_ctxt_switches:")), None)

    def thread(self, line: int) -> Path | None:
        """/proc/PID of the kernel thread that finishes `line`'s edges ("irq/N-label"), or None."""
        irq = self._irq(line)
        if irq is None:
            return None
        thread = self._threads.get(irq.name)
        if thread is None or not _is_thread(thread, irq.name):
            thread = self._threads[irq.name] = next(
                (task for task in Path("/proc").iterdir() if task.name.isdigit() and _is_thread(task, irq.name)), None)
        return thread

    def _irq(self, line: int) -> Path | None:
        """/sys/kernel/irq/N of `line`'s edges, or None."""
        irq = self._irqs.get(line)
        if irq is None or not _is_line(irq, line):  # not found yet, or the line's mapping changed
            irq = self._irqs[line] = next((irq for irq in IRQS.iterdir() if _is_line(irq, line)), None)
        return irq


def _is_line(irq: Path, line: int) -> bool:
    try:
        return (irq / "chip_name").read_text().strip() == "irq_sim" and (irq / "hwirq").read_text().strip() == str(line)
    except OSError:  # an interrupt without a chip, or gone meanwhile
        return False


def _is_thread(task: Path, irq: str) -> bool:
    try:
        return (task / "comm").read_text().startswith(f"irq/{irq}-")
    except OSError:  # the task ended meanwhile
        return False
