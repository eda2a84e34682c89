"""A register-level fake RC522 behind a fake `spidev`, with ISO 14443A cards in its field.

It answers like the chip (NXP MFRC522 datasheet rev. 3.9) as far as reading UIDs goes, so both our
back end and the stock `mfrc522` package can be run against it and their SPI transactions counted:
- the SPI protocol: a transaction whose first byte has bit 7 set reads the registers named by each
  byte (the answer is shifted by one byte); otherwise every following byte is written to one register;
- registers with their reset values; CommandReg (Idle, Transmit, Transceive, CalcCRC, SoftReset,
  the RcvOff and PowerDown bits: soft power-down switches the field off), ComIrqReg/DivIrqReg (Set1:
  written with bit 7 clear, the bits written 1 are cleared), ErrorReg (every command written, Idle
  included, clears all but TempErr: "command execution clears all error bits except TempErr"; WrErr:
  the FIFO written while an answer may still come, also a violation), the 64-byte FIFO (FlushBuffer,
  BufferOvfl), ControlReg (RxLastBits), BitFramingReg (StartSend, TxLastBits), CollReg
  (ValuesAfterColl, CollPos), TxModeReg/RxModeReg (106 kBd only; TxCRCEn appends a CRC_A, RxCRCEn
  checks it), TxControlReg (the antenna drivers), TxASKReg (Force100ASK), RFCfgReg (RxGain), the
  timer (TAuto: started at the end of every frame sent, stopped by the 5th bit of an answer, and
  otherwise running on through a new command, Idle included, to set TimerIRq late; ControlReg's
  TStopNow and TStartNow; a SoftReset stops it), the receiver (RxIRq only at "the end of a valid data
  stream": an answer that breaks off, or noise taken for one, stops the timer at its 5th bit and then
  sets neither RxIRq nor TimerIRq, and the receiver listens on until a command ends the Transceive;
  `disturb()` does it, or a parity error, to a chosen frame), the CRC coprocessor, Status2Reg
  (MFCrypto1On, TempSensClear), VersionReg;
- power: a low NRSTPD (the reset line, a gpiozero MockPin wired with `wire_reset`, pulled up on the
  module or not) is hard power-down (SPI silent, field off); its rising edge and SoftReset restore the
  reset values; `brown_out()` does the same unasked, `unplug()` silences the chip until `plug()`;
  `stall()` stops its oscillator (registers kept, nothing on air, no timer) until a reset;
  `spi_errors` makes transfers fail; `overheat()` sets TempErr, which switches the antenna drivers off
  until it is cleared (TempSensClear after `cool_down()`, or a reset once cool);
- time: every transaction costs `transaction_cost` seconds of the shared clock (spidev's ioctl on a
  Pi), frames take their air time at 106 kbit/s, a frame nobody answers ends with the timer;
- cards follow the ISO 14443-3 states (IDLE, READY per cascade level, ACTIVE, HALT): REQA wakes idle
  cards only, WUPA halted ones too, an unexpected frame sends a READY/ACTIVE card back to IDLE (HALT if
  it was woken from HALT); 4-, 7- and 10-byte UIDs; several cards answering at once collide bit by bit;
  a card answers only if the receiver's gain is at least what its coupling needs (`min_gain_db`).

Two modes. The strict one (the default) follows the datasheet and ISO 14443-3 where a lenient fake
would forgive a driver: StartSend stays set until written 0, and Transceive entered while it is set
sends at once; a card answers only after 5 ms of unmodulated field (and only with Force100ASK on);
after a reset the chip needs `STARTUP_S` before it answers on SPI, and after a SoftReset td (37.74
µs, datasheet 8.8.2; `STARTUP_S` from soft power-down) before its PowerDown bit reads 0 (writes
until then are lost, as while waking from soft power-down); with TxWaitRF (ModeReg) set and no
field, a frame is held back (no TxIRq, no timer); a card misses a fraction `miss` of frames, an
answer arrives garbled (a parity error) with chance `garble`, and a frame's answer breaks off (or
noise stops the timer in an empty field) with chance `noise` (seeded: runs repeat exactly); and
`violations` lists every ISO 14443-3 timing rule the driver broke: a command within 1 ms of the end
of HLTA (6.4.3: the PICC's NAK may come that late), a frame less than 1172/fc after the end of a
card's answer (the least frame delay time from PICC to PCD). The lenient mode is the project's old
fake: StartSend clears itself once the frame is out, cards are ready at once, nothing is lost. A
driver must work in both.
Not modelled: MIFARE authentication and memory, bit-oriented anticollision frames (a card ignores
them), the IRQ pin, the UART and I2C interfaces; and, kinder than the chip where our driver never
goes: CalcCRC finishes at once, Status2Reg's ModemState, the 100 ns least NRSTPD
pulse (datasheet 8.8.1), ISO 14443-3's request guard time (7000/fc between two REQA/WUPA).
"""

import contextlib
import errno
import random
import sys
import time
import types
from collections import deque
from collections.abc import Callable, Iterator

from gpiozero.pins.mock import MockPin

