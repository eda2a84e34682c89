"""Reader contract, run against every back end that loads here, plus the RC522 protocol on a fake chip.

Back ends: the mock, and the mfrc522 back end talking to register-level fake RC522s through a fake
spidev (tests/drivers/fake_rc522.py). The clock is fake: polls happen when a test calls
`poll_once()`, so every expectation is exact.
"""

import importlib.util
import queue
import sys

import pytest
from gpiozero import Button

from drivers.readers import MockReader, ReaderError, ReaderSpec, ReaderTiming, TagEvent, open_readers
from drivers.readers.presence import Presence, Unreadable
from drivers.readers.rc522 import Rc522, crc_a

from .fake_rc522 import FakeBus, FakeCard, iso_crc_a, stock_mfrc522

TIMING = ReaderTiming(poll_ms=50, gap_ms=500)
POLL = TIMING.poll_ms / 1000
GAP = TIMING.gap_ms / 1000
# (bus, device, reset pin) for SPI0 CE0/CE1 and SPI1 CS0-2.
WIRING = [(0, 0, 25), (0, 1, 24), (1, 0, 23), (1, 1, 22), (1, 2, 27)]
CARD_4 = "a1b2c3d4"
CARD_7 = "04a1b2c3d4e5f6"
CARD_10 = "04a1b2c3d4e5f60708ff"


class MockRig:
    """The mock back end: cards are placed on MockReaders."""

    driver = "mock"

    def __init__(self, clock, mock_factory, monkeypatch):
        self.clock = clock

    def specs(self, seats):
        return [ReaderSpec(name=f"r{i}", driver="mock", seat=seat) for i, seat in enumerate(seats)]

    def open(self, seats, sink):
        self.group = open_readers(self.specs(seats), sink, timing=TIMING, clock=self.clock, sleep=self.clock.sleep)
        return self.group

    def place(self, name, uid):
        self.group.readers[name].place(uid)

    def lift(self, name):
        self.group.readers[name].lift()


class ChipRig:
    """The mfrc522 back end against fake RC522 chips on a fake spidev, reset lines on MockFactory pins."""

    driver = "mfrc522"

    def __init__(self, clock, mock_factory, monkeypatch):
        self.clock = clock
        self.factory = mock_factory
        self.bus = FakeBus(clock)
        monkeypatch.setitem(sys.modules, "spidev", self.bus.module())
        self.chips = {}

    def specs(self, seats):
        specs = []
        for i, seat in enumerate(seats):
            bus, device, rst = WIRING[i]
            specs.append(ReaderSpec(name=f"r{i}", driver="mfrc522", seat=seat, bus=bus, device=device, rst=rst))
            chip = self.chips[f"r{i}"] = self.bus.add_chip(bus, device)
            chip.reset_pin = self.factory.pin(rst)
        return specs

    def open(self, seats, sink):
        self.group = open_readers(self.specs(seats), sink, timing=TIMING, clock=self.clock, sleep=self.clock.sleep,
                                  pin_factory=self.factory)
        return self.group

    def place(self, name, uid):
        self.chips[name].place(FakeCard(uid))

    def lift(self, name):
        self.chips[name].lift()


@pytest.fixture(params=[MockRig, ChipRig], ids=["mock", "mfrc522-fake-chip"])
def rig(request, clock, mock_factory, monkeypatch):
    return request.param(clock, mock_factory, monkeypatch)


@pytest.fixture
def chip_rig(clock, mock_factory, monkeypatch):
    return ChipRig(clock, mock_factory, monkeypatch)


def run(group, clock, seconds):
    """Poll every POLL seconds for `seconds` of fake time."""
    for _ in range(round(seconds / POLL)):
        group.poll_once()
        clock.advance(POLL)


def kinds(events):
    return [(e.kind, e.uid) for e in events]


# -- the contract, for every back end -----------------------------------------------------------

def test_a_card_resting_on_a_reader_is_one_arrival(rig, clock):
    events = []
    group = rig.open([0], events.append)
    rig.place("r0", CARD_4)
    run(group, clock, 3.0)
    assert events == [TagEvent("r0", CARD_4, "arrived", 0)]


