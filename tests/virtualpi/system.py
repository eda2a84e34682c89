"""The virtual Pi's test (`make virtual-pi`): tablemate installed by install.sh and run by systemd,
unchanged, with config/pi.toml's real drivers, on a trixie VM whose kernel serves the Pi's device
interfaces from models (tests/virtualpi/board.py): a recorded game played to its end through the
readers' and buttons' devices, every screen checked on the panel model, the last one against the
game's golden frame; then the failures a first Pi meets, each with what the owner is told.

    python -m tests.virtualpi.system [--game maharani] [--keep]      (as root)

1. The image (tests/virtualpi/image.py, cached), booted; the checkout copied in; the board started
   from pi.toml's wiring (virtualpi.service), and the service's drop-in that gives its own /proc the
   board's identity; the board checked as lgpio and systemd will see it; a press made while the
   kernel is slow to finish its edges kept whole (tests/virtualpi/edges.py).
2. install.sh --force (no /proc/device-tree/model here): its doctor, run as the service user with
   the real drivers, finds every part; the service starts under its own hardening (DevicePolicy,
   DeviceAllow, SupplementaryGroups, ProtectProc ...), READY, nothing in trouble, gpiozero on lgpio
   holding the header's lines.
3. The game's tags imported as the owner's guide says; the game played by tests/virtualpi/hands.py
   (every step's screen awaited on the panel); the panel's last image equal to the golden frame
   (tests/virtualpi/golden/GAME.png), and the table's game over with the same entries and scores as
   on this machine.
4. Failures, each in a service started afresh on a board (or unit) changed for it:
   - wiring: SPI1 off (no spi1-3cs: /dev/spidev1.* absent), the seat0 reader on SPI0's other chip
     select, the panel at 0x3D, a button's line held by another program (gpioset);
   - the device policy: DeviceAllow without char-spi, and the GPIO chip left root's by udev;
   - the groups: the service user out of group spi and the unit without SupplementaryGroups=.
"""

import argparse
import copy
import gzip
import json
import shlex
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageChops

from drivers.display.care import SHIFTS, shifted
from firmware.config import load_profile
from tests.platform import Phases, checkout
from tests.platform.system import PROFILE, SOURCE, TABLEMATE, Table
from tests.platform.vm import VM, run_check

from . import plan as plans
from .image import virtual_pi_image

BOARD = "/etc/virtualpi/board.json"
WORK = "/srv/virtualpi"
BOARD_UNIT = f"""[Unit]
Description=The virtual Pi's board: the Pi's devices served from models (tests/virtualpi/board.py)
Before=tablemate.service

[Service]
Type=notify
WorkingDirectory={SOURCE}
ExecStart=/usr/bin/python3 -m tests.virtualpi.board {BOARD}

[Install]
WantedBy=multi-user.target
"""
IDENTITY = """# The virtual Pi's board identity (tests/virtualpi/board.py): on a Pi the kernel's own /proc/cpuinfo
# names the board; ProtectProc= gives the service a /proc of its own, which the board's mount over
# the system's /proc/cpuinfo does not reach.
[Service]
BindReadOnlyPaths=/run/virtualpi/cpuinfo:/proc/cpuinfo
"""
CASE_DROP_IN = "/run/systemd/system/tablemate.service.d/case.conf"


def wiring() -> dict:
    """The board as config/pi.toml says it is wired (tests/virtualpi/board.py's description)."""
    profile = load_profile(plans.PROFILE)
    readers = [r for r in profile.readers if r.driver == "mfrc522"]
    display = profile.display
    return {"spi": {f"{r.bus}.{r.device}": r.name for r in readers},
            "chips": {r.name: {"rst": r.rst} for r in readers},
            "panel": {"driver": display.driver, "address": display.address, "port": display.port},
            "groups": ["gpio", "spi", "i2c"]}


