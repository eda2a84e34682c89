"""RC522 (NXP MFRC522) readers over spidev: ISO 14443A wake-up, anticollision and select, bounded.

Why not the `mfrc522` package: its wait loop uses `~` on booleans, so an empty poll reads the IRQ
register about 2,000 times; `SimpleMFRC522` reads only cascade level 1 (7-byte UIDs are truncated and
the checksum is appended); it cannot pick the bus, and its close calls the global `GPIO.cleanup()`.
Here the chip is driven through its registers with spidev, in the order of the drivers proven on
real boards (NXP's reference code, the Arduino MFRC522 library, ESPHome, the `mfrc522` package), and
the reset line with gpiozero (so closing a reader releases its own pin only).

Start-up, one step at a time, each taken by a poll once the wait before it has ended (the group's
thread wakes for it between rounds), so that a slow or dead reader never holds up the others: the
reset line low (hard power-down) then high (hard reset); 50 ms for the oscillator; the version
register (0x00 or 0xFF: nothing answers) and a soft reset; 50 ms, until the PowerDown bit clears;
the set-up (106 kBd, the timer, 100 % ASK, the CRC preset, the receiver gain in RFCfgReg,
ValuesAfterColl = 0) and the antenna on; then at least 5.1 ms of unmodulated field before the first
request (ISO/IEC 14443-3: a card may need 5 ms after the field comes on), so a card resting on a
restarted reader is seen: about 105 ms in all. Closed, the chip is left in soft power-down.

One poll:
1. WUPA (wakes cards that are idle *or* halted), with the chip's own timer as the time-out, looked at
   once it must have run out: an empty poll costs 9 SPI transactions. In a group, every reader's
   WUPA goes out first (`wake()`) and the round sleeps once for all of them. The ATQA must be clean:
   two cards of different UID sizes collide in it, and one of them may then miss the anticollision.
2. Per cascade level: ANTICOLLISION (UID part + BCC), SELECT (with CRC_A) until the SAK says the UID
   is complete; 4-, 7- and 10-byte UIDs are read whole. A 4-byte UID starting 08 is a random ID
   (ISO/IEC 14443-3: phones, many bank cards), drawn anew each time the card is powered: it names no
   component (never enrolled, never a second tap after a reader's restart): for the component that
   was there the field is empty, and if the phone stays the table says it is "not a game piece".
3. HLTA: the card rests halted, and the next poll's WUPA wakes it again, so a resting card is seen
   on every poll (with REQA it would be seen only every other poll). A halted card does not answer:
   the poll ends once the timer has run out, the 1 ms in which ISO/IEC 14443-3 lets a card refuse.
Each frame: Idle, IRQ bits cleared, FIFO flushed and filled, BitFramingReg written with this frame's
TxLastBits *before* Transceive starts, StartSend set (at least 1172/fc, ~86 µs, after a card's last
answer: ISO/IEC 14443-3's least frame delay from card to reader) and cleared again once the frame
is out (the datasheet never says the bit clears itself). Two cards at once (a collision), a bad
checksum or a garbled answer make the poll `Unreadable`, logged with ErrorReg and CollReg as the
answer left them (read with ComIrqReg: the HLTA's Transceive clears them). Reads of several
registers share one SPI transaction. Neither RxIRq nor TimerIRq once the timer must have run out is
no broken chip by itself: TAuto stops the timer at an answer's 5th bit, and an answer that breaks
off (noise, a card at the edge of the field) never sets RxIRq. The registers are checked, the timer
is started anew, and the poll is made once more; a chip that lost its set-up, or whose new timer
does not run out either, is a fault and restarts. ErrorReg's TempErr (the chip overheated and
switched its antenna off) is a reader fault ("overheating"), never an empty field: the reader backs
off and restarts (a reset clears the error once the chip is cool), and a card resting on it stays
one tap.
"""

import contextlib
import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from drivers.pins import gpio, gpio_problem, permission_denied, spi_line

from .base import Reader, ReaderError, ReaderFault
from .presence import PollResult, Unreadable

log = logging.getLogger(__name__)

