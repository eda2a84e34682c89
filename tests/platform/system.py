"""The system test: the owner's OS booted with real systemd, tablemate installed on it as the README
says, and the service checked where it runs (`make system-test`; a few minutes once the image is
cached, each phase's time printed).

A Debian trixie VM (tests/platform/vm.py) plays a Raspberry Pi with its hardware mocked: the profile
is config/pi.toml with mock readers and buttons and the dummy display, put at /etc/tablemate/pi.toml
before the install (the installer keeps an owner's profile), and /boot/firmware/config.txt is
Raspberry Pi OS's. In order:

1. install.sh --dry-run, then install.sh, each run as the README says (`sudo systemd/install.sh` by
   the user `pi`; --force: no /proc/device-tree/model); it turns I2C and SPI on in config.txt, makes
   the profile 0640 root:tablemate, puts `pi` in the group tablemate and says REBOOT NEEDED;
   `reboot`, and the service starts with the system: Type=notify READY, after redis-server; the time
   from power-on to READY.
2. install.sh again: nothing changes, no REBOOT NEEDED (the buses' devices stay missing on this
   machine: said as a warning); doctor as `pi` reads the installed profile and says the local copy
   needs root or the service user, and with the real pi.toml each missing part once, without
   warnings.
3. A recorded game (firmware/demos/*.script, through a runtime drop-in that adds --script to the
   installed ExecStart, gone with the next boot) until a quarter of its journal entries are
   acknowledged (STATUS=); then the power is pulled (SIGKILL of QEMU) while it plays on.
4. Power on: READY again, and the game holds every entry acknowledged before the cut, each exactly as
   the same inputs give on this machine (the same script in virtual time).
5. The watchdog: SIGSTOP of the service; systemd kills and restarts it; the game is back.
6. The recorded game from the first input after the last entry kept, up to half its entries: each
   entry and the scores as recorded. (That a game cut at any moment ends as if never interrupted is
   tests/e2e/test_recovery.py's, in `make test`; here what only this OS shows: the disk, systemd.)
7. `systemctl stop` (its time, a clean exit), the backup timer and one backup.

    python -m tests.platform.system [--game taj_mahal] [--keep]
"""

import argparse
import datetime
import json
import re
import subprocess
import sys
import tempfile
import time
import tomllib
import uuid
from dataclasses import dataclass
from pathlib import Path

import tomli_w

from . import REPO, Phases, checkout
from .vm import VM, image, run_check

SOURCE = "/home/pi/tablemate"
PROFILE = "/etc/tablemate/pi.toml"
#: the game's inputs and tags, where the service's sandbox can read them (ProtectHome hides /home)
PLAY_DIR = "/srv/tablemate-play"
DROP_IN = "/run/systemd/system/tablemate.service.d/play.conf"
VENV = "/opt/tablemate/venv"
TABLEMATE = f"{VENV}/bin/tablemate"
#: Raspberry Pi OS's own config.txt (trixie's, as bookworm's): I2C and SPI commented out
CONFIG_TXT = REPO / "tests" / "systemd" / "raspios-config.txt"


def mocked_profile() -> dict:
    """config/pi.toml with its hardware mocked: the demos' six mock readers, the buttons on
    gpiozero's MockFactory, the dummy display; Redis, the local copy and the rest as on a Pi."""
    profile = tomllib.loads((REPO / "config" / "pi.toml").read_text(encoding="utf-8"))
    demo = tomllib.loads((REPO / "firmware" / "demos" / "profile.toml").read_text(encoding="utf-8"))
    profile["readers"] = demo["readers"]
    profile["buttons"]["driver"] = "mock"
    # no recorded game holds a button: a long hold time keeps a press a press even when the emulated
    # machine stalls the script's thread between a button's two edges
    profile["buttons"]["hold_ms"] = 3000
    profile["display"] = {key: value for key, value in profile["display"].items() if key not in ("interface", "port", "address")}
    profile["display"]["driver"] = "dummy"
    return profile


@dataclass(frozen=True)
class Snapshot:
    step: int          #: the index of the script step after which the table had written these entries
    actions: list      #: the game's standing actions then (as `tablemate log export` gives them)
    scores: list       #: the scores then (as `tablemate status --json` gives them)


