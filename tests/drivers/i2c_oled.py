"""The I2C wire under luma, counted byte by byte, and the OLED controllers' RAM rebuilt from it.

`CountingBus` stands in for smbus2's `SMBus` (the kernel's /dev/i2c-N) under luma's real `i2c`
interface, built as on the Pi (`luma_i2c`: "managed", so a data write is one `i2c_rdwr` message of
up to 4,096 bytes and a command is one SMBus block write). It records every transaction with the
bytes that cross the wire: the address byte, the control byte (0x00 commands, 0x40 data) and the
payload; each byte takes 9 clock cycles (8 bits and the acknowledge). It can be slow (a `hz` clock
rate it sleeps for) or fail (OSError 121, like a loose cable).

`Ssd1306` and `Sh1106` rebuild the controller's display RAM, contrast and power from those
transactions, command by command as their datasheets describe them (SSD1306 rev 1.1 section 8.1.5
and chapter 10; SH1106 V2.3 "Commands"). A command byte the datasheet does not define, or a write
outside the RAM, is noted in `errors` (a real chip would silently misbehave), and `matches()` is then
False, so a transfer that relies on a lenient fake fails here first.
"""

import errno
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from unittest import mock

from PIL import Image

ADDRESS = 0x3C
CONTROL_COMMANDS, CONTROL_DATA = 0x00, 0x40
#: a byte on the wire is 8 bits and an acknowledge
BITS_PER_BYTE = 9
WIDTH, HEIGHT, PAGES = 128, 64, 8


@dataclass(frozen=True)
class Transaction:
    """One START .. STOP on the wire: the address byte is `address`, then `payload` (control byte first)."""

    address: int
    payload: bytes
    at: float = 0.0

    @property
    def wire_bytes(self) -> int:
        return 1 + len(self.payload)

    @property
    def data(self) -> bool:
        return self.payload[0] & 0x40 == CONTROL_DATA


def bus_seconds(wire_bytes: int, hz: int) -> float:
    """The time `wire_bytes` take on an I2C bus clocked at `hz` (9 clock cycles a byte)."""
    return wire_bytes * BITS_PER_BYTE / hz


class CountingBus:
    """A fake smbus2.SMBus: records transactions. `failures` transactions from now raise OSError 121
    (Remote I/O error) instead of being sent; `slow_s` makes every data write take that long (a slow
    wire); `hold()` blocks every transaction until `release()` (a wire stuck for as long as a test
    needs); `answering`, when set, are the only addresses acknowledged (121 for the others, as the
    Pi's controllers answer a NACK)."""

    def __init__(self, *, clock: Callable[[], float] = time.perf_counter):
        self.clock = clock
        self.transactions: list[Transaction] = []
        self.failures = 0
        self.slow_s = 0.0
        self.listeners: list[Callable[[Transaction], None]] = []
        self.answering: set[int] | None = None
        self.waiting = threading.Event()  # set while a transaction waits for release()
        self._lock = threading.Lock()
        self._open = threading.Event()
        self._open.set()

    def hold(self) -> None:
        self._open.clear()

    def release(self) -> None:
        self._open.set()

    # -- the smbus2 calls luma makes -------------------------------------------------------------
    def write_i2c_block_data(self, address: int, register: int, data: list[int]) -> None:
        if len(data) > 32:  # smbus2 refuses it too: an SMBus block is at most 32 bytes
            raise ValueError("Data length cannot exceed 32 bytes")
        self._send(address, bytes([register, *data]))

    def i2c_rdwr(self, *messages) -> None:
        for message in messages:
            if message.flags:
                raise AssertionError("the panel is never read")
            self._send(message.addr, bytes(message))

    def write_quick(self, address: int) -> None:
        """The address alone, no data (i2cdetect's probe): it fails as a transaction does, and
        carries nothing to record."""
        self._fail_if_due()
        self._acknowledged(address)

    def close(self) -> None:
        """smbus2 closes the device file; nothing to release here."""

    def __enter__(self) -> "CountingBus":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _fail_if_due(self) -> None:
        if self.failures:
            self.failures -= 1
            raise OSError(errno.EREMOTEIO, "Remote I/O error")

    def _acknowledged(self, address: int) -> None:
        if self.answering is not None and address not in self.answering:
            raise OSError(errno.EREMOTEIO, "Remote I/O error")

    # -- counting --------------------------------------------------------------------------------
    def _send(self, address: int, payload: bytes) -> None:
        if not self._open.is_set():
            self.waiting.set()
            self._open.wait()
        self._fail_if_due()
        self._acknowledged(address)
        if self.slow_s and payload[0] & 0x40:
            time.sleep(self.slow_s)
        transaction = Transaction(address, payload, self.clock())
        with self._lock:
            self.transactions.append(transaction)
        for listener in self.listeners:
            listener(transaction)

    def mark(self) -> int:
        """A position in the record, for `since()`."""
        with self._lock:
            return len(self.transactions)

    def since(self, mark: int) -> list[Transaction]:
        with self._lock:
            return self.transactions[mark:]