# Registers (datasheet section 9).
COMMAND, COM_IRQ, ERROR, FIFO_DATA, FIFO_LEVEL, CONTROL, BIT_FRAMING, COLL = 0x01, 0x04, 0x06, 0x09, 0x0A, 0x0C, 0x0D, 0x0E
MODE, TX_MODE, RX_MODE, TX_CONTROL, TX_ASK, MOD_WIDTH, RF_CFG = 0x11, 0x12, 0x13, 0x14, 0x15, 0x24, 0x26
T_MODE, T_PRESCALER, T_RELOAD_H, T_RELOAD_L, VERSION = 0x2A, 0x2B, 0x2C, 0x2D, 0x37
# Commands and bits.
IDLE, TRANSCEIVE, SOFT_RESET = 0x00, 0x0C, 0x0F
POWER_DOWN = 0x10
RX_IRQ, TIMER_IRQ = 0x20, 0x01
TEMP_ERR, BUFFER_OVFL, COLL_ERR, CRC_ERR, PARITY_ERR, PROTOCOL_ERR = 0x40, 0x10, 0x08, 0x04, 0x02, 0x01
START_SEND = 0x80
FIFO_LEVEL_MASK = 0x7F
T_AUTO, T_START_NOW = 0x80, 0x40
TX_CONTROL_RESET = 0x80  # TxControlReg's reset value: TX1 and TX2 off
ANTENNA = 0x03
# ISO 14443A commands.
WUPA, HLTA, CASCADE_TAG = 0x52, 0x50, 0x88
RANDOM_ID = 0x08  # UID0 of a 4-byte UID that is a random ID, drawn anew each time the card is powered
SELECT_CODES = (0x93, 0x95, 0x97)
SAK_INCOMPLETE = 0x04

#: RFCfgReg RxGain[2:0] for each receiver gain (datasheet table 98)
GAINS_DB = {18: 0b000, 23: 0b001, 33: 0b100, 38: 0b101, 43: 0b110, 48: 0b111}
#: the profile's default: the chip resets to 33 dB, which often misses a small NTAG sticker read
#: through a card or a tile; 43 dB reads it without picking up a neighbouring reader's tags
DEFAULT_GAIN_DB = 43
RF_CFG_RESERVED = 0x08  # RFCfgReg's reserved bits keep their reset value

#: spi_hz, from the profile's floor (a poll of a resting card already takes 14 ms at it) to the MFRC522's
#: most, 10 Mbit/s (datasheet 8.1.2)
SPI_HZ_MIN, SPI_HZ_MAX = 100_000, 10_000_000

VERSIONS = {0x90: "MFRC522 v0.0", 0x91: "NXP MFRC522 v1.0", 0x92: "NXP MFRC522 v2.0"}
CLONES = {0x88: "FM17522 clone", 0x12: "counterfeit MFRC522"}

# The chip's timer ends a transceive that nobody answers: 13.56 MHz / (2 * 169 + 1) = 40 kHz,
# 40 ticks = 1.0 ms, ten times the ISO 14443A frame delay of these answers (about 0.09 ms).
PRESCALER = 169
RELOAD = 39
TIMEOUT = (2 * PRESCALER + 1) * (RELOAD + 1) / 13.56e6
BIT = 1 / 105_937.5  # one bit at 106 kbit/s
FDT_MIN = 1172 / 13.56e6  # ISO/IEC 14443-3: the least time from the end of a card's answer to the next frame
MARGIN = 0.0005  # added to the timer's time-out before the IRQ register is read again
OSCILLATOR_S = 0.05  # after a reset (datasheet 8.8.2: crystal start-up; the proven drivers wait 50 ms)
GUARD_S = 0.0051  # unmodulated field before the first request (ISO/IEC 14443-3: up to 5 ms)
WAKE_TRIES = 3
#: what the table says when two cards answer at once, or a phone or bank card does
SEVERAL, RANDOM = "Two cards: one at a time", "Not a game piece (phone?)"


