"""`make test` on the owner's Python: the whole suite in a Debian trixie root (Python 3.13, trixie's
redis-server 8, chromium), its virtualenv made there by the Makefile as on a fresh clone.

    python -m tests.platform.suite          (make test-trixie; as root, like the other trixie checks)

The root (tests/platform/trixie.py, cached) holds what .ci/run installs for `make test`; each run
uses a throwaway overlay of it (trixie.Chroot), so every run starts from a fresh clone.
"""

import os
import sys

from . import Phases, checkout, trixie

#: Python and what the suite needs from the system (as .ci/run installs it on this machine)
PACKAGES = ("python3-venv", "make", "redis-server", "redis-tools", "chromium", "chromium-driver", "shellcheck", "systemd")
SOURCE = "/root/tablemate"


def main() -> int:
    if os.geteuid() != 0:
        print("tests.platform.suite mounts and chroots: run it as root (sudo make test-trixie)", file=sys.stderr)
        return 2
    phases = Phases("test-trixie")
    with phases("root"):
        base = trixie.root(PACKAGES, online=True)
    with trixie.Chroot(base) as chroot:
        chroot.copy_in(checkout(), SOURCE)
        phases.note(chroot.run("python3 --version; redis-server --version").strip())
        with phases("make test"):
            chroot.run(f"cd {SOURCE} && make test", capture=False, timeout=7200)
    print(phases.summary())
    return 0


if __name__ == "__main__":
    sys.exit(main())
