"""i2c-dev's ioctls as the CUSE /dev/i2c-N answers them, with luma's framing, into the panel model."""

import errno
import struct

import pytest

from tests.drivers.i2c_oled import Ssd1306

from .cuse import Failed
from .i2cdev import I2C_RDWR, I2C_SLAVE, I2C_SMBUS, MESSAGE, RDWR_DATA, SMBUS_DATA, I2cBus
from .support import Memory, ioctl


def block_write(bus: I2cBus, memory: Memory, register: int, data: bytes) -> int:
    """smbus2's write_i2c_block_data: I2C_SMBUS with I2C_SMBUS_I2C_BLOCK_DATA (8)."""
    union = memory.put(bytes([len(data)]) + data + bytes(33 - len(data)))
    return ioctl(bus, I2C_SMBUS, memory.put(SMBUS_DATA.pack(0, register, 8, union)), memory)


def rdwr(bus: I2cBus, memory: Memory, *messages: tuple[int, bytes]) -> int:
    structs = b"".join(MESSAGE.pack(address, 0, len(data), memory.put(data)) for address, data in messages)
    return ioctl(bus, I2C_RDWR, memory.put(RDWR_DATA.pack(memory.put(structs), len(messages))), memory)


def test_commands_and_a_data_message_rebuild_the_panels_ram():
    panel = Ssd1306()
    bus, memory = I2cBus(panel), Memory()
    ioctl(bus, I2C_SLAVE, 0x3C, memory)
    block_write(bus, memory, 0x00, bytes([0xAF, 0x20, 0x00, 0x21, 0, 127, 0x22, 0, 7]))
    assert rdwr(bus, memory, (0x3C, bytes([0x40]) + bytes([0xFF]) * 1024)) == 1
    assert panel.on and not panel.errors
    assert all(page == bytearray([0xFF]) * 128 for page in panel.ram)


def test_a_panel_at_another_address_is_a_remote_io_error_and_nothing_reaches_it():
    panel = Ssd1306(address=0x3D)
    bus, memory = I2cBus(panel), Memory()
    ioctl(bus, I2C_SLAVE, 0x3C, memory)
    with pytest.raises(Failed) as failure:
        block_write(bus, memory, 0x00, bytes([0xAF]))
    assert failure.value.code == errno.EREMOTEIO  # "[Errno 121] Remote I/O error", as on the Pi
    assert not panel.on


@pytest.mark.parametrize("build", [
    lambda bus, memory: rdwr(bus, memory, *[(0x3C, b"\x00\xaf")] * 43),  # i2c-dev takes 42 at most
    lambda bus, memory: block_write(bus, memory, 0x00, bytes(33)),        # an SMBus block is 32 at most
])
def test_what_the_kernel_refuses_is_refused_with_einval(build):
    bus = I2cBus(Ssd1306())
    ioctl(bus, I2C_SLAVE, 0x3C, Memory())
    with pytest.raises(Failed) as failure:
        build(bus, Memory())
    assert failure.value.code == errno.EINVAL


def test_funcs_say_plain_i2c_and_emulated_smbus_like_the_pis_adapter():
    memory = Memory()
    answer = memory.put(bytes(8))
    ioctl(I2cBus(), 0x0705, answer, memory)
    funcs = struct.unpack("<Q", memory.read(answer, 8))[0]
    assert funcs & 0x1 and funcs & 0x08000000  # I2C_FUNC_I2C, I2C_FUNC_SMBUS_WRITE_I2C_BLOCK
