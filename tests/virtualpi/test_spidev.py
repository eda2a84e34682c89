"""spidev's ioctls as a CUSE device answers them, through the kernel's retry protocol (support.ioctl)."""

import errno
import struct

import pytest

from tests.drivers.fake_rc522 import VERSION, FakeRc522

from .cuse import Failed
from .spidev import TRANSFER, SpiDev, ioc
from .support import Memory, ioctl


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def message(memory: Memory, *frames: bytes) -> tuple[int, list[int]]:
    """SPI_IOC_MESSAGE(n) as py-spidev's xfer2 builds it: the structs and their buffers in memory."""
    structs, answers = b"", []
    for frame in frames:
        rx = memory.put(bytes(len(frame)))
        answers.append(rx)
        structs += TRANSFER.pack(memory.put(frame), rx, len(frame), 1_000_000, 0, 8, 0, 0, 0, 0)
    return ioc(1, 0, len(structs)), memory.put(structs), answers


def test_a_message_reads_the_rc522_version_register_through_the_retries():
    clock = Clock()
    device, memory = SpiDev(FakeRc522(clock)), Memory()
    clock.now = 1.0  # past the oscillator's start-up
    command, argument, (rx,) = message(memory, bytes([0x80 | VERSION << 1, 0]))
    assert ioctl(device, command, argument, memory) == 2
    assert memory.read(rx, 2) == bytes([0, 0x92])


def test_without_a_chip_on_the_chip_select_miso_floats():
    device, memory = SpiDev(None, floating=0x00), Memory()
    command, argument, (rx,) = message(memory, bytes([0x80 | VERSION << 1, 0]))
    ioctl(device, command, argument, memory)
    assert memory.read(rx, 2) == b"\0\0"  # the driver then says "not answering: reads 0x00"


def test_settings_read_and_write_as_spidev_keeps_them():
    device, memory = SpiDev(None), Memory()
    speed = memory.put(struct.pack("<I", 1_000_000))
    ioctl(device, ioc(1, 4, 4), speed, memory)
    answer = memory.put(bytes(4))
    ioctl(device, ioc(2, 4, 4), answer, memory)
    assert struct.unpack("<I", memory.read(answer, 4))[0] == 1_000_000
    mode = memory.put(bytes([0]))
    ioctl(device, ioc(2, 1, 1), mode, memory)
    assert memory.read(mode, 1) == b"\0"


@pytest.mark.parametrize(("command", "code"), [
    (ioc(1, 0, 33), errno.EINVAL),  # not a whole number of spi_ioc_transfer
    (ioc(1, 9, 1), errno.ENOTTY),   # no such setting
    (0x0703, errno.ENOTTY),         # another driver's command (I2C_SLAVE)
])
def test_what_spidev_refuses_is_refused_with_its_errno(command, code):
    with pytest.raises(Failed) as failure:
        ioctl(SpiDev(None), command, 0, Memory())
    assert failure.value.code == code


def test_a_message_longer_than_spidevs_buffer_fails_with_emsgsize():
    memory = Memory()
    command, argument, _ = message(memory, bytes(4097))
    with pytest.raises(Failed) as failure:
        ioctl(SpiDev(None), command, argument, memory)
    assert failure.value.code == errno.EMSGSIZE
