"""OLED panels through luma: SSD1306 and SH1106 over I2C or SPI, and luma's in-memory `dummy`.

An SH1106 driven as an SSD1306 shows a 2-column offset, so the profile names the controller.
luma imports smbus2 (I2C) or spidev and RPi.GPIO (SPI: D/C and reset lines) only when the serial
interface is built, i.e. only here and only on the Pi.
"""

import contextlib
from typing import Any

from .base import SIZE, Display


class PanelDisplay(Display):
    """A luma device. `serial_interface` replaces the I2C/SPI interface (tests pass a mock)."""

    def __init__(self, spec: Any, *, serial_interface: Any = None, **options: Any):
        super().__init__(_describe_spec(spec), **options)
        self.spec = spec
        self.device: Any = None
        self._serial_interface = serial_interface

    def _open(self) -> None:
        from luma.core.device import dummy
        from luma.oled.device import sh1106, ssd1306

        rotate = self.spec.rotate // 90
        if self.spec.driver == "dummy":
            self.device = dummy(width=SIZE[0], height=SIZE[1], rotate=rotate, mode="1")
            return
        controller = {"ssd1306": ssd1306, "sh1106": sh1106}[self.spec.driver]
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
        self.device.display(image)

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
