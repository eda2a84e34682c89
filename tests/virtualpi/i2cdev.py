"""/dev/i2c-N as the kernel's i2c-dev driver answers it (drivers/i2c/i2c-dev.c, i2c-core-smbus.c),
on a bus where one OLED controller model (tests/drivers/i2c_oled.py) answers at its address.

The ioctls smbus2 and luma use: I2C_FUNCS, I2C_SLAVE/I2C_SLAVE_FORCE, I2C_RDWR (at most 42 messages
of at most 8192 bytes each, as i2c-dev allows) and I2C_SMBUS (emulated over plain I2C messages as the
core does for an adapter without SMBus hardware, like the Pi's); I2C_RETRIES, I2C_TIMEOUT and I2C_PEC
are taken and change nothing here. A message to an address nobody acknowledges fails the whole
transfer with EREMOTEIO, as the Pi's I2C controllers (i2c-bcm2835, and i2c-designware on the Pi 5) do.
"""

import errno
import struct
import threading

from tests.drivers.i2c_oled import Transaction

from .cuse import Call, Device, Failed, Retry

I2C_RETRIES, I2C_TIMEOUT, I2C_SLAVE, I2C_TENBIT, I2C_FUNCS = 0x0701, 0x0702, 0x0703, 0x0704, 0x0705
I2C_SLAVE_FORCE, I2C_RDWR, I2C_PEC, I2C_SMBUS = 0x0706, 0x0707, 0x0708, 0x0720
RDWR_DATA = struct.Struct("<QI4x")  # struct i2c_rdwr_ioctl_data: msgs, nmsgs
MESSAGE = struct.Struct("<HHH2xQ")  # struct i2c_msg: addr, flags, len, buf
SMBUS_DATA = struct.Struct("<BB2xIQ")  # struct i2c_smbus_ioctl_data: read_write, command, size, data
I2C_M_RD = 0x0001
RDWR_MAX_MESSAGES, MESSAGE_MAX = 42, 8192
SMBUS_WRITE = 0
SMBUS_QUICK, SMBUS_BYTE, SMBUS_BYTE_DATA, SMBUS_I2C_BLOCK_DATA = 0, 1, 2, 8
SMBUS_UNION = 34  # union i2c_smbus_data: block[I2C_SMBUS_BLOCK_MAX + 2]
#: what the Pi's adapters report: I2C_FUNC_I2C | I2C_FUNC_PROTOCOL_MANGLING | I2C_FUNC_SMBUS_EMUL
FUNCTIONS = 0x00000001 | 0x00000004 | 0x0EFF0008


class I2cBus(Device):
    """An I2C adapter's device node with `panel` (a controller model with `address` and `take()`)
    on the bus, or nothing."""

    def __init__(self, panel=None):
        self.panel = panel
        self.lock = threading.Lock()
        self.address = 0  # i2c-dev's client address, per open file in the kernel; one user here

    def ioctl(self, call: Call) -> tuple[int, bytes]:
        command = call.command
        if command in (I2C_SLAVE, I2C_SLAVE_FORCE):
            if call.argument > 0x7F:
                raise Failed(errno.EINVAL)
            self.address = call.argument
            return 0, b""
        if command in (I2C_RETRIES, I2C_TIMEOUT, I2C_PEC):
            return 0, b""
        if command == I2C_TENBIT:
            if call.argument:
                raise Failed(errno.EINVAL)  # the Pi's adapters have no 10-bit addressing
            return 0, b""
        if command == I2C_FUNCS:
            if call.room < 8:
                raise Retry([], [(call.argument, 8)])
            return 0, FUNCTIONS.to_bytes(8, "little")
        if command == I2C_RDWR:
            return self._rdwr(call)
        if command == I2C_SMBUS:
            return self._smbus(call)
        raise Failed(errno.ENOTTY)

    def _rdwr(self, call: Call) -> tuple[int, bytes]:
        if len(call.data) < RDWR_DATA.size:
            raise Retry([(call.argument, RDWR_DATA.size)])
        messages_at, count = RDWR_DATA.unpack_from(call.data)
        if count > RDWR_MAX_MESSAGES:
            raise Failed(errno.EINVAL)
        if len(call.data) < RDWR_DATA.size + count * MESSAGE.size:
            raise Retry([(call.argument, RDWR_DATA.size), (messages_at, count * MESSAGE.size)])
        messages = [MESSAGE.unpack_from(call.data, RDWR_DATA.size + i * MESSAGE.size) for i in range(count)]
        if any(length > MESSAGE_MAX for _, _, length, _ in messages):
            raise Failed(errno.EINVAL)
        reads = [(call.argument, RDWR_DATA.size), (messages_at, count * MESSAGE.size)]
        reads += [(buf, length) for _, flags, length, buf in messages if not flags & I2C_M_RD and length]
        writes = [(buf, length) for _, flags, length, buf in messages if flags & I2C_M_RD and length]
        if (len(call.data), call.room) != (sum(n for _, n in reads), sum(n for _, n in writes)):
            raise Retry(reads, writes)
        offset = RDWR_DATA.size + count * MESSAGE.size
        with self.lock:
            for address, flags, length, _ in messages:
                if flags & I2C_M_RD:
                    self._read(address)
                else:
                    self._write(address, call.data[offset:offset + length])
                    offset += length
        return count, b""

    def _smbus(self, call: Call) -> tuple[int, bytes]:
        if len(call.data) < SMBUS_DATA.size:
            raise Retry([(call.argument, SMBUS_DATA.size)])
        read_write, register, size, data_at = SMBUS_DATA.unpack_from(call.data)
        if read_write != SMBUS_WRITE:
            with self.lock:
                self._read(self.address)
        if size == SMBUS_QUICK:
            payload = b""
        elif size == SMBUS_BYTE:
            payload = bytes([register])
        else:
            if size not in (SMBUS_BYTE_DATA, SMBUS_I2C_BLOCK_DATA):
                raise Failed(errno.EINVAL)
            if len(call.data) < SMBUS_DATA.size + SMBUS_UNION:
                raise Retry([(call.argument, SMBUS_DATA.size), (data_at, SMBUS_UNION)])
            block = call.data[SMBUS_DATA.size:]
            if size == SMBUS_BYTE_DATA:
                payload = bytes([register, block[0]])
            else:
                if not 1 <= block[0] <= 32:
                    raise Failed(errno.EINVAL)  # i2c-core-smbus: "Invalid block write size"
                payload = bytes([register]) + block[1:1 + block[0]]
        with self.lock:
            self._write(self.address, payload)
        return 0, b""

    def _write(self, address: int, payload: bytes) -> None:
        if self.panel is None or address != self.panel.address:
            raise Failed(errno.EREMOTEIO)
        if payload:
            self.panel.take(Transaction(address, payload))

    def _read(self, address: int) -> None:
        """A read is not modelled (the panel is never read): it fails, so a driver relying on one fails here."""
        raise Failed(errno.EIO)
