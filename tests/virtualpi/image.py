"""The virtual Pi's disk: the system test's trixie (tests/platform/vm.py) with Debian's trixie-backports
kernel, which has what the stock trixie kernel lacks (CONFIG_GPIO_SIM=m, CONFIG_IRQ_SIM=y; CONFIG_CUSE=m
as both), and what a Raspberry Pi OS Lite has before tablemate's installer runs: the groups gpio,
spi and i2c, and /boot/firmware/config.txt with the buses turned on (as raspi-config leaves it).

Built once on this machine and cached like the system test's image (same cache, same recipe code):
the packages of systemd/install.sh, and /opt/tablemate/venv holding the dependencies its pip step
installs (pyproject.toml's, and the `pi` extra; built here in the image's root, natively, instead of
in the emulated VM where they take 7 minutes). install.sh then runs whole in the VM and installs
this checkout into that virtualenv, as an upgrade on a Pi does. The board's own programs run on
Debian's python3 with python3-gpiozero and python3-pil (the models import gpiozero and Pillow).
"""

import re
import shlex
import tomllib
from pathlib import Path

from tests.platform import REPO
from tests.platform.arm import apt_packages
from tests.platform.trixie import MIRROR
from tests.platform.vm import FILES, Image, image

#: the board's programs (python3-gpiozero, python3-pil) and `gpioset` (a line held by another program)
PACKAGES = ("python3-gpiozero", "python3-pil", "gpiod")
#: Raspberry Pi OS's config.txt with the lines install.sh adds for tablemate's buses
CONFIG_TXT = (REPO / "tests" / "systemd" / "raspios-config.txt").read_bytes() + (
    b"dtparam=i2c_arm=on\ndtparam=i2c_arm_baudrate=400000\ndtparam=spi=on\ndtoverlay=spi1-3cs\n")
BACKPORTS = f"Types: deb\nURIs: {MIRROR}\nSuites: trixie-backports\nComponents: main\n".encode()
VENV = "/opt/tablemate/venv"


def requirements() -> tuple[list[str], list[str]]:
    """What install.sh's pip step installs besides the project: pyproject.toml's dependencies and the
    `pi` extra, and apart the ones it installs with --no-deps (as install.sh's NO_DEPS_PACKAGES)."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    script = (REPO / "systemd" / "install.sh").read_text(encoding="utf-8")
    no_deps = re.search(r"^NO_DEPS_PACKAGES=\(([^)]*)\)", script, re.M).group(1).split()
    wanted = project["dependencies"] + project["optional-dependencies"]["pi"]
    apart = [r for r in wanted if re.match(r"[A-Za-z0-9._-]+", r).group().lower() in no_deps]
    return [r for r in wanted if r not in apart], apart


def virtual_pi_image() -> Image:
    """The image (built once, then from the cache)."""
    with_deps, no_deps = requirements()
    quoted = " ".join(f"'{r}'" for r in with_deps)
    pip = f"env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root PYPI=1 {VENV}/bin/pip install --quiet --prefer-binary"
    commands = (
        "apt-get update && apt-get install -y -t trixie-backports linux-image-amd64",
        # the stock kernel goes: one kernel in /boot, the one the VM boots
        "dpkg-query -W -f '${Package}\\n' 'linux-image-6.*' | xargs apt-get purge -y",
        # Raspberry Pi OS's hardware groups (i2c-tools makes i2c)
        "for group in gpio spi i2c; do getent group $group || groupadd --system $group; done",
        f"python3 -m venv {VENV} && {pip} {quoted} && {pip} --no-deps {' '.join(no_deps)}",
        # the commands above reached Debian's archive and PyPI through this machine's resolver; the
        # VM's is QEMU's
        f"printf %s {shlex.quote(FILES['/etc/resolv.conf'].decode())} >/etc/resolv.conf",
    )
    files = {"/etc/apt/sources.list.d/trixie-backports.sources": BACKPORTS, "/boot/firmware/config.txt": CONFIG_TXT,
             "/etc/resolv.conf": Path("/etc/resolv.conf").read_bytes()}
    return image(packages=(*apt_packages("amd64"), *PACKAGES), files=files, commands=commands)
