"""The Pi's own architectures without a Pi: systemd/install.sh's package and virtualenv steps run in
a Debian trixie root of arm64 (or armhf) under qemu-user, and there the hardware libraries, every
module of the project and `tablemate demo` work.

    python -m tests.platform.arm [--arch arm64] [--arch armhf]     (make arm64-check; as root)

The root (tests/platform/trixie.py, cached) holds install.sh's APT_PACKAGES, read from install.sh
itself. Each run mounts a throwaway overlay on it, so the cached root stays as built, copies the
checkout in, and runs install.sh's own functions there (the file sourced defines them), with the
network of this machine and a clean environment (no pip settings of this machine). rpi-lgpio's
RPi.GPIO refuses to import off a Pi unless RPI_LGPIO_REVISION names a board: a Raspberry Pi 4's.

install.sh's first install there (a new virtualenv, every package from PyPI, lgpio and spidev
compiled) takes 20 minutes or more in emulation, so its virtualenv is kept in the cache for the
root, install.sh, pyproject.toml and the month: the first run after any of them changed makes it
anew. Every run then installs this checkout over it with install.sh, as `git pull && sudo
systemd/install.sh` upgrades a Pi.
"""

import argparse
import datetime
import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from . import REPO, Phases, checkout, trixie
from .trixie import Chroot

#: a Raspberry Pi 4 Model B 4 GB, rev 1.4 (the new-style revision code rpi-lgpio reads)
REVISION = "c03114"
#: the hardware libraries install.sh puts in the virtualenv, then every module of the project
IMPORTS = """
import importlib, importlib.metadata, pkgutil
import lgpio, spidev, smbus2, RPi.GPIO, gpiozero, luma.oled.device, PIL.Image
import drivers, engines, firmware
names = [m.name for p in (drivers, engines, firmware) for m in pkgutil.walk_packages(p.__path__, p.__name__ + ".")]
for name in names:
    importlib.import_module(name)
versions = {d: importlib.metadata.version(d) for d in ("lgpio", "rpi-lgpio", "spidev", "smbus2", "gpiozero", "Pillow", "cbor2")}
print(f"{len(names)} modules of the project import; RPi.GPIO is {RPi.GPIO.__file__}; " + ", ".join(f"{d} {v}" for d, v in versions.items()))
"""
SOURCE = "/home/pi/tablemate"
#: the recorded game `tablemate demo` plays (the shortest to play in emulation)
DEMO = "maharani"
VENV = "/opt/tablemate/venv"


def apt_packages(arch: str) -> list[str]:
    """install.sh's apt packages for `arch`, as install.sh defines them."""
    script = '. "$1" && echo "${APT_PACKAGES[@]}"' + (' "${ARMHF_PACKAGES[@]}"' if arch == "armhf" else "")
    return subprocess.run(["bash", "-c", script, "bash", str(REPO / "systemd" / "install.sh")], capture_output=True, text=True,
                          check=True).stdout.split()


def demo_here() -> str:
    """`tablemate demo` on this machine, whose output the Pi's architectures must match."""
    command = Path(sys.executable).with_name("tablemate")
    return subprocess.run([str(command), "demo", DEMO], capture_output=True, text=True, check=True, cwd=tempfile.gettempdir()).stdout


def install(chroot: Chroot) -> str:
    """install.sh's package and virtualenv steps, from the checkout copied in; their output."""
    chroot.copy_in(checkout(), SOURCE)
    out = chroot.run(f"cd {SOURCE} && . systemd/install.sh && install_apt_packages && install_virtualenv")
    assert "ok: all installed" in out and "RPi.GPIO: rpi-lgpio's shim" in out, out
    return out


def first_install(arch: str, base: Path, phases: Phases) -> Path:
    """The cache's directory holding, as `venv`, the virtualenv of install.sh's first install in `base`
    (made anew for another root, install.sh, pyproject.toml or month)."""
    recipe = hashlib.sha256(f"{base.name} {datetime.date.today():%Y-%m}".encode())
    for name in ("systemd/install.sh", "pyproject.toml"):
        recipe.update(b"\0" + (REPO / name).read_bytes())

    def build(directory: Path) -> None:
        with Chroot(base) as chroot, phases(f"{arch} first install: install.sh's packages and virtualenv, from PyPI"):
            install(chroot)
            shutil.copytree(chroot.path / VENV.lstrip("/"), directory / "venv", symlinks=True)

    return trixie.cached(f"{base.name}-venv-{recipe.hexdigest()[:12]}", build)


def check(arch: str, phases: Phases) -> None:
    with phases(f"{arch} root"):
        base = trixie.root(("python3", *apt_packages(arch)), arch, online=True)
    installed = first_install(arch, base, phases)
    with Chroot(base) as chroot:
        shutil.copytree(installed / "venv", chroot.path / VENV.lstrip("/"), symlinks=True)
        with phases(f"{arch} install.sh over it, from this checkout"):
            out = install(chroot)
        assert "recorded the source digest" in out or "ok: up to date" in out, out
        with phases(f"{arch} imports"):
            out = chroot.run(f"RPI_LGPIO_REVISION={REVISION} {VENV}/bin/python -c {shlex.quote(IMPORTS)}")
        phases.note(f"{arch}: {out.strip()}")
        with phases(f"{arch} tablemate demo"):
            out = chroot.run(f"cd /tmp && {VENV}/bin/tablemate demo {DEMO}")
        assert out == demo_here(), f"tablemate demo {DEMO} on {arch} differs from this machine's:\n{out}"
        phases.note(f"{arch}: tablemate demo {DEMO} played as here: {out.strip().splitlines()[-1]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.platform.arm", description=__doc__.splitlines()[0])
    parser.add_argument("--arch", action="append", choices=("arm64", "armhf"), help="the architecture(s) to check (default arm64)")
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        print("tests.platform.arm mounts and chroots: run it as root (sudo make arm64-check)", file=sys.stderr)
        return 2
    phases = Phases("arm-check")
    for arch in args.arch or ["arm64"]:
        check(arch, phases)
    print(phases.summary())
    return 0


if __name__ == "__main__":
    sys.exit(main())
