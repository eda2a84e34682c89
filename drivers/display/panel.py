"""OLED panels through luma: SSD1306 and SH1106 over I2C or SPI, and luma's in-memory `dummy`.

An SH1106 driven as an SSD1306 shows a 2-column offset, so the profile names the controller.
luma imports smbus2 (I2C) or spidev and RPi.GPIO (SPI: D/C and reset lines) only when the serial
interface is built, i.e. only here and only on the Pi.

The panels send only the bytes of a frame that changed (drivers/display/pages.py); the whole frame
goes again at set-up, after any fault (the device is re-opened), and at the first frame or tick once
REFRESH_S have passed since the last whole one, so a glitch on the bus never leaves a wrong image
for long. Dimmed, the panel's contrast drops to `dim_contrast`; off, it is put to sleep (AEh), its
memory kept, so lighting it again (AFh) needs no new frame.
"""

import contextlib
from typing import Any

from .base import SIZE, Display

#: the whole frame is sent again at least this often (seconds)
REFRESH_S = 60.0
#: luma's own contrast for each controller (its set-up sends it), used when the profile sets none
DEFAULT_CONTRAST = {"ssd1306": 0xCF, "sh1106": 0x7F}


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
        serial = self._serial_interface or self._make_serial()
        try:
            self.device = controller(serial, width=SIZE[0], height=SIZE[1], rotate=rotate)
        except Exception:
            with contextlib.suppress(Exception):  # the initialisation already failed; release what we hold
                serial.cleanup()
            raise

    def _make_serial(self) -> Any:
        from luma.core.interface.serial import i2c, spi

        spec = self.spec
        if spec.interface == "i2c":
            return i2c(port=spec.port, address=spec.address)
        return spi(port=spec.bus, device=spec.device, gpio_DC=spec.dc, gpio_RST=spec.rst, bus_speed_hz=8_000_000)

    def _show(self, image) -> None:
        if self._stale():
            self.device.forget()
        self.device.display(image)
        if getattr(self.device, "sent_whole", False):
            self._whole_at = self._clock()

    def _stale(self) -> bool:
        return self._whole_at is not None and self._clock() - self._whole_at >= self._refresh_s

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


def _describe_spec(spec: Any) -> str:
    if spec.driver == "dummy":
        return "dummy"
    if spec.interface == "i2c":
        return f"{spec.driver} on /dev/i2c-{spec.port} at 0x{spec.address:02X}"
    return f"{spec.driver} on /dev/spidev{spec.bus}.{spec.device}"
