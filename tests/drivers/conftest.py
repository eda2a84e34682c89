"""Fixtures for the driver tests: a fake clock and gpiozero's own MockFactory."""

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from .support import FakeClock


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def mock_factory():
    """MockFactory installed as the default and reset afterwards, as gpiozero's own tests do."""
    saved = Device.pin_factory
    factory = MockFactory()
    Device.pin_factory = factory
    try:
        yield factory
    finally:
        factory.reset()
        Device.pin_factory = saved
