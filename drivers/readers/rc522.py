"""RC522 (NXP MFRC522) readers over spidev: ISO 14443A wake-up, anticollision and select, bounded.

Why not the `mfrc522` package: its wait loop uses `~` on booleans, so an empty poll reads the IRQ
register about 2,000 times; `SimpleMFRC522` reads only cascade level 1 (7-byte UIDs are truncated and
the checksum is appended); it cannot pick the bus, and its close calls the global `GPIO.cleanup()`.
Here the chip is driven through its registers with spidev, and the reset line with gpiozero (so
closing a reader releases its own pin only).

One poll:
1. WUPA (wakes cards that are idle *or* halted), with the chip's own timer as the time-out and a
   bounded number of IRQ-register reads, slept apart: an empty poll costs about a dozen SPI
   transactions.
2. Per cascade level: ANTICOLLISION (UID part + BCC), SELECT (with CRC_A) until the SAK says the UID
   is complete; 4-, 7- and 10-byte UIDs are read whole.
3. HLTA: the card rests halted, and the next poll's WUPA wakes it again, so a resting card is seen
   on every poll (with REQA it would be seen only every other poll).
Two cards at once (a collision), a bad checksum or a garbled answer make the poll `Unreadable`.
Several reads are batched per transaction: the chip's SPI protocol reads a list of registers in one
transfer and writes several bytes to one register (the FIFO) in one transfer.
"""

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .base import Reader, ReaderError
from .presence import PollResult, Unreadable

# Registers (datasheet section 9).
COMMAND, COM_IRQ, ERROR, FIFO_DATA, FIFO_LEVEL, BIT_FRAMING = 0x01, 0x04, 0x06, 0x09, 0x0A, 0x0D
MODE, TX_CONTROL, TX_ASK, T_MODE, T_PRESCALER, T_RELOAD_H, T_RELOAD_L, VERSION = (
    0x11, 0x14, 0x15, 0x2A, 0x2B, 0x2C, 0x2D, 0x37)
# Commands.
IDLE, TRANSMIT, TRANSCEIVE, SOFT_RESET = 0x00, 0x04, 0x0C, 0x0F
POWER_DOWN = 0x10
# ComIrqReg bits.
RX_IRQ, IDLE_IRQ, ERR_IRQ, TIMER_IRQ = 0x20, 0x10, 0x02, 0x01
# ErrorReg bits.
BUFFER_OVFL, COLL_ERR, CRC_ERR, PARITY_ERR, PROTOCOL_ERR = 0x10, 0x08, 0x04, 0x02, 0x01
# ISO 14443A commands.
WUPA, HLTA, CASCADE_TAG = 0x52, 0x50, 0x88
SELECT_CODES = (0x93, 0x95, 0x97)
SAK_INCOMPLETE = 0x04

VERSIONS = {0x88: "FM17522 clone", 0x90: "v0.0", 0x91: "v1.0", 0x92: "v2.0", 0x12: "counterfeit (works)"}

# The chip's timer ends a transceive that nobody answers: 13.56 MHz / (2 * 169 + 1) = 40 kHz,
# 120 ticks = 3.0 ms, far above any ISO 14443A frame delay (about 0.1 ms).
PRESCALER = 169
RELOAD = 119
TIMEOUT = (2 * PRESCALER + 1) * (RELOAD + 1) / 13.56e6
BIT = 1 / 105_937.5  # one bit at 106 kbit/s
CHECK_INTERVAL = 0.0005  # between two reads of the IRQ register
MAX_CHECKS = 1 + int((2 * TIMEOUT + 0.002) / CHECK_INTERVAL)  # then the chip is declared stuck


class ChipFault(Exception):
    """The RC522 does not behave (no answer on SPI, its timer does not run)."""


@dataclass(frozen=True)
class Frame:
    """What the chip received: the bytes and its ErrorReg."""

    data: bytes
    error: int


def crc_a(data: bytes) -> bytes:
    """ISO 14443A CRC_A (preset 0x6363), low byte first."""
    crc = 0x6363
    for byte in data:
        byte ^= crc & 0xFF
        byte = (byte ^ (byte << 4)) & 0xFF
        crc = (crc >> 8) ^ (byte << 8) ^ (byte << 3) ^ (byte >> 4)
    return bytes([crc & 0xFF, crc >> 8])