class Silent(ReaderFault):
    """Nothing drives MISO: a register reads 0x00 or 0xFF."""

    def __init__(self, value: int):
        super().__init__(f"its version register reads 0x{value:02X}")
        self.value = value


class BrokenOff(Exception):
    """An answer began but never ended: the chip's timer stopped at its 5th bit (TModeReg TAuto) and RxIRq,
    set only at the end of a valid data stream, never came. Noise, or a card at the edge of the field."""


@dataclass(frozen=True)
class Frame:
    """What the chip received: the bytes, its ErrorReg's error bits, the valid bits of the last byte (0:
    all), and CollReg (where the first collision was), read before any later command clears them."""

    data: bytes
    error: int
    last_bits: int
    coll: int

    def __str__(self) -> str:
        return f"{self.data.hex() or 'nothing'} (ErrorReg 0x{self.error:02X}, CollReg 0x{self.coll:02X})"


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
    return (tx_bits + (rx_bytes * 9 + 2 if rx_bytes else 0)) * BIT + 100e-6


class Rc522:
    """The register protocol of one RC522 behind an open spidev handle."""

    def __init__(self, spi: Any, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic):
        self.spi = spi
        self._sleep = sleep
        self._clock = clock
        self._woken = False
        self._answered = float("-inf")  # when the last answer was seen complete

    # -- SPI: one call of xfer2 is one transaction (chip select held) --------------------------
    def write(self, register: int, *values: int) -> None:
        self.spi.xfer2([register << 1 & 0x7E, *values])

    def read(self, *registers: int) -> list[int]:
        return self.spi.xfer2([register << 1 & 0x7E | 0x80 for register in registers] + [0])[1:]

    # -- set-up ----------------------------------------------------------------------------------
    def version(self) -> int:
        """VersionReg; Silent if nothing answers."""
        value = self.read(VERSION)[0]
        if value in (0x00, 0xFF):
            raise Silent(value)
        return value

    def soft_reset(self) -> None:
        self.write(COMMAND, SOFT_RESET)

    def awake(self) -> bool:
        """The PowerDown bit has cleared: the oscillator runs and the chip takes commands."""
        return not self.read(COMMAND)[0] & POWER_DOWN

    def configure(self, gain_db: int) -> None:
        """Everything a reset undoes, as the proven drivers write it, then the antenna drivers on."""
        self.write(TX_MODE, 0x00)  # 106 kBd, no CRC appended: the driver adds CRC_A itself
        self.write(RX_MODE, 0x00)
        self.write(MOD_WIDTH, 0x26)
        self.write(T_MODE, T_AUTO | PRESCALER >> 8)  # the timer starts when a frame has been sent
        self.write(T_PRESCALER, PRESCALER & 0xFF)
        self.write(T_RELOAD_H, RELOAD >> 8)
        self.write(T_RELOAD_L, RELOAD & 0xFF)
        self.write(TX_ASK, 0x40)  # Force100ASK: ISO 14443A needs 100 % ASK
        self.write(MODE, 0x3D)  # CRC preset 0x6363
        self.write(RF_CFG, GAINS_DB[gain_db] << 4 | RF_CFG_RESERVED)
        self.write(COLL, 0x00)  # ValuesAfterColl = 0: bits after a collision read 0
        self.write(TX_CONTROL, TX_CONTROL_RESET | ANTENNA)

    def power_down(self) -> bool:
        """The antenna off, then soft power-down (datasheet 8.6.2: the oscillator and every current sink off,
        the registers kept, until a reset); True once CommandReg reads it back."""
        self.write(TX_CONTROL, TX_CONTROL_RESET)
        self.write(COMMAND, POWER_DOWN | IDLE)
        return self.read(COMMAND)[0] == POWER_DOWN | IDLE

    # -- ISO 14443A ------------------------------------------------------------------------------
    def wake(self) -> float:
        """Send this poll's WUPA now; the seconds until it must be answered or timed out. (A group of
        readers sends every WUPA, sleeps once, then scans each: one sleep a round, not one a reader.)"""
        self._send(bytes([WUPA]), 7)
        self._woken = True
        return TIMEOUT + MARGIN

    def scan(self) -> PollResult:
        """One poll: the UID in the field as lower-case hex, None if no component is there, or Unreadable.
        A poll in which an answer broke off (noise, a card at the edge of the field) is made once more."""
        woken, self._woken = self._woken, False
        with contextlib.suppress(BrokenOff):
            return self._poll(woken)
        try:
            return self._poll(False)
        except BrokenOff:
            return Unreadable("answers broke off twice: the chip's timer stopped at their 5th bit and no end "
                              "came (noise, or a card at the edge of the field)")

    def _poll(self, woken: bool) -> PollResult:
        """WUPA (sent ahead by `wake()` if `woken`), anticollision and select, HLTA. HLTA halts a selected card
        and sends a half-selected one back to idle, as it does a card whose answer broke off: either way the
        next WUPA wakes it, so a resting card (or a pair that collides) answers every poll."""
        try:
            answer = (self._receive(7, 0.0) if woken
                      else self._transceive(bytes([WUPA]), answer=2, last_bits=7, expected=False))
            if answer is None:
                return None
            result = self._atqa(answer) or self._select()
        except BrokenOff:
            self._halt()
            raise
        self._halt()
        return result

    @staticmethod
    def _atqa(frame: Frame) -> Unreadable | None:
        """Why the answer to WUPA is no clean ATQA (two cards answering with different ATQAs collide in it,
        and one of them may miss the anticollision frame that follows), or None."""
        if frame.error & COLL_ERR:
            return Unreadable(f"several cards answered the wake-up: ATQA {frame}", SEVERAL)
        if frame.error or frame.last_bits or len(frame.data) != 2:
            return Unreadable(f"bad ATQA {frame}")
        return None

    def _select(self) -> PollResult:
        """Anticollision and select, cascade level by cascade level, until the UID is complete (None: a
        random ID)."""
        uid = bytearray()
        for select in SELECT_CODES:
            frame = self._transceive(bytes([select, 0x20]), answer=5)
            if frame is None:
                return Unreadable("no answer to anticollision")
            if frame.error & COLL_ERR:
                return Unreadable(f"several cards on the reader: UID part {frame}", SEVERAL)
            part = frame.data
            if frame.error or frame.last_bits or len(part) != 5 or part[0] ^ part[1] ^ part[2] ^ part[3] != part[4]:
                return Unreadable(f"bad UID part {frame}")
            command = bytes([select, 0x70]) + part
            frame = self._transceive(command + crc_a(command), answer=3)
            if frame is None:
                return Unreadable("no answer to select")
            if frame.error or frame.last_bits or len(frame.data) != 3 or crc_a(frame.data[:1]) != frame.data[1:]:
                return Unreadable(f"bad answer to select: SAK {frame}")
            if not frame.data[0] & SAK_INCOMPLETE:
                if part[0] == CASCADE_TAG:
                    return Unreadable("a complete UID part that starts with the cascade tag")
                if not uid and part[0] == RANDOM_ID:
                    return Unreadable(f"a random ID {part[:4].hex()} (a phone, a bank card)", RANDOM, vacant=True)
                return (uid + part[:4]).hex()
            if part[0] != CASCADE_TAG:
                return Unreadable("UID continues without a cascade tag")
            uid += part[1:4]
        return Unreadable("UID longer than three cascade levels")

    def _send(self, data: bytes, last_bits: int) -> None:
        """Start a Transceive of `data`: BitFramingReg is written before the command, StartSend after, and
        no sooner than FDT_MIN after the last answer was seen (on a fast bus the writes take less)."""
        self.write(COMMAND, IDLE)
        self.write(COM_IRQ, 0x7F)  # clear every IRQ bit (Set1 = 0)
        self.write(FIFO_LEVEL, 0x80)  # flush the FIFO
        self.write(FIFO_DATA, *data)
        self.write(BIT_FRAMING, last_bits)
        self.write(COMMAND, TRANSCEIVE)
        early = self._answered + FDT_MIN - self._clock()
        if early > 0:
            self._sleep(early)
        self.write(BIT_FRAMING, START_SEND | last_bits)

    def _transceive(self, data: bytes, *, answer: int, last_bits: int = 0, expected: bool = True) -> Frame | None:
        """Send a frame and return what came back, or None if nothing answered before the time-out.
        `expected`: an answer is likely (a card is known to be there), so look when it should be in;
        otherwise look once, when the timer must have run out (an empty field costs one look)."""
        self._send(data, last_bits)
        return self._receive(last_bits, _frame_time(len(data), answer, last_bits == 7) if expected else TIMEOUT + MARGIN)

    def _receive(self, last_bits: int, look: float) -> Frame | None:
        """What answered the frame just sent, looked at after `look` seconds (then once more, once the
        timer must have run out); StartSend is cleared once the frame is out. ErrorReg is read with
        ComIrqReg: an overheated chip has switched its antenna off, which says nothing about the field,
        so it is a fault, never an empty poll. Neither RxIRq nor TimerIRq: see `_silence`."""
        if look:
            self._sleep(look)
        irq, error, level, control, coll = self.read(COM_IRQ, ERROR, FIFO_LEVEL, CONTROL, COLL)
        if not irq & (RX_IRQ | TIMER_IRQ) and not error & TEMP_ERR and look < TIMEOUT + MARGIN:
            self._sleep(TIMEOUT + MARGIN)
            irq, error, level, control, coll = self.read(COM_IRQ, ERROR, FIFO_LEVEL, CONTROL, COLL)
        if error & TEMP_ERR:
            raise ReaderFault("the RC522 is overheating: its temperature sensor tripped (ErrorReg TempErr) and it "
                              "switched its antenna off; check that it is fed 3.3 V (never 5 V) and has air around it",
                              "overheating")
        if irq & RX_IRQ:
            self._answered = self._clock()  # the answer ended before this read
        self.write(BIT_FRAMING, last_bits)  # StartSend back to 0: the frame is out
        if not irq & (RX_IRQ | TIMER_IRQ):
            self._silence()
        if not irq & RX_IRQ:
            return None
        level &= FIFO_LEVEL_MASK  # bit 7 is FlushBuffer, write-only: never count it as bytes
        received = self.read(*[FIFO_DATA] * level) if level else []
        errors = error & (BUFFER_OVFL | COLL_ERR | CRC_ERR | PARITY_ERR | PROTOCOL_ERR)
        return Frame(bytes(received), errors, control & 0x07, coll)

    def _silence(self) -> None:
        """Neither RxIRq nor TimerIRq once the timer must have run out. On a working chip an answer broke
        off (BrokenOff): TAuto stops the timer at an answer's 5th bit, noise's too, and RxIRq waits for a
        valid end. A chip that was reset (or lost its supply) or that stopped answering on SPI is a fault
        at once; otherwise the receiver is stopped and the timer started anew, and a timer that does not
        run out either (the chip's clock stopped) is a fault too: the reader restarts only then."""
        version, tx_control, t_mode = self.read(VERSION, TX_CONTROL, T_MODE)
        if version in (0x00, 0xFF):
            raise Silent(version)
        if not t_mode & T_AUTO or tx_control & ANTENNA != ANTENNA:
            raise ReaderFault(f"the RC522 lost its set-up (TModeReg 0x{t_mode:02X}, TxControlReg 0x{tx_control:02X}): "
                              "it was reset or its supply dipped; restarting it", "restarting")
        self.write(COMMAND, IDLE)  # the receiver off: nothing heard can stop the timer this time
        self.write(COM_IRQ, TIMER_IRQ)
        self.write(CONTROL, T_START_NOW)
        self._sleep(TIMEOUT + MARGIN)
        if not self.read(COM_IRQ)[0] & TIMER_IRQ:
            raise ReaderFault("the RC522 neither answered nor timed out, and its timer started anew did not run out "
                              "either: its clock stopped; restarting it", "restarting")
        raise BrokenOff

    def _halt(self) -> None:
        """HLTA. A card that halts does not answer, and any answer within 1 ms of the frame is its NAK
        (ISO/IEC 14443-3 6.4.3): the poll ends once the chip's timer (1 ms from the end of the frame) has
        run out, so no command cuts that 1 ms short. A NAK changes nothing, nor does an answer that broke
        off: the next WUPA wakes the card."""
        command = bytes([HLTA, 0x00])
        command += crc_a(command)
        self._send(command, 0)
        with contextlib.suppress(BrokenOff):
            self._receive(0, _frame_time(len(command), 0) + TIMEOUT)


