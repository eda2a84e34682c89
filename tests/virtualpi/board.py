"""The virtual Pi's board: every device the profile's hardware needs, made from a description of
what is wired where, served until stopped, and a control socket through which a test places cards,
presses buttons and reads the panel. Runs as root in the VM, as the systemd unit virtualpi.service
(before tablemate.service, as the kernel makes a Pi's devices before its services start):

    python3 -m tests.virtualpi.board /etc/virtualpi/board.json

The description (JSON; tests/virtualpi/system.py writes it from config/pi.toml, and changes it for
the failure cases):

    {"spi": {"0.0": "seat0", "0.1": null, ...},   # the /dev/spidevB.D nodes there are (the buses
                                                   # config.txt turns on), and whose chip is on each
     "chips": {"seat0": {"rst": 25}, ...},         # each RC522 and the GPIO of its reset input
     "panel": {"driver": "ssd1306", "address": 60, "port": 1},
     "groups": ["gpio", "spi", "i2c"]}             # the groups udev gives the nodes, as on Raspberry Pi OS

What it makes:
- the GPIO chip (gpiosim.py), each RC522's reset input watching its line;
- /dev/spidevB.D per node, through CUSE (spidev.py) with the chip's model behind it (the project's
  strict RC522 model on the real clock), at device numbers 153:256 and up: 153 is spidev's major,
  which Debian's spidev module registers as `spi`, so systemd's DeviceAllow=char-spi covers them as
  it covers a Pi's (CUSE names the region after the node, and no `spidev0.0` rule would);
- the I2C bus through CUSE (i2cdev.py) named `i2c`, so that DeviceAllow=char-i2c covers it, and
  /dev/i2c-N linking to it (udev), the panel model at its address;
- udev rules as Raspberry Pi OS's (the nodes' groups, /dev/gpiochip4 -> gpiochip0 on a Pi 5);
- the board's identity: /run/virtualpi/cpuinfo, this machine's /proc/cpuinfo with a Raspberry Pi 5's
  revision, mounted over /proc/cpuinfo (gpiozero reads it: there is no device tree on amd64); the
  service's own /proc (ProtectProc=invisible) gets it from a drop-in (BindReadOnlyPaths=).

Control (JSON lines on /run/virtualpi/control, one answer per request):
    {"do": "place", "reader": "seat0", "uid": "01000001"}   a card in the chip's field
    {"do": "lift", "reader": "seat0", "gap": 0.5}          the card gone, answered once the driver's
                                                            polls have seen the field empty for `gap`
    {"do": "press", "gpio": 5, "ms": 100}                   a button pressed for `ms`, then released
    {"do": "frame", "want": [HEX, ...], "timeout": 30}      until the panel's RAM is one of these
    {"do": "panel"}                                         its RAM, power, contrast, datasheet errors
    {"do": "chips"}                                         each chip: reset, transactions, ISO violations
"""

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from tests.drivers.fake_rc522 import FakeCard, FakeRc522
from tests.drivers.i2c_oled import CONTROLLERS

from .cuse import Server
from .gpiosim import Chip
from .i2cdev import I2cBus
from .spidev import SpiDev

RUN = Path("/run/virtualpi")
CONTROL = RUN / "control"
CPUINFO = RUN / "cpuinfo"
RULES = Path("/run/udev/rules.d/90-virtualpi.rules")
#: spidev's major (include/uapi/linux/major.h SPIDEV_MAJOR); its own minors are 0-255
SPIDEV_MAJOR, FIRST_MINOR = 153, 256
#: a Raspberry Pi 5 Model B 8 GB, rev 1.0, as its /proc/cpuinfo ends
PI = "Revision\t: d04170\nSerial\t\t: 00000000c0ffee00\nModel\t\t: Raspberry Pi 5 Model B Rev 1.0\n"
WUPA = b"\x52"
#: how often the RC522s' reset lines are read between SPI transactions (the drivers wait 50 ms after a reset)
RESET_S = 0.01


class Rc522(FakeRc522):
    """The strict RC522 model, noting when the driver sent each WUPA (its polls)."""

    def __init__(self, clock, seed: int):
        super().__init__(clock, seed=seed)
        self.polls: list[float] = []

    def _send(self, expect_answer: bool) -> None:
        if bytes(self.fifo) == WUPA:
            self.polls.append(self.clock())
            del self.polls[:-64]
        super()._send(expect_answer)