class Pi:
    """The VM's board: (re)made from a description, asked through its control socket; the service's log."""

    def __init__(self, vm: VM):
        self.vm = vm

    def set_board(self, board: dict) -> None:
        self.vm.run(f"install -D -m 0644 /dev/stdin {BOARD} && systemctl restart virtualpi", input=json.dumps(board).encode())

    def ask(self, do: str, **request) -> dict:
        code = "import json, sys; from tests.virtualpi.hands import Control; print(json.dumps(Control()(**json.loads(sys.argv[1]))))"
        line = json.dumps({"do": do, **request})
        return json.loads(self.vm.run(f"cd {SOURCE} && python3 -c {shlex.quote(code)} {shlex.quote(line)}").stdout)

    def panel(self) -> tuple[Image.Image, dict]:
        """The panel model's image (what it shows lit) and its state."""
        state = self.ask("panel")
        return plans.frame(bytes.fromhex(state["ram"])), state

    def journal_since(self, cursor: str) -> str:
        return self.vm.run(f"journalctl -u tablemate --no-pager -o cat --after-cursor={shlex.quote(cursor)}", check=False).stdout

    def cursor(self) -> str:
        return self.vm.run("journalctl -u tablemate -n 1 --show-cursor --no-pager -q | tail -n 1").stdout.split("cursor: ")[-1].strip()


def same_frame(image: Image.Image, golden: Image.Image) -> tuple[int, int] | None:
    """The pixel shift at which `image` is `golden` (OLED care moves the frame), or None."""
    return next((offset for offset in SHIFTS if ImageChops.difference(image, shifted(golden, offset)).getbbox() is None), None)


def run(game: str, workdir: Path) -> Phases:
    phases = Phases("virtual-pi")
    with phases("reference game in virtual time here"):
        plan, played = plans.make(game)
    golden = Image.open(plans.golden_path(game)).convert("1")
    assert ImageChops.difference(played.last.convert("1"), golden).getbbox() is None, \
        f"the {game} game here no longer ends on {plans.golden_path(game)}: make it again (tests/virtualpi/test_plan.py says how)"
    with phases("image (cached after its first build)"):
        disk = virtual_pi_image()
    with VM(disk, workdir) as vm:
        table = Table(vm, phases)
        pi = Pi(vm)
        phases.note(f"accelerator: {vm.accel}")
        with phases("boot"):
            vm.boot()
        phases.note(f"kernel {vm.run('uname -r').stdout.strip()}")
        with phases("copy the checkout; the board"):
            vm.copy_in(checkout(), SOURCE, owner="pi")
            vm.run("install -D -m 0644 /dev/stdin /etc/systemd/system/virtualpi.service", input=BOARD_UNIT.encode())
            vm.run("install -D -m 0644 /dev/stdin /etc/systemd/system/tablemate.service.d/virtualpi.conf", input=IDENTITY.encode())
            vm.run("systemctl daemon-reload && systemctl enable virtualpi")
            pi.set_board(wiring())
        board_checks(vm)
        with phases("a press while the kernel's edge thread is held back"):
            edge_check(vm)

        with phases("install.sh"):
            result = table.install()
        assert "doctor: all good" in result.stdout, result.stdout + result.stderr
        shown = table.wait_ready()
        assert shown["StatusText"] == "Choosing a game", shown
        service_checks(vm, table)

        with phases(f"play {game} to its end"):
            vm.copy_in({f"{game}.tags.toml": plans.DEMOS / f"{game}.tags.toml"}, WORK)
            vm.run(f"systemctl stop tablemate && cd /tmp && runuser -u tablemate -- {TABLEMATE} tags import {WORK}/{game}.tags.toml"
                   f" --config {PROFILE} && systemctl start tablemate")
            table.wait_ready()
            with tempfile.TemporaryDirectory() as directory:
                path = Path(directory) / "plan.json.gz"
                path.write_bytes(gzip.compress(json.dumps(plan).encode()))
                vm.copy_in({"plan.json.gz": path}, WORK)
            result = vm.run(f"cd {SOURCE} && python3 -m tests.virtualpi.hands {WORK}/plan.json.gz", timeout=7200, check=False)
            print(result.stdout, end="", flush=True)
            if result.returncode:
                raise vm.error(f"the game did not play through:\n{result.stderr}\n{table.log()}")
        summary = json.loads(result.stdout.splitlines()[-1])
        image, state = pi.panel()
        offset = same_frame(image, golden)
        assert offset is not None and state["on"] and not state["errors"], f"the panel's last image is not {plans.golden_path(game)}: {state}"
        status = table.status()["game"]
        assert status["over"] and status["entries"] == played.entries, (status, played.entries)
        assert [{"player": s["player"], "total": s["total"]} for s in status["scores"]] == played.scores, (status, played.scores)
        violations = {name: chip["violations"] for name, chip in summary["chips"].items() if chip["violations"]}
        assert not violations, f"the driver broke the RC522's or ISO 14443-3's timing: {violations}"
        phases.note(f"{game}: {summary['steps']} steps in {summary['seconds']:.0f} s (slowest screen {summary['slowest_screen_s']:.1f} s"
                    f" after its input), {status['entries']} entries, scores {played.scores}; the panel shows "
                    f"{plans.golden_path(game).name} (pixel shift {offset})")

        failure_checks(vm, pi, table)
    return phases


