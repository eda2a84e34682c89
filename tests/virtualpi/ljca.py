"""The header's GPIO lines as a real kernel GPIO chip (/dev/gpiochipN, the GPIO character device that
lgpio opens), whose pins are modelled here: an Intel La Jolla Cove Adapter (a USB GPIO/I2C/SPI
bridge, driven by Debian's usb-ljca and gpio-ljca modules) emulated as a USB gadget on the kernel's
dummy_hcd, through FunctionFS.

Why not gpio-sim: Debian's trixie kernels (amd64 and arm64) are built without CONFIG_GPIO_SIM and
CONFIG_GPIO_MOCKUP; they have dummy_hcd, libcomposite, usb_f_fs and gpio-ljca. So the kernel's own
gpiolib, its line requests, bias flags, edge events and software debounce serve lgpio exactly as on
a Pi; only the adapter's firmware is this module (the protocol of drivers/usb/misc/usb-ljca.c and
drivers/gpio/gpio-ljca.c). It reports no I2C or SPI controller (those are CUSE devices, see
spidev.py and i2cdev.py: the LJCA's I2C adapter splits messages at 60 bytes, which the Pi's does not).

A line's level: an output drives it; an input reads what is wired to it (`wire(line, level)`: a
button pressed to ground is 0) or else its pull (the pull-up a button relies on reads 1).
"""

import logging
import os
import struct
import threading
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger(__name__)

VENDOR, PRODUCT = 0x8086, 0x0B63
GADGET = Path("/sys/kernel/config/usb_gadget/virtualpi")
FFS = Path("/dev/ffs-virtualpi")
LINES = 32  # one bank: GPIO0-27 of the header and four more, like the Pi's bank 0

# usb-ljca.c
ACK, RESP, CMPL = 1, 2, 4
MNG, GPIO = 1, 3
MNG_RESET, MNG_ENUM_GPIO, MNG_ENUM_I2C, MNG_ENUM_SPI = 2, 4, 5, 8
# gpio-ljca.c
GPIO_CONFIG, GPIO_READ, GPIO_WRITE, GPIO_INT_EVENT, GPIO_INT_MASK, GPIO_INT_UNMASK = 1, 2, 3, 4, 5, 6
CONF_INPUT, CONF_OUTPUT, CONF_PULLUP, CONF_PULLDOWN, CONF_INTERRUPT, CONF_EDGE = 2, 4, 8, 16, 64, 128

# FunctionFS (include/uapi/linux/usb/functionfs.h)
DESCRIPTORS_MAGIC_V2, STRINGS_MAGIC = 3, 2
HAS_FS_DESC, HAS_HS_DESC = 1, 2
EVENT = struct.Struct("<8sB3x")
EVENT_ENABLE, EVENT_DISABLE, EVENT_SETUP = 2, 3, 4


def _descriptors() -> bytes:
    """One vendor interface with a bulk IN and a bulk OUT endpoint, at full and high speed."""
    def interface() -> bytes:
        return bytes([9, 4, 0, 0, 2, 0xFF, 0, 0, 1])

    def endpoint(address: int, packet: int) -> bytes:
        return bytes([7, 5, address, 2]) + struct.pack("<H", packet) + bytes([0])

    full = interface() + endpoint(0x81, 64) + endpoint(0x02, 64)
    high = interface() + endpoint(0x81, 512) + endpoint(0x02, 512)
    body = struct.pack("<II", 3, 3) + full + high
    return struct.pack("<III", DESCRIPTORS_MAGIC_V2, 12 + len(body), HAS_FS_DESC | HAS_HS_DESC) + body


def _strings() -> bytes:
    body = struct.pack("<H", 0x0409) + b"virtual Pi header\0"
    return struct.pack("<IIII", STRINGS_MAGIC, 16 + len(body), 1, 1) + body


class Line:
    """One pin: how the adapter configured it, what it drives, what is wired to it."""

    def __init__(self):
        self.config = CONF_INPUT
        self.driven = 0
        self.wired: int | None = None
        self.masked = True

    @property
    def level(self) -> int:
        if self.config & CONF_OUTPUT:
            return self.driven
        if self.wired is not None:
            return self.wired
        return 0 if self.config & CONF_PULLDOWN else 1


