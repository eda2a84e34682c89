"""`tablemate doctor`: is everything the table needs answering? Each check says so in plain words.

Redis reachable, refusing writes when full rather than evicting keys (maxmemory-policy noeviction),
with AOF on and `appendfsync always` when the profile requires it (the Pi's), and who holds the
table's writer lease (or the in-memory desktop store); the local copy ([store] local_dir: its
disk's room, what it holds, whether Redis agrees with it); every reader answering (an RC522 with its chip
version and receiver gain); the display answering, and for an I2C panel the bus speed (400 kHz
wanted); RPi.GPIO being rpi-lgpio's; the user in the groups that own the
devices; the club, with [club] (its login, the table's name there, how far the copy has come); and
the service's state. Run it with the service stopped: they would claim the same GPIO.
Each finding is one line: the drivers' own log lines (the same faults) and gpiozero's warnings
while it looks for a pin library (folded into the buttons' line) are not printed besides. A check
this user may not make (another user's local copy) says so, "not checked", instead of a problem.
Exit status 0 when nothing is wrong, 1 otherwise.
"""

import grp
import logging
import os
import pwd
import shutil
import subprocess
import sys
import warnings
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, TextIO

from PIL import Image

from drivers.buttons import ButtonError, open_buttons
from drivers.display import open_display
from drivers.display.panel import i2c_bus_hz
from drivers.gpio_check import check_rpi_gpio, module_file
from drivers.readers import ReaderError, open_readers

from .config import Profile
from .journal import OUTAGE, Journal
from .journal.health import problems
from .journal.lease import describe, stale
from .store import choose, connect

HARDWARE_GROUPS = ("gpio", "spi", "i2c")
#: long enough for an RC522's start-up (resets, oscillator, guard time) and a first poll
READER_SETTLE_S = 1.0


@dataclass(frozen=True)
class Finding:
    #: True fine, False a problem, None not checked (this user may not)
    ok: bool | None
    text: str


LABELS = {True: "ok", False: "PROBLEM", None: "not checked"}


def check_store(profile: Profile) -> list[Finding]:
    store = choose(profile.store.url, profile.store.fallback)
    url = store.url
    if url.startswith("memory://"):
        return [Finding(True, f"store {url}: " + (store.note or "in this process's memory (desktop): games end with the program"))]
    client = connect(url)
    try:
        client.ping()
        found = problems(client, url, profile.store.require_aof)
        holder, ttl = Journal(client, profile.table.id).holder()
    except OUTAGE as error:
        return [Finding(False, f"Redis at {url} does not answer ({error}); start it: sudo systemctl start redis-server")]
    findings = [Finding(True, f"Redis at {url} answers")]
    findings += [Finding(False, f"{problem.text}; fix: {problem.fix}" if problem.fix else problem.text) for problem in found]
    about = {problem.about for problem in found}
    if not about & {"eviction", "config"}:
        findings.append(Finding(True, "Redis refuses writes when full instead of deleting keys (maxmemory-policy noeviction)"))
    if profile.store.require_aof and not about & {"aof", "config"}:
        findings.append(Finding(True, "Redis writes every action to disk before answering (appendonly yes, appendfsync always)"))
    elif not profile.store.require_aof:
        findings.append(Finding(True, "the profile does not require Redis's append-only file ([store] require_aof)"))
    table = profile.table.id
    why = stale(holder, ttl) if holder else None if ttl == -2 else "the key holds another kind of data than a writer's name"
    findings.append(Finding(why is None, f"writer lease of table {table}: " + (
        f"stale: {why}; the table takes it over at its next write" if why else
        f"held by {describe(holder)} for {ttl / 1000:.0f} s more" if holder else f"free (no tablemate writes table {table} now)")))
    return findings


def check_local(profile: Profile) -> list[Finding]:
    """The local copy ([store] local_dir): on or off, its disk, what it holds, whether Redis agrees."""
    from .journal.copyhealth import check

    return [Finding(ok, text) for ok, text in check(profile)]


def check_club(profile: Profile) -> list[Finding]:
    """With [club]: the club's Redis takes this table's login, and how far the copy has come."""
    from .club.health import check

    return [Finding(ok, text) for ok, text in check(profile)]


def check_readers(profile: Profile) -> list[Finding]:
    try:
        group = open_readers(profile.readers, lambda event: None, timing=profile.reader_timing)
    except ReaderError as error:
        return [Finding(False, f"readers: {error}")]
    try:
        group.settle(READER_SETTLE_S)
        problems = group.problems()
    finally:
        group.close()
    findings = []
    for spec in profile.readers:
        reader = group.readers[spec.name]
        answers = f"answers: {reader.version}, receiver gain {reader.gain_db} dB" if spec.driver == "mfrc522" else "answers"
        findings.append(Finding(spec.name not in problems,
                                f"reader {spec.name} ({spec.driver}, {_seat(spec.seat)}): {problems.get(spec.name, answers)}"))
    return findings


def _seat(seat: int | None) -> str:
    return "shared" if seat is None else f"seat {seat}"