@contextmanager
def wired(bus: CountingBus):
    """While inside, every I2C bus luma opens (`i2c(port=N)`, as the panel back end does on the Pi)
    is `bus`: luma's real interface frames the bytes exactly as there (its "managed" smbus2 mode: a
    data write is one i2c_rdwr message of up to 4 KB, a command one SMBus block write)."""
    with mock.patch("smbus2.SMBus", return_value=bus):
        yield bus


class PanelError(AssertionError):
    """The bytes sent would not do what was meant on the real controller."""


class _Controller:
    """What is common to both controllers: RAM pages of `columns` bytes, contrast, power."""

    columns = WIDTH
    #: the first RAM column wired to the panel's left edge
    visible_from = 0

    def __init__(self, address: int = ADDRESS):
        self.address = address
        self.ram = [bytearray(self.columns) for _ in range(PAGES)]
        self.on = False
        self.contrast = 0x80
        self.inverse = False
        self.entire_on = False
        self.page = 0
        self.column = 0
        self.undefined: list[int] = []
        self.errors: list[str] = []
        self._command: list[int] = []

    def take(self, transaction: Transaction) -> None:
        """`feed`, noting what the chip would not do as meant instead of raising into the sender."""
        try:
            self.feed(transaction)
        except PanelError as error:
            self.errors.append(str(error))

    def feed(self, transaction: Transaction) -> None:
        """Take one transaction off the wire (others' addresses are ignored, as the chip does).

        The I2C control-byte protocol (SSD1306 8.1.5.1, SH1106 "I2C-bus interface"): a control byte
        is Co D/C# 000000; Co = 0: every following byte of the transaction is of that kind (D/C# = 1:
        RAM data, 0: commands); Co = 1: one byte, then another control byte."""
        if transaction.address != self.address:
            return
        payload = list(transaction.payload)
        while payload:
            control = payload.pop(0)
            if control & 0x3F:
                raise PanelError(f"control byte 0x{control:02X}: its six low bits must be 0")
            single, is_data = bool(control & 0x80), bool(control & 0x40)
            chunk = payload[:1] if single else payload
            payload = payload[1:] if single else []
            for byte in chunk:
                if is_data:
                    self._write(byte)
                else:
                    self._command_byte(byte)

    def _command_byte(self, byte: int) -> None:
        self._command.append(byte)
        opcode = self._command[0]
        if len(self._command) > self.arguments(opcode):
            command, self._command = self._command, []
            self.execute(command[0], command[1:])

    def arguments(self, opcode: int) -> int:
        raise NotImplementedError

    def execute(self, opcode: int, args: list[int]) -> None:
        raise NotImplementedError

    def _write(self, byte: int) -> None:
        raise NotImplementedError

    def _common(self, opcode: int, args: list[int]) -> bool:
        """The commands both datasheets define alike; False when `opcode` is not one of them."""
        if opcode in (0xAE, 0xAF):
            self.on = opcode == 0xAF
        elif opcode == 0x81:
            self.contrast = args[0]
        elif opcode in (0xA6, 0xA7):
            self.inverse = opcode == 0xA7
        elif opcode in (0xA4, 0xA5):
            self.entire_on = opcode == 0xA5
        elif 0xB0 <= opcode <= 0xB7:
            self.page = opcode & 0x07
        elif opcode <= 0x0F:
            self.column = self.column & 0xF0 | opcode
        elif opcode <= 0x1F:
            self.column = (opcode & 0x0F) << 4 | self.column & 0x0F
        elif 0x40 <= opcode <= 0x7F or opcode in (0xA0, 0xA1, 0xC0, 0xC8, 0xA8, 0xD3, 0xD5, 0xD9, 0xDA, 0xDB, 0xE3):
            pass  # start line, remaps, multiplex, offset, timing, pins, VCOM, NOP: no effect on the RAM
        else:
            return False
        return True

    # -- what the panel shows ---------------------------------------------------------------------
    def image(self) -> Image.Image:
        """The 128x64 RAM window wired to the panel, as a mode "1" image (what it shows when lit):
        column x of page p holds rows 8p (bit 0) to 8p + 7 (bit 7)."""
        lit = [x + WIDTH * (page * 8 + bit)
               for page, row in enumerate(self.ram) for x in range(WIDTH)
               if (byte := row[self.visible_from + x]) for bit in range(8) if byte >> bit & 1]
        pixels = bytearray(WIDTH * HEIGHT)
        for index in lit:
            pixels[index] = 255
        return Image.frombytes("L", (WIDTH, HEIGHT), bytes(pixels)).convert("1", dither=Image.Dither.NONE)

    def matches(self, frame: Image.Image) -> bool:
        """The panel holds exactly `frame`, and nothing sent so far was an error."""
        return not self.errors and self.image().tobytes() == frame.convert("1").tobytes()


