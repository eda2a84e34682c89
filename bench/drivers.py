"""Reader cost, ours against the stock `mfrc522` package (SimpleMFRC522's path), side by side.

Both run on the same register-level fake RC522 in its strict mode (tests/drivers/fake_rc522.py: the
datasheet's StartSend, the ISO 5 ms guard time; no lost frames here, so the figures repeat), whose
time model charges 30 µs per SPI transaction (spidev's ioctl on a Pi) plus the frames' air time at
106 kbit/s. Figures:
- per poll, for an empty field and a resting 4-, 7- and 10-byte UID: SPI transactions and the
  modelled time (`modelled_ms`), and what was read. Ours is expected to cost 9, 39, 59 and 79
  (`expected_transactions`): a frame is 7 writes to send it (Idle, IRQ bits cleared, FIFO flushed and
  filled, BitFramingReg, Transceive, StartSend), a look at ComIrqReg with ErrorReg, FIFOLevelReg,
  ControlReg and CollReg, StartSend cleared, and one FIFO read if answered: WUPA, then anticollision
  and select per cascade level, then HLTA. The driver tests allow each frame one more look (an
  answer that had not ended at the first);
- the time from putting a card down to its arrival event (p50/p99, modelled) with 5 readers polled
  every 50 ms as the group's thread polls them (ours: every WUPA out, one wait, then each reader;
  stock: one reader after the other), over `TAPS` taps at odd moments on every reader;
- the CPU time of one round of 5 empty polls through the fake spidev on this machine (the fake chip's
  own Python included; the idle cost on a Pi is roughly ten times this machine's);
- ours only: the start-up, from opening 5 readers with a card resting on each to each card's arrival
  (its waits add up to 105 ms: 50 ms after the hard reset, 50 ms after the soft reset, 5.1 ms of field
  before the first request), and the recovery of one of them from a brown-out (its fault seen at the
  next poll, the 0.2 s back-off, a start-up), as the group's thread runs them (`ReaderGroup.run_for`).
The stock path is measured only when the package is installed (`pip install --no-deps mfrc522==0.0.7`).
Target: at most 15 transactions per empty poll.
"""

import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gpiozero.pins.mock import MockFactory  # noqa: E402

from drivers.readers import ReaderSpec, ReaderStatus, ReaderTiming, TagEvent, open_readers  # noqa: E402
from tests.drivers.fake_rc522 import FakeBus, FakeCard, stock_mfrc522  # noqa: E402
from tests.drivers.support import FakeClock, simulate  # noqa: E402

TARGET_EMPTY = 15
#: SPI transactions of a clean poll of ours (see above): 10 for WUPA answered, 20 a cascade level, 9 for HLTA
EXPECTED = {"empty_poll": 9, "card_4_byte": 39, "card_7_byte": 59, "card_10_byte": 79}
CARDS = {"card_4_byte": "a1b2c3d4", "card_7_byte": "04a1b2c3d4e5f6", "card_10_byte": "04a1b2c3d4e5f60708ff"}
WIRING = [(0, 0, 25), (0, 1, 24), (1, 0, 23), (1, 1, 22), (1, 2, 27)]
POLL_S = 0.05
POLLS = 4
TAPS = 60
CPU_ROUNDS = {"ours": 300, "stock": 3}


class Rig:
    """Five fake RC522s on a fake clock: `polls` holds one poll callable a reader, `round` what a
    round of polls calls, `read(i)` the UID reader i reports (hex), for ours or for the stock package."""

    def __init__(self):
        self.clock = FakeClock()
        self.bus = FakeBus(self.clock)
        self.chips = [self.bus.add_chip(bus, device, miss=0, garble=0, noise=0) for bus, device, _ in WIRING]
        self.clock.advance(0.1)  # the modules were powered long before


