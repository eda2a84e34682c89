"""A register-level fake RC522 behind a fake `spidev`, with ISO 14443A cards in its field.

It answers like the chip as far as reading UIDs goes, so both our back end and the stock `mfrc522`
package can be run against it and their SPI transactions counted:
- the SPI protocol: a transaction whose first byte has bit 7 set reads the registers named by each
  byte (the answer is shifted by one byte); otherwise every following byte is written to one register;
- registers: CommandReg (Idle, Transmit, Transceive, CalcCRC, SoftReset), ComIrqReg (Set1 semantics),
  DivIrqReg, ErrorReg, FIFO data/level, ControlReg (RxLastBits), BitFramingReg (StartSend,
  TxLastBits), CollReg, TxControlReg (antenna), the timer (TAuto, prescaler, reload), CRC results,
  VersionReg; a low reset line holds the chip powered down and resets it;
- time: every transaction costs `transaction_cost` seconds of the shared fake clock (spidev's ioctl on
  a Pi), frames take their on-air time at 106 kbit/s, and a frame nobody answers ends with the timer;
- cards follow the ISO 14443-3 states (IDLE, READY per cascade level, ACTIVE, HALT): REQA wakes idle
  cards only, WUPA halted ones too, an unexpected command sends a READY/ACTIVE card back to IDLE;
  4-, 7- and 10-byte UIDs (cascade levels); several different cards answering collide bit by bit.
Not modelled: MIFARE authentication and memory, partial (bit-oriented) anticollision frames.
"""

import contextlib
import sys
import types
from collections import deque
from collections.abc import Callable, Iterator

COMMAND, COM_IRQ, DIV_IRQ, ERROR, FIFO_DATA, FIFO_LEVEL, CONTROL, BIT_FRAMING, COLL = (
    0x01, 0x04, 0x05, 0x06, 0x09, 0x0A, 0x0C, 0x0D, 0x0E)
MODE, TX_CONTROL, T_MODE, T_PRESCALER, T_RELOAD_H, T_RELOAD_L = 0x11, 0x14, 0x2A, 0x2B, 0x2C, 0x2D
CRC_RESULT_M, CRC_RESULT_L, VERSION = 0x21, 0x22, 0x37
IDLE, CALC_CRC, TRANSMIT, TRANSCEIVE, SOFT_RESET = 0x00, 0x03, 0x04, 0x0C, 0x0F
TX_IRQ, RX_IRQ, IDLE_IRQ, ERR_IRQ, TIMER_IRQ = 0x40, 0x20, 0x10, 0x02, 0x01
COLL_ERR, BUFFER_OVFL = 0x08, 0x10
BIT = 1 / 105_937.5
FRAME_DELAY = 86e-6
RESET_VALUES = {COMMAND: 0x20, COM_IRQ: 0x14, MODE: 0x3F, TX_CONTROL: 0x80, CONTROL: 0x10}


def iso_crc_a(data: bytes) -> bytes:
    """CRC_A computed bit by bit (reflected polynomial 0x8408, preset 0x6363), low byte first."""
    crc = 0x6363
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x8408 if crc & 1 else crc >> 1
    return bytes([crc & 0xFF, crc >> 8])


def _bcc(part: bytes) -> int:
    return part[0] ^ part[1] ^ part[2] ^ part[3]


class FakeCard:
    """An ISO 14443A card (tag) with a 4-, 7- or 10-byte UID."""

    ATQA = {4: b"\x04\x00", 7: b"\x44\x00", 10: b"\x84\x00"}
    SELECT = (0x93, 0x95, 0x97)

    def __init__(self, uid: str, sak: int | None = None):
        self.uid = bytes.fromhex(uid)
        size = len(self.uid)
        if size not in self.ATQA:
            raise ValueError(f"a UID has 4, 7 or 10 bytes, not {size}")
        self.atqa = self.ATQA[size]
        self.sak = sak if sak is not None else (0x08 if size == 4 else 0x00)
        rest, self.levels = self.uid, []
        while len(rest) > 4:
            self.levels.append(b"\x88" + rest[:3])
            rest = rest[3:]
        self.levels.append(rest)
        self.state = "off"
        self.level = 0

    def power(self, on: bool) -> None:
        self.state = "idle" if on else "off"

    def receive(self, frame: bytes, short: bool) -> bytes | None:
        """Process one frame from the reader; returns the answer, or None for silence."""
        if self.state == "off":
            return None
        if short:
            command = frame[0] & 0x7F
            if (command == 0x26 and self.state == "idle") or (command == 0x52 and self.state in ("idle", "halt")):
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
        elif self.state == "active" and frame == b"\x50\x00" + iso_crc_a(b"\x50\x00"):
            self.state = "halt"
            return None
        if self.state in ("ready", "active"):
            self.state = "idle"
        return None