def board_checks(vm: VM) -> None:
    """The board as lgpio, spidev, smbus2 and systemd will find it: the GPIO chip as a Pi 5's header,
    the nodes with Raspberry Pi OS's groups, spidev's major for the readers (DeviceAllow=char-spi),
    the I2C bus named `i2c` (char-i2c), and a Pi 5's revision in /proc/cpuinfo."""
    chips = vm.run("gpiodetect").stdout
    assert "gpiochip0 [pinctrl-rp1] (54 lines)" in chips, chips
    nodes = vm.run("stat -L -c '%n %G %a %t' /dev/gpiochip0 /dev/gpiochip4 /dev/spidev0.0 /dev/spidev1.2 /dev/i2c-1").stdout.split("\n")
    devices = dict(reversed(line.split()) for line in vm.run("sed -n '/^Character/,/^$/p' /proc/devices").stdout.splitlines()[1:] if line)
    expected = [f"/dev/gpiochip0 gpio 660 {int(devices['gpiochip']):x}", f"/dev/gpiochip4 gpio 660 {int(devices['gpiochip']):x}",
                "/dev/spidev0.0 spi 660 99", "/dev/spidev1.2 spi 660 99", f"/dev/i2c-1 i2c 660 {int(devices['i2c']):x}"]
    assert nodes[:5] == expected and devices["spi"] == "153", (nodes, devices)
    assert "Revision\t: d04170" in vm.run("cat /proc/cpuinfo").stdout


def edge_check(vm: VM) -> None:
    """tests/virtualpi/edges.py: with the line's interrupt thread held back, a press of bare pull
    writes is lost (so the stall was real) and the board's press is not (it waits for the thread)."""
    result = json.loads(vm.run(f"cd {SOURCE} && python3 -m tests.virtualpi.edges", timeout=120).stdout.splitlines()[-1])
    assert result["bare"] == ["rising"], f"the edge thread was not held back, so this proves nothing: {result}"
    assert result["pulled"] == ["falling", "rising"] and result["waited_s"] >= 1, f"the board's press did not wait for the edge thread: {result}"


def service_checks(vm: VM, table: Table) -> None:
    """The service under its own hardening holds the real devices: lgpio's gpiochip (gpiozero found a
    Pi 5 in the unit's own /proc), every reader's spidev, the I2C bus; and the lines gpiozero claimed."""
    pid = table.show("MainPID")["MainPID"]
    held = vm.run(f"ls -l /proc/{pid}/fd").stdout
    for node in ("/dev/gpiochip0", "/dev/spidev0.0", "/dev/spidev0.1", "/dev/spidev1.0", "/dev/spidev1.1", "/dev/spidev1.2", "/dev/i2c"):
        assert f"-> {node}\n" in held, f"the service does not hold {node}:\n{held}"
    lines = {int(line.split(":")[0].split()[1]): line.split("\t")[-1].strip()
             for line in vm.run("gpioinfo -c gpiochip0").stdout.splitlines()[1:]}
    profile = load_profile(plans.PROFILE)
    for number in profile.buttons.pins.values():
        assert lines[number] == "input bias=pull-up edges=both consumer=lg", (number, lines[number])
    for reader in profile.readers:
        assert lines[reader.rst] == "output consumer=lg", (reader.rst, lines[reader.rst])


@dataclass(frozen=True)
class Case:
    """A first Pi's failure: the board (or the unit, or the system) changed before the service
    starts, changed back after; what the owner is told, on STATUS= (systemctl status) and in the
    service's log (journalctl -u tablemate), each part once it has tried."""

    name: str
    board: Callable[[dict], dict] = lambda board: board
    drop_in: str = ""          #: [Service] lines for tablemate.service (a runtime drop-in)
    before: str = ""           #: shell lines run before the start
    after: str = ""            #: and after the stop
    status: tuple[str, ...] = ()
    log: tuple[str, ...] = ()


def _spi1_off_seat0_on_ce1_panel_at_3d(board: dict) -> dict:
    changed = copy.deepcopy(board)
    changed["spi"] = {"0.0": None, "0.1": "seat0"}  # no spi1-3cs; seat0's module on CE1; seat1's not wired yet
    changed["panel"]["address"] = 0x3D
    return changed