class Ssd1306(_Controller):
    """SSD1306: 128x64 RAM; page (reset default), horizontal or vertical addressing (20h); in the
    latter two the column and page windows (21h, 22h) bound the pointer, which wraps inside them."""

    ARGUMENTS = {0x20: 1, 0x21: 2, 0x22: 2, 0x26: 6, 0x27: 6, 0x29: 5, 0x2A: 5, 0x81: 1, 0x8D: 1, 0xA3: 2,
                 0xA8: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1}

    def __init__(self, address: int = ADDRESS):
        super().__init__(address)
        self.mode = 2
        self.window = (0, WIDTH - 1, 0, PAGES - 1)

    def arguments(self, opcode: int) -> int:
        return self.ARGUMENTS.get(opcode, 0)

    def execute(self, opcode: int, args: list[int]) -> None:
        if opcode == 0x20:
            if args[0] & 0x03 == 3:
                raise PanelError("20h 03h is an invalid addressing mode")
            self.mode = args[0] & 0x03
        elif opcode == 0x21:
            start, end = args[0] & 0x7F, args[1] & 0x7F
            self.window = (start, end, *self.window[2:])
            self.column = start
        elif opcode == 0x22:
            start, end = args[0] & 0x07, args[1] & 0x07
            self.window = (*self.window[:2], start, end)
            self.page = start
        elif opcode in (0x26, 0x27, 0x29, 0x2A, 0x2E, 0x2F, 0xA3, 0x8D):
            pass  # scrolling set-up and the charge pump: the RAM is unchanged
        elif not self._common(opcode, args):
            self.undefined.append(opcode)
            raise PanelError(f"SSD1306: command 0x{opcode:02X} is not in the datasheet")
        if 0xB0 <= opcode <= 0xB7 or opcode <= 0x1F:
            if self.mode != 2:
                raise PanelError(f"SSD1306: command 0x{opcode:02X} is for page addressing mode only")

    def _write(self, byte: int) -> None:
        c0, c1, p0, p1 = self.window
        if self.mode == 2 and (c0, c1) != (0, WIDTH - 1):
            # 10.1.3: in page mode the pointer is "reset to column start address" at the "column end
            # address", which 21h sets "only for horizontal or vertical addressing mode": whether a
            # narrower window left from those modes bounds it is not said, so nothing may rely on it
            raise PanelError(f"SSD1306: page-mode write with the column window {c0}..{c1} from 21h")
        self.ram[self.page][self.column] = byte
        if self.mode == 2:  # page mode: the column wraps on its page
            self.column = 0 if self.column >= WIDTH - 1 else self.column + 1
        elif self.mode == 0:  # horizontal: along the page, then the next page of the window
            if self.column >= c1:
                self.column = c0
                self.page = p0 if self.page >= p1 else self.page + 1
            else:
                self.column += 1
        else:  # vertical: down the pages, then the next column of the window
            if self.page >= p1:
                self.page = p0
                self.column = c0 if self.column >= c1 else self.column + 1
            else:
                self.page += 1


class Sh1106(_Controller):
    """SH1106: 132x64 RAM, page addressing only; a 128-column panel is wired from RAM column 2.
    The column pointer counts up to 131 and the page never changes by itself."""

    columns = 132
    visible_from = 2
    ARGUMENTS = {0x81: 1, 0xA8: 1, 0xAD: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1}
    #: commands of the SSD1306 that luma's sh1106 also sends at set-up; the SH1106 datasheet does
    #: not define them. They are noted in `undefined` (and the byte after 8Dh is then a command of
    #: its own); only the frame transfer is required to be free of them.
    TOLERATED = (0x20, 0x8D)

    def arguments(self, opcode: int) -> int:
        return self.ARGUMENTS.get(opcode, 0)

    def execute(self, opcode: int, args: list[int]) -> None:
        if 0x30 <= opcode <= 0x33 or opcode in (0xAD, 0xE0, 0xEE):
            return  # pump voltage, DC-DC, read-modify-write (never used here): the RAM is unchanged
        if self._common(opcode, args):
            return  # a column set nibble by nibble may pass through values past 131: only a write counts
        self.undefined.append(opcode)
        if opcode not in self.TOLERATED:
            raise PanelError(f"SH1106: command 0x{opcode:02X} is not in the datasheet")

    def _write(self, byte: int) -> None:
        if self.column >= self.columns:
            raise PanelError(f"SH1106: data written past column 131 on page {self.page}")
        self.ram[self.page][self.column] = byte
        self.column += 1


CONTROLLERS = {"ssd1306": Ssd1306, "sh1106": Sh1106}


def panel_on(bus: CountingBus, driver: str) -> _Controller:
    """A controller of kind `driver` that takes in everything `bus` carries from now on."""
    controller = CONTROLLERS[driver]()
    bus.listeners.append(controller.take)
    return controller
