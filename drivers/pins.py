"""The Raspberry Pi's 40-pin header: which GPIOs (BCM numbers) each bus takes, and where each GPIO is,
so that a message can tell a person which wire to check; and why a GPIO could not be claimed, said
the same way for every part that claims one (a reader's reset line, a button)."""

import errno
import glob
import grp
import os
import pwd
from pathlib import Path

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


def permission_denied(path: str, group: str, code: int = errno.EACCES) -> str:
    """Why this process may not open the device node `path` and how to fix it, from the errno of the
    refusal. EPERM is the kernel's device policy: a systemd unit's DevicePolicy= and DeviceAllow=
    (the cgroup's device filter), whatever the node's mode and groups. EACCES is the node's owner,
    group and mode: the group it belongs to (`group` on Raspberry Pi OS, whose udev rules give it)
    and whether this process is in it."""
    if code == errno.EPERM:
        return (f"permission denied on {path} by this service's device policy, not by the file's mode: the unit needs "
                f"DeviceAllow=char-{device_kind(path) or group} rw, which tablemate.service has; a drop-in may take it "
                "away (systemctl cat tablemate shows them)")
    user = pwd.getpwuid(os.geteuid()).pw_name
    owner, owners, mode, members = "root", group, 0o660, []
    try:
        node = os.stat(path)
        owner, mode = pwd.getpwuid(node.st_uid).pw_name, node.st_mode & 0o777
        owners, members = grp.getgrgid(node.st_gid).gr_name, grp.getgrgid(node.st_gid).gr_mem
    except (OSError, KeyError):
        pass  # said as on Raspberry Pi OS: the node group `group`'s, mode 660
    if mode & 0o060 != 0o060:
        return (f"permission denied on {path}: it is {owner}:{owners} with mode {mode:o}, which no group may open: "
                f"Raspberry Pi OS's udev rules give it to group {group} with mode 660; a rule missing or overridden "
                f"leaves it so (udevadm info {path})")
    if user in members:
        return (f"permission denied on {path}: user {user} is in group {owners}, which owns it, but this process is not: "
                "it started before the user joined (restart tablemate), or its unit drops the group "
                "(tablemate.service keeps it with SupplementaryGroups=gpio spi i2c)")
    return (f"permission denied on {path}: user {user} is not in group {owners}, which owns it: "
            f"sudo usermod -aG {owners} {user}, then restart tablemate")


def device_kind(path: str) -> str | None:
    """The name the kernel registered the node's character device major under (/proc/devices):
    what systemd's DeviceAllow=char-NAME matches; None when it cannot be told."""
    try:
        major = str(os.major(os.stat(path).st_rdev))
        characters = Path("/proc/devices").read_text().split("Block devices:")[0].splitlines()[1:]
    except OSError:
        return None
    names = (line.split() for line in characters)
    return next((words[1] for words in names if len(words) == 2 and words[0] == major), None)


def refusal(path: str) -> int | None:
    """The errno with which opening `path` for reading and writing is refused to this process (EACCES
    or EPERM), or None: it opens, or it is not there."""
    try:
        os.close(os.open(path, os.O_RDWR))
    except PermissionError as error:
        return error.errno
    except OSError:
        return None
    return None


def gpio_problem(error: Exception, line: str) -> tuple[str, str]:
    """Why claiming `line` ("its reset line GPIO25 (pin 22)") failed with `error`, and the same in a
    few words for the screen: no permission on the GPIO chip, the line busy, or the error itself.
    lgpio's own error ("can not open gpiochip") does not say why: the chips are opened here to ask."""
    refused = [(path, code) for path in sorted(glob.glob("/dev/gpiochip*")) if (code := refusal(path)) is not None]
    if isinstance(error, PermissionError) or refused:
        path, code = refused[0] if refused else ("/dev/gpiochip0", getattr(error, "errno", None) or errno.EACCES)
        return permission_denied(path, "gpio", code), "no permission"
    if "busy" in str(error).lower() or type(error).__name__ == "GPIOPinInUse":
        return (f"{line} is in use by another program (a second tablemate?) or claimed by a dtoverlay: {error}",
                "GPIO busy")
    return f"cannot claim {line}: {type(error).__name__}: {error}", "GPIO error"