# Registers (datasheet section 9).
(COMMAND, COM_IEN, DIV_IEN, COM_IRQ, DIV_IRQ, ERROR, STATUS1, STATUS2, FIFO_DATA, FIFO_LEVEL, WATER_LEVEL,
 CONTROL, BIT_FRAMING, COLL) = range(0x01, 0x0F)
MODE, TX_MODE, RX_MODE, TX_CONTROL, TX_ASK = 0x11, 0x12, 0x13, 0x14, 0x15
CRC_RESULT_H, CRC_RESULT_L, MOD_WIDTH, RF_CFG = 0x21, 0x22, 0x24, 0x26
T_MODE, T_PRESCALER, T_RELOAD_H, T_RELOAD_L, VERSION = 0x2A, 0x2B, 0x2C, 0x2D, 0x37
RESET_VALUES = {
    COMMAND: 0x20, COM_IEN: 0x80, DIV_IEN: 0x00, COM_IRQ: 0x14, DIV_IRQ: 0x00, ERROR: 0x00, STATUS1: 0x21,
    STATUS2: 0x00, FIFO_LEVEL: 0x00, WATER_LEVEL: 0x08, CONTROL: 0x10, BIT_FRAMING: 0x00, COLL: 0xA0,
    MODE: 0x3F, TX_MODE: 0x00, RX_MODE: 0x00, TX_CONTROL: 0x80, TX_ASK: 0x00, 0x16: 0x10, 0x17: 0x84, 0x18: 0x84,
    0x19: 0x4D, 0x1C: 0x62, 0x1D: 0x00, 0x1F: 0xEB, CRC_RESULT_H: 0xFF, CRC_RESULT_L: 0xFF, MOD_WIDTH: 0x26,
    RF_CFG: 0x48, 0x27: 0x88, 0x28: 0x20, 0x29: 0x20, T_MODE: 0x00, T_PRESCALER: 0x00, T_RELOAD_H: 0x00,
    T_RELOAD_L: 0x00, 0x33: 0x80, 0x36: 0x40,
}
# Commands and bits.
IDLE, MEM, CALC_CRC, TRANSMIT, TRANSCEIVE, SOFT_RESET = 0x00, 0x01, 0x03, 0x04, 0x0C, 0x0F
KNOWN_COMMANDS = (IDLE, MEM, 0x02, CALC_CRC, TRANSMIT, 0x07, 0x08, TRANSCEIVE, 0x0E, SOFT_RESET)
RCV_OFF, POWER_DOWN = 0x20, 0x10
TX_IRQ, RX_IRQ, IDLE_IRQ, ERR_IRQ, TIMER_IRQ = 0x40, 0x20, 0x10, 0x02, 0x01
CRC_IRQ = 0x04
WR_ERR, TEMP_ERR, BUFFER_OVFL, COLL_ERR, CRC_ERR, PARITY_ERR = 0x80, 0x40, 0x10, 0x08, 0x04, 0x02
TEMP_SENS_CLEAR = 0x80
TX_WAIT_RF = 0x20
START_SEND = 0x80
T_STOP_NOW, T_START_NOW, T_AUTO = 0x80, 0x40, 0x80
VALUES_AFTER_COLL, COLL_POS_NOT_VALID = 0x80, 0x20
FORCE_100_ASK = 0x40
MF_CRYPTO1_ON = 0x08
CRC_EN, SPEED = 0x80, 0x70
#: RFCfgReg RxGain[2:0] -> dB (datasheet table 98)
RX_GAIN_DB = (18, 23, 18, 23, 33, 38, 43, 48)

BIT = 1 / 105_937.5  # one bit at 106 kbit/s
FDT_PCD = 1172 / 13.56e6  # ISO 14443-3: the least time from the end of a PICC's answer to the PCD's next frame
HALT_WAIT = 1e-3  # ISO 14443-3 6.4.3: an answer within 1 ms of the end of HLTA is its NAK
GUARD_S = 5e-3  # ISO 14443-3: a PICC may need 5 ms of unmodulated field before it answers
STARTUP_S = 0.02  # strict: the oscillator start-up after a reset (the drivers wait 50 ms)
WAKE_S = 0.001  # strict: leaving soft power-down (the PowerDown bit reads 1 until then)
ADDRESSABLE_S = 1024 / 27.12e6  # datasheet 8.8.2 td: once the clock is stable, until the chip can be addressed
FIFO_SIZE = 64


def iso_crc_a(data: bytes, preset: int = 0x6363) -> bytes:
    """CRC_A computed bit by bit (reflected polynomial 0x8408), low byte first."""
    crc = preset
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x8408 if crc & 1 else crc >> 1
    return bytes([crc & 0xFF, crc >> 8])


HLTA_FRAME = b"\x50\x00" + iso_crc_a(b"\x50\x00")


def frame_delay(frame: bytes, short: bool) -> float:
    """ISO 14443-3 FDT of a PICC's answer to REQA/WUPA/ANTICOLLISION/SELECT (n = 9): (n * 128 + 84) / fc
    when the last bit the PCD sent is 1, (n * 128 + 20) / fc when it is 0 (the odd parity bit of the last
    byte of a standard frame, bit 7 of a short frame's 7)."""
    last = frame[-1] >> 6 & 1 if short else 1 - bin(frame[-1]).count("1") % 2
    return (9 * 128 + (84 if last else 20)) / 13.56e6


