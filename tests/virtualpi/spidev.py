"""/dev/spidevB.D as the kernel's spidev driver answers it (drivers/spi/spidev.c,
include/uapi/linux/spi/spidev.h), with an RC522 model (tests/drivers/fake_rc522.py) behind the chip
select, or nothing: then MISO is not driven and every byte reads as the line floats (a reader wired
to another chip select, or none at all).

The ioctls: SPI_IOC_{RD,WR}_{MODE,MODE32,LSB_FIRST,BITS_PER_WORD,MAX_SPEED_HZ} and
SPI_IOC_MESSAGE(n); as spidev, a message longer than its buffer (`bufsiz`, 4096 bytes) fails with
EMSGSIZE, a size that is not a whole number of transfers with EINVAL, another command with ENOTTY.
A transfer's bytes go to the chip one transaction per spi_ioc_transfer (the chip select is released
between them unless cs_change asks otherwise, which the RC522 protocol never needs).
"""

import errno
import struct
import threading

from .cuse import Call, Device, Failed, Retry

MAGIC = ord("k")
READ, WRITE = 2, 1
#: struct spi_ioc_transfer: tx_buf, rx_buf, len, speed_hz, delay_usecs, bits_per_word, cs_change,
#: tx_nbits, rx_nbits, word_delay_usecs, pad
TRANSFER = struct.Struct("<QQIIHBBBBBx")
BUFSIZ = 4096
#: the Pi's device tree gives spidev this top speed (spi-max-frequency)
MAX_SPEED_HZ = 125_000_000
SPI_CPHA, SPI_CPOL = 0x01, 0x02
#: the mode bits the Pi's controllers accept (SPI_CPHA | SPI_CPOL | SPI_CS_HIGH | SPI_NO_CS ...)
MODE_BITS = 0x01 | 0x02 | 0x04 | 0x40


def ioc(direction: int, number: int, size: int) -> int:
    return direction << 30 | size << 16 | MAGIC << 8 | number


SETTINGS = {1: ("mode", 1), 2: ("lsb_first", 1), 3: ("bits_per_word", 1), 4: ("max_speed_hz", 4), 5: ("mode", 4)}


class SpiDev(Device):
    """One chip select: `chip` (anything with `transfer(list[int]) -> list[int]`) or None (MISO floats
    at `floating`). `lock` serialises the bus this chip select shares with others."""

    def __init__(self, chip=None, lock: "threading.Lock | None" = None, floating: int = 0x00):
        self.chip, self.lock, self.floating = chip, lock or threading.Lock(), floating
        self.settings = {"mode": 0, "lsb_first": 0, "bits_per_word": 8, "max_speed_hz": MAX_SPEED_HZ}

    def ioctl(self, call: Call) -> tuple[int, bytes]:
        command = call.command
        if command >> 8 & 0xFF != MAGIC:
            raise Failed(errno.ENOTTY)
        direction, number, size = command >> 30, command & 0xFF, command >> 16 & 0x3FFF
        if number == 0:
            if direction != WRITE:
                raise Failed(errno.ENOTTY)
            return self._message(call, size)
        if number not in SETTINGS or SETTINGS[number][1] != size or direction not in (READ, WRITE):
            raise Failed(errno.ENOTTY)
        name, width = SETTINGS[number]
        if direction == READ:
            if call.room < width:
                raise Retry([], [(call.argument, width)])
            return 0, self.settings[name].to_bytes(width, "little")
        if not call.data:
            raise Retry([(call.argument, width)])
        value = int.from_bytes(call.data[:width], "little")
        self._set(name, value)
        return 0, b""

    def _set(self, name: str, value: int) -> None:
        if name == "mode" and value & ~MODE_BITS:
            raise Failed(errno.EINVAL)
        if name == "bits_per_word" and value not in (0, 8):
            raise Failed(errno.EINVAL)  # the RC522 protocol is bytes; the Pi's controller takes 8 only
        if name == "max_speed_hz" and value == 0:
            raise Failed(errno.EINVAL)
        self.settings[name] = (value or 8) if name == "bits_per_word" else value

    def _message(self, call: Call, size: int) -> tuple[int, bytes]:
        if size % TRANSFER.size:
            raise Failed(errno.EINVAL)
        count = size // TRANSFER.size
        if count == 0:
            return 0, b""
        if not call.data:
            raise Retry([(call.argument, size)])
        transfers = [TRANSFER.unpack_from(call.data, i * TRANSFER.size) for i in range(count)]
        if sum(t[2] for t in transfers) > BUFSIZ:
            raise Failed(errno.EMSGSIZE)
        reads = [(call.argument, size)] + [(t[0], t[2]) for t in transfers if t[0] and t[2]]
        writes = [(t[1], t[2]) for t in transfers if t[1] and t[2]]
        if (len(call.data), call.room) != (sum(n for _, n in reads), sum(n for _, n in writes)):
            raise Retry(reads, writes)
        offset, answer, total = size, b"", 0
        with self.lock:
            for tx, rx, length, *_ in transfers:
                sent = call.data[offset:offset + length] if tx else bytes(length)
                offset += length if tx else 0
                received = self._transaction(list(sent)) if length else []
                if rx:
                    answer += bytes(received)
                total += length
        return total, answer

    def _transaction(self, sent: list[int]) -> list[int]:
        if self.settings["mode"] & (SPI_CPHA | SPI_CPOL) or self.settings["lsb_first"]:
            return [0xFF] * len(sent)  # the RC522 samples on the rising edge of SCK, MSB first (mode 0)
        if self.chip is None:
            return [self.floating] * len(sent)
        try:
            return self.chip.transfer(sent)
        except OSError as error:
            raise Failed(error.errno or errno.EIO) from None
