"""systemd/check_gpio_shim.py: is the module RPi.GPIO rpi-lgpio's shim, judged from pip's records?

Each case lays out packages the way pip installs them, in a directory that is the only
site-packages of a `python -S` run of the check.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.systemd.fakesys import put_dist

CHECK = Path(__file__).parents[2] / "systemd" / "check_gpio_shim.py"
SHIM_FILES = ["RPi/__init__.py", "RPi/GPIO/__init__.py"]


def check(site: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-S", str(CHECK)], env=dict(os.environ, PYTHONPATH=str(site)),
                          capture_output=True, text=True)


def test_rpi_lgpio_alone_passes(tmp_path):
    put_dist(tmp_path, "rpi-lgpio", "0.6", SHIM_FILES)
    put_dist(tmp_path, "mfrc522", "0.0.7", ["mfrc522/__init__.py"])
    result = check(tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "RPi.GPIO: rpi-lgpio 0.6's shim\n"


@pytest.mark.parametrize("layout, message", [
    ({"rpi-lgpio": SHIM_FILES, "RPi.GPIO": SHIM_FILES}, "the original RPi.GPIO 1.0 is installed beside rpi-lgpio 1.0"),
    ({"RPi.GPIO": SHIM_FILES}, "rpi-lgpio is not installed"),
    ({"rpi-lgpio": ["RPi/__init__.py"]}, "does not list RPi/GPIO/__init__.py among its files"),
    ({}, "rpi-lgpio is not installed"),
])
def test_anything_else_fails_and_says_why(tmp_path, layout, message):
    for name, files in layout.items():
        put_dist(tmp_path, name, "1.0", files)
    result = check(tmp_path)
    assert result.returncode == 1
    assert message in result.stderr


def test_shim_files_deleted_by_uninstalling_the_original_fail_with_the_repair(tmp_path):
    put_dist(tmp_path, "rpi-lgpio", "0.6", SHIM_FILES)
    (tmp_path / "RPi" / "GPIO" / "__init__.py").unlink()
    result = check(tmp_path)
    assert result.returncode == 1
    assert "RPi/GPIO/__init__.py is missing" in result.stderr and "pip uninstall -y RPi.GPIO rpi-lgpio" in result.stderr