def check_display(profile: Profile) -> list[Finding]:
    spec = profile.display
    with open(os.devnull, "w") as nowhere:
        display = open_display(spec, stream=nowhere, attempts=1)
        try:
            display.show(Image.new("1", display.size, 0))
            if display.failed:
                return [Finding(False, f"display {spec.driver}: {display.error} (check its wiring and address)")]
            return [Finding(True, f"display {spec.driver}: answers")]
        finally:
            display.close(blank=True)


#: the I2C clock the panels are driven at (systemd/install.sh sets it: dtparam=i2c_arm_baudrate)
I2C_HZ = 400_000


def check_i2c_speed(profile: Profile, root: Path = Path("/")) -> list[Finding]:
    """The clock of an I2C panel's bus: at the Pi's default 100 kHz a frame takes four times longer."""
    spec = profile.display
    if spec.driver not in ("ssd1306", "sh1106") or spec.interface != "i2c":
        return []
    hz = i2c_bus_hz(spec.port, root)
    if hz is None:
        return [Finding(True, f"I2C bus {spec.port}: speed unknown (the kernel names none: not a Raspberry Pi?)")]
    speed = f"I2C bus {spec.port} runs at {hz / 1000:g} kHz"
    if hz < I2C_HZ:
        return [Finding(False, f"{speed}: the display's frames take {I2C_HZ / hz:.1f} x longer than at 400 kHz; "
                               "sudo systemd/install.sh sets dtparam=i2c_arm_baudrate=400000 (then reboot)")]
    return [Finding(True, speed)]


def check_buttons(profile: Profile) -> list[Finding]:
    """The buttons set up; when no pin library works, what gpiozero found wrong with each it tried."""
    from gpiozero.exc import NativePinFactoryFallback, PinFactoryFallback

    with warnings.catch_warnings(record=True) as found:
        warnings.simplefilter("always", PinFactoryFallback)
        warnings.simplefilter("always", NativePinFactoryFallback)
        try:
            open_buttons(profile.buttons, lambda event: None).close()
        except ButtonError as error:
            tried = "; ".join(dict.fromkeys(str(w.message).removeprefix("Falling back from ") for w in found
                                            if issubclass(w.category, PinFactoryFallback)))
            return [Finding(False, f"buttons: {error}" + (f" (gpiozero tried {tried})" if tried else ""))]
    return [Finding(True, f"buttons ({profile.buttons.driver}): {len(profile.buttons.pins)} set up")]


def check_gpio(profile: Profile) -> list[Finding]:
    display = profile.display
    required = display.driver in ("ssd1306", "sh1106") and display.interface == "spi"
    problem = check_rpi_gpio(required=required)
    if problem is None:
        found = "rpi-lgpio's shim" if module_file() else "not installed, and this profile needs none (no SPI display)"
        return [Finding(True, f"RPi.GPIO: {found}")]
    return [Finding(False, f"RPi.GPIO: {problem}")]


def check_groups(profile: Profile) -> list[Finding]:
    real = profile.buttons.driver == "gpio" or any(r.driver == "mfrc522" for r in profile.readers) or profile.display.driver in ("ssd1306", "sh1106")
    if not real:
        return []
    user = pwd.getpwuid(os.getuid()).pw_name
    mine = {grp.getgrgid(gid).gr_name for gid in os.getgroups()}
    missing = [g for g in HARDWARE_GROUPS if g not in mine]
    if os.getuid() == 0 or not missing:
        return [Finding(True, f"user {user} may open the GPIO, SPI and I2C devices")]
    return [Finding(False, f"user {user} is not in group(s) {', '.join(missing)}: sudo usermod -aG {','.join(missing)} {user}")]


def check_service() -> list[Finding]:
    if shutil.which("systemctl") is None:
        return []
    result = subprocess.run(["systemctl", "is-active", "tablemate"], capture_output=True, text=True)
    state = result.stdout.strip()
    if not state:  # systemd is not running this machine (a container, a desktop without it)
        return []
    return [Finding(True, f"service tablemate: {state} (run the doctor with it stopped; journalctl -u tablemate shows its log)")]


CHECKS: tuple[Callable[[Profile], list[Finding]], ...] = (check_store, check_local, check_club, check_readers, check_display,
                                                          check_i2c_speed, check_buttons, check_gpio, check_groups)


@contextmanager
def _one_line_each():
    """While the checks run: the drivers' log lines dropped (each fault is a finding already) and
    gpiozero's pin library fallbacks not printed (check_buttons folds them into its line)."""
    from gpiozero.exc import NativePinFactoryFallback, PinFactoryFallback

    drivers = logging.getLogger("drivers")
    quiet = logging.NullHandler()
    drivers.addHandler(quiet)
    propagate, drivers.propagate = drivers.propagate, False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PinFactoryFallback)
            warnings.simplefilter("ignore", NativePinFactoryFallback)
            yield
    finally:
        drivers.propagate = propagate
        drivers.removeHandler(quiet)


def run_checks(profile: Profile, out: TextIO = sys.stdout) -> int:
    with _one_line_each():
        findings = [finding for check in CHECKS for finding in check(profile)] + check_service()
    for finding in findings:
        print(f"{LABELS[finding.ok]}: {finding.text}", file=out)
    bad = sum(finding.ok is False for finding in findings)
    print(f"{'all well' if not bad else f'{bad} problem(s)'}", file=out)
    return 1 if bad else 0