def _bcc(part: bytes) -> int:
    return part[0] ^ part[1] ^ part[2] ^ part[3]


class FakeCard:
    """An ISO 14443A card (tag) with a 4-, 7- or 10-byte UID; `min_gain_db` is the receiver gain its
    answers need on this reader (a small sticker read through a card needs more than a card);
    `deaf_to`: the first bytes of the standard frames that never reach it (a card at the edge of the
    field, woken by a short WUPA but missing a longer frame)."""

    ATQA = {4: b"\x04\x00", 7: b"\x44\x00", 10: b"\x84\x00"}
    SELECT = (0x93, 0x95, 0x97)

    def __init__(self, uid: str, sak: int | None = None, *, min_gain_db: int = 18, deaf_to: bytes = b""):
        self._set_uid(bytes.fromhex(uid))
        size = len(self.uid)
        if size not in self.ATQA:
            raise ValueError(f"a UID has 4, 7 or 10 bytes, not {size}")
        self.atqa = self.ATQA[size]
        self.sak = sak if sak is not None else (0x08 if size == 4 else 0x00)
        self.min_gain_db = min_gain_db
        self.deaf_to = deaf_to
        #: for a random ID: what draws it at each power-up
        self.draw: random.Random | None = None
        self.state = "off"
        self.level = 0
        self.woken_from_halt = False
        self.powered_at = 0.0
        #: every frame this card answered, in order (tests check what reached it)
        self.answered: list[bytes] = []

    @classmethod
    def random_id(cls, seed: int = 0, **kwargs) -> "FakeCard":
        """A card with a random ID (a phone, many bank cards): a 4-byte UID starting 08 (ISO/IEC
        14443-3), drawn anew each time the field powers the card, kept while it stays powered."""
        card = cls("08000000", **kwargs)
        card.draw = random.Random(seed)
        return card

    def _set_uid(self, uid: bytes) -> None:
        self.uid = uid
        rest, self.levels = uid, []
        while len(rest) > 4:
            self.levels.append(b"\x88" + rest[:3])
            rest = rest[3:]
        self.levels.append(rest)

    def power(self, on: bool, at: float = 0.0) -> None:
        if on and self.state == "off" and self.draw is not None:
            self._set_uid(b"\x08" + self.draw.randbytes(3))
        self.state = "idle" if on else "off"
        self.powered_at = at

    def receive(self, frame: bytes | None, short: bool = False) -> bytes | None:
        """Process one frame from the reader (None: a frame it cannot decode); returns the answer,
        or None for silence."""
        if self.state == "off" or frame is not None and not short and frame[0] in self.deaf_to:
            return None
        answer = self._answer(frame, short)
        if answer is not None:
            self.answered.append(frame)
        return answer

    def _answer(self, frame: bytes | None, short: bool) -> bytes | None:
        if frame is None:
            pass
        elif short:
            command = frame[0] & 0x7F
            if (command == 0x26 and self.state == "idle") or (command == 0x52 and self.state in ("idle", "halt")):
                self.woken_from_halt = self.state == "halt"
                self.state, self.level = "ready", 0
                return self.atqa
        elif self.state == "ready" and len(frame) >= 2 and frame[0] == self.SELECT[self.level]:
            part = self.levels[self.level] + bytes([_bcc(self.levels[self.level])])
            if frame[1] == 0x20 and len(frame) == 2:
                return part
            if frame[1] == 0x70 and len(frame) == 9 and frame[2:7] == part and iso_crc_a(frame[:7]) == frame[7:]:
                if self.level == len(self.levels) - 1:
                    self.state = "active"
                    sak = self.sak
                else:
                    self.level += 1
                    sak = 0x04
                return bytes([sak]) + iso_crc_a(bytes([sak]))
        elif self.state == "active" and frame == HLTA_FRAME:
            self.state = "halt"
            return None
        if self.state in ("ready", "active"):  # ISO 14443-3 figure 6: any other frame
            self.state = "halt" if self.woken_from_halt else "idle"
        return None


class ResetPin(MockPin):
    """A MockPin wired to a fake chip's NRSTPD input: the chip follows every level change at once. With
    the module's pull-up, the line reads high whenever it is an input without a pull of its own (before
    a driver claims it, and once released); without, such a line keeps its last level."""

    def __init__(self, factory, info, chip: "FakeRc522", pull_up: bool = False):
        self.chip = chip
        self.pull_up = pull_up
        super().__init__(factory, info)
        if pull_up:
            self._state = True
            self.clear_states()

    def _set_function(self, value):
        super()._set_function(value)
        if value == "input" and self.pull_up and self._pull == "floating":
            self.drive_high()

    def _change_state(self, value):
        changed = super()._change_state(value)
        if changed:
            self.chip.reset_line(value)
        return changed


