"""OLED panels through luma: SSD1306 and SH1106 over I2C or SPI, and luma's in-memory `dummy`.

An SH1106 driven as an SSD1306 shows a 2-column offset, so the profile names the controller.
luma imports smbus2 (I2C) or spidev and RPi.GPIO (SPI: D/C and reset lines) only when the serial
interface is built, i.e. only here and only on the Pi.

The panels send only the bytes of a frame that changed (drivers/display/pages.py); the whole frame
goes at set-up, after any fault (the device is re-opened), and again from `tick()` once REFRESH_S
have passed since the last whole one, so a glitch on the bus never leaves a wrong image for long.
The refresh rides on the display's idle ticks, never on a frame a tap caused, which stays small. Dimmed, the panel's contrast drops to `dim_contrast`; off, it is put to sleep (AEh), its
memory kept, so lighting it again (AFh) needs no new frame.
"""

import contextlib
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from drivers.pins import permission_denied

from .base import SIZE, Display

#: the whole frame is sent again at least this often (seconds)
REFRESH_S = 60.0
#: luma's own contrast for each controller (its set-up sends it), used when the profile sets none
DEFAULT_CONTRAST = {"ssd1306": 0xCF, "sh1106": 0x7F}
#: "display off" (sleep: the panel goes dark, its memory and settings kept) on both controllers
DISPLAY_OFF = 0xAE
#: the I2C addresses of the SSD1306 and SH1106 panel modules (a jumper or resistor on the board picks one)
PANEL_ADDRESSES = (0x3C, 0x3D)

log = logging.getLogger(__name__)


class PanelDisplay(Display):
    """A luma device. `serial_interface` replaces the I2C/SPI interface (tests pass a mock)."""

    def __init__(self, spec: Any, *, serial_interface: Any = None, refresh_s: float = REFRESH_S, **options: Any):
        super().__init__(_describe_spec(spec), **options)
        self.spec = spec
        self.device: Any = None
        self._serial_interface = serial_interface
        self._refresh_s = refresh_s
        self._whole_at: float | None = None

    def _open(self) -> None:
        from luma.core.device import dummy

        from .pages import Sh1106, Ssd1306

        self._whole_at = None
        rotate = self.spec.rotate // 90
        if self.spec.driver == "dummy":
            self.device = dummy(width=SIZE[0], height=SIZE[1], rotate=rotate, mode="1")
            return
        controller = {"ssd1306": Ssd1306, "sh1106": Sh1106}[self.spec.driver]
        try:
            serial = self._serial_interface or make_serial(self.spec)
        except Exception as error:
            raise explained(error, self.spec) from error
        try:
            self.device = controller(serial, width=SIZE[0], height=SIZE[1], rotate=rotate)
        except Exception as error:
            with contextlib.suppress(Exception):  # the initialisation already failed; release what we hold
                serial.cleanup()
            raise explained(error, self.spec) from error

    def _show(self, image) -> None:
        self.device.display(image)
        if getattr(self.device, "sent_whole", False):
            self._whole_at = self._clock()

    def _stale(self) -> bool:
        return self._whole_at is not None and self._clock() - self._whole_at >= self._refresh_s

    def _refresh(self) -> None:
        self.device.forget()

    def _level(self, level: str) -> None:
        if level == "off":
            self.device.hide()
            return
        spec = self.spec
        normal = spec.contrast if spec.contrast is not None else DEFAULT_CONTRAST.get(spec.driver, 0xCF)
        self.device.contrast(normal if level == "on" else min(normal, spec.dim_contrast))
        self.device.show()

    def _close(self, blank: bool) -> None:
        device, self.device = self.device, None
        device.persist = not blank
        device.cleanup()


