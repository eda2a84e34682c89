"""systemd/tablemate-backup.{service,timer}: systemd accepts them, the service runs a command the
CLI accepts, writes only the backup directory, and the timer fires nightly, catching up after a night off."""

import shutil
import subprocess
from pathlib import Path

import pytest

from firmware.cli import parser

from .test_service_unit import ANALYZE, PROGRAM, needs_analyze, settings

SYSTEMD = Path(__file__).parents[2] / "systemd"
SERVICE, TIMER = SYSTEMD / "tablemate-backup.service", SYSTEMD / "tablemate-backup.timer"


def verifiable_copies(tmp_path: Path) -> tuple[Path, Path]:
    """The two units side by side, the service's program a stand-in (verify checks that it exists)."""
    program = tmp_path / "tablemate"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    (tmp_path / SERVICE.name).write_text(SERVICE.read_text().replace(f"ExecStart={PROGRAM} ", f"ExecStart={program} "))
    shutil.copy(TIMER, tmp_path / TIMER.name)
    return tmp_path / SERVICE.name, tmp_path / TIMER.name


@needs_analyze
def test_systemd_analyze_verify_is_silent(tmp_path):
    service, timer = verifiable_copies(tmp_path)
    result = subprocess.run([ANALYZE, "verify", str(timer), str(service)], capture_output=True, text=True)
    assert (result.returncode, result.stdout + result.stderr) == (0, "")


@needs_analyze
def test_the_backup_service_is_locked_down(tmp_path):
    service, _ = verifiable_copies(tmp_path)
    result = subprocess.run([ANALYZE, "security", "--offline=true", "--threshold=9", str(service)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout.splitlines()[-1]  # 1.1 before its IP list and mask


def test_the_backup_reaches_redis_on_this_machine_only_and_makes_nothing_others_read():
    service = {key: values for (section, key), values in settings(SERVICE.read_text()).items() if section == "Service"}
    assert service["IPAddressDeny"] == ["any"] and service["IPAddressAllow"] == ["localhost"]
    assert service["UMask"] == ["0027"]


def test_the_service_runs_a_command_the_cli_accepts_into_the_directory_it_may_write():
    service = {key: values for (section, key), values in settings(SERVICE.read_text()).items() if section == "Service"}
    program, *args = service["ExecStart"][0].split()
    assert program == PROGRAM and service["Type"] == ["oneshot"] and service["User"] == ["tablemate"]
    parsed = parser().parse_args(args)
    assert parsed.command == "backup" and parsed.config == "/etc/tablemate/pi.toml" and parsed.keep == 14
    assert service["ReadWritePaths"] == [parsed.into] == ["/var/backups/tablemate"]
    assert service["ProtectSystem"] == ["strict"]


def test_the_timer_fires_every_night_and_catches_up():
    timer = settings(TIMER.read_text())
    assert timer[("Timer", "OnCalendar")] == ["*-*-* 03:30:00"] and timer[("Timer", "Persistent")] == ["true"]
    assert timer[("Install", "WantedBy")] == ["timers.target"]
    if ANALYZE:
        result = subprocess.run([ANALYZE, "calendar", "--iterations=2", timer[("Timer", "OnCalendar")][0]], capture_output=True, text=True)
        assert result.returncode == 0 and result.stdout.count("03:30:00") >= 2, result.stdout
