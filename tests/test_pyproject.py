"""pyproject.toml in the form current setuptools reads without a deprecation warning."""

import re
import tomllib
from pathlib import Path

PYPROJECT = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_license_is_an_spdx_string_and_the_build_takes_a_setuptools_that_reads_it():
    """A TOML table (`{ text = "MIT" }`) is deprecated; the SPDX string needs setuptools 77 (PEP 639)."""
    assert PYPROJECT["project"]["license"] == "MIT"
    setuptools = next(r for r in PYPROJECT["build-system"]["requires"] if r.startswith("setuptools"))
    minimum = re.fullmatch(r"setuptools>=(\d+)(\.\d+)*", setuptools)
    assert minimum and int(minimum.group(1)) >= 77
