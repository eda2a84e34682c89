"""The appliance as its own process for the end-to-end tests: `tablemate run --config --script --tags`
on the mocked hardware, against a given store, with a notify socket of the test's own so the test
knows when the game is on screen (READY=1, as systemd would)."""

import os
import signal
import socket
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import tomli_w

from firmware import tagfile
from firmware.script import PRESS_S
from firmware.tagmap import TagEntry

from .rig import PROFILE

ROOT = Path(__file__).parents[2]
#: quick hands: a tap is lifted after 1.5 gaps; presses last firmware.script.PRESS_S down and up
POLL_MS, GAP_MS, BOUNCE_MS = 5, 15, 5


def write_profile(path: Path, url: str, table: str = "t1", club: dict | None = None, local_dir: Path | None = None) -> Path:
    """The demos' profile on store `url` and table `table`, with a dummy display and quick hands,
    `club` as its [club] section and the journal's local copy in `local_dir` when given."""
    data = tomllib.loads(PROFILE.read_text(encoding="utf-8"))
    if club is not None:
        data["club"] = club
    data["table"]["id"] = table
    data["store"]["url"] = url
    if local_dir is not None:
        data["store"]["local_dir"] = str(local_dir)
    data["display"] = {"driver": "dummy"}
    data["reader_timing"] = {"poll_ms": POLL_MS, "gap_ms": GAP_MS}
    data["buttons"]["bounce_ms"] = BOUNCE_MS
    path.write_text(tomli_w.dumps(data), encoding="utf-8")
    return path


def script_seconds(lines: list[str]) -> float:
    """How long `lines` take to play in real time (script.RealTime) with this profile's timing."""
    return sum(1.5 * GAP_MS / 1000 if line.startswith("tap ") else 2 * PRESS_S for line in lines)


class Appliance:
    """One table's appliance, started again and again on the same profile, store and tag file."""

    def __init__(self, directory: Path, url: str, tags: dict[str, TagEntry], table: str = "t1", club: dict | None = None,
                 local_dir: Path | None = None):
        self.directory = directory
        self.profile = write_profile(directory / "profile.toml", url, table, club, local_dir)
        self.tags = directory / "tags.toml"
        self.tags.write_text(tagfile.export_text(sorted(tags.items()), table), encoding="utf-8")
        self.process: subprocess.Popen | None = None
        self.runs = 0
        self._notify: socket.socket | None = None
        self._log: Path | None = None

    def start(self, lines: list[str], tags: bool = True) -> None:
        """Start the appliance playing `lines` (a script) and wait until its screen shows the game;
        `tags`: import the tag file first (`run --tags`)."""
        self.runs += 1
        script = self.directory / f"run{self.runs}.script"
        script.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
        address = f"@tablemate-e2e-{os.getpid()}-{id(self)}-{self.runs}"
        self._notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self._notify.bind("\0" + address[1:])
        self._notify.settimeout(0.2)
        self._log = self.directory / f"run{self.runs}.log"
        env = {key: value for key, value in os.environ.items() if not key.startswith("WATCHDOG_")}
        env["NOTIFY_SOCKET"] = address
        with self._log.open("w") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "firmware.cli", "run", "--config", str(self.profile), "--script", str(script), "--realtime",
                 *(["--tags", str(self.tags)] if tags else [])],
                cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            )
        self._wait_ready(30.0)

    def kill(self) -> None:
        """SIGKILL: no handler runs, nothing is flushed, the screen is not told."""
        self._check_running()
        self.process.send_signal(signal.SIGKILL)
        assert self.process.wait(timeout=10) == -signal.SIGKILL
        self._closed()

    def freeze(self) -> None:
        """SIGSTOP: the appliance notices nothing until it is killed."""
        self._check_running()
        self.process.send_signal(signal.SIGSTOP)

    def stop(self) -> None:
        """SIGTERM, as systemd stops the service: the appliance must exit cleanly (status 0)."""
        self._check_running()
        self.process.send_signal(signal.SIGTERM)
        status = self.process.wait(timeout=10)
        assert status == 0, f"tablemate exited with {status} on SIGTERM:\n{self.output()}"
        self._closed()

    def output(self) -> str:
        """What the current (or last) run printed, for failure messages: its beginning (the first
        refusal, where a game went astray) and its end."""
        text = self._log.read_text(encoding="utf-8", errors="replace") if self._log else ""
        return text if len(text) <= 3000 else f"{text[:1500]}\n[...]\n{text[-1500:]}"

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)
        self._closed()

    def _check_running(self) -> None:
        assert self.process is not None and self.process.poll() is None, f"tablemate is not running:\n{self.output()}"

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                message = self._notify.recv(4096).decode()
            except TimeoutError:
                self._check_running()
                continue
            if "READY=1" in message.splitlines():
                self._notify.close()  # later STATUS= lines find no listener (a full queue would block them)
                self._notify = None
                return
        raise AssertionError(f"tablemate did not say READY=1 within {timeout} s:\n{self.output()}")

    def _closed(self) -> None:
        if self._notify is not None:
            self._notify.close()
            self._notify = None
        self.process = None