def _frame_time(tx_bytes: int, rx_bytes: int, short: bool = False) -> float:
    """How long a command and its answer take on air (bits with parity, start and end)."""
    tx_bits = 9 if short else tx_bytes * 9 + 2
    return (tx_bits + rx_bytes * 9 + 2) * BIT + 100e-6


class Rc522:
    """The register protocol of one RC522 behind an open spidev handle."""

    def __init__(self, spi: Any, sleep: Callable[[float], None] = time.sleep):
        self.spi = spi
        self._sleep = sleep

    # -- SPI: one call of xfer2 is one transaction (chip select held) --------------------------
    def write(self, register: int, *values: int) -> None:
        self.spi.xfer2([register << 1 & 0x7E, *values])

    def read(self, *registers: int) -> list[int]:
        return self.spi.xfer2([register << 1 & 0x7E | 0x80 for register in registers] + [0])[1:]

    # -- set-up ----------------------------------------------------------------------------------
    def init(self) -> str:
        """Soft-reset and configure the chip; returns its version name. Raises ChipFault if silent."""
        version = self.read(VERSION)[0]
        if version in (0x00, 0xFF):
            raise ChipFault(f"no RC522 answers (version register reads 0x{version:02X}): "
                            "check the wiring, the chip select and the reset pin")
        self.write(COMMAND, SOFT_RESET)
        self._sleep(0.05)
        if self.read(COMMAND)[0] & POWER_DOWN:
            raise ChipFault("the RC522 did not wake up after a soft reset")
        self.write(T_MODE, 0x80 | PRESCALER >> 8)  # TAuto: the timer starts when a frame is sent
        self.write(T_PRESCALER, PRESCALER & 0xFF)
        self.write(T_RELOAD_H, RELOAD >> 8)
        self.write(T_RELOAD_L, RELOAD & 0xFF)
        self.write(TX_ASK, 0x40)  # 100 % ASK modulation, as ISO 14443A needs
        self.write(MODE, 0x3D)  # CRC preset 0x6363
        self.write(TX_CONTROL, 0x83)  # antenna drivers TX1 and TX2 on
        return VERSIONS.get(version, f"unknown version 0x{version:02X}")

    # -- ISO 14443A ------------------------------------------------------------------------------
    def scan(self) -> PollResult:
        """One poll: the UID in the field as lower-case hex, None if empty, or Unreadable."""
        if self._transceive(bytes([WUPA]), answer=2, short=True) is None:
            return None
        result = self._select()
        # HLTA halts a selected card and sends a half-selected one back to idle: either way the next
        # poll's WUPA wakes it, so a resting card (or a pair that collides) answers every poll.
        self._halt()
        return result

    def _select(self) -> PollResult:
        """Anticollision and select, cascade level by cascade level, until the UID is complete."""
        uid = bytearray()
        for select in SELECT_CODES:
            frame = self._transceive(bytes([select, 0x20]), answer=5)
            if frame is None:
                return Unreadable("no answer to anticollision")
            if frame.error & COLL_ERR:
                return Unreadable("several cards on the reader")
            part = frame.data
            if frame.error or len(part) != 5 or part[0] ^ part[1] ^ part[2] ^ part[3] != part[4]:
                return Unreadable(f"bad UID part {part.hex()} (error 0x{frame.error:02X})")
            command = bytes([select, 0x70]) + part
            frame = self._transceive(command + crc_a(command), answer=3)
            if frame is None or frame.error or len(frame.data) != 3 or crc_a(frame.data[:1]) != frame.data[1:]:
                return Unreadable("bad answer to select")
            if not frame.data[0] & SAK_INCOMPLETE:
                return (uid + part[:4]).hex()
            if part[0] != CASCADE_TAG:
                return Unreadable("UID continues without a cascade tag")
            uid += part[1:4]
        return Unreadable("UID longer than three cascade levels")

    def _transceive(self, data: bytes, *, answer: int, short: bool = False) -> Frame | None:
        """Send a frame and return what came back, or None if nothing answered before the time-out."""
        self.write(COMMAND, IDLE)
        self.write(COM_IRQ, 0x7F)  # clear every IRQ bit
        self.write(FIFO_LEVEL, 0x80)  # flush the FIFO
        self.write(FIFO_DATA, *data)
        self.write(COMMAND, TRANSCEIVE)
        self.write(BIT_FRAMING, 0x80 | (7 if short else 0))  # StartSend, with 7 bits for a short frame
        irq = self._wait(RX_IRQ | ERR_IRQ | TIMER_IRQ, _frame_time(len(data), answer, short))
        if not irq & (RX_IRQ | ERR_IRQ):
            return None
        error, level = self.read(ERROR, FIFO_LEVEL)
        received = self.read(*[FIFO_DATA] * level) if level else []
        return Frame(bytes(received), error & (BUFFER_OVFL | COLL_ERR | CRC_ERR | PARITY_ERR | PROTOCOL_ERR))

    def _halt(self) -> None:
        """HLTA (nobody answers it): Transmit ends by itself once the frame is out."""
        command = bytes([HLTA, 0x00])
        self.write(COMMAND, IDLE)
        self.write(COM_IRQ, 0x7F)
        self.write(FIFO_LEVEL, 0x80)
        self.write(FIFO_DATA, *command, *crc_a(command))
        self.write(COMMAND, TRANSMIT)
        self._wait(IDLE_IRQ, _frame_time(4, 0))

    def _wait(self, mask: int, expected: float) -> int:
        """Read ComIrqReg until a bit of `mask` is set: a bounded number of reads, slept apart."""
        self._sleep(expected)
        for _ in range(MAX_CHECKS):
            irq = self.read(COM_IRQ)[0]
            if irq & mask:
                return irq
            self._sleep(CHECK_INTERVAL)
        raise ChipFault("the RC522 neither answered nor timed out (was it reset?)")