def reference(profile: dict, script: Path, tags: Path) -> tuple[list, dict[int, Snapshot]]:
    """The recorded game played on this machine in virtual time, with the profile's store in
    memory: the steps, and a Snapshot for each count of journal entries written."""
    from firmware import script as scripts, tagfile
    from firmware.app import App
    from firmware.config import load_profile

    here = dict(profile, store={"url": f"memory://system-test-{uuid.uuid4().hex}"})
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "profile.toml"
        path.write_text(tomli_w.dumps(here), encoding="utf-8")
        loaded = load_profile(path)
    clock = scripts.VirtualClock()
    app = App.build(loaded, clock=clock, web=False, tags=tagfile.load(tags))
    snapshots: dict[int, Snapshot] = {}
    try:
        steps = scripts.load(script)
        hands = scripts.VirtualTime(app, clock)
        hands.check(steps)
        app.loop.start()
        table = app.loop.table
        for index, step in enumerate(steps):
            hands.do(step)
            session = table.session
            if session is not None and session.entries not in snapshots:
                scores = [{"player": s.player, "total": s.total, "breakdown": s.breakdown} for s in session.game.scores(session.state)]
                snapshots[session.entries] = Snapshot(index, *json.loads(json.dumps([list(session.actions), scores])))
        app.loop.finish()
    finally:
        app.close()
    return steps, snapshots


def since_kernel(shown: dict[str, str]) -> str:
    """When the service (its `systemctl show` properties) started and said READY, after the kernel started."""
    started, ready = (int(shown[key]) / 1e6 for key in ("ExecMainStartTimestampMonotonic", "ActiveEnterTimestampMonotonic"))
    return f"READY {ready:.1f} s after the kernel started (the service started at {started:.1f} s)"


def acknowledged(status: str) -> int | None:
    """The journal entries the table says are in the store, from its STATUS= line ("Taj Mahal:
    Round 2, 57 entries"; actions waiting for the store are not); None before a game."""
    entries = re.search(r", (\d+) entr(?:y|ies)\b", status)
    if entries is None:
        return None
    waiting = re.search(r", (\d+) waiting\b", status)
    return int(entries.group(1)) - (int(waiting.group(1)) if waiting else 0)


class Table:
    """The VM as the table it now is: its service, its store, its installer."""

    def __init__(self, vm: VM, phases: Phases):
        self.vm, self.phases = vm, phases

    def show(self, *properties: str) -> dict[str, str]:
        out = self.vm.run(f"systemctl show tablemate -p {','.join(properties)}").stdout
        return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)

    def wait_ready(self, timeout: float = 600, restarts_above: int = -1) -> dict[str, str]:
        """Wait until the service is active (Type=notify: READY=1 came) after more than
        `restarts_above` restarts; its properties then."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            shown = self.show("ActiveState", "SubState", "NRestarts", "MainPID", "StatusText", "ActiveEnterTimestampMonotonic",
                              "ExecMainStartTimestampMonotonic", "Type", "Result")
            if shown["ActiveState"] == "active" and int(shown["NRestarts"]) > restarts_above:
                return shown
            if shown["ActiveState"] == "failed":
                raise self.vm.error(f"tablemate failed: {shown}\n{self.log()}")
            time.sleep(2)
        raise self.vm.error(f"tablemate not READY within {timeout} s: {shown}\n{self.log()}")

    def log(self, lines: int = 40) -> str:
        return self.vm.run(f"journalctl -u tablemate -b --no-pager -n {lines}", check=False).stdout

    def install(self, *args: str) -> subprocess.CompletedProcess:
        """systemd/install.sh as the README runs it: `sudo systemd/install.sh` from the clone, by the
        Pi's user `pi` (--force: this is not a Pi)."""
        result = self.vm.run(f"cd {SOURCE} && runuser -u pi -- sudo systemd/install.sh --force {' '.join(args)}", timeout=3600,
                             check=False)
        if result.returncode != 0:
            raise self.vm.error(f"install.sh {' '.join(args)} exited with {result.returncode}:\n{result.stdout}{result.stderr}")
        return result

    def install_times(self) -> tuple[float, float]:
        """The seconds the first install took for its apt step (apt's own history log) and for the
        virtualenv with pip (from the virtualenv's first file to the source digest written last)."""
        history = self.vm.run("grep -E '^(Start|End)-Date:' /var/log/apt/history.log | tail -n 2").stdout.splitlines()
        start, end = (datetime.datetime.strptime(line.split(":", 1)[1].strip(), "%Y-%m-%d  %H:%M:%S") for line in history)
        made, stamped = map(float, self.vm.run(f"stat -c %Y {VENV}/pyvenv.cfg {VENV}/.tablemate-source").stdout.split())
        return (end - start).total_seconds(), stamped - made

    def status(self) -> dict:
        return json.loads(self.vm.run(f"{TABLEMATE} status --json").stdout)

    def actions(self) -> list:
        return json.loads(self.vm.run(f"{TABLEMATE} log export").stdout)["actions"]

    def play(self, steps: list, name: str) -> None:
        """Restart the service with `steps` played by its mocked hands (a runtime drop-in: the next
        boot starts the installed unit alone)."""
        lines = "".join(f"{step.verb} {' '.join(step.args)}\n" for step in steps)
        self.vm.run(f"install -d -m 0755 {PLAY_DIR} && cat > {PLAY_DIR}/{name}.script", input=lines.encode())
        exec_start = f"{TABLEMATE} run --config {PROFILE} --script {PLAY_DIR}/{name}.script --realtime --tags {PLAY_DIR}/game.tags.toml"
        drop_in = f"[Service]\nExecStart=\nExecStart={exec_start}\n"
        self.vm.run(f"mkdir -p {Path(DROP_IN).parent} && cat > {DROP_IN} && systemctl daemon-reload && systemctl restart tablemate",
                    input=drop_in.encode())

    def unplay(self) -> None:
        self.vm.run(f"rm -f {DROP_IN} && systemctl daemon-reload")

    def watch_until(self, entries: int, timeout: float) -> str:
        """Follow STATUS= (a shell loop in the guest, read as it prints) until the table has
        acknowledged `entries` journal entries; the status line that said so, the moment it came."""
        command = "while :; do systemctl show -p StatusText --value tablemate; sleep 0.25; done"
        follower = subprocess.Popen(["ssh", *self.vm.ssh_options(), "root@127.0.0.1", command], stdout=subprocess.PIPE, text=True)
        deadline, line = time.monotonic() + timeout, ""
        try:
            for line in follower.stdout:
                count = acknowledged(line)
                if count is not None and count >= entries:
                    return line.strip()
                if time.monotonic() > deadline:
                    break
            raise self.vm.error(f"the table did not acknowledge {entries} entries within {timeout} s (last: {line.strip()!r})\n{self.log()}")
        finally:
            follower.kill()
            follower.wait()