class Wired:
    """An RC522 on the board, its NRSTPD input wired to a GPIO line. gpio-sim tells nobody when an
    output changes: the line is read before each SPI transaction (so the chip never answers out of
    order with its reset) and every RESET_S between (so a rising edge, the hard reset, is timed)."""

    def __init__(self, chip: Rc522, line: int, gpio: Chip, lock: threading.Lock):
        self.chip, self.line, self.gpio, self.lock = chip, line, gpio, lock
        self.level: int | None = None

    def transfer(self, data: list[int]) -> list[int]:
        """SpiDev's call, under the bus's lock."""
        self.follow()
        return self.chip.transfer(data)

    def follow(self) -> None:
        level = self.gpio.level(self.line)
        if level != self.level:
            self.level = level
            self.chip.reset_line(bool(level))


def udev_rules(groups: list[str], port: int) -> str:
    """Raspberry Pi OS's rules for these nodes (/usr/lib/udev/rules.d/99-com.rules there), for
    CUSE's nodes (subsystem `cuse`) instead of spidev's and i2c-dev's; a group left out leaves its
    nodes root's, mode 0600, as the kernel makes them."""
    owned = {group: f', GROUP="{group}", MODE="0660"' if group in groups else "" for group in ("gpio", "spi", "i2c")}
    return (f'SUBSYSTEM=="gpio", KERNEL=="gpiochip*"{owned["gpio"]}\n'
            'SUBSYSTEM=="gpio", KERNEL=="gpiochip0", SYMLINK+="gpiochip4"\n'
            f'SUBSYSTEM=="cuse", KERNEL=="spidev*"{owned["spi"]}\n'
            f'SUBSYSTEM=="cuse", KERNEL=="i2c"{owned["i2c"]}, SYMLINK+="i2c-{port}"\n')