class Ours(Rig):
    def __init__(self, resting: bool = False):
        """`resting`: a card rests on every reader before it is opened, and the readers are not settled."""
        super().__init__()
        for index, chip in enumerate(self.chips if resting else ()):
            chip.place(FakeCard(f"{0xb0000000 + index:08x}"))
        self.factory = MockFactory()
        for chip, (_, _, rst) in zip(self.chips, WIRING):
            chip.wire_reset(self.factory, rst)
        sys.modules["spidev"] = self.bus.module()
        self.events: list[tuple[float, TagEvent]] = []
        specs = [ReaderSpec(f"r{i}", "mfrc522", i, bus, device, rst) for i, (bus, device, rst) in enumerate(WIRING)]
        self.group = open_readers(specs, lambda event: self.events.append((self.clock.now, event)),
                                  timing=ReaderTiming(poll_ms=round(POLL_S * 1000)), clock=self.clock,
                                  sleep=self.clock.sleep, pin_factory=self.factory)
        if not resting:
            self.group.settle(1.0, self.clock.sleep)
        self.polls = [reader.poll for reader in self.group.readers.values()]
        self.round = [self.group.poll_once]  # as the group's thread: every WUPA out, one wait, then each

    def read(self, index: int):
        return self.group.readers[f"r{index}"].present

    def close(self):
        self.group.close()
        self.factory.close()
        del sys.modules["spidev"]


class Stock(Rig):
    def __init__(self, mfrc522):
        super().__init__()
        sys.modules["mfrc522.MFRC522"].spidev = self.bus.module()  # the package's spidev: this rig's chips
        self.readers = []
        for bus, device, rst in WIRING:
            reader = mfrc522.SimpleMFRC522()
            reader.READER = mfrc522.MFRC522(bus=bus, device=device, pin_mode=11, pin_rst=rst)
            self.readers.append(reader)
        self.seen: list = [None] * len(WIRING)
        self.polls = [lambda index=index: self._poll(index) for index in range(len(WIRING))]
        self.round = self.polls

    def _poll(self, index: int) -> None:
        number = self.readers[index].read_id_no_block()  # 4 UID bytes and the BCC, as one number
        self.seen[index] = None if number is None else number.to_bytes(5, "big").hex()[:8]

    def read(self, index: int):
        return self.seen[index]

    def close(self):
        pass


def per_poll(rig: Rig) -> dict:
    """Transactions, modelled time and what was read for the first of POLLS successive polls of reader
    0, per scenario, and the transactions of each (the stock path sees a resting card every other poll)."""
    chip, clock, poll = rig.chips[0], rig.clock, rig.polls[0]

    def measure() -> dict:
        counts, times, reads = [], [], []
        for _ in range(POLLS):
            before, started = chip.transactions, clock.now
            poll()
            counts.append(chip.transactions - before)
            times.append(round((clock.now - started) * 1000, 2))
            reads.append(rig.read(0))
            clock.advance(POLL_S)
        return {"transactions": counts[0], "modelled_ms": times[0], "read": reads[0],
                "transactions_per_poll": counts, "seen_every_poll": len(set(reads)) == 1}

    figures = {"empty_poll": measure()}
    del figures["empty_poll"]["seen_every_poll"]
    for name, uid in CARDS.items():
        chip.place(FakeCard(uid))
        clock.advance(0.01)
        figures[name] = measure()
        figures[name]["reads_the_real_uid"] = figures[name]["read"] == uid
        chip.lift()
        for _ in range(20):  # until ours reports the removal
            poll()
            clock.advance(POLL_S)
    return figures