class FakeRc522:
    """The chip. `place(card)` / `lift()` change what is in its field; `transactions` counts SPI transfers."""

    def __init__(self, clock: Callable[[], float], version: int = 0x92):
        self.clock = clock
        self.version = version
        self.cards: list[FakeCard] = []
        self.reset_pin = None  # the gpiozero MockPin wired to NRSTPD; None: tied high
        self.transactions = 0
        self._seen_states = 0
        self._reset()

    # -- the field -------------------------------------------------------------------------------
    def place(self, card: FakeCard) -> FakeCard:
        self.cards.append(card)
        card.power(self.antenna)
        return card

    def lift(self, card: FakeCard | None = None) -> None:
        for gone in [card] if card else list(self.cards):
            gone.power(False)
            self.cards.remove(gone)

    @property
    def antenna(self) -> bool:
        return bool(self.regs[TX_CONTROL] & 0x03)

    # -- SPI -------------------------------------------------------------------------------------
    def transfer(self, data: list[int]) -> list[int]:
        self.transactions += 1
        if self._in_reset():
            return [0] * len(data)
        self._advance()
        if data[0] & 0x80:
            return [0] + [self._read((byte >> 1) & 0x3F) for byte in data[:-1]]
        register = (data[0] >> 1) & 0x3F
        for value in data[1:]:
            self._write(register, value)
        return [0] * len(data)

    def _in_reset(self) -> bool:
        """A low level on the reset line, now or since the last transfer, resets the chip."""
        pin = self.reset_pin
        if pin is None:
            return False
        if len(pin.states) < self._seen_states:
            self._seen_states = 0
        pulsed = any(not state.state for state in pin.states[self._seen_states:])
        self._seen_states = len(pin.states)
        if pulsed or not pin.state:
            self._reset()
        return not pin.state

    # -- registers -------------------------------------------------------------------------------
    def _reset(self) -> None:
        for card in self.cards:
            card.power(False)
        self.regs = dict.fromkeys(range(0x40), 0) | RESET_VALUES
        self.command = IDLE
        self.irq = RESET_VALUES[COM_IRQ]
        self.div_irq = 0
        self.error = 0
        self.coll = 0
        self.fifo: deque[int] = deque()
        self.crc = b"\x00\x00"
        self.pending: dict | None = None

    def _read(self, register: int) -> int:
        if register == COMMAND:
            return self.command
        if register == COM_IRQ:
            return self.irq
        if register == DIV_IRQ:
            return self.div_irq
        if register == ERROR:
            return self.error
        if register == FIFO_DATA:
            return self.fifo.popleft() if self.fifo else 0
        if register == FIFO_LEVEL:
            return len(self.fifo)
        if register == CONTROL:
            return 0x10
        if register == COLL:
            return self.coll
        if register == VERSION:
            return self.version
        if register == CRC_RESULT_L:
            return self.crc[0]
        if register == CRC_RESULT_M:
            return self.crc[1]
        return self.regs[register]

    def _write(self, register: int, value: int) -> None:
        if register == COMMAND:
            self._command(value & 0x0F)
        elif register == COM_IRQ:
            self.irq = self.irq | (value & 0x7F) if value & 0x80 else self.irq & ~value & 0x7F
        elif register == DIV_IRQ:
            self.div_irq = self.div_irq | (value & 0x7F) if value & 0x80 else self.div_irq & ~value & 0x7F
        elif register == FIFO_DATA:
            if len(self.fifo) < 64:
                self.fifo.append(value)
            else:
                self.error |= BUFFER_OVFL
        elif register == FIFO_LEVEL:
            if value & 0x80:
                self.fifo.clear()
                self.error &= ~BUFFER_OVFL
        elif register == TX_CONTROL:
            was_on = self.antenna
            self.regs[TX_CONTROL] = value
            if self.antenna != was_on:
                for card in self.cards:
                    card.power(self.antenna)
        else:
            self.regs[register] = value
            if register == BIT_FRAMING and value & 0x80 and self.command == TRANSCEIVE and self.pending is None:
                self._send(value & 0x07, expect_answer=True)

    def _command(self, command: int) -> None:
        self.pending = None
        if command == SOFT_RESET:
            self._reset()
            return
        self.command = command
        if command == TRANSMIT:
            self._send(self.regs[BIT_FRAMING] & 0x07, expect_answer=False)
        elif command == CALC_CRC:
            preset = (0x0000, 0x6363, 0xA671, 0xFFFF)[self.regs[MODE] & 0x03]
            assert preset == 0x6363, "the fake computes CRC_A with the ISO preset only"
            self.crc = iso_crc_a(bytes(self.fifo))
            self.fifo.clear()
            self.div_irq |= 0x04

    # -- the air ---------------------------------------------------------------------------------
    def _send(self, last_bits: int, expect_answer: bool) -> None:
        frame = bytes(self.fifo)
        self.fifo.clear()
        self.error = 0
        self.coll = 0
        short = len(frame) == 1 and last_bits == 7
        now = self.clock()
        tx_end = now + ((9 if short else len(frame) * 9 + 2) * BIT)
        answers = [a for a in (card.receive(frame, short) for card in self.cards) if a is not None] if self.antenna else []
        self.pending = {"tx_end": tx_end, "transceive": expect_answer, "answer": None, "collision": 0}
        if expect_answer and answers:
            self.pending["answer"], self.pending["collision"] = _combine(answers)
            self.pending["rx_end"] = tx_end + FRAME_DELAY + (len(answers[0]) * 9 + 2) * BIT
        elif expect_answer and self.regs[T_MODE] & 0x80:
            prescaler = (self.regs[T_MODE] & 0x0F) << 8 | self.regs[T_PRESCALER]
            reload = self.regs[T_RELOAD_H] << 8 | self.regs[T_RELOAD_L]
            self.pending["timer_end"] = tx_end + (2 * prescaler + 1) * (reload + 1) / 13.56e6

    def _advance(self) -> None:
        pending, now = self.pending, self.clock()
        if pending is None or now < pending["tx_end"]:
            return
        self.irq |= TX_IRQ
        if not pending["transceive"]:
            self.irq |= IDLE_IRQ
            self.command = IDLE
            self.pending = None
        elif pending["answer"] is not None and now >= pending["rx_end"]:
            self.fifo.extend(pending["answer"])
            self.irq |= RX_IRQ
            if pending["collision"]:
                self.error |= COLL_ERR
                self.coll = pending["collision"] if pending["collision"] < 32 else 0x20
                self.irq |= ERR_IRQ
            self.pending = None
        elif "timer_end" in pending and now >= pending["timer_end"]:
            self.irq |= TIMER_IRQ
            self.pending = None


