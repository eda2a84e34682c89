"""The RPi.GPIO provenance check, against fake site-packages directories (nothing is imported)."""

import pytest

from drivers.gpio_check import check_rpi_gpio

LGPIO_SHIM = "import os\nimport lgpio\n\nVERSION = '0.7.2'\n"
ORIGINAL = "from RPi._GPIO import *\n\nVERSION = '0.7.1'\n"


def install(site, name, version, source=None, record=True):
    """Write a package the way pip leaves it: the module files and a dist-info with METADATA and RECORD."""
    if source is not None:
        (site / "RPi" / "GPIO").mkdir(parents=True, exist_ok=True)
        (site / "RPi" / "__init__.py").write_text("")
        (site / "RPi" / "GPIO" / "__init__.py").write_text(source)
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    if record:
        (info / "RECORD").write_text(f"RPi/__init__.py,,\nRPi/GPIO/__init__.py,,\n{info.name}/METADATA,,\n")


def test_rpi_lgpio_alone_is_fine(tmp_path):
    install(tmp_path, "rpi-lgpio", "0.6", LGPIO_SHIM)
    assert check_rpi_gpio(path=[str(tmp_path)]) is None


def test_a_system_package_without_a_record_is_judged_by_its_source(tmp_path):
    install(tmp_path, "rpi-lgpio", "0.6", LGPIO_SHIM, record=False)
    assert check_rpi_gpio(path=[str(tmp_path)]) is None


def test_the_original_rpi_gpio_is_named_with_the_fix(tmp_path):
    install(tmp_path, "RPi.GPIO", "0.7.1", ORIGINAL)
    problem = check_rpi_gpio(path=[str(tmp_path)])
    assert "original RPi.GPIO" in problem and "(package RPi.GPIO)" in problem
    assert "pip uninstall -y RPi.GPIO rpi-lgpio && pip install rpi-lgpio" in problem and "--no-deps" in problem


def test_mfrc522_installed_with_its_dependencies_over_the_shim_is_caught(tmp_path):
    install(tmp_path, "rpi-lgpio", "0.6", LGPIO_SHIM)
    install(tmp_path, "RPi.GPIO", "0.7.1", ORIGINAL)  # overwrites the shim's files, as pip does
    problem = check_rpi_gpio(path=[str(tmp_path)])
    assert problem.startswith("both RPi.GPIO and rpi-lgpio are installed")
    assert "pip uninstall -y RPi.GPIO rpi-lgpio && pip install rpi-lgpio" in problem


@pytest.mark.parametrize("required", [True, False])
def test_a_missing_module_is_a_problem_only_when_required(tmp_path, required):
    problem = check_rpi_gpio(required=required, path=[str(tmp_path)])
    assert (problem == "RPi.GPIO is not installed; the SPI display needs rpi-lgpio's: pip install rpi-lgpio") is required
    assert (problem is None) is not required


@pytest.mark.parametrize("source, code, output", [(LGPIO_SHIM, 0, "rpi-lgpio's shim"), (ORIGINAL, 1, "original RPi.GPIO")])
def test_the_installer_runs_it_as_a_script_with_the_virtualenvs_python(tmp_path, source, code, output):
    import os
    import subprocess
    import sys
    from pathlib import Path

    install(tmp_path, "rpi-lgpio" if code == 0 else "RPi.GPIO", "0.6", source)
    script = Path(__file__).parents[2] / "drivers" / "gpio_check.py"
    result = subprocess.run([sys.executable, "-S", str(script)], env=dict(os.environ, PYTHONPATH=str(tmp_path)),
                            capture_output=True, text=True)
    assert result.returncode == code and output in result.stdout + result.stderr