def _gpio_left_to_root(board: dict) -> dict:
    return {**board, "groups": [group for group in board["groups"] if group != "gpio"]}


CASES = (
    Case("SPI1 off, a reader on the other chip select, the panel at 0x3D, a button's line held by another program",
         board=_spi1_off_seat0_on_ce1_panel_at_3d,
         before="sed -i '/^dtoverlay=spi1-3cs$/d' /boot/firmware/config.txt && systemd-run --unit=squatter gpioset -c gpiochip0 5=1",
         after="systemctl stop squatter; echo dtoverlay=spi1-3cs >>/boot/firmware/config.txt",
         status=("Reader 1: not answering", "Reader 3: SPI1 is off", "Reader 4: SPI1 is off", "Reader 5: SPI1 is off",
                 "Buttons: GPIO busy"),
         log=("/dev/spidev0.0 is not answering: its version register reads 0x00", "SDA (its chip select) to GPIO8 (pin 24)",
              "/dev/spidev1.0 does not exist: SPI1 is not enabled: add dtoverlay=spi1-3cs to /boot/firmware/config.txt",
              "nothing answers at 0x3C on /dev/i2c-1, but a device does at 0x3D: set address = 0x3D in [display]",
              "GPIO5 (pin 29) is in use by another program")),
    Case("the device policy without char-spi, and the GPIO chip left root's by udev",
         board=_gpio_left_to_root,
         drop_in="DeviceAllow=\nDeviceAllow=char-gpiochip rw\nDeviceAllow=char-i2c rw\n",
         status=("Reader 1: no permission", "Buttons: no permission"),
         log=("permission denied on /dev/spidev0.0 by this service's device policy, not by the file's mode: the unit needs "
              "DeviceAllow=char-spi rw",
              "permission denied on /dev/gpiochip0: it is root:root with mode 600, which no group may open: Raspberry Pi "
              "OS's udev rules give it to group gpio")),
    Case("the service user out of group spi, and the unit without SupplementaryGroups=",
         drop_in="SupplementaryGroups=\n", before="gpasswd -d tablemate spi", after="usermod -aG spi tablemate",
         status=("Reader 1: no permission", "Reader 5: no permission"),
         log=("permission denied on /dev/spidev0.0: user tablemate is not in group spi, which owns it: "
              "sudo usermod -aG spi tablemate",)),
)
#: how long each part may take to try, and fail, after the start (the readers back off and retry)
TRIED_S = 180


def failure_checks(vm: VM, pi: Pi, table: Table) -> None:
    """Each case in a service started afresh; then the board as wired and the service as it was."""
    before = table.show("StatusText")["StatusText"]
    for case in CASES:
        with table.phases(f"failure: {case.name}"):
            vm.run("systemctl stop tablemate")
            pi.set_board(case.board(wiring()))
            if case.drop_in:
                vm.run(f"install -D -m 0644 /dev/stdin {CASE_DROP_IN} && systemctl daemon-reload",
                       input=f"[Service]\n{case.drop_in}".encode())
            if case.before:
                vm.run(case.before)
            cursor = pi.cursor()
            vm.run("systemctl start tablemate")
            deadline = time.monotonic() + TRIED_S
            while True:
                status, log = table.show("StatusText")["StatusText"], pi.journal_since(cursor)
                missing = [text for text in case.status if text not in status] + [text for text in case.log if text not in log]
                if not missing or time.monotonic() > deadline:
                    break
                time.sleep(5)
            vm.run("systemctl stop tablemate")
            vm.run(f"rm -f {CASE_DROP_IN} && systemctl daemon-reload" + (f" && {case.after}" if case.after else ""))
            assert not missing, f"{case.name}: the owner is not told {missing}\nSTATUS={status}\n{log}"
            table.phases.note(f"{case.name}: STATUS={status!r}")
    pi.set_board(wiring())
    vm.run("systemctl start tablemate")
    shown = table.wait_ready()
    assert shown["StatusText"] == before, (shown["StatusText"], before)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.virtualpi.system", description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="maharani", choices=sorted(path.stem for path in plans.GOLDEN.glob("*.png")),
                        help="the recorded game to play (firmware/demos/GAME.script), one with a golden frame")
    return run_check("virtual-pi", parser, run, argv)


if __name__ == "__main__":
    sys.exit(main())