def _combine(answers: list[bytes]) -> tuple[bytes, int]:
    """What the reader hears when several cards answer at once: the OR of the bits, and the 1-based
    position of the first bit on which they differ (0 if they all agree)."""
    heard = bytes(_or(values) for values in zip(*answers))
    for index, values in enumerate(zip(*answers)):
        differing = _or(values) ^ _and(values)
        if differing:
            return heard, index * 8 + (differing & -differing).bit_length()
    return heard, 0


def _or(values) -> int:
    result = 0
    for value in values:
        result |= value
    return result


def _and(values) -> int:
    result = 0xFF
    for value in values:
        result &= value
    return result


# -- the fake spidev module -----------------------------------------------------------------------

class FakeBus:
    """The SPI devices of a fake machine: chips by (bus, device), and the shared clock."""

    def __init__(self, clock, transaction_cost: float = 30e-6):
        self.clock = clock
        self.transaction_cost = transaction_cost
        self.chips: dict[tuple[int, int], FakeRc522] = {}
        self.opened: list["FakeSpiDev"] = []

    def add_chip(self, bus: int, device: int, **kwargs) -> FakeRc522:
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
        chip = self.bus_model.chips.get((bus, device))
        if chip is None:
            raise FileNotFoundError(2, "No such file or directory", f"/dev/spidev{bus}.{device}")
        self.chip = chip
        self.bus_model.opened.append(self)

    def xfer2(self, data: list[int]) -> list[int]:
        assert self.chip is not None and not self.closed, "transfer on a closed spidev handle"
        self.bus_model.clock.advance(self.bus_model.transaction_cost + len(data) * 8 / self.max_speed_hz)
        return self.chip.transfer(list(data))

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