def tap_latency(rig: Rig) -> dict:
    """TAPS taps, one reader after the other at odd moments, each card resting 0.6 s; the modelled
    time from the card going down to the first poll that reports it."""
    start = rig.clock.now + 0.1
    taps = [(start + 0.3 * i + (0.017 * i) % POLL_S, i % len(WIRING), f"{0xa0000000 + i:08x}") for i in range(TAPS)]
    arrived: dict[int, float] = {}

    def put(at, reader, uid):
        rig.chips[reader].place(FakeCard(uid), at=at)

    def lift(at, reader):
        rig.chips[reader].lift()

    def watching(poll):
        def watched():
            poll()
            for i, (at, reader, uid) in enumerate(taps):
                if i not in arrived and at <= rig.clock.now and rig.read(reader) == uid:
                    arrived[i] = rig.clock.now
        return watched

    actions = [(at, lambda at, r=reader, u=uid: put(at, r, u)) for at, reader, uid in taps]
    actions += [(at + 0.6, lambda at, r=reader: lift(at, r)) for at, reader, _ in taps]
    simulate([watching(poll) for poll in rig.round], rig.clock, POLL_S, taps[-1][0] + 2.0, actions)
    delays = sorted((arrived[i] - at) * 1000 for i, (at, _, _) in enumerate(taps) if i in arrived)
    return {"taps": TAPS, "seen": len(delays),
            "p50_ms": round(statistics.median(delays), 1) if delays else None,
            "p99_ms": round(delays[min(len(delays) - 1, round(0.99 * len(delays)))], 1) if delays else None}


def cpu_per_round(rig: Rig, rounds: int) -> dict:
    """CPU time of one round of empty polls of every reader, on this machine (fake chip included)."""
    started = time.process_time()
    for _ in range(rounds):
        for poll in rig.round:
            poll()
        rig.clock.advance(POLL_S)
    return {"cpu_ms_per_round": round((time.process_time() - started) * 1000 / rounds, 3), "rounds": rounds}


def start_and_recovery() -> dict:
    """Modelled ms from opening the readers (a card resting on each) to each arrival; then from a brown-out
    of reader 1 to its fault being seen and to it working again, its card still one tap."""
    rig = Ours(resting=True)
    try:
        opened = rig.clock.now
        rig.group.run_for(1.0, rig.clock.sleep)
        arrivals = [round((at - opened) * 1000, 1) for at, event in rig.events if isinstance(event, TagEvent)]
        rig.events.clear()
        rig.chips[0].brown_out()
        dipped = rig.clock.now
        rig.group.run_for(2.0, rig.clock.sleep)
        statuses = [round((at - dipped) * 1000, 1) for at, event in rig.events if isinstance(event, ReaderStatus)]
        return {"start_up_ms_to_each_arrival": arrivals,
                "brown_out_ms_to_fault_and_to_working_again": statuses,
                "card_stays_one_tap": not any(isinstance(event, TagEvent) for _, event in rig.events)}
    finally:
        rig.close()


def measure(make) -> dict:
    figures = {}
    for name, run in (("per_poll", per_poll), ("arrival_with_5_readers", tap_latency)):
        rig = make()
        try:
            figures[name] = run(rig)
        finally:
            rig.close()
    rig = make()
    try:
        figures["idle_round_of_5"] = cpu_per_round(rig, CPU_ROUNDS["ours" if isinstance(rig, Ours) else "stock"])
    finally:
        rig.close()
    return figures


def stock() -> dict:
    bus = FakeBus(FakeClock())
    try:
        with stock_mfrc522(bus) as (mfrc522, _gpio):
            return measure(lambda: Stock(mfrc522))
    except ModuleNotFoundError:
        return {"skipped": "mfrc522 is not installed: pip install --no-deps mfrc522==0.0.7 to compare"}


def run() -> dict:
    ours = measure(Ours)
    for scenario, expected in EXPECTED.items():
        ours["per_poll"][scenario]["expected_transactions"] = expected
    ours["start_up_and_recovery"] = start_and_recovery()
    figures = {"ours": ours, "stock_simple_mfrc522": stock(), "target_empty_poll_max": TARGET_EMPTY,
               "meets_target": ours["per_poll"]["empty_poll"]["transactions"] <= TARGET_EMPTY}
    return {"rc522_fake_chip": figures}


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