class FakeRc522:
    """The chip. `place(card)` / `lift()` change what is in its field; `transactions` counts SPI transfers."""

    def __init__(self, clock: Callable[[], float], version: int = 0x92, *, strict: bool = True, miss: float = 0.02,
                 garble: float = 0.01, noise: float = 0.005, seed: int = 0):
        self.clock = clock
        self.version = version
        self.strict = strict
        self.miss = miss if strict else 0.0
        self.garble = garble if strict else 0.0
        self.noise = noise if strict else 0.0
        #: what happens to the answers of the frames to come, by how many frames from now (see disturb)
        self._disturbed: dict[int, str] = {}
        self.random = random.Random(seed)
        self.cards: list[FakeCard] = []
        self.transactions = 0
        #: when a list: every transfer as (time, bytes sent), to check the order of register writes
        self.trace: list[tuple[float, list[int]]] | None = None
        #: the next this many transfers raise OSError (EIO), as a disturbed bus would
        self.spi_errors = 0
        #: strict: every rule of the datasheet or ISO 14443-3 that the driver broke, with its time
        self.violations: list[str] = []
        #: what MISO reads while the chip does not drive it (held in reset, unplugged, starting)
        self.floating = 0x00
        self.plugged = True
        self.in_reset = False
        self.hot = False
        self.stalled = False
        self._power_on()

    # -- the field -------------------------------------------------------------------------------
    def place(self, card: FakeCard, at: float | None = None) -> FakeCard:
        """`card` enters the field (at the clock's time, or at `at`)."""
        self.cards.append(card)
        card.power(self.field, self.clock() if at is None else at)
        return card

    def lift(self, card: FakeCard | None = None) -> None:
        for gone in [card] if card else list(self.cards):
            gone.power(False)
            self.cards.remove(gone)

    @property
    def field(self) -> bool:
        """The antenna drivers radiate: TX1 or TX2 on, the chip running, no temperature error."""
        return bool(self.regs[TX_CONTROL] & 0x03) and self._running() and not self.regs[ERROR] & TEMP_ERR

    @property
    def gain_db(self) -> int:
        return RX_GAIN_DB[self.regs[RF_CFG] >> 4 & 0x07]

    @property
    def power(self) -> str:
        """"unplugged", "hard power-down" (NRSTPD low), "soft power-down" (CommandReg PowerDown) or "running"."""
        if not self.plugged:
            return "unplugged"
        if self.in_reset:
            return "hard power-down"
        return "soft power-down" if self.regs[COMMAND] & POWER_DOWN else "running"

    def disturb(self, how: str = "broken", frame: int = 0) -> None:
        """What happens to the answer to the `frame`-th frame from now (0: the next one sent): "broken", it
        breaks off after its 5th bit (a card at the edge of the field; in an empty field, noise taken for
        an answer): the timer stops, and neither RxIRq nor TimerIRq follows; "parity", it arrives with a
        parity error (a bit flipped)."""
        if how not in ("broken", "parity"):
            raise ValueError(f"disturb: {how!r} is not 'broken' or 'parity'")
        self._disturbed[frame] = how

    # -- power -----------------------------------------------------------------------------------
    def wire_reset(self, factory, gpio: int, pull_up: bool = False) -> None:
        """Connect NRSTPD to `gpio` of a gpiozero MockFactory (before a driver claims the pin). `pull_up`: the
        module pulls the line up, so an undriven line reads high; else it floats, and stays where it was
        last driven (at first low: held in power-down)."""
        pin = factory.pin(gpio, pin_class=ResetPin, chip=self, pull_up=pull_up)
        self.in_reset = not pin.state

    def reset_line(self, high: bool) -> None:
        """NRSTPD changed: low is hard power-down; the rising edge is a hard reset."""
        self.in_reset = not high
        self._set_field_off()
        if high:
            self._power_on()

    def brown_out(self) -> None:
        """The supply dipped: every register back to its reset value, the field off."""
        self._set_field_off()
        self._power_on()

    def overheat(self) -> None:
        """The temperature sensor trips (above 125 °C): ErrorReg's TempErr is set and the antenna drivers
        are switched off, until the error is cleared (TempSensClear once cool, or a reset)."""
        was_on = self.field
        self.hot = True
        self.regs[ERROR] |= TEMP_ERR
        self.regs[COM_IRQ] |= ERR_IRQ
        self._field_changed(was_on)

    def cool_down(self) -> None:
        """Back below the alarm limit; TempErr stays set until it is cleared."""
        self.hot = False

    def stall(self) -> None:
        """The oscillator stops (a glitch on the supply): the registers keep their values and SPI works, but
        no frame goes out, no answer comes and the timer stands still, until a reset restarts it."""
        self.stalled = True

    def unplug(self) -> None:
        self._set_field_off()
        self.plugged = False

    def plug(self) -> None:
        self.plugged = True
        self._power_on()

    def _power_on(self) -> None:
        self.stalled = False
        self._reset_registers()
        self.ready_at = self.clock() + (STARTUP_S if self.strict else 0.0)

    def _running(self) -> bool:
        return self.plugged and not self.in_reset and not self.regs[COMMAND] & POWER_DOWN

    def _clocked(self) -> bool:
        """The oscillator runs: the timer counts and frames go on air."""
        return self._running() and not self.stalled

    def _set_field_off(self) -> None:
        for card in self.cards:
            card.power(False)

    def _field_changed(self, was_on: bool) -> None:
        """The cards follow the field; a frame held back by TxWaitRF goes out once the field is on."""
        if self.field == was_on:
            return
        now = self.clock()
        for card in self.cards:
            card.power(self.field, now)
        if self.field and self.tx_waiting is not None:
            expect_answer, self.tx_waiting = self.tx_waiting, None
            self._send(expect_answer)

    # -- SPI -------------------------------------------------------------------------------------
    def transfer(self, data: list[int]) -> list[int]:
        self.transactions += 1
        if self.trace is not None:
            self.trace.append((self.clock(), list(data)))
        if self.spi_errors:
            self.spi_errors -= 1
            raise OSError(errno.EIO, "Input/output error")
        now = self.clock()
        if not self.plugged or self.in_reset or now < self.ready_at:
            return [self.floating] * len(data)
        self._advance(now)
        if data[0] & 0x80:
            return [0] + [self._read((byte >> 1) & 0x3F) for byte in data[:-1]]
        if now < self.woken_at:
            return [0] * len(data)  # not ready (PowerDown reads 1): the write is lost
        register = (data[0] >> 1) & 0x3F
        for value in data[1:]:
            self._write(register, value)
        return [0] * len(data)

    # -- registers -------------------------------------------------------------------------------
    def _reset_registers(self) -> None:
        was_on = getattr(self, "regs", None) is not None and self.field
        self.regs = dict.fromkeys(range(0x40), 0) | RESET_VALUES
        if self.hot:
            self.regs[ERROR] = TEMP_ERR  # the sensor still trips
        self.fifo: deque[int] = deque()
        self.pending: dict | None = None
        self.timer_end: float | None = None  # when the running timer sets TimerIRq (None: stopped)
        self.tx_waiting: bool | None = None  # a frame held back by TxWaitRF (True: a Transceive)
        self.crc_preset: int | None = None
        self.woken_at = 0.0
        self.answer_end = float("-inf")  # when the last answer a card sent ended
        self.halt_until = float("-inf")  # the end of the 1 ms after an HLTA frame
        if was_on:
            self._set_field_off()

    def _read(self, register: int) -> int:
        regs = self.regs
        if register == COMMAND:
            waking = self.clock() < self.woken_at
            return regs[COMMAND] | (POWER_DOWN if waking else 0)
        if register == FIFO_DATA:
            return self.fifo.popleft() if self.fifo else 0
        if register == FIFO_LEVEL:
            return len(self.fifo)
        if register == VERSION:
            return self.version
        return regs[register]

    def _write(self, register: int, value: int) -> None:
        regs = self.regs
        if register == COMMAND:
            self._command(value)
        elif register in (COM_IRQ, DIV_IRQ):
            bits = value & 0x7F
            regs[register] = regs[register] | bits if value & 0x80 else regs[register] & ~bits & 0x7F
        elif register == FIFO_DATA:
            if self._receiving():
                regs[ERROR] |= WR_ERR
                self._flag("the FIFO written between a frame's last bit out and its answer's last bit in (WrErr)")
            if len(self.fifo) < FIFO_SIZE:
                self.fifo.append(value)
                if self.crc_preset is not None:
                    self._calc_crc()
            else:
                regs[ERROR] |= BUFFER_OVFL
        elif register == FIFO_LEVEL:
            if value & 0x80:
                self.fifo.clear()
                regs[ERROR] &= ~BUFFER_OVFL
        elif register == COLL:
            regs[COLL] = regs[COLL] & 0x7F | value & VALUES_AFTER_COLL
        elif register == TX_CONTROL:
            was_on = self.field
            regs[TX_CONTROL] = value
            self._field_changed(was_on)
        elif register == STATUS2:
            regs[STATUS2] = regs[STATUS2] & ~MF_CRYPTO1_ON | value & MF_CRYPTO1_ON
            if value & TEMP_SENS_CLEAR and not self.hot:
                was_on = self.field
                regs[ERROR] &= ~TEMP_ERR
                self._field_changed(was_on)
        elif register == CONTROL:  # only TStopNow and TStartNow can be written; they read 0
            if value & T_STOP_NOW:
                self.timer_end = None
            elif value & T_START_NOW:
                self.timer_end = self.clock() + self._timer_period()
        elif register in (ERROR, STATUS1, VERSION, CRC_RESULT_H, CRC_RESULT_L):
            return  # read-only
        else:
            regs[register] = value
            if register == BIT_FRAMING and value & START_SEND:
                self._start_send()

    def _command(self, value: int) -> None:
        command = value & 0x0F
        was_running, was_on = self._running(), self.field
        now = self.clock()
        if now < self.halt_until:
            self._flag(f"command 0x{value:02X} {(now - self.halt_until + HALT_WAIT) * 1e6:.0f} µs after HLTA: "
                       "ISO/IEC 14443-3 6.4.3 leaves the PICC 1 ms to answer it (an answer is a NAK)")
            self.halt_until = float("-inf")
        pending = self.pending
        if pending is not None and pending["answer"] is not None and now >= pending["tx_end"]:
            self.answer_end = pending["rx_end"]  # the card answers to the end, whatever the reader does
        if command == SOFT_RESET:
            starting = STARTUP_S if not was_running else ADDRESSABLE_S  # from soft power-down: the oscillator too
            self._reset_registers()
            self.woken_at = now + (starting if self.strict else 0.0)  # PowerDown reads 1 until it is done
            return
        self.pending = None
        self.tx_waiting = None
        self.crc_preset = None
        self.regs[ERROR] &= TEMP_ERR  # "command execution clears all error bits except the TempErr bit"
        if command not in KNOWN_COMMANDS:
            value, command = value & 0xF0, IDLE
            self.regs[COM_IRQ] |= IDLE_IRQ
        self.regs[COMMAND] = value & 0x30 | command
        if self._running() and not was_running:
            self.woken_at = now + (WAKE_S if self.strict else 0.0)
        self._field_changed(was_on)
        if command == TRANSMIT:
            self._send(expect_answer=False)
        elif command == TRANSCEIVE and self.strict and self.regs[BIT_FRAMING] & START_SEND:
            self._send(expect_answer=True)  # the bit was still set: the FIFO goes out at once
        elif command == CALC_CRC:
            self.crc_preset = (0x0000, 0x6363, 0xA671, 0xFFFF)[self.regs[MODE] & 0x03]
            self.crc_data = bytearray()
            self._calc_crc()

    def _flag(self, text: str) -> None:
        """A rule the driver broke (strict mode): kept in `violations` for the tests to see."""
        if self.strict:
            self.violations.append(f"{self.clock():.6f}: {text}")

    def _calc_crc(self) -> None:
        """CalcCRC: the FIFO's bytes (and every byte written while it runs) feed the coprocessor."""
        self.crc_data += bytes(self.fifo)
        self.fifo.clear()
        crc = iso_crc_a(bytes(self.crc_data), self.crc_preset)
        self.regs[CRC_RESULT_L], self.regs[CRC_RESULT_H] = crc[0], crc[1]
        self.regs[DIV_IRQ] |= CRC_IRQ

    # -- the air ---------------------------------------------------------------------------------
    def _start_send(self) -> None:
        """StartSend written 1: a Transceive that is not busy sends the FIFO."""
        if self.regs[COMMAND] & 0x0F == TRANSCEIVE and self.pending is None:
            self._send(expect_answer=True)

    def _send(self, expect_answer: bool) -> None:
        regs = self.regs
        if self.stalled:
            return  # no clock: nothing goes on air
        if self.strict and regs[MODE] & TX_WAIT_RF and not self.field:
            self.tx_waiting = expect_answer  # ModemState TxWait: no frame, no TxIRq, no timer
            return
        frame = bytes(self.fifo)
        self.fifo.clear()
        last_bits = regs[BIT_FRAMING] & 0x07
        if regs[TX_MODE] & CRC_EN:
            frame += iso_crc_a(frame)
        regs[ERROR] &= TEMP_ERR  # a command clears every error bit but TempErr
        regs[COLL] = regs[COLL] & VALUES_AFTER_COLL | COLL_POS_NOT_VALID
        regs[CONTROL] = 0x10
        now = self.clock()
        if now - self.answer_end < FDT_PCD:
            self._flag(f"a frame {(now - self.answer_end) * 1e6:.0f} µs after the card's answer: ISO/IEC 14443-3 "
                       "needs at least 1172/fc (86 µs)")
        short = len(frame) == 1 and last_bits == 7
        tx_end = now + ((9 if short else len(frame) * 9 + 2) * BIT)
        if frame == HLTA_FRAME:
            self.halt_until = tx_end + HALT_WAIT
        disturbed = self._disturbance()
        self.pending = {"tx_end": tx_end, "transceive": expect_answer, "answer": None, "garbled": disturbed == "parity"}
        answers = [answer for answer in (self._deliver(card, frame, short, last_bits, now) for card in self.cards)
                   if answer is not None]
        timer_end: float | None = tx_end + self._timer_period()
        rx_start = tx_end + frame_delay(frame, short)
        if expect_answer and self._hears() and (answers or disturbed == "broken"):
            if disturbed != "broken":
                self.pending["answer"] = answers
                self.pending["rx_end"] = rx_start + (max(map(len, answers)) * 9 + 2) * BIT
            if rx_start + 5 * BIT < timer_end:
                timer_end = None  # TAuto: the 5th bit of the answer (start bit and 4 data bits) stops it
        if regs[T_MODE] & T_AUTO:
            self.pending["timer_end"] = timer_end  # from the end of the frame: until then the old one runs on

    def _disturbance(self) -> str | None:
        """What happens to the answer to the frame going out now: "broken", "parity" or None (see disturb)."""
        disturbed = self._disturbed.pop(0, None)
        self._disturbed = {frame - 1: how for frame, how in self._disturbed.items()}
        if disturbed is None and self.noise and self.random.random() < self.noise:
            return "broken"
        return disturbed

    def _timer_period(self) -> float:
        """The timer's time-out: TReload + 1 ticks of 13.56 MHz / (2 TPrescaler + 1) (TPrescalEven = 0)."""
        regs = self.regs
        prescaler = (regs[T_MODE] & 0x0F) << 8 | regs[T_PRESCALER]
        reload = regs[T_RELOAD_H] << 8 | regs[T_RELOAD_L]
        return (2 * prescaler + 1) * (reload + 1) / 13.56e6

    def _deliver(self, card: FakeCard, frame: bytes, short: bool, last_bits: int, now: float) -> bytes | None:
        """What `card` answers to `frame`, if the frame reaches it as an ISO 14443A frame at all."""
        regs = self.regs
        if not self.field or regs[TX_MODE] & SPEED or regs[STATUS2] & MF_CRYPTO1_ON:
            return None
        if self.strict and (now - card.powered_at < GUARD_S or not regs[TX_ASK] & FORCE_100_ASK):
            return None
        if self.miss and self.random.random() < self.miss:
            return None
        # a bit-oriented frame (TxLastBits on a longer frame) is not modelled: noise to every card
        answer = card.receive(None if last_bits and not short else frame, short)
        if answer is not None and self.gain_db < card.min_gain_db:
            return None  # the card answered, too weakly for this receiver gain
        return answer

    def _receiving(self) -> bool:
        """A Transceive's frame is out and its answer may still come (ErrorReg WrErr's window)."""
        pending = self.pending
        return pending is not None and pending["transceive"] and "tx_done" in pending

    def _hears(self) -> bool:
        regs = self.regs
        return not regs[COMMAND] & RCV_OFF and not regs[RX_MODE] & SPEED

    def _advance(self, now: float) -> None:
        """What happened by `now`: the frame in flight sent and answered, the timer run out."""
        if self.stalled:
            return
        if self.pending is not None:
            self._frame(now)
        if self.timer_end is not None and now >= self.timer_end:
            self.regs[COM_IRQ] |= TIMER_IRQ  # TAutoRestart is never set here: the timer stops at 0
            self.timer_end = None
            if self._receiving() and self.pending["answer"] is None:
                self.pending = None  # a Transceive nobody answered: nothing more comes

    def _frame(self, now: float) -> None:
        """The frame in flight at `now`: sent, then answered."""
        pending, regs = self.pending, self.regs
        if now < pending["tx_end"]:
            return
        if "tx_done" not in pending:
            pending["tx_done"] = True
            regs[COM_IRQ] |= TX_IRQ
            if self.timer_end is not None and self.timer_end <= pending["tx_end"]:
                regs[COM_IRQ] |= TIMER_IRQ  # the timer still running from before ran out first
                self.timer_end = None
            if "timer_end" in pending:
                self.timer_end = pending["timer_end"]  # TAuto (re)starts it as the frame ends
            if not self.strict:
                regs[BIT_FRAMING] &= ~START_SEND  # lenient: the bit clears itself
        if not pending["transceive"]:
            regs[COM_IRQ] |= IDLE_IRQ
            regs[COMMAND] &= 0xF0
            self.pending = None
        elif pending["answer"] is not None and now >= pending["rx_end"]:
            self.answer_end = pending["rx_end"]
            self._receive(pending["answer"], pending["garbled"])
            self.pending = None

    def _receive(self, answers: list[bytes], garbled: bool) -> None:
        """The answers reach the FIFO: combined bit by bit when several cards answered at once."""
        regs = self.regs
        data, position = _combine(answers)
        if position and not regs[COLL] & VALUES_AFTER_COLL:
            data = _clear_after(data, position)
        error = COLL_ERR if position else 0
        if garbled or self.garble and self.random.random() < self.garble:
            data = bytes([data[0] ^ 0x10]) + data[1:]
            error |= PARITY_ERR
        if regs[RX_MODE] & CRC_EN and (len(data) < 3 or iso_crc_a(data[:-2]) != data[-2:]):
            error |= CRC_ERR
        for byte in data:
            if len(self.fifo) < FIFO_SIZE:
                self.fifo.append(byte)
            else:
                error |= BUFFER_OVFL
        regs[ERROR] = regs[ERROR] & TEMP_ERR | error
        regs[COM_IRQ] |= RX_IRQ | (ERR_IRQ if error else 0)
        if position:
            regs[COLL] = regs[COLL] & VALUES_AFTER_COLL | (position % 32 if position <= 32 else COLL_POS_NOT_VALID)


