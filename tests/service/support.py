"""What the service tests and bench/service.py share: a notify socket as systemd binds it, profiles
derived from config/desktop.toml, and `tablemate run` started as systemd starts it (NOTIFY_SOCKET,
WATCHDOG_USEC, its own working directory), with its output in files so a full pipe never blocks it."""

import os
import re
import signal
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import tomli_w

ROOT = Path(__file__).resolve().parents[2]
DESKTOP = ROOT / "config" / "desktop.toml"
UNIT = ROOT / "systemd" / "tablemate.service"
PI = ROOT / "config" / "pi.toml"
FAKE_SPIDEV = Path(__file__).resolve().parent / "fake_spidev"
DEMOS = ROOT / "firmware" / "demos"
#: the console script the unit's ExecStart runs, from the environment running this code
TABLEMATE = Path(sys.executable).with_name("tablemate")

Message = dict[str, str]


def unit_seconds(key: str) -> float:
    """A time setting of systemd/tablemate.service ("20s", "2min") in seconds."""
    match = re.search(rf"^{key}=(\d+)(s|min)?\s*$", UNIT.read_text(encoding="utf-8"), re.MULTILINE)
    if match is None:
        raise LookupError(f"{UNIT.name} sets no {key}= in seconds or minutes")
    return int(match.group(1)) * (60 if match.group(2) == "min" else 1)


class NotifySocket:
    """A datagram socket bound where NOTIFY_SOCKET points: a path, or "@name" for an abstract one.

    Each datagram is read as a message {KEY: value}; reads wait with a timeout, never a sleep."""

    def __init__(self, kind: str):
        """A "path" socket (in a new short directory: socket paths have at most 107 bytes), or an
        "abstract" one with a name no other test uses."""
        if kind not in ("path", "abstract"):
            raise ValueError(f"notify socket kind {kind!r}: path or abstract")
        self._directory = tempfile.mkdtemp(prefix="tm-notify-") if kind == "path" else None
        self.address = f"{self._directory}/notify" if self._directory else f"@tablemate-test-{os.getpid()}-{time.monotonic_ns()}"
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.address if self._directory else "\0" + self.address[1:])
        #: every message received so far, in order
        self.received: list[Message] = []

    def receive(self, timeout: float) -> Message | None:
        """The next message, or None when none comes within `timeout` seconds."""
        self.sock.settimeout(timeout)
        try:
            data = self.sock.recv(65536)
        except (TimeoutError, BlockingIOError):  # BlockingIOError: nothing queued, with timeout 0
            return None
        message = dict(line.split("=", 1) for line in data.decode().splitlines())
        self.received.append(message)
        return message

    def wait_for(self, wanted: Callable[[Message], bool], timeout: float, what: str) -> Message:
        """The first message `wanted` accepts; AssertionError naming `what` (and the messages seen)
        when none arrives within `timeout` seconds."""
        deadline = time.monotonic() + timeout
        seen = len(self.received)
        while (left := deadline - time.monotonic()) > 0:
            message = self.receive(left)
            if message is not None and wanted(message):
                return message
        raise AssertionError(f"waited {timeout} s for {what}; the last messages: {self.received[seen:][-10:]}")

    def drain(self) -> list[Message]:
        """The messages already queued, without waiting."""
        messages = []
        while (message := self.receive(0.0)) is not None:
            messages.append(message)
        return messages

    def close(self) -> None:
        self.sock.close()
        if self._directory:
            shutil.rmtree(self._directory, ignore_errors=True)


def entries_of(status: str) -> int:
    """The journal entry count of the loop's STATUS= line ("Thurn und Taxis: Round 3, 17 entries")."""
    return int(status.rsplit(", ", 1)[1].split()[0])


