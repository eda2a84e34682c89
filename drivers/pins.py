"""The Raspberry Pi's 40-pin header: which GPIOs (BCM numbers) each bus takes, and where each GPIO is,
so that a message can tell a person which wire to check; and why a GPIO could not be claimed, said
the same way for every part that claims one (a reader's reset line, a button)."""

import glob
import grp
import os
import pwd

BUS_PINS = {
    "SPI0": {7: "CE1", 8: "CE0", 9: "MISO", 10: "MOSI", 11: "SCLK"},
    "SPI1": {16: "CS2", 17: "CS1", 18: "CS0", 19: "MISO", 20: "MOSI", 21: "SCLK"},
    "I2C1": {2: "SDA", 3: "SCL"},
}
#: GPIO (BCM) -> physical pin on the 40-pin header
HEADER = {2: 3, 3: 5, 4: 7, 14: 8, 15: 10, 17: 11, 18: 12, 27: 13, 22: 15, 23: 16, 24: 18, 10: 19, 9: 21, 25: 22,
          11: 23, 8: 24, 7: 26, 0: 27, 1: 28, 5: 29, 6: 31, 12: 32, 13: 33, 19: 35, 16: 36, 26: 37, 20: 38, 21: 40}


def gpio(number: int) -> str:
    """"GPIO18 (pin 12)"."""
    return f"GPIO{number} (pin {HEADER[number]})"


def spi_line(bus: int, role: str, device: int | None = None) -> str:
    """The GPIO of an SPI bus line: role SCLK, MOSI, MISO, or the chip select of `device`."""
    wanted = (("CE", "CS")[bus] + str(device)) if role == "CS" else role
    return next(gpio(number) for number, name in BUS_PINS[f"SPI{bus}"].items() if name == wanted)


def permission_denied(path: str, group: str) -> str:
    """Why `path` cannot be opened and how to fix it: the group that owns it, for this user."""
    user = pwd.getpwuid(os.geteuid()).pw_name
    try:
        group = grp.getgrgid(os.stat(path).st_gid).gr_name
    except (OSError, KeyError):
        pass
    return (f"permission denied on {path}: user {user} is not in group {group}, which owns it: "
            f"sudo usermod -aG {group} {user}, then restart tablemate")


def gpio_problem(error: Exception, line: str) -> tuple[str, str]:
    """Why claiming `line` ("its reset line GPIO25 (pin 22)") failed with `error`, and the same in a
    few words for the screen: no permission on the GPIO chip, the line busy, or the error itself."""
    locked = [path for path in sorted(glob.glob("/dev/gpiochip*")) if not os.access(path, os.R_OK | os.W_OK)]
    if isinstance(error, PermissionError) or locked:
        return permission_denied(locked[0] if locked else "/dev/gpiochip0", "gpio"), "no permission"
    if "busy" in str(error).lower() or type(error).__name__ == "GPIOPinInUse":
        return (f"{line} is in use by another program (a second tablemate?) or claimed by a dtoverlay: {error}",
                "GPIO busy")
    return f"cannot claim {line}: {type(error).__name__}: {error}", "GPIO error"