def _combine(answers: list[bytes]) -> tuple[bytes, int]:
    """What the reader hears when cards answer at once: the OR of the bits, and the 1-based position
    of the first bit on which they differ (0 if they all agree)."""
    width = max(map(len, answers))
    padded = [answer.ljust(width, b"\x00") for answer in answers]
    heard = bytes(_fold(values, int.__or__, 0) for values in zip(*padded))
    for index, values in enumerate(zip(*padded)):
        differing = _fold(values, int.__or__, 0) ^ _fold(values, int.__and__, 0xFF)
        if differing:
            return heard, index * 8 + (differing & -differing).bit_length()
    return heard, 0


def _fold(values, operation, start: int) -> int:
    for value in values:
        start = operation(start, value)
    return start


def _clear_after(data: bytes, position: int) -> bytes:
    """ValuesAfterColl = 0: every bit received after the first collision reads 0."""
    bits = int.from_bytes(data, "little")
    return (bits & ((1 << position) - 1)).to_bytes(len(data), "little")


# -- the fake spidev module -----------------------------------------------------------------------

class WallClock:
    """The real monotonic clock, for a fake chip driven in real time (a `tablemate run` child)."""

    __call__ = staticmethod(time.monotonic)

    def advance(self, seconds: float) -> None:
        """Real time passes by itself."""