def desktop_profile(directory: Path, *, store: str, display: dict[str, Any] | None = None, web_port: int | None = None,
                    gap_ms: int | None = None, rc522: bool = False) -> Path:
    """The desktop profile with another store, display and web setting, written into `directory`.

    `web_port` None turns the web view off; `gap_ms` shortens the gap after which a lifted card
    counts as gone, so scripted taps follow one another faster (the desktop's poll_ms stays).
    `rc522`: the Pi's five RC522 readers (and its button pins, clear of SPI1) instead of the mock
    readers: run it with `Tablemate(..., fake_spidev=...)`."""
    data = tomllib.loads(DESKTOP.read_text(encoding="utf-8"))
    if rc522:
        pi = tomllib.loads(PI.read_text(encoding="utf-8"))
        data["readers"], data["buttons"]["pins"] = pi["readers"], pi["buttons"]["pins"]
        data.pop("encoder", None)
    data["store"] = {"url": store}
    if display is not None:
        data["display"] = display
    data["web"] = {**data["web"], "enabled": web_port is not None, "port": web_port or data["web"]["port"]}
    if gap_ms is not None:
        data["reader_timing"]["gap_ms"] = gap_ms
    path = directory / "profile.toml"
    path.write_text(tomli_w.dumps(data), encoding="utf-8")
    return path


def script_prefix(game: str, lines: int, directory: Path) -> Path:
    """The first `lines` steps of a recorded demo (firmware/demos/<game>.script) as a script file."""
    steps = [line for line in (DEMOS / f"{game}.script").read_text(encoding="utf-8").splitlines()
             if line.split("#", 1)[0].strip()]
    path = directory / f"{game}-{lines}.script"
    path.write_text("\n".join(steps[:lines]) + "\n", encoding="utf-8")
    return path


class Tablemate:
    """One `tablemate run` child process; stdout and stderr go to files in `directory`."""

    def __init__(self, profile: Path, directory: Path, *, notify: str = "", watchdog_usec: int | None = None,
                 script: Path | None = None, tags: Sequence[Path] = (), fake_spidev: Sequence[str] | None = None):
        """`fake_spidev`: the SPI devices where fake RC522s answer, each with its reset GPIO ("0.0:25";
        tests/service/fake_spidev), on gpiozero's MockFactory; None: the real spidev."""
        if not TABLEMATE.exists():
            raise RuntimeError(f"{TABLEMATE} is missing: install the project into this environment (make test)")
        self.directory = directory
        args = [str(TABLEMATE), "run", "--config", str(profile)]
        if script is not None:
            args += ["--script", str(script), "--realtime"]
        for path in tags:
            args += ["--tags", str(path)]
        env = {key: value for key, value in os.environ.items() if key not in ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID")}
        env.update(NOTIFY_SOCKET=notify, PYTHONUNBUFFERED="1")
        if watchdog_usec is not None:
            env["WATCHDOG_USEC"] = str(watchdog_usec)
        if fake_spidev is not None:
            env.update(PYTHONPATH=os.pathsep.join(filter(None, (str(FAKE_SPIDEV), env.get("PYTHONPATH")))),
                       TABLEMATE_FAKE_SPIDEV=",".join(fake_spidev), GPIOZERO_PIN_FACTORY="mock")
        self.stdout_path = directory / "stdout.txt"
        self.stderr_path = directory / "stderr.txt"
        with open(self.stdout_path, "ab") as out, open(self.stderr_path, "ab") as err:
            #: when the process was spawned (time.monotonic)
            self.started = time.monotonic()
            self.process = subprocess.Popen(args, cwd=directory, env=env, stdout=out, stderr=err, stdin=subprocess.DEVNULL)

    @property
    def pid(self) -> int:
        return self.process.pid

    def signal(self, sig: signal.Signals) -> None:
        self.process.send_signal(sig)

    def wait(self, timeout: float) -> int:
        """The exit status; AssertionError (with the process's stderr) if it is still running."""
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"tablemate still runs after {timeout} s; stderr:\n{self.stderr()}") from None

    def stderr(self) -> str:
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    def cpu_seconds(self) -> float:
        """User plus system CPU time of the whole process (every thread) so far, from /proc."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def kill(self) -> None:
        """End the process if it still runs (a failed test's leftover)."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
