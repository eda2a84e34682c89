"""RFID readers: tag arrivals and removals as events, from real RC522s or from a mock.

    group = open_readers(profile.readers, events.put, timing=profile.reader_timing)
    group.start()                      # one thread polls every reader in turn
    ...                                # TagEvent(reader, uid, kind="arrived"|"removed"|"unreadable", seat)
    group.close()                      # stop, release each reader's own SPI device and reset pin

A card resting on a reader is one arrival; its removal is reported once the field has been empty
for `gap_ms` (see presence.py for the exact rule). UIDs are the real UID in lower-case hex: 8, 14 or
20 digits for 4-, 7- and 10-byte UIDs. A reader that fails (or comes back) is announced on the same
sink as a ReaderStatus, and retried while the others go on; `group.alive()` tells the watchdog
whether the polling thread still runs.

Back ends: `mfrc522` (RC522 over spidev: SPI0 CE0/CE1 = bus 0 device 0/1, SPI1 CS0-2 = bus 1
device 0-2 with dtoverlay=spi1-3cs; an explicit reset GPIO each; the receiver gain `gain_db`) and `mock` (`MockReader.place`,
`lift`, `tap`: synchronous, see mock.py). Tests that inject a clock call `group.poll_once()` instead
of starting the thread.
"""

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .base import KINDS, Reader, ReaderError, ReaderFault, ReaderStatus, Sink, TagEvent
from .group import ReaderGroup
from .mock import MockReader, normalise_uid
from .presence import Unreadable
from .rc522 import DEFAULT_GAIN_DB, GAINS_DB, SPI_HZ_MAX, SPI_HZ_MIN, Rc522Reader

DRIVERS = ("mock", "mfrc522")

__all__ = ["DEFAULT_GAIN_DB", "DRIVERS", "GAINS_DB", "KINDS", "SPI_HZ_MAX", "SPI_HZ_MIN", "MockReader", "Reader",
           "ReaderError", "ReaderFault", "ReaderGroup", "ReaderSpec", "ReaderStatus", "ReaderTiming", "TagEvent",
           "Unreadable", "normalise_uid", "open_readers"]


@dataclass(frozen=True)
class ReaderSpec:
    """One reader of the profile. `seat` None is a shared reader; bus/device/rst/spi_hz/gain_db are for
    mfrc522 (`spi_hz`: SPI_HZ_MIN to SPI_HZ_MAX; `gain_db`: the receiver gain, one of GAINS_DB)."""

    name: str
    driver: str = "mock"
    seat: int | None = None
    bus: int = 0
    device: int = 0
    rst: int | None = None
    spi_hz: int = 1_000_000
    gain_db: int = DEFAULT_GAIN_DB


@dataclass(frozen=True)
class ReaderTiming:
    """`poll_ms`: one round of polls every so often; `gap_ms`: how long a field must stay empty
    before its card counts as removed (and a new appearance as a new tap)."""

    poll_ms: int = 50
    gap_ms: int = 500


def open_readers(specs: Sequence[ReaderSpec], sink: Sink, *, timing: ReaderTiming = ReaderTiming(),
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep,
                 pin_factory: Any = None) -> ReaderGroup:
    """Build the readers (not started: call `start()`); `sink` receives every TagEvent.

    A spec error raises ReaderError; hardware never does: a reader that is missing, not permitted or
    not answering is reported (`ReaderGroup.problems()`, a ReaderStatus on the sink) and retried.
    `pin_factory` is gpiozero's, for the reset lines (None: gpiozero's default). `sleep` paces the
    RC522 protocol (tests inject one).
    """
    readers: dict[str, Reader] = {}
    try:
        for number, spec in enumerate(specs, start=1):
            readers[spec.name] = _open_reader(spec, number, readers, sink, timing, clock, sleep, pin_factory)
    except BaseException:
        for reader in readers.values():
            reader.close()
        raise
    return ReaderGroup(readers, poll_s=timing.poll_ms / 1000, clock=clock, sleep=sleep)


def _open_reader(spec: ReaderSpec, number: int, opened: dict[str, Reader], sink: Sink, timing: ReaderTiming,
                 clock: Callable[[], float], sleep: Callable[[float], None], pin_factory: Any) -> Reader:
    if spec.name in opened:
        raise ReaderError(f"two readers are named {spec.name!r}")
    common = {"gap": timing.gap_ms / 1000, "sink": sink, "clock": clock, "number": number}
    if spec.driver == "mock":
        return MockReader(spec.name, spec.seat, **common)
    if spec.driver == "mfrc522":
        if spec.rst is None:
            raise ReaderError(f"reader {spec.name}: an mfrc522 reader needs its reset pin (rst)")
        return Rc522Reader(spec.name, spec.seat, bus=spec.bus, device=spec.device, rst=spec.rst, spi_hz=spec.spi_hz,
                           gain_db=spec.gain_db, pin_factory=pin_factory, sleep=sleep, **common)
    raise ReaderError(f"reader {spec.name}: driver {spec.driver!r} is not one of {', '.join(DRIVERS)}")