def test_removal_is_reported_once_the_field_stays_empty_for_the_gap(rig, clock):
    events = []
    group = rig.open([0], events.append)
    rig.place("r0", CARD_4)
    run(group, clock, 0.2)
    rig.lift("r0")
    run(group, clock, GAP - POLL)
    assert kinds(events) == [("arrived", CARD_4)]
    run(group, clock, 2 * POLL)
    assert kinds(events) == [("arrived", CARD_4), ("removed", CARD_4)]


def test_a_card_lifted_and_put_back_within_the_gap_is_the_same_tap(rig, clock):
    events = []
    group = rig.open([0], events.append)
    rig.place("r0", CARD_4)
    run(group, clock, 0.2)
    rig.lift("r0")
    run(group, clock, GAP / 2)
    rig.place("r0", CARD_4)
    run(group, clock, 2.0)
    assert kinds(events) == [("arrived", CARD_4)]


def test_a_card_put_back_after_the_gap_is_a_new_tap(rig, clock):
    events = []
    group = rig.open([0], events.append)
    for _ in range(2):
        rig.place("r0", CARD_4)
        run(group, clock, 0.2)
        rig.lift("r0")
        run(group, clock, GAP + 2 * POLL)
    assert kinds(events) == [("arrived", CARD_4), ("removed", CARD_4)] * 2


def test_a_quick_swap_removes_the_first_card_and_adds_the_second(rig, clock):
    events = []
    group = rig.open([0], events.append)
    rig.place("r0", CARD_4)
    run(group, clock, 0.2)
    rig.lift("r0")
    rig.place("r0", CARD_7)
    run(group, clock, 0.2)
    assert kinds(events) == [("arrived", CARD_4), ("removed", CARD_4), ("arrived", CARD_7)]


@pytest.mark.parametrize("uid", [CARD_4, CARD_7, CARD_10])
def test_uids_are_the_whole_real_uid_in_lower_case_hex(rig, clock, uid):
    events = []
    group = rig.open([3], events.append)
    rig.place("r0", uid.upper())
    run(group, clock, 0.2)
    assert events == [TagEvent("r0", uid, "arrived", 3)]


def test_readers_are_polled_in_turn_and_events_name_reader_and_seat(rig, clock):
    events = []
    group = rig.open([0, 1, 2, None], events.append)
    assert list(group.readers) == ["r0", "r1", "r2", "r3"]
    rig.place("r3", CARD_10)
    rig.place("r1", CARD_7)
    rig.place("r0", CARD_4)
    group.poll_once()
    assert sorted(events, key=lambda e: e.reader) == [
        TagEvent("r0", CARD_4, "arrived", 0), TagEvent("r1", CARD_7, "arrived", 1),
        TagEvent("r3", CARD_10, "arrived", None)]
    run(group, clock, 2.0)
    assert len(events) == 3


def test_the_polling_thread_delivers_events_to_the_sink_and_stops_on_close(rig):
    events = queue.Queue()
    group = rig.open([0, 1], events.put)
    group.start()
    try:
        rig.place("r1", CARD_7)
        assert events.get(timeout=10) == TagEvent("r1", CARD_7, "arrived", 1)
    finally:
        group.close()
    assert group._thread is not None and not group._thread.is_alive()
    group.close()  # idempotent
    assert events.empty()


def test_closing_the_group_releases_only_its_own_resources(rig, mock_factory):
    button = Button(5, pin_factory=mock_factory)
    gpio_imported = "RPi.GPIO" in sys.modules
    group = rig.open([0, 1], lambda event: None)
    group.poll_once()
    group.close()
    assert not button.closed
    mock_factory.pin(5).drive_low()
    assert button.is_pressed
    assert ("RPi.GPIO" in sys.modules) == gpio_imported  # our back ends never import RPi.GPIO


# -- the mock back end --------------------------------------------------------------------------

def test_mock_place_reports_the_arrival_before_it_returns(clock):
    events = []
    group = open_readers([ReaderSpec("shared", "mock")], events.append, timing=TIMING, clock=clock)
    reader = group.readers["shared"]
    assert isinstance(reader, MockReader)
    reader.tap(CARD_4)
    assert events == [TagEvent("shared", CARD_4, "arrived", None)]
    clock.advance(GAP)
    group.poll_once()
    assert kinds(events) == [("arrived", CARD_4), ("removed", CARD_4)]


