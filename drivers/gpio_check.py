"""Is the `RPi.GPIO` module rpi-lgpio's shim? (for the start-up check and `tablemate doctor`)

The original RPi.GPIO and rpi-lgpio install the same module, `RPi.GPIO`, and cannot coexist: the
original cannot drive a Pi 5 nor the /dev/gpiochip of Raspberry Pi OS's kernels since bookworm, and installing `mfrc522` with
its dependencies silently puts it back over the shim; uninstalling either package afterwards
deletes the other's files. Our own readers and buttons use gpiozero and spidev, not RPi.GPIO; luma's
SPI display interface does (its D/C and reset lines).

The module is never imported here (rpi-lgpio refuses to import off a Pi): its source file and the
installed packages' metadata are read instead. It imports nothing but the standard library, so the
Pi installer runs this file with the virtualenv's Python (`python drivers/gpio_check.py`: exit 1 and
the problem on stderr, or 0).
"""

import sys
from importlib import machinery, metadata
from pathlib import Path

FIX = "pip uninstall -y RPi.GPIO rpi-lgpio && pip install rpi-lgpio (and install mfrc522, if at all, with --no-deps)"


def check_rpi_gpio(*, required: bool = True, path: list[str] | None = None) -> str | None:
    """A message saying what is wrong with RPi.GPIO and how to fix it, or None if all is well.

    `required`: whether a missing RPi.GPIO is a problem (it is for an SPI display). `path` replaces
    sys.path (tests point it at a fake site-packages).
    """
    owners = sorted(_owners(path))
    origin = module_file(path)
    if origin is None:
        if required:
            return "RPi.GPIO is not installed; the SPI display needs rpi-lgpio's: pip install rpi-lgpio"
        return None
    if "RPi.GPIO" in owners and "rpi-lgpio" in owners:
        return (f"both RPi.GPIO and rpi-lgpio are installed and share the module at {origin}; "
                f"removing one deletes the other's files. Fix: {FIX}")
    if not _is_lgpio_shim(origin):
        where = f" (package {owners[0]})" if owners else ""
        return (f"RPi.GPIO at {origin}{where} is the original RPi.GPIO, not rpi-lgpio's shim: it cannot drive "
                f"a Pi 5 or the GPIO character device of Raspberry Pi OS (bookworm, trixie). Fix: {FIX}")
    return None


def _owners(path: list[str] | None) -> set[str]:
    """The installed distributions that ship files of the RPi.GPIO module."""
    found = set()
    for distribution in metadata.distributions(path=path) if path is not None else metadata.distributions():
        if any(str(file).replace("\\", "/").startswith("RPi/GPIO") for file in distribution.files or ()):
            found.add(_canonical(distribution.metadata["Name"]))
    return found


def _canonical(name: str) -> str:
    return "rpi-lgpio" if name.lower().replace("_", "-") == "rpi-lgpio" else name


def module_file(path: list[str] | None = None) -> Path | None:
    """Where `import RPi.GPIO` would load from (None: nowhere)."""
    package = machinery.PathFinder.find_spec("RPi", path)
    if package is None or not package.submodule_search_locations:
        return None
    module = machinery.PathFinder.find_spec("RPi.GPIO", list(package.submodule_search_locations))
    if module is None or not module.origin or not Path(module.origin).is_file():
        return None
    return Path(module.origin)


def _is_lgpio_shim(origin: Path) -> bool:
    """rpi-lgpio's RPi/GPIO is pure Python on top of lgpio; the original wraps its C module RPi._GPIO."""
    try:
        source = origin.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return "import lgpio" in source


def main() -> int:
    problem = check_rpi_gpio()
    if problem:
        print(f"RPi.GPIO: {problem}", file=sys.stderr)
        return 1
    print("RPi.GPIO: rpi-lgpio's shim")
    return 0


if __name__ == "__main__":
    sys.exit(main())