class FakeBus:
    """The SPI devices of a fake machine: chips by (bus, device), and the shared clock."""

    def __init__(self, clock, transaction_cost: float = 30e-6):
        self.clock = clock
        self.clock_advances = not isinstance(clock, WallClock)  # a fake clock takes each transfer's time
        self.transaction_cost = transaction_cost
        self.chips: dict[tuple[int, int], FakeRc522] = {}
        self.opened: list["FakeSpiDev"] = []
        #: (bus, device) -> the errno that opening it raises (EACCES: the user lacks the group)
        self.refuse: dict[tuple[int, int], int] = {}
        #: every open, as (time, bus, device)
        self.attempts: list[tuple[float, int, int]] = []

    def add_chip(self, bus: int, device: int, **kwargs) -> FakeRc522:
        kwargs.setdefault("seed", bus * 8 + device)
        chip = self.chips[bus, device] = FakeRc522(self.clock, **kwargs)
        return chip

    def connect(self, bus: int, device: int, speed_hz: int = 1_000_000) -> "FakeSpiDev":
        """An open spidev handle on (bus, device), as a driver would get it."""
        spi = self.module().SpiDev()
        spi.open(bus, device)
        spi.max_speed_hz = speed_hz
        return spi

    def module(self) -> types.ModuleType:
        """A module to put in sys.modules["spidev"]."""
        module = types.ModuleType("spidev")
        fake_bus = self

        class SpiDev(FakeSpiDev):
            bus_model = fake_bus

        module.SpiDev = SpiDev
        return module