@pytest.mark.parametrize("uid", ["", "a1b2c3", "a1b2c3d4e5", "zzb2c3d4", "a1:b2:c3:d4", 1234])
def test_mock_refuses_a_malformed_uid_and_changes_nothing(clock, uid):
    events = []
    group = open_readers([ReaderSpec("r", "mock", seat=0)], events.append, timing=TIMING, clock=clock)
    with pytest.raises(ValueError, match="8, 14 or 20 hex digits"):
        group.readers["r"].place(uid)
    assert events == [] and group.readers["r"].card is None


def test_open_readers_refuses_bad_specs(clock, mock_factory):
    with pytest.raises(ReaderError, match="two readers are named 'a'"):
        open_readers([ReaderSpec("a"), ReaderSpec("a")], print, clock=clock)
    with pytest.raises(ReaderError, match="driver 'pn532' is not one of mock, mfrc522"):
        open_readers([ReaderSpec("a", "pn532")], print, clock=clock)
    with pytest.raises(ReaderError, match="needs its reset pin"):
        open_readers([ReaderSpec("a", "mfrc522")], print, clock=clock)


def test_mfrc522_without_spidev_says_how_to_install_it(clock, mock_factory, monkeypatch):
    monkeypatch.setitem(sys.modules, "spidev", None)
    with pytest.raises(ReaderError, match="needs spidev"):
        open_readers([ReaderSpec("a", "mfrc522", rst=25)], print, clock=clock, pin_factory=mock_factory)


# -- the arrival/removal rule on its own --------------------------------------------------------

def test_an_unreadable_poll_is_neither_a_sighting_nor_an_empty_field():
    presence = Presence(gap=0.5)
    assert presence.update(CARD_4, 0.0) == [("arrived", CARD_4)]
    assert presence.update(Unreadable("two cards"), 5.0) == []
    assert presence.update(None, 5.1) == [("removed", CARD_4)]
    assert presence.update(Unreadable("two cards"), 9.0) == []
    assert presence.uid is None


# -- the RC522 protocol on the fake chip ---------------------------------------------------------

def open_chip(clock, cards=()):
    bus = FakeBus(clock)
    chip = bus.add_chip(0, 0)
    rc522 = Rc522(bus.connect(0, 0), clock.sleep)
    assert rc522.init() == "v2.0"
    for uid in cards:
        chip.place(FakeCard(uid))
    return chip, rc522


def transactions(chip, action):
    before = chip.transactions
    result = action()
    return result, chip.transactions - before


def test_crc_a_matches_the_iso_reference():
    assert crc_a(b"\x50\x00") == b"\x57\xcd" == iso_crc_a(b"\x50\x00")
    assert crc_a(b"\x93\x70\x01\x02\x03\x04\x04") == iso_crc_a(b"\x93\x70\x01\x02\x03\x04\x04")


def test_an_empty_poll_costs_a_small_bounded_number_of_transactions(clock):
    chip, rc522 = open_chip(clock)
    for _ in range(5):
        result, count = transactions(chip, rc522.scan)
        assert result is None
        assert count <= 16  # the target is 50; the stock path costs about 2,000


@pytest.mark.parametrize("uid, budget", [(CARD_4, 40), (CARD_7, 60), (CARD_10, 80)])
def test_a_resting_card_is_read_whole_on_every_poll(clock, uid, budget):
    chip, rc522 = open_chip(clock, [uid])
    for _ in range(5):
        result, count = transactions(chip, rc522.scan)
        assert result == uid
        assert count <= budget
    assert chip.cards[0].state == "halt"


def test_two_cards_at_once_are_unreadable_on_every_poll(clock):
    chip, rc522 = open_chip(clock, [CARD_4, "a1b2c3d5"])
    for _ in range(4):
        result, count = transactions(chip, rc522.scan)
        assert result == Unreadable("several cards on the reader")
        assert count <= 30