def run(game: str, workdir: Path) -> Phases:
    phases = Phases("system-test")
    profile = mocked_profile()
    script, tags = REPO / "firmware" / "demos" / f"{game}.script", REPO / "firmware" / "demos" / f"{game}.tags.toml"
    with phases("reference game in virtual time here"):
        steps, snapshots = reference(profile, script, tags)
    quarter, half = (min(count for count in snapshots if count >= max(snapshots) * share) for share in (0.25, 0.5))
    with phases("image (cached after its first build)"):
        disk = image()
    with VM(disk, workdir) as vm:
        table = Table(vm, phases)
        phases.note(f"accelerator: {vm.accel}")
        with phases("boot"):
            vm.boot()
        with phases("copy the checkout, the profile, config.txt"):
            vm.copy_in(checkout(), SOURCE, owner="pi")
            vm.run(f"install -D -m 0644 /dev/stdin {PROFILE}", input=tomli_w.dumps(profile).encode())
            vm.run("install -D -m 0755 /dev/stdin /boot/firmware/config.txt", input=CONFIG_TXT.read_bytes())
        with phases("install.sh --dry-run"):
            out = table.install("--dry-run").stdout
            assert "Dry run: nothing was changed" in out and "would run: apt-get install" in out, out
            assert vm.run("test ! -e /opt/tablemate && ! systemctl cat tablemate", check=False).returncode == 0, "the dry run changed something"
        with phases("install.sh"):
            result = table.install()
        assert "REBOOT NEEDED" in result.stdout and "Release: trixie" in result.stdout, result.stdout + result.stderr
        assert "RPi.GPIO: rpi-lgpio's shim" in result.stdout, result.stdout
        assert "run: usermod --append --groups tablemate pi" in result.stdout, result.stdout
        assert vm.run(f"stat -c '%a %U:%G' {PROFILE}").stdout.strip() == "640 root:tablemate"
        apt_s, pip_s = table.install_times()
        phases.note(f"install.sh took {phases.times['install.sh']:.0f} s: apt-get install {apt_s:.0f} s, the virtualenv and pip {pip_s:.0f} s"
                    " (from PyPI, lgpio built with swig and PYPI=1)")
        with phases("reboot, to READY"):
            vm.reboot()
            shown = table.wait_ready()
        phases.note(f"boot: {since_kernel(shown)}, {time.monotonic() - vm.started:.0f} s after power-on; STATUS={shown['StatusText']!r}")
        assert shown["Type"] == "notify" and shown["SubState"] == "running", shown
        redis = vm.run("systemctl show redis-server -p ActiveEnterTimestampMonotonic --value").stdout.strip()
        assert 0 < int(redis) <= int(shown["ExecMainStartTimestampMonotonic"]), f"tablemate started before Redis was up: {redis} {shown}"

        with phases("install.sh after the reboot"):
            pid = shown["MainPID"]
            result = table.install()
        assert "Nothing changed: already installed." in result.stdout and "REBOOT NEEDED" not in result.stdout, result.stdout
        assert table.show("MainPID")["MainPID"] == pid, "install.sh restarted the service"
        assert "A reboot will not change that" in result.stderr, result.stderr
        with phases("doctor"):
            doctor_checks(vm)

        with phases("play until a quarter of the game is acknowledged"):
            vm.copy_in({"game.tags.toml": tags}, PLAY_DIR)
            table.play(steps, "game")
            said = table.watch_until(quarter, timeout=1800)
            vm.power_pull()
        cut = acknowledged(said)
        phases.note(f"power pulled after STATUS={said!r}")

        with phases("power on after the cut, to READY"):
            vm.boot()
            shown = table.wait_ready()
        phases.note(f"boot after the cut: {since_kernel(shown)}")
        kept = table.status()["game"]["entries"]
        assert kept >= cut, f"the table had acknowledged {cut} entries before the cut; {kept} are back"
        assert kept in snapshots and table.actions() == snapshots[kept].actions, f"the {kept} entries back are not the recorded game's"
        phases.note(f"power pull: {cut} entries acknowledged before the cut, {kept} back, each as recorded")

        with phases("watchdog: SIGSTOP, killed and restarted"):
            before = table.show("MainPID", "NRestarts")
            vm.run(f"kill -STOP {before['MainPID']}")
            shown = table.wait_ready(restarts_above=int(before["NRestarts"]))
        assert shown["MainPID"] != before["MainPID"], shown
        assert "Watchdog timeout" in vm.run("journalctl -u tablemate -b --no-pager").stdout
        assert table.status()["game"]["entries"] == kept and table.actions() == snapshots[kept].actions

        with phases("play on to half the game"):
            table.play(steps[snapshots[kept].step + 1:snapshots[half].step + 1], "on")
            table.watch_until(half, timeout=1800)
            table.unplay()
        status = table.status()["game"]
        assert status["entries"] == half and status["scores"] == snapshots[half].scores, (status, snapshots[half].scores)
        assert table.actions() == snapshots[half].actions
        phases.note(f"the game played on as recorded: {half} entries, scores {[s['total'] for s in status['scores']]}")

        with phases("systemctl stop"):
            stopped = vm.run("start=$(date +%s.%N); systemctl stop tablemate; end=$(date +%s.%N); echo \"$start $end\"").stdout.split()
            shown = table.show("Result", "ExecMainCode", "ExecMainStatus", "ActiveState")
        stop_s = float(stopped[1]) - float(stopped[0])
        assert shown == {"Result": "success", "ExecMainCode": "1", "ExecMainStatus": "0", "ActiveState": "inactive"}, shown
        phases.note(f"systemctl stop: {stop_s:.2f} s, a clean exit")
        vm.run("systemctl start tablemate")
        table.wait_ready()

        with phases("backup timer and one backup"):
            timer = vm.run("systemctl is-enabled tablemate-backup.timer; systemctl is-active tablemate-backup.timer;"
                           " systemctl show tablemate-backup.timer -p NextElapseUSecRealtime --value").stdout.split("\n")
            assert timer[:2] == ["enabled", "active"] and timer[2].strip(), timer
            vm.run("systemctl start tablemate-backup.service")
            files = vm.run("ls /var/backups/tablemate/").stdout.split()
            assert len(files) == 1 and files[0].endswith(".backup.jsonl"), files
            backup = vm.run(f"cat /var/backups/tablemate/{files[0]}").stdout
            assert status["gid"] in backup, "the backup does not hold the game"
        phases.note(f"backup timer: next {timer[2].strip()}; one backup written: {files[0]}")
        with phases("power off"):
            vm.shutdown()
    return phases


