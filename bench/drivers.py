"""Reader cost: SPI transactions per RC522 poll, ours against the stock SimpleMFRC522 path.

Both run on the same register-level fake RC522 (tests/drivers/fake_rc522.py), whose time model
charges 30 µs per SPI transaction (spidev's ioctl on a Pi) plus the frames' air time at 106 kbit/s;
`simulated_ms` is the poll's duration under that model. The stock path is measured only when the
mfrc522 package is installed (`pip install --no-deps mfrc522==0.0.7`); it needs no real hardware.
Target: at most 50 transactions per empty poll.
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from drivers.readers.rc522 import Rc522  # noqa: E402
from tests.drivers.fake_rc522 import FakeBus, FakeCard, stock_mfrc522  # noqa: E402
from tests.drivers.support import FakeClock  # noqa: E402

TARGET_EMPTY = 50
CARDS = {"card_4_byte": "a1b2c3d4", "card_7_byte": "04a1b2c3d4e5f6", "card_10_byte": "04a1b2c3d4e5f60708ff"}
POLLS = 4


def _measure(clock, chip, poll, render) -> dict:
    """Transactions and simulated time of the first of POLLS successive polls, what it read, and the
    transaction counts of all of them (a stock poll of a resting card alternates with empty polls)."""
    counts, times, results = [], [], []
    for _ in range(POLLS):
        before, started = chip.transactions, clock.now
        results.append(render(poll()))
        counts.append(chip.transactions - before)
        times.append(clock.now - started)
    return {"transactions": counts[0], "simulated_ms": round(times[0] * 1000, 2), "read": results[0],
            "transactions_per_poll": counts, "seen_every_poll": len(set(results)) == 1}


def _scenarios(clock, chip, poll, render) -> dict:
    figures = {"empty_poll": _measure(clock, chip, poll, render)}
    del figures["empty_poll"]["seen_every_poll"]
    for name, uid in CARDS.items():
        chip.place(FakeCard(uid))
        figures[name] = _measure(clock, chip, poll, render)
        figures[name]["reads_the_real_uid"] = figures[name]["read"] == uid
        chip.lift()
    return figures


def ours() -> dict:
    clock = FakeClock()
    bus = FakeBus(clock)
    chip = bus.add_chip(0, 0)
    rc522 = Rc522(bus.connect(0, 0), clock.sleep)
    rc522.init()
    return _scenarios(clock, chip, rc522.scan, lambda result: result if result is None or isinstance(result, str)
                      else repr(result))


def stock() -> dict:
    clock = FakeClock()
    bus = FakeBus(clock)
    chip = bus.add_chip(0, 0)
    try:
        with stock_mfrc522(bus) as (mfrc522, _gpio):
            reader = mfrc522.SimpleMFRC522()
            return _scenarios(clock, chip, reader.read_id_no_block,
                              lambda result: None if result is None else result.to_bytes(5, "big").hex())
    except ModuleNotFoundError:
        return {"skipped": "mfrc522 is not installed: pip install --no-deps mfrc522==0.0.7 to compare"}


def run() -> dict:
    figures = {"ours": ours(), "stock_simple_mfrc522": stock()}
    figures["target_empty_poll_max"] = TARGET_EMPTY
    figures["meets_target"] = figures["ours"]["empty_poll"]["transactions"] <= TARGET_EMPTY
    return {"rc522_fake_chip": figures}


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
