"""Checks that the module RPi.GPIO in this Python environment is rpi-lgpio's shim.

The original RPi.GPIO cannot drive the GPIO of current kernels (Pi 5, Bookworm); rpi-lgpio
provides the same module on lgpio. Both packages install the same files, so whichever was
installed last owns them, and mfrc522 depends on the original. install.sh runs this with the
virtualenv's Python after installing the `pi` extra. It reads the installed packages' file
lists instead of importing the module, so it also works off a Pi (where importing rpi-lgpio's
RPi.GPIO raises).
"""

import sys
from importlib import metadata

SHIM = "RPi/GPIO/__init__.py"
REPAIR = "pip uninstall -y RPi.GPIO rpi-lgpio && pip install rpi-lgpio"


def problem() -> str | None:
    """What is wrong with RPi.GPIO here, or None when it is rpi-lgpio's."""
    try:
        shim = metadata.distribution("rpi-lgpio")
    except metadata.PackageNotFoundError:
        return "rpi-lgpio is not installed, so RPi.GPIO cannot drive the GPIO"
    try:
        original = metadata.distribution("RPi.GPIO")
    except metadata.PackageNotFoundError:
        original = None
    if original is not None:
        return (f"the original RPi.GPIO {original.version} is installed beside rpi-lgpio {shim.version}; "
                f"both own the module RPi.GPIO, so it is whichever was installed last. Repair: {REPAIR}")
    if not any(str(path) == SHIM for path in shim.files or ()):
        return f"rpi-lgpio {shim.version} does not list {SHIM} among its files"
    if not shim.locate_file(SHIM).is_file():
        return (f"rpi-lgpio {shim.version}'s {SHIM} is missing (uninstalling RPi.GPIO deletes it). "
                f"Repair: {REPAIR}")
    return None


def main() -> int:
    found = problem()
    if found:
        print(f"RPi.GPIO: {found}", file=sys.stderr)
        return 1
    print(f"RPi.GPIO: rpi-lgpio {metadata.version('rpi-lgpio')}'s shim")
    return 0


if __name__ == "__main__":
    sys.exit(main())