def doctor_checks(vm: VM) -> None:
    """doctor as the Pi's user `pi`, whom the installer put in the group that reads the profile, but
    who may not open the service's local copy; and with the real pi.toml on this machine without the
    hardware: each missing part once, no warnings on stderr."""
    result = vm.run(f"cd /home/pi && runuser -u pi -- {TABLEMATE} doctor", check=False)
    out = result.stdout
    assert result.returncode == 0 and "PROBLEM" not in out, out + result.stderr
    assert "not checked: local copy /var/lib/tablemate: it is tablemate's and user pi may not open it" in out, out
    result = vm.run(f"cd /tmp && {TABLEMATE} doctor --config {SOURCE}/config/pi.toml", check=False)
    problems = [line for line in result.stdout.splitlines() if line.startswith("PROBLEM")]
    parts = [re.match(r"PROBLEM: (reader \w+|display|buttons)", line) for line in problems]
    named = [part.group(1) for part in parts if part]
    assert result.returncode == 1 and sorted(set(named)) == sorted(named), result.stdout
    assert {"reader seat0", "reader seat4", "display", "buttons"} <= set(named), result.stdout
    assert result.stderr.strip() == "", f"doctor wrote to stderr besides its findings:\n{result.stderr}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.platform.system", description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="taj_mahal", help="the recorded game to play (firmware/demos/GAME.script)")
    return run_check("system-test", parser, run, argv)


if __name__ == "__main__":
    sys.exit(main())