class FakeSpiDev:
    """Enough of spidev.SpiDev: open, mode, max_speed_hz, xfer/xfer2, close."""

    bus_model: FakeBus

    def __init__(self):
        self.mode = 0
        self.max_speed_hz = 125_000_000
        self.chip: FakeRc522 | None = None
        self.closed = False

    def open(self, bus: int, device: int) -> None:
        path = f"/dev/spidev{bus}.{device}"
        self.bus_model.attempts.append((self.bus_model.clock(), bus, device))
        if (bus, device) in self.bus_model.refuse:
            code = self.bus_model.refuse[bus, device]
            raise OSError(code, {errno.EACCES: "Permission denied"}.get(code, "error"), path)
        chip = self.bus_model.chips.get((bus, device))
        if chip is None:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", path)
        self.chip = chip
        self.bus_model.opened.append(self)

    def xfer2(self, data: list[int]) -> list[int]:
        assert self.chip is not None and not self.closed, "transfer on a closed spidev handle"
        bus = self.bus_model
        if bus.clock_advances:
            bus.clock.advance(bus.transaction_cost + len(data) * 8 / self.max_speed_hz)
        return self.chip.transfer(data)

    xfer = xfer2

    def close(self) -> None:
        self.closed = True


# -- the stock mfrc522 package, for comparison ----------------------------------------------------

