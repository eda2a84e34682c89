"""The 128x64 one-bit display, with interchangeable back ends chosen by the profile.

    display = open_display(DisplaySpec(driver="ssd1306", interface="i2c", port=1, address=0x3C))
    display.show(image)          # a 128x64 mode "1" PIL image; never raises for a device failure
    display.close(blank=False)   # leave the last image on the panel ("paused"), or blank it

Back ends: `ssd1306` / `sh1106` (luma.oled, I2C or SPI), `dummy` (luma's in-memory device: tests),
`terminal` (the desktop: `display.last_text()` is the last frame as text), `png` (numbered PNG files
in `png_dir`, for documentation: `display.paths`). Every back end keeps the last frame in
`display.image`; `display.error` holds the last device failure while the screen is disabled.
Screens are drawn with the bundled bitmap fonts: `drivers.display.fonts.font("small")`.
"""

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from .base import LEVELS, SIZE, Display
from .care import Care, shifted
from .panel import PanelDisplay
from .png import PngDisplay
from .sender import DisplayThread
from .terminal import STYLES, TerminalDisplay, render_text

DRIVERS = ("ssd1306", "sh1106", "dummy", "terminal", "png")
INTERFACES = ("i2c", "spi")
ROTATIONS = (0, 180)
ON_STOP = ("paused", "blank")

#: the back ends that stand for an OLED panel, and so get its care (the dummy: in tests)
CARED = ("ssd1306", "sh1106", "dummy")

__all__ = ["CARED", "DRIVERS", "INTERFACES", "LEVELS", "ON_STOP", "ROTATIONS", "SIZE", "STYLES", "Care", "Display",
           "DisplaySpec", "DisplayThread", "PanelDisplay", "PngDisplay", "TerminalDisplay", "care_for", "open_display",
           "render_text", "shifted"]


@dataclass(frozen=True)
class DisplaySpec:
    """What the profile's [display] section says.

    `port`/`address` are for I2C (/dev/i2c-<port>), `bus`/`device`/`dc`/`rst` for SPI
    (/dev/spidev<bus>.<device>, data/command and reset GPIOs). `rotate` (0 or 180 degrees, for a
    panel mounted upside down) applies to the panels only. `on_stop` tells the firmware whether to
    leave a "paused" screen (dimmed, and off after `stopped_off_after_min` through the service's
    companion unit) or blank the panel when it stops. OLED care (panels, and the dummy in tests):
    `contrast` lit (None: the controller's own as luma sets it), `dim_contrast` dimmed; dimmed after
    `dim_after_min` and off after `off_after_min` without input, the frame shifted by a pixel every
    `shift_every_min`; 0 turns a step off.
    """

    driver: str = "dummy"
    interface: str = "i2c"
    port: int = 1
    address: int = 0x3C
    bus: int = 0
    device: int = 0
    dc: int = 24
    rst: int = 25
    rotate: int = 0
    contrast: int | None = None
    dim_contrast: int = 0x10
    dim_after_min: int = 10
    off_after_min: int = 60
    shift_every_min: int = 5
    on_stop: str = "paused"
    stopped_off_after_min: int = 10
    png_dir: str | None = None
    png_scale: int = 1
    terminal_style: str = "braille"


def care_for(spec: DisplaySpec, clock: Callable[[], float] = time.monotonic) -> Care | None:
    """The idle care the spec asks for; None for a back end that is no OLED (terminal, PNG)."""
    if spec.driver not in CARED:
        return None
    return Care(dim_after_s=spec.dim_after_min * 60, off_after_s=spec.off_after_min * 60,
                shift_every_s=spec.shift_every_min * 60, clock=clock)


def open_display(spec: DisplaySpec, *, stream: TextIO | None = None, serial_interface: Any = None,
                 **options: Any) -> Display:
    """Build and open the display the spec names; a failing panel is logged and retried, not raised.

    `stream` is the terminal back end's output (default: standard output); `serial_interface`
    replaces a panel's I2C/SPI interface (tests); `options` go to `Display` (attempts, retry_after,
    retry_delay, clock, sleep). A spec that names no known back end raises ValueError.
    """
    if spec.driver not in DRIVERS:
        raise ValueError(f"display driver {spec.driver!r}: choose one of {', '.join(DRIVERS)}")
    if spec.rotate not in ROTATIONS:
        raise ValueError(f"display rotate {spec.rotate}: choose 0 or 180")
    if spec.driver == "terminal":
        display: Display = TerminalDisplay(stream, spec.terminal_style, **options)
    elif spec.driver == "png":
        if not spec.png_dir:
            raise ValueError("the png display needs png_dir")
        display = PngDisplay(Path(spec.png_dir), spec.png_scale, **options)
    else:
        if spec.interface not in INTERFACES:
            raise ValueError(f"display interface {spec.interface!r}: choose i2c or spi")
        display = PanelDisplay(spec, serial_interface=serial_interface, **options)
    display.open()
    return display