class Board:
    """The board a description says (above): `start()` makes it, `answer()` takes a control request."""

    def __init__(self, description: dict):
        self.description = description
        self.gpio = Chip()
        self.chips: dict[str, Wired] = {}  # by chip: each lock is its bus's (SPI transfers, cards, resets)
        self.cards: dict[str, FakeCard] = {}
        self.servers: list[Server] = []
        self.changed = threading.Condition()  # the panel took a transaction

    def start(self) -> None:
        for module in ("cuse", "spidev"):
            subprocess.run(["modprobe", module], check=True)
        RUN.mkdir(exist_ok=True)
        RULES.parent.mkdir(parents=True, exist_ok=True)
        panel = self.description["panel"]
        RULES.write_text(udev_rules(self.description["groups"], panel["port"]))
        subprocess.run(["udevadm", "control", "--reload"], check=True)
        self.gpio.start()
        spi = self.description["spi"]
        buses = {node: threading.Lock() for node in {node.split(".")[0] for node in spi}}
        for number, (name, chip) in enumerate(self.description["chips"].items()):
            node = next((node for node, wired in spi.items() if wired == name), None)
            lock = buses[node.split(".")[0]] if node else threading.Lock()
            self.chips[name] = Wired(Rc522(time.monotonic, seed=number), chip["rst"], self.gpio, lock)
        for minor, (node, name) in enumerate(sorted(spi.items()), start=FIRST_MINOR):
            device = SpiDev(self.chips.get(name), buses[node.split(".")[0]])
            self.servers.append(Server(f"spidev{node}", device, SPIDEV_MAJOR, minor))
        self.panel = CONTROLLERS[panel["driver"]](panel["address"])
        self.servers.append(Server("i2c", Watched(self.panel, self.changed)))
        for server in self.servers:
            if not server.ready.wait(10):
                raise RuntimeError(f"CUSE did not start /dev/{server.name}")
        threading.Thread(target=self._follow_resets, name="resets", daemon=True).start()
        subprocess.run(["udevadm", "settle"], check=True)
        subprocess.run(["umount", "/proc/cpuinfo"], check=False, stderr=subprocess.DEVNULL)  # a killed board's
        CPUINFO.write_text(Path("/proc/cpuinfo").read_text() + PI)
        subprocess.run(["mount", "--bind", str(CPUINFO), "/proc/cpuinfo"], check=True)

    def stop(self) -> None:
        subprocess.run(["umount", "/proc/cpuinfo"], check=False)
        for server in self.servers:
            server.close()
        self.gpio.stop()

    def _follow_resets(self) -> None:
        while True:
            for wired in self.chips.values():
                with wired.lock:
                    wired.follow()
            time.sleep(RESET_S)

    # -- what a test does ------------------------------------------------------------------------
    def answer(self, request: dict) -> dict:
        do = request["do"]
        if do == "place":
            wired = self.chips[request["reader"]]
            with wired.lock:
                self.cards[request["reader"]] = wired.chip.place(FakeCard(request["uid"]))
            return {}
        if do == "lift":
            return self._lift(request["reader"], request["gap"])
        if do == "press":
            self.gpio.pull(request["gpio"], up=False)
            time.sleep(request["ms"] / 1000)
            self.gpio.pull(request["gpio"], up=True)
            return {}
        if do == "frame":
            return self._frame(request["want"], request["timeout"])
        if do == "panel":
            with self.changed:
                return {"ram": self.ram().hex(), "on": self.panel.on, "contrast": self.panel.contrast,
                        "errors": self.panel.errors}
        if do == "chips":
            return {name: {"in_reset": s.chip.in_reset, "transactions": s.chip.transactions, "violations": s.chip.violations}
                    for name, s in self.chips.items()}
        raise ValueError(f"unknown request {do!r}")

    def _lift(self, name: str, gap: float) -> dict:
        """Lift the card; return once a poll has found the field empty `gap` seconds after the first
        that did (the driver's rule for a removal: drivers/readers/presence.py), plus one poll."""
        wired = self.chips[name]
        with wired.lock:
            wired.chip.lift(self.cards.pop(name))
            lifted = time.monotonic()
        first = None
        deadline = lifted + 30
        while time.monotonic() < deadline:
            with wired.lock:
                after = [t for t in wired.chip.polls if t > lifted]
            first = first if first is not None else (after[0] if after else None)
            if first is not None and sum(t >= first + gap for t in after) >= 2:
                return {"seconds": round(time.monotonic() - lifted, 3)}
            time.sleep(0.01)
        raise TimeoutError(f"{name}: the driver did not poll the empty field for {gap} s within 30 s")

    def ram(self) -> bytes:
        """The RAM wired to the panel's 128 columns, page by page."""
        start = self.panel.visible_from
        return b"".join(bytes(page[start:start + 128]) for page in self.panel.ram)

    def _frame(self, want: list[str], timeout: float) -> dict:
        wanted = [bytes.fromhex(frame) for frame in want]
        start = time.monotonic()
        with self.changed:
            found = self.changed.wait_for(lambda: self.ram() in wanted, timeout)
            ram = self.ram()
        return {"matched": wanted.index(ram) if found else None, "seconds": round(time.monotonic() - start, 3),
                **({} if found else {"ram": ram.hex()})}


class Watched(I2cBus):
    """The I2C bus, telling `changed` after every transaction (under its lock, so a reader of the
    panel never sees half of one)."""

    def __init__(self, panel, changed: threading.Condition):
        super().__init__(panel)
        self.changed = changed

    def _write(self, address: int, payload: bytes) -> None:
        with self.changed:
            super()._write(address, payload)
            self.changed.notify_all()


def serve_control(board: Board) -> None:
    CONTROL.unlink(missing_ok=True)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(CONTROL))
    server.listen()

    def talk(connection: socket.socket) -> None:
        with connection, connection.makefile("rw") as stream:
            for line in stream:
                try:
                    answer = {"ok": True, **board.answer(json.loads(line))}
                except Exception as error:  # the test hears of it; the board serves on
                    answer = {"ok": False, "error": f"{type(error).__name__}: {error}"}
                stream.write(json.dumps(answer) + "\n")
                stream.flush()

    while True:
        connection, _ = server.accept()
        threading.Thread(target=talk, args=(connection,), daemon=True).start()


def notify(state: str) -> None:
    """sd_notify(3) without libsystemd: one datagram to $NOTIFY_SOCKET."""
    path = os.environ.get("NOTIFY_SOCKET")
    if path:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.connect("\0" + path[1:] if path.startswith("@") else path)
            sock.send(state.encode())


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # systemctl stop: the finally below unmakes the board
    board = Board(json.loads(Path(argv[0]).read_text()))
    try:
        board.start()
        threading.Thread(target=serve_control, args=(board,), daemon=True).start()
        notify("READY=1")
        threading.Event().wait()
    finally:
        board.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