class FakeGpio(types.ModuleType):
    """The part of RPi.GPIO that mfrc522 uses; records calls to the global cleanup()."""

    BCM, BOARD, OUT, IN, HIGH, LOW = 11, 10, 0, 1, 1, 0

    def __init__(self):
        super().__init__("RPi.GPIO")
        self.mode = None
        self.cleanups = 0
        self.outputs: dict[int, int] = {}

    def getmode(self):
        return self.mode

    def setmode(self, mode):
        self.mode = mode

    def setup(self, pin, direction):
        self.outputs.setdefault(pin, 0)

    def output(self, pin, value):
        self.outputs[pin] = value

    def cleanup(self, *pins):
        self.cleanups += 1


@contextlib.contextmanager
def stock_mfrc522(bus: FakeBus) -> Iterator[tuple[types.ModuleType, FakeGpio]]:
    """Import the stock mfrc522 package against the fake spidev and a fake RPi.GPIO.

    Raises ModuleNotFoundError if the package is not installed (`pip install --no-deps mfrc522==0.0.7`).
    """
    names = ("spidev", "RPi", "RPi.GPIO")
    saved = {name: sys.modules.get(name) for name in names}
    gpio = FakeGpio()
    package = types.ModuleType("RPi")
    package.GPIO = gpio
    sys.modules.update({"spidev": bus.module(), "RPi": package, "RPi.GPIO": gpio})
    try:
        import mfrc522

        yield mfrc522, gpio
    finally:
        for name in [n for n in sys.modules if n == "mfrc522" or n.startswith("mfrc522.")]:
            del sys.modules[name]
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
