"""systemd/tablemate.service: systemd accepts it, it is hardened, and it keeps what the table needs.

`systemd-analyze verify` checks that ExecStart's program exists, and /opt/tablemate is not on
this machine, so the unit is verified as a copy whose ExecStart program is a stand-in script
(same arguments). verify exits 0 even on unknown keys or bad values, printing a warning, so
any output counts as a failure.
"""

import shutil
import subprocess
from pathlib import Path

import pytest

from firmware.config import load_profile

UNIT = Path(__file__).parents[2] / "systemd" / "tablemate.service"
PI_PROFILE = Path(__file__).parents[2] / "config" / "pi.toml"
COMPANION = UNIT.with_name("tablemate-panel-off.service")
CLUB = UNIT.with_name("tablemate-club.service")
PROGRAM = "/opt/tablemate/venv/bin/tablemate"
ANALYZE = shutil.which("systemd-analyze")
needs_analyze = pytest.mark.skipif(ANALYZE is None, reason="systemd-analyze is not installed (.ci/run installs systemd)")


def settings(text: str) -> dict[tuple[str, str], list[str]]:
    """(section, key) -> values, in order, from a unit file."""
    found: dict[tuple[str, str], list[str]] = {}
    section = ""
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            section = line.strip("[]")
            continue
        key, value = line.split("=", 1)
        found.setdefault((section, key), []).append(value)
    return found


def verifiable_copy(tmp_path: Path, text: str, name: str = UNIT.name) -> Path:
    program = tmp_path / "tablemate"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    copy = tmp_path / name
    copy.write_text(text.replace(f"ExecStart={PROGRAM} ", f"ExecStart={program} "))
    return copy


def verify(unit: Path) -> subprocess.CompletedProcess:
    return subprocess.run([ANALYZE, "verify", str(unit)], capture_output=True, text=True)


@needs_analyze
@pytest.mark.parametrize("unit", [UNIT, COMPANION, CLUB], ids=lambda unit: unit.name)
def test_systemd_analyze_verify_is_silent(tmp_path, unit):
    result = verify(verifiable_copy(tmp_path, unit.read_text(), unit.name))
    assert (result.returncode, result.stdout + result.stderr) == (0, "")


@needs_analyze
@pytest.mark.parametrize("change", [("Type=notify", "Type=notifyy"), ("WatchdogSec=30s", "WachdogSec=30s")])
def test_verify_speaks_up_about_a_broken_unit(tmp_path, change):
    """The silence above means something: this systemd reports bad values and unknown keys."""
    result = verify(verifiable_copy(tmp_path, UNIT.read_text().replace(*change)))
    assert result.stdout + result.stderr != ""


@needs_analyze
@pytest.mark.parametrize("unit, most", [(UNIT, 1.5), (COMPANION, 0.7), (CLUB, 1.1)], ids=lambda unit: getattr(unit, "name", ""))
def test_exposure_stays_at_most_what_it_is(tmp_path, unit, most):
    """systemd's own score of the sandbox (0 = locked down, 10 = none): the table and its companion
    keep their devices; no unit may lose ground (tablemate 1.6 and the companion 1.3 before their
    network was closed)."""
    unit = verifiable_copy(tmp_path, unit.read_text(), unit.name)
    result = subprocess.run([ANALYZE, "security", "--offline=true", f"--threshold={round(most * 10)}", str(unit)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout.splitlines()[-1]


def test_the_table_reaches_this_machine_and_the_lan_only_and_its_companion_no_network():
    """Redis, the live view's phones and a club on the LAN: loopback, link-local and the private ranges."""
    service = {key: values for (section, key), values in settings(UNIT.read_text()).items() if section == "Service"}
    assert service["IPAddressDeny"] == ["any"]
    assert service["IPAddressAllow"] == ["localhost link-local 10.0.0.0/8 172.16.0.0/12 192.168.0.0/16 fc00::/7"]
    companion = {key: values for (section, key), values in settings(COMPANION.read_text()).items() if section == "Service"}
    assert companion["PrivateNetwork"] == ["yes"] and companion["IPAddressDeny"] == ["any"]


def test_the_unit_keeps_what_the_table_needs():
    unit = settings(UNIT.read_text())
    service = {key: values for (section, key), values in unit.items() if section == "Service"}
    assert service["Type"] == ["notify"] and service["NotifyAccess"] == ["main"]
    assert service["ExecStart"] == [f"{PROGRAM} run --config /etc/tablemate/pi.toml"]
    assert service["Restart"] == ["on-failure"] and service["WatchdogSec"] == ["30s"]
    assert unit[("Unit", "Wants")] == ["redis-server.service"] and unit[("Unit", "After")] == ["redis-server.service"]
    assert service["User"] == ["tablemate"] and service["SupplementaryGroups"] == ["gpio spi i2c"]
    # the devices: a closed list that names them, and nothing that hides them
    assert service["DevicePolicy"] == ["closed"]
    assert service["DeviceAllow"] == ["char-gpiochip rw", "char-spi rw", "char-i2c rw"]
    assert not {"PrivateDevices", "PrivateUsers", "ProcSubset", "DynamicUser"} & service.keys()
    # lgpio's pipes: a working directory the service can write, and LG_WD pointing there
    assert service["RuntimeDirectory"] == ["tablemate"] and service["StateDirectory"] == ["tablemate"]
    assert service["WorkingDirectory"] == ["/run/tablemate"]
    # the journal's local copy: in the state directory, which the service may write
    assert load_profile(PI_PROFILE).store.local_dir == Path("/var/lib") / service["StateDirectory"][0]
    assert set(service["Environment"]) >= {"LG_WD=/run/tablemate", "PYTHONUNBUFFERED=1"}
    assert service["StandardOutput"] == ["journal"] and service["StandardError"] == ["journal"]
    assert unit[("Install", "WantedBy")] == ["multi-user.target"]


def test_a_clean_stop_hands_the_display_to_the_companion_that_turns_it_off_later():
    """tablemate's processes are gone once it stopped, so a unit of its own waits [display]
    stopped_off_after_min and turns the panel off; starting tablemate stops that unit first."""
    unit, companion = settings(UNIT.read_text()), settings(COMPANION.read_text())
    assert unit[("Unit", "OnSuccess")] == [COMPANION.name] and unit[("Unit", "OnSuccessJobMode")] == ["fail"]
    assert unit[("Unit", "Conflicts")] == [COMPANION.name]
    service = {key: values for (section, key), values in companion.items() if section == "Service"}
    assert service["ExecStart"] == [f"{PROGRAM} panel-off --config /etc/tablemate/pi.toml"]
    assert service["User"] == ["tablemate"] and service["SupplementaryGroups"] == ["gpio spi i2c"]
    assert service["DevicePolicy"] == ["closed"] and "char-i2c rw" in service["DeviceAllow"]
    assert ("Install", "WantedBy") not in companion  # nothing but tablemate's stop starts it