class Rc522Reader(Reader):
    """An RC522 on /dev/spidev<bus>.<device> with its reset line on a GPIO (BCM numbering)."""

    def __init__(self, name: str, seat: int | None, *, bus: int, device: int, rst: int, spi_hz: int,
                 gain_db: int = DEFAULT_GAIN_DB, pin_factory: Any = None, sleep: Callable[[float], None] = time.sleep,
                 **kwargs: Any):
        super().__init__(name, seat, **kwargs)
        if type(spi_hz) is not int or not SPI_HZ_MIN <= spi_hz <= SPI_HZ_MAX:
            raise ReaderError(f"reader {name}: spi_hz {spi_hz!r} is not a whole number of Hz from {SPI_HZ_MIN} to "
                              f"{SPI_HZ_MAX} (the MFRC522's SPI runs at up to 10 Mbit/s)")
        if gain_db not in GAINS_DB:
            raise ReaderError(f"reader {name}: gain_db {gain_db!r} is not one of {', '.join(map(str, GAINS_DB))}")
        self.where = f"/dev/spidev{bus}.{device}"
        #: the chip found at the last start, e.g. "NXP MFRC522 v2.0 (0x92)"; None before
        self.version: str | None = None
        self.gain_db = gain_db
        self._bus, self._device, self._rst, self._spi_hz = bus, device, rst, spi_hz
        self._pin_factory = pin_factory
        self._sleep = sleep
        self._spi: Any = None
        self._reset: Any = None
        self._chip: Rc522 | None = None
        self._steps: Iterator[float] | None = None
        self._due = 0.0
        self._told: set[str] = set()

    @property
    def starting(self) -> bool:
        return self._chip is None and self.problem is None

    def _ready(self, now: float) -> bool:
        if self._chip is not None:
            return True
        if self._steps is None:
            self._steps = self._start()
        elif now < self._due:
            return False
        try:
            wait = next(self._steps)
        except StopIteration:
            self._steps = None
            return True
        except BaseException:
            self._steps = None
            raise
        self._due = self._clock() + wait  # counted from the end of the step (an import may be slow)
        return False

    def _step_due(self) -> float | None:
        return self._due if self._steps is not None else None

    def _begin(self) -> float:
        return self._use_chip(self._chip.wake)

    def _read(self) -> PollResult:
        return self._use_chip(self._chip.scan)

    def _use_chip(self, action: Callable[[], Any]) -> Any:
        try:
            return action()
        except Silent as silent:
            self._chip = None
            raise self._not_answering(silent.value) from None
        except BaseException:
            self._chip = None  # start again from a hard reset on the next try
            raise

    def _start(self) -> Iterator[float]:
        """The start-up; each step yields the seconds to wait before the next one."""
        chip = Rc522(self._open_spi(), self._sleep, self._clock)
        reset = self._reset_line()
        reset.off()  # hard power-down: a chip that still answers is not on this reset line
        self._check_reset_wiring(chip.read(VERSION)[0])
        reset.on()  # the rising edge is a hard reset
        yield OSCILLATOR_S
        try:
            self.version = self._identify(chip.version())
        except Silent as silent:
            raise self._not_answering(silent.value) from None
        chip.soft_reset()  # also resets a chip whose reset line is not wired where the profile says
        for _ in range(WAKE_TRIES):
            yield OSCILLATOR_S
            if chip.awake():
                break
        else:
            raise ReaderFault("the RC522 did not wake up after a soft reset (its PowerDown bit stays set)")
        chip.configure(self.gain_db)
        yield GUARD_S
        self._chip = chip

    def _open_spi(self) -> Any:
        if self._spi is not None:
            return self._spi
        try:
            import spidev  # only here: the real library, present on the Pi only
        except ImportError:
            raise ReaderFault("the mfrc522 back end needs the spidev library: pip install spidev (part of the "
                              "pi extra, which systemd/install.sh installs)", "spidev missing") from None
        spi = spidev.SpiDev()
        try:
            spi.open(self._bus, self._device)
        except FileNotFoundError:
            turn_on = ("sudo raspi-config nonint do_spi 0 (or dtparam=spi=on in /boot/firmware/config.txt)"
                       if self._bus == 0 else "add dtoverlay=spi1-3cs to /boot/firmware/config.txt")
            raise ReaderFault(f"{self.where} does not exist: SPI{self._bus} is not enabled: {turn_on}, then reboot "
                              "(systemd/install.sh does both)", f"SPI{self._bus} is off") from None
        except PermissionError as error:
            raise ReaderFault(permission_denied(self.where, "spi", error.errno), "no permission") from None
        spi.mode = 0
        spi.max_speed_hz = self._spi_hz
        self._spi = spi
        return spi

    def _reset_line(self) -> Any:
        """The reset GPIO, claimed on the first start (low: hard power-down; high: the chip runs)."""
        if self._reset is None:
            from gpiozero import DigitalOutputDevice

            try:
                self._reset = DigitalOutputDevice(self._rst, initial_value=False, pin_factory=self._pin_factory)
            except Exception as error:
                raise self._reset_problem(error) from None
        return self._reset

    def _reset_problem(self, error: Exception) -> ReaderFault:
        return ReaderFault(*gpio_problem(error, f"its reset line {gpio(self._rst)}"))

    def _check_reset_wiring(self, answer: int) -> None:
        if answer in VERSIONS or answer in CLONES:
            self._tell("reset", "answers while its reset line %s is held low: RST is not wired to that GPIO "
                       "(swapped with another reader's?); a soft reset stands in for it", gpio(self._rst))

    def _identify(self, value: int) -> str:
        if value in VERSIONS:
            return f"{VERSIONS[value]} (0x{value:02X})"
        name = CLONES.get(value, "unknown chip")
        self._tell("version", "version register 0x%02X: %s, not an NXP MFRC522; it is driven like one, and if "
                   "taps go unseen, raise gain_db or fit a module with an NXP chip", value, name)
        return f"{name} (0x{value:02X})"

    def _not_answering(self, value: int) -> ReaderFault:
        bus, device = self._bus, self._device
        return ReaderFault(
            f"{self.where} is not answering: its version register reads 0x{value:02X}. With the power off, check "
            f"its 3.3 V and GND, SCK to {spi_line(bus, 'SCLK')}, MOSI to {spi_line(bus, 'MOSI')}, MISO to "
            f"{spi_line(bus, 'MISO')}, SDA (its chip select) to {spi_line(bus, 'CS', device)} and RST to "
            f"{gpio(self._rst)}", "not answering")

    def _tell(self, key: str, message: str, *args: Any) -> None:
        """Log a warning about this reader once (not at every restart)."""
        if key not in self._told:
            self._told.add(key)
            log.warning("reader %d (%s): " + message, self.number, self.name, *args)

    def _release(self) -> None:
        """Leave the chip with its field off whatever its reset line does next: gpiozero returns a released pin
        to an input without a pull, which nothing drives once the process has ended. The chip is put in soft
        power-down (antenna off) through its registers, and its line released as it is, high: a module that
        pulls RST up (the common ones do: they work with RST unconnected) keeps it powered down; on one that
        does not, the line floats, and low is hard power-down while a rise is a hard reset, whose defaults
        have the antenna off. A chip that does not confirm the power-down (failing, starting) is held in hard
        power-down (the line low) until the line is released."""
        powered_down = False
        if self._spi is not None:
            with contextlib.suppress(OSError):
                powered_down = Rc522(self._spi).power_down()
            self._spi.close()
            self._spi = None
        if self._reset is not None:
            if not powered_down:
                self._reset.off()
            self._reset.close()