class Rc522Reader(Reader):
    """An RC522 on /dev/spidev<bus>.<device> with its reset line on a GPIO (BCM numbering)."""

    def __init__(self, name: str, seat: int | None, *, bus: int, device: int, rst: int, spi_hz: int,
                 pin_factory: Any = None, sleep: Callable[[float], None] = time.sleep, **kwargs: Any):
        super().__init__(name, seat, **kwargs)
        self.where = f"/dev/spidev{bus}.{device}"
        self.version: str | None = None
        self._bus, self._device, self._spi_hz = bus, device, spi_hz
        self._sleep = sleep
        self._chip: Rc522 | None = None
        self._spi: Any = None
        try:
            import spidev  # only here: the real library, present on the Pi only
        except ImportError:
            raise ReaderError(f"reader {name}: the mfrc522 back end needs spidev (pip install spidev, "
                              "part of the pi extra)") from None
        self._spidev = spidev
        from gpiozero import DigitalOutputDevice

        # Low holds the chip in hard power-down; high lets it run. Only this pin is ever released.
        self._reset = DigitalOutputDevice(rst, initial_value=False, pin_factory=pin_factory)

    def _read(self) -> PollResult:
        if self._chip is None:
            self._start()
        try:
            return self._chip.scan()
        except Exception:
            self._chip = None  # start again from a hard reset on the next try
            raise

    def _start(self) -> None:
        if self._spi is None:
            spi = self._spidev.SpiDev()
            try:
                spi.open(self._bus, self._device)
            except FileNotFoundError:
                raise ChipFault(f"{self.where} does not exist: enable SPI{self._bus} in /boot/firmware/config.txt "
                                f"(dtparam=spi=on for SPI0, dtoverlay=spi1-3cs for SPI1) and reboot") from None
            spi.mode = 0
            spi.max_speed_hz = self._spi_hz
            self._spi = spi
        self._reset.off()
        self._sleep(0.001)
        self._reset.on()
        self._sleep(0.05)  # oscillator start-up
        chip = Rc522(self._spi, self._sleep)
        self.version = chip.init()
        self._chip = chip

    def _release(self) -> None:
        if self._spi is not None:
            self._spi.close()
            self._spi = None
        self._reset.close()
