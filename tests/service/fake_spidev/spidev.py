"""A stand-in for the `spidev` module in a `tablemate run` child process (bench/service.py, the service
tests): fake RC522s (tests/drivers/fake_rc522.py, strict mode, in real time, their fields empty) on
the devices that TABLEMATE_FAKE_SPIDEV names, each with its reset line ("0.0:25,0.1:24": bus.device
and the GPIO of NRSTPD, on gpiozero's MockFactory); every other /dev/spidev is missing.
`Tablemate(..., fake_spidev=...)` puts this directory first on the child's PYTHONPATH."""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from gpiozero import Device  # noqa: E402
from gpiozero.pins.mock import MockFactory  # noqa: E402

from tests.drivers.fake_rc522 import FakeBus, WallClock  # noqa: E402

Device.pin_factory = Device.pin_factory or MockFactory()
_bus = FakeBus(WallClock())
for _entry in filter(None, os.environ.get("TABLEMATE_FAKE_SPIDEV", "").split(",")):
    _device, _rst = _entry.split(":")
    _bus.add_chip(*map(int, _device.split("."))).wire_reset(Device.pin_factory, int(_rst))

SpiDev = _bus.module().SpiDev