def test_a_collision_keeps_the_resting_card_and_resolves_when_one_is_lifted(chip_rig, clock):
    events = []
    group = chip_rig.open([0], events.append)
    chip = chip_rig.chips["r0"]
    first = chip.place(FakeCard(CARD_4))
    run(group, clock, 0.2)
    chip.place(FakeCard(CARD_7))
    run(group, clock, 3 * GAP)
    assert kinds(events) == [("arrived", CARD_4)]
    chip.lift(first)
    run(group, clock, 0.2)
    assert kinds(events) == [("arrived", CARD_4), ("removed", CARD_4), ("arrived", CARD_7)]


def test_the_reset_line_is_driven_high_and_released_on_close(chip_rig, clock):
    group = chip_rig.open([0], lambda event: None)
    group.poll_once()
    pin = chip_rig.factory.pin(WIRING[0][2])
    assert pin.function == "output" and pin.state is True
    assert [state.state for state in pin.states[-2:]] == [False, True]  # a hard reset pulse
    group.close()
    assert pin.function == "input"
    assert all(spi.closed for spi in chip_rig.bus.opened)


def test_a_missing_spi_device_is_a_reported_problem_and_the_others_keep_reading(chip_rig, clock):
    events = []
    specs = chip_rig.specs([0, 1, 2])
    del chip_rig.bus.chips[1, 0]  # SPI1 not enabled: /dev/spidev1.0 does not exist
    group = open_readers(specs, events.append, timing=TIMING, clock=clock, sleep=clock.sleep,
                         pin_factory=chip_rig.factory)
    chip_rig.place("r1", CARD_4)
    group.poll_once()
    assert events == [TagEvent("r1", CARD_4, "arrived", 1)]
    assert list(group.problems()) == ["r2"]
    assert "/dev/spidev1.0 does not exist" in group.problems()["r2"] and "spi1-3cs" in group.problems()["r2"]


def test_a_silent_chip_is_reported(chip_rig, clock):
    specs = chip_rig.specs([0])
    chip_rig.chips["r0"].version = 0x00
    group = open_readers(specs, print, timing=TIMING, clock=clock, sleep=clock.sleep, pin_factory=chip_rig.factory)
    group.poll_once()
    assert "no RC522 answers" in group.problems()["r0"]


def test_a_chip_that_lost_its_set_up_is_restarted_and_a_resting_card_stays_one_tap(chip_rig, clock, caplog):
    events = []
    group = chip_rig.open([0], events.append)
    chip = chip_rig.chips["r0"]
    chip_rig.place("r0", CARD_7)
    run(group, clock, 0.2)
    chip._reset()  # a brown-out: timer and antenna off, the card loses power
    group.poll_once()
    assert "neither answered nor timed out" in group.problems()["r0"]
    run(group, clock, group.readers["r0"].retry_after + 2 * POLL)
    assert group.problems() == {}
    assert kinds(events) == [("arrived", CARD_7)]
    assert any("works again" in record.getMessage() for record in caplog.records)


# -- the stock mfrc522 path, for comparison (skipped when the package is absent) -----------------

needs_stock = pytest.mark.skipif(
    importlib.util.find_spec("mfrc522") is None,
    reason="stock mfrc522 not installed: `.venv/bin/pip install --no-deps mfrc522==0.0.7` to compare with it")


@needs_stock
def test_the_stock_simple_mfrc522_path_costs_thousands_per_empty_poll_and_truncates_7_byte_uids(clock):
    bus = FakeBus(clock)
    chip = bus.add_chip(0, 0)
    with stock_mfrc522(bus) as (mfrc522, gpio):
        reader = mfrc522.SimpleMFRC522()
        result, count = transactions(chip, reader.read_id_no_block)
        assert result is None and count > 1900
        chip.place(FakeCard(CARD_7))
        result, count = transactions(chip, reader.read_id_no_block)
        assert result.to_bytes(5, "big").hex() == "8804a1b29f"  # cascade tag, 3 UID bytes, BCC: not the UID
        assert transactions(chip, reader.read_id_no_block)[0] is None  # REQA: a resting card every other poll
        reader.READER.Close_MFRC522()
        assert gpio.cleanups == 1  # the global GPIO.cleanup() that our back end never calls