class Header:
    """The adapter's firmware: answers the driver's messages from the OUT endpoint on the IN endpoint,
    and sends an interrupt event when a wired input changes on a line whose interrupt is unmasked.
    `on_output(line, level)` is called when an output's level changes (a reader's reset line)."""

    def __init__(self, on_output: Callable[[int, int], None] = lambda line, level: None):
        self.lines = [Line() for _ in range(LINES)]
        self.on_output = on_output
        self.lock = threading.Lock()
        self.send_lock = threading.Lock()
        self.enabled = threading.Event()
        self.ep_in = self.ep_out = -1

    # -- what the test does ----------------------------------------------------------------------
    def wire(self, number: int, level: int | None) -> None:
        """Drive input `number` from outside (None: nothing connected, the pull decides)."""
        with self.lock:
            line = self.lines[number]
            before = line.level
            line.wired = level
            changed = line.level != before
            fire = changed and line.config & CONF_INTERRUPT and not line.masked and self._edge_wanted(line)
            if fire:
                line.masked = True  # the firmware masks it until the driver's INT_UNMASK
        if fire:
            self._send(GPIO, GPIO_INT_EVENT, bytes([1, number, 0]), CMPL)

    def level(self, number: int) -> int:
        with self.lock:
            return self.lines[number].level

    @staticmethod
    def _edge_wanted(line: Line) -> bool:
        if not line.config & CONF_EDGE:
            return True  # both edges (gpio-ljca sends no edge flag for IRQ_TYPE_EDGE_BOTH)
        rising = line.level == 1
        return rising if line.config & CONF_PULLUP else not rising

    # -- the gadget ------------------------------------------------------------------------------
    def start(self) -> None:
        """Make the USB gadget, plug it into dummy_hcd's port and serve it from threads."""
        for module in ("dummy_hcd", "libcomposite", "usb_f_fs", "usb_ljca", "gpio_ljca"):
            os.system(f"modprobe {module}")
        if not GADGET.exists():
            GADGET.mkdir()
            (GADGET / "idVendor").write_text(f"0x{VENDOR:04x}")
            (GADGET / "idProduct").write_text(f"0x{PRODUCT:04x}")
            strings = GADGET / "strings" / "0x409"
            strings.mkdir()
            (strings / "product").write_text("virtual Pi header (LJCA protocol)")
            config = GADGET / "configs" / "c.1"
            config.mkdir()
            (GADGET / "functions" / "ffs.virtualpi").mkdir()
            (config / "ffs.virtualpi").symlink_to(GADGET / "functions" / "ffs.virtualpi")
        FFS.mkdir(exist_ok=True)
        if not os.path.ismount(FFS):
            if os.system(f"mount -t functionfs virtualpi {FFS}"):
                raise RuntimeError(f"cannot mount functionfs on {FFS}")
        ep0 = os.open(FFS / "ep0", os.O_RDWR)
        os.write(ep0, _descriptors())
        os.write(ep0, _strings())
        threading.Thread(target=self._events, args=(ep0,), name="ljca ep0", daemon=True).start()
        (GADGET / "UDC").write_text(sorted(os.listdir("/sys/class/udc"))[0])

    def stop(self) -> None:
        (GADGET / "UDC").write_text("\n")

    def _events(self, ep0: int) -> None:
        while True:
            setup, kind = EVENT.unpack(os.read(ep0, EVENT.size))
            if kind == EVENT_ENABLE and not self.enabled.is_set():
                self.ep_in = os.open(FFS / "ep1", os.O_RDWR)
                self.ep_out = os.open(FFS / "ep2", os.O_RDWR)
                self.enabled.set()
                threading.Thread(target=self._serve, name="ljca bulk", daemon=True).start()
            elif kind == EVENT_SETUP:
                request_type = setup[0]
                if request_type & 0x80:
                    os.read(ep0, 0)  # stall: no control request is defined
                else:
                    os.write(ep0, b"")

    def _serve(self) -> None:
        while True:
            try:
                message = os.read(self.ep_out, 512)
            except OSError as error:
                log.info("LJCA gadget: OUT endpoint closed: %s", error)
                self.enabled.clear()
                return
            if len(message) < 4:
                continue
            kind, command, _flags, length = message[:4]
            answer = self._answer(kind, command, message[4:4 + length])
            if answer is not None:
                self._send(kind, command, answer, ACK | RESP | CMPL)

    def _answer(self, kind: int, command: int, data: bytes) -> bytes | None:
        if kind == MNG:
            if command == MNG_RESET:
                return data[:4]
            if command == MNG_ENUM_GPIO:
                return bytes([LINES, 1, 0, LINES]) + struct.pack("<I", (1 << LINES) - 1)
            if command in (MNG_ENUM_I2C, MNG_ENUM_SPI):
                return bytes([0])
            return b""
        if kind != GPIO or not data:
            return b""
        items = [(data[1 + 2 * i], data[2 + 2 * i]) for i in range(data[0])]
        changed: list[tuple[int, int]] = []
        with self.lock:
            if command == GPIO_READ:
                return bytes([len(items)]) + b"".join(bytes([n, self.lines[n].level]) for n, _ in items)
            for number, value in items:
                line = self.lines[number]
                before = line.level
                if command == GPIO_CONFIG:
                    line.config = value
                elif command == GPIO_WRITE:
                    line.driven = value & 1
                elif command in (GPIO_INT_MASK, GPIO_INT_UNMASK):
                    line.masked = command == GPIO_INT_MASK
                if line.config & CONF_OUTPUT and line.level != before:
                    changed.append((number, line.level))
        for number, level in changed:
            self.on_output(number, level)
        return b""

    def _send(self, kind: int, command: int, data: bytes, flags: int) -> None:
        if not self.enabled.is_set():
            return
        with self.send_lock:
            os.write(self.ep_in, bytes([kind, command, flags, len(data)]) + data)