def make_serial(spec: Any) -> Any:
    """luma's serial interface to the panel the spec names."""
    from luma.core.interface.serial import i2c, spi

    if spec.interface == "i2c":
        return i2c(port=spec.port, address=spec.address)
    return spi(port=spec.bus, device=spec.device, gpio_DC=spec.dc, gpio_RST=spec.rst, bus_speed_hz=8_000_000)


def explained(error: Exception, spec: Any) -> Exception:
    """luma's error opening an I2C panel with what it leaves out: why the bus may not be opened (the
    unit's device policy, or the node's group: drivers/pins.py), and, when nothing answers at the
    profile's address, whether a panel answers at the other one an SSD1306 or SH1106 module can be
    set to (a quick write, as i2cdetect probes). Other errors are returned as they are."""
    if spec.interface != "i2c":
        return error
    bus = f"/dev/i2c-{spec.port}"
    cause = error.__context__ if isinstance(error.__context__, OSError) else error
    if isinstance(cause, PermissionError):
        return PermissionError(cause.errno, permission_denied(bus, "i2c", cause.errno))
    if type(error).__name__ != "DeviceNotFoundError" or "on address" not in str(error):
        return error
    others = [address for address in PANEL_ADDRESSES if address != spec.address and _answers(spec.port, address)]
    if not others:
        return error
    return OSError(f"nothing answers at 0x{spec.address:02X} on {bus}, but a device does at 0x{others[0]:02X}: "
                   f"set address = 0x{others[0]:02X} in [display] of the profile (or the panel's address jumper)")


def _answers(port: int, address: int) -> bool:
    from smbus2 import SMBus

    try:
        with SMBus(port) as bus:
            bus.write_quick(address)
    except OSError:
        return False
    return True


def off_after_stop(spec: Any, *, serial_interface: Any = None, sleep: Callable[[float], None] = time.sleep) -> str:
    """After tablemate stopped leaving its dimmed "paused" frame: wait `stopped_off_after_min`, then
    turn the panel off. Only the "display off" command is sent, through luma's serial interface: luma's
    device set-up would clear the panel first. Returns what was done; a panel that does not answer
    raises OSError naming it.

    The service's companion unit (systemd/tablemate-panel-off.service) runs this once tablemate has
    stopped cleanly; starting tablemate again stops it, so it never darkens a panel in use."""
    if spec.driver not in DEFAULT_CONTRAST:
        return f"the {spec.driver} display is no panel: nothing to turn off"
    if spec.on_stop != "paused" or not spec.stopped_off_after_min:
        return "the profile leaves the panel as tablemate left it (on_stop, stopped_off_after_min)"
    sleep(spec.stopped_off_after_min * 60)
    try:
        serial = serial_interface or make_serial(spec)
        try:
            serial.command(DISPLAY_OFF)
        finally:
            serial.cleanup()
    except Exception as error:  # luma's DeviceNotFoundError and friends, OSError from the bus
        raise OSError(f"{_describe_spec(spec)}: {error}") from error
    return f"{_describe_spec(spec)}: turned off {spec.stopped_off_after_min} min after tablemate stopped"


def i2c_bus_hz(port: int, root: Path = Path("/")) -> int | None:
    """The clock of I2C bus `port` as the device tree sets it (dtparam=i2c_arm_baudrate on a Pi: a
    big-endian 32-bit number), or None where the kernel does not say (off a Pi, no device tree)."""
    for adapter in (f"sys/class/i2c-adapter/i2c-{port}", f"sys/bus/i2c/devices/i2c-{port}"):
        try:
            value = (root / adapter / "of_node" / "clock-frequency").read_bytes()
        except OSError:
            continue
        if len(value) == 4:
            return int.from_bytes(value, "big")
    return None


def _describe_spec(spec: Any) -> str:
    if spec.driver == "dummy":
        return "dummy"
    if spec.interface == "i2c":
        return f"{spec.driver} on /dev/i2c-{spec.port} at 0x{spec.address:02X}"
    return f"{spec.driver} on /dev/spidev{spec.bus}.{spec.device}"
