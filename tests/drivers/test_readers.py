"""Reader contract, run against every back end that loads here, plus the RC522 protocol on a fake chip.

Back ends: the mock, and the mfrc522 back end talking to register-level fake RC522s through a fake
spidev (tests/drivers/fake_rc522.py), in both of the fake's modes: strict (the datasheet and ISO
14443-3: StartSend stays set, cards need 5 ms of field, frames get lost or garbled) and lenient. The
clock is fake: polls happen when a test calls `poll_once()`, so every expectation is exact.
"""

import dataclasses
import importlib.util
import logging
import queue
import sys
import threading

import pytest
from gpiozero import Button

from drivers.readers import (MockReader, ReaderError, ReaderSpec, ReaderStatus, ReaderTiming, TagEvent,
                             open_readers)
from drivers.readers.group import STALL_S
from drivers.readers.presence import Presence, Unreadable
from drivers.readers.rc522 import GUARD_S, OSCILLATOR_S, crc_a

from .fake_rc522 import (BIT_FRAMING, COMMAND, RF_CFG, SOFT_RESET, START_SEND, TRANSCEIVE, TX_CONTROL, VERSION,
                         FakeBus, FakeCard, iso_crc_a, stock_mfrc522)
from .support import simulate

TIMING = ReaderTiming(poll_ms=50, gap_ms=500)
POLL = TIMING.poll_ms / 1000
GAP = TIMING.gap_ms / 1000
PLACE_S = 0.01  # a card put down by hand comes to rest (and powers up) over a few milliseconds
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
    #: every rig of the running test, whose chips must end it with no violation (see `no_violations`)
    made: list["ChipRig"] = []

    def __init__(self, clock, mock_factory, monkeypatch, strict=True, bus=None, pull_up=False, **chip):
        self.clock = clock
        self.factory = mock_factory
        self.pull_up = pull_up  # the modules pull their reset lines up
        self.bus = bus or FakeBus(clock)
        self.made.append(self)
        monkeypatch.setitem(sys.modules, "spidev", self.bus.module())
        self.chip_options = {"strict": strict, **chip}
        self.chips = {}

    def specs(self, seats, **options):
        specs = []
        for i, seat in enumerate(seats):
            bus, device, rst = WIRING[i]
            specs.append(ReaderSpec(name=f"r{i}", driver="mfrc522", seat=seat, bus=bus, device=device, rst=rst, **options))
            chip = self.chips[f"r{i}"] = self.bus.add_chip(bus, device, **self.chip_options)
            chip.wire_reset(self.factory, rst, self.pull_up)
        return specs

    def open(self, seats, sink, **options):
        """The readers, started (their start-up takes a few polls of the fake clock)."""
        self.group = open_readers(self.specs(seats, **options), sink, timing=TIMING, clock=self.clock,
                                  sleep=self.clock.sleep, pin_factory=self.factory)
        self.group.settle(1.0, self.clock.sleep)
        return self.group

    def place(self, name, uid, **card):
        card = self.chips[name].place(FakeCard(uid, **card))
        self.clock.advance(PLACE_S)
        return card

    def lift(self, name):
        self.chips[name].lift()


def strict_rig(clock, mock_factory, monkeypatch):
    return ChipRig(clock, mock_factory, monkeypatch, strict=True)


def lenient_rig(clock, mock_factory, monkeypatch):
    return ChipRig(clock, mock_factory, monkeypatch, strict=False)


CHIP_RIGS = [strict_rig, lenient_rig]
CHIP_IDS = ["strict-chip", "lenient-chip"]


@pytest.fixture(params=[MockRig, *CHIP_RIGS], ids=["mock", *CHIP_IDS])
def rig(request, clock, mock_factory, monkeypatch):
    return request.param(clock, mock_factory, monkeypatch)


@pytest.fixture(params=CHIP_RIGS, ids=CHIP_IDS)
def chip_rig(request, clock, mock_factory, monkeypatch):
    return request.param(clock, mock_factory, monkeypatch)


@pytest.fixture(params=[True, False], ids=CHIP_IDS)
def strict(request):
    """Both modes of the fake chip, for tests that build their own rig."""
    return request.param


@pytest.fixture(autouse=True)
def no_violations():
    """No test may end with a strict fake chip that saw the driver break the datasheet or ISO 14443-3."""
    ChipRig.made.clear()
    yield
    broken = {name: chip.violations for rig in ChipRig.made for name, chip in rig.chips.items() if chip.violations}
    assert not broken, broken


def run(group, clock, seconds):
    """Poll every POLL seconds for `seconds` of fake time."""
    for _ in range(round(seconds / POLL)):
        group.poll_once()
        clock.advance(POLL)


def kinds(events):
    return [(e.kind, e.uid) for e in tags(events)]


def tags(events):
    """The arrivals and removals."""
    return [e for e in events if isinstance(e, TagEvent) and e.kind != "unreadable"]


def said(events):
    """What the readers told the players about fields they could not read."""
    return [e.why for e in events if isinstance(e, TagEvent) and e.kind == "unreadable"]


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
    run(group, clock, 3 * POLL)
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
        run(group, clock, GAP + 3 * POLL)
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
    run(group, clock, 2.0)
    assert sorted(events, key=lambda e: e.reader) == [
        TagEvent("r0", CARD_4, "arrived", 0), TagEvent("r1", CARD_7, "arrived", 1),
        TagEvent("r3", CARD_10, "arrived", None)]


def test_the_polling_thread_delivers_events_to_the_sink_and_stops_on_close(rig):
    events = queue.Queue()
    group = rig.open([0, 1], events.put)
    group.start()
    try:
        assert group.alive()
        rig.place("r1", CARD_7)
        assert events.get(timeout=10) == TagEvent("r1", CARD_7, "arrived", 1)
    finally:
        group.close()
    assert group._thread is not None and not group._thread.is_alive() and not group.alive()
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


# -- liveness: the watchdog asks the group ---------------------------------------------------------

class Stuck(MockReader):
    """A reader whose poll blocks until released (a hung SPI transfer)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.entered, self.release = threading.Event(), threading.Event()

    def _read(self):
        self.entered.set()
        self.release.wait(10)
        return None


def eventually(predicate, timeout=10.0) -> bool:
    """Wait (really) until `predicate()` holds, for at most `timeout` seconds."""
    done = threading.Event()
    timer = threading.Timer(timeout, done.set)
    timer.start()
    try:
        while not predicate() and not done.wait(0.01):
            pass
        return predicate()
    finally:
        timer.cancel()


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_the_group_is_not_alive_once_its_thread_died_or_is_stuck(clock):
    def broken(event):
        raise RuntimeError("the sink broke")

    group = open_readers([ReaderSpec("r0")], broken, timing=TIMING, clock=clock)
    group.start()
    group.readers["r0"].card = CARD_4  # the arrival reaches the broken sink: the thread dies
    group._thread.join(10)
    assert not group.alive()
    group.close()

    stuck = Stuck("r1", 1, gap=GAP, sink=print, clock=clock)
    group = type(group)({"r1": stuck}, poll_s=POLL, clock=clock)
    group.start()
    try:
        assert stuck.entered.wait(10) and group.alive()
        clock.advance(STALL_S)
        assert not group.alive()  # the thread lives but has not finished a round for STALL_S
        stuck.release.set()
        assert eventually(group.alive)
    finally:
        stuck.release.set()
        group.close()


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


@pytest.mark.parametrize("option, message", [
    ({"spi_hz": 20_000_000}, "spi_hz 20000000 is not a whole number of Hz from 100000 to 10000000"),
    ({"spi_hz": 50_000}, "spi_hz 50000 is not"), ({"spi_hz": 1e6}, "spi_hz 1000000.0 is not"),
    ({"gain_db": 40}, "gain_db 40 is not one of 18, 23, 33, 38, 43, 48")])
def test_an_mfrc522_spec_out_of_the_chips_range_is_refused_before_anything_is_opened(chip_rig, clock, option,
                                                                                    message):
    """The MFRC522's SPI runs at up to 10 Mbit/s: a spec built without the profile loader is checked too."""
    spec = dataclasses.replace(chip_rig.specs([0])[0], **option)
    with pytest.raises(ReaderError, match=f"reader r0: {message}"):
        open_readers([spec], print, clock=clock, pin_factory=chip_rig.factory)
    assert chip_rig.bus.attempts == [] and chip_rig.factory.pin(WIRING[0][2]).function == "input"


# -- the arrival/removal rule on its own --------------------------------------------------------

def test_a_field_unreadable_for_the_gap_is_said_once_until_a_clean_read_or_an_empty_field_for_the_gap():
    presence = Presence(gap=0.5)
    two = Unreadable("several cards", "Two cards: one at a time")
    assert presence.update(Unreadable("garbled"), 0.0) == []
    assert presence.update(CARD_4, 0.1) == [("arrived", CARD_4)]  # a card sliding in: no trouble
    assert presence.update(two, 0.2) == []
    assert presence.update(two, 0.6) == []
    assert presence.update(two, 0.8) == [("unreadable", "Two cards: one at a time")]
    assert presence.update(two, 5.0) == []  # once for the whole stretch
    presence.interrupted()  # a failed poll says nothing: the stretch goes on
    assert presence.update(two, 6.0) == []
    assert presence.update(None, 6.1) == []  # one card lifted: empty...
    assert presence.update(two, 6.2) == []  # ...a poll too short: still the same stretch, not said again
    assert presence.update(None, 6.3) == []
    assert presence.uid == CARD_4  # unreadable polls never judged it gone
    assert presence.update(None, 6.9) == [("removed", CARD_4)]  # empty for the gap: the stretch ends too
    assert presence.update(Unreadable("garbled"), 7.0) == []
    assert presence.update(Unreadable("garbled"), 7.6) == [("unreadable", "Tag unreadable: again")]
    assert presence.update(CARD_4, 7.7) == [("arrived", CARD_4)]  # a clean read ends it at once
    assert presence.update(two, 7.8) == []
    assert presence.update(two, 8.4) == [("unreadable", "Two cards: one at a time")]


def test_a_random_id_is_said_at_once_and_counts_as_an_empty_field_for_the_card_that_was_there():
    presence = Presence(gap=0.5)
    phone = Unreadable("a random ID", "Not a game piece (phone?)", vacant=True)
    assert presence.update(CARD_4, 0.0) == [("arrived", CARD_4)]
    assert presence.update(phone, 0.1) == [("unreadable", "Not a game piece (phone?)")]  # at once: no noise
    assert presence.update(None, 0.3) == []  # a phone's field flickers...
    assert presence.update(phone, 0.6) == [("removed", CARD_4)]  # ...said once while it stays
    assert presence.update(CARD_4, 0.7) == [("arrived", CARD_4)]  # tapped again after the phone: a new tap
    assert presence.update(phone, 0.8) == [("unreadable", "Not a game piece (phone?)")]


def test_removal_needs_empty_polls_a_gap_apart_and_unreadable_or_failed_polls_restart_the_count():
    presence = Presence(gap=0.5)
    assert presence.update(CARD_4, 0.0) == [("arrived", CARD_4)]
    assert presence.update(None, 0.1) == []  # the first empty poll starts the count
    assert presence.update(Unreadable("two cards"), 0.4) == []  # something is there after all
    assert presence.update(None, 0.7) == []
    presence.interrupted()  # the reader failed: no evidence either way
    assert presence.update(None, 5.0) == []  # back after a long fault: one empty poll is not enough
    assert presence.update(None, 5.5) == [("removed", CARD_4)]
    assert presence.update(Unreadable("two cards"), 9.0) == []
    assert presence.uid is None


# -- the RC522 protocol on the fake chip ---------------------------------------------------------

def writes(trace):
    """The register writes of a trace, in order: (time, register, first value)."""
    return [(at, data[0] >> 1 & 0x3F, data[1]) for at, data in trace if not data[0] & 0x80]


def test_crc_a_matches_the_iso_reference():
    assert crc_a(b"\x50\x00") == b"\x57\xcd" == iso_crc_a(b"\x50\x00")
    assert crc_a(b"\x93\x70\x01\x02\x03\x04\x04") == iso_crc_a(b"\x93\x70\x01\x02\x03\x04\x04")


def test_every_frame_is_framed_before_transceive_and_startsend_is_cleared_once_it_is_out(chip_rig, clock):
    group = chip_rig.open([0], print)
    chip = chip_rig.chips["r0"]
    chip_rig.place("r0", CARD_7)
    chip.trace = []
    run(group, clock, 0.2)
    trace = writes(chip.trace)
    starts = [i for i, (_, register, value) in enumerate(trace) if register == COMMAND and value == TRANSCEIVE]
    assert len(starts) >= 2 * 6  # WUPA, 2 x (anticollision, select), HLTA: a poll (frames get lost too)
    for i in starts:
        framing = [value for _, register, value in trace[i - 2:i] if register == BIT_FRAMING]
        assert framing and not framing[-1] & START_SEND, "BitFramingReg must be written before Transceive"
        after = [(register, value) for _, register, value in trace[i + 1:] if register in (BIT_FRAMING, COMMAND)]
        assert after[0] == (BIT_FRAMING, START_SEND | framing[-1]), "then StartSend, with the same TxLastBits"
        assert after[1] == (BIT_FRAMING, framing[-1]), "StartSend cleared once the frame is out"


def test_the_first_request_after_the_antenna_goes_on_waits_for_the_iso_guard_time(chip_rig, clock):
    specs = chip_rig.specs([0])
    chip = chip_rig.chips["r0"]
    chip.trace = []
    group = open_readers(specs, print, timing=TIMING, clock=clock, sleep=clock.sleep, pin_factory=chip_rig.factory)
    group.settle(1.0, clock.sleep)
    trace = writes(chip.trace)
    field_on = next(at for at, register, value in trace if register == TX_CONTROL and value & 0x03)
    first_request = next(at for at, register, value in trace if register == BIT_FRAMING and value & START_SEND)
    assert first_request - field_on >= GUARD_S > 0.005


START_UP_S = 2 * OSCILLATOR_S + GUARD_S  # 50 ms after the hard reset, 50 after the soft reset, 5.1 of field


def test_a_start_up_takes_the_sum_of_its_waits_not_a_round_for_each(clock, mock_factory, monkeypatch):
    """Each wait counts from the end of its step (the reset's rising edge, SoftReset, the antenna on), and the
    group's thread wakes when it ends: waiting for the next round instead missed it by the step's own SPI
    time, so each 50 ms wait cost two rounds (a start-up took 250 ms). A card resting on a reader arrives
    after the waits and a poll; one whose reader browns out is polled again after the 0.2 s back-off and a
    start-up."""
    rig = ChipRig(clock, mock_factory, monkeypatch, miss=0, garble=0, noise=0)
    specs = rig.specs([0, 1, 2])
    for chip, uid in zip(rig.chips.values(), (CARD_4, CARD_7, CARD_10)):
        chip.place(FakeCard(uid))
    chip = rig.chips["r0"]
    chip.trace = []
    events = []
    group = open_readers(specs, lambda event: events.append((clock.now, event)), timing=TIMING, clock=clock,
                         sleep=clock.sleep, pin_factory=rig.factory)
    opened = clock.now
    group.run_for(0.5, clock.sleep)
    arrivals = [at - opened for at, event in events if isinstance(event, TagEvent)]
    assert len(arrivals) == 3 and max(arrivals) < START_UP_S + 0.04, arrivals  # and the polls of the cards before
    reads = [at for at, data in chip.trace if data[0] == (VERSION << 1 | 0x80)]
    soft_reset = next(at for at, register, value in writes(chip.trace) if (register, value) == (COMMAND, SOFT_RESET))
    awake = next(at for at, data in chip.trace if data[0] == (COMMAND << 1 | 0x80))
    assert reads[1] - reads[0] >= OSCILLATOR_S and awake - soft_reset >= OSCILLATOR_S  # the waits are all kept
    events.clear()
    chip.brown_out()
    dipped = clock.now
    group.run_for(1.0, clock.sleep)
    recovered = [at - dipped for at, event in events if isinstance(event, ReaderStatus) and event.problem is None]
    assert recovered and recovered[0] < POLL + group.readers["r0"].retry_first + START_UP_S + 0.03, recovered
    assert not tags(e for _, e in events)


def test_an_empty_poll_costs_at_most_15_transactions(chip_rig, clock):
    group = chip_rig.open([0], print)
    chip = chip_rig.chips["r0"]
    for _ in range(5):
        before = chip.transactions
        group.poll_once()
        assert chip.transactions - before <= 15  # the stock path costs about 2,000


def test_a_round_of_empty_polls_waits_once_for_every_reader(chip_rig, clock):
    group = chip_rig.open([0, 1, 2, 3, 4], print)
    sleeps = []
    group._sleep = lambda seconds: (sleeps.append(seconds), clock.sleep(seconds))
    for chip in chip_rig.chips.values():
        chip.trace = []
    group.poll_once()
    assert len(sleeps) == 1  # every WUPA goes out, one wait, then each reader looks: the idle cost
    assert all(len(chip.trace) <= 15 for chip in chip_rig.chips.values())


@pytest.mark.parametrize("uid, expected", [(CARD_4, 39), (CARD_7, 59), (CARD_10, 79)])
def test_a_resting_card_is_read_whole_on_every_poll(clock, mock_factory, monkeypatch, strict, uid, expected):
    """SPI transactions (bench/drivers prints them): a frame costs 7 writes to send, a ComIrqReg look and
    StartSend cleared, and a FIFO read if answered: WUPA 10, anticollision and select 10 each a cascade
    level, HLTA 9. The budget leaves each frame one more look (an answer that had not ended at the first)."""
    rig = ChipRig(clock, mock_factory, monkeypatch, strict=strict, miss=0, garble=0, noise=0)
    events = []
    group = rig.open([0], events.append)
    card = rig.place("r0", uid)
    chip = rig.chips["r0"]
    frames = 2 + 2 * len(card.levels)
    for _ in range(5):
        before, answered = chip.transactions, len(card.answered)
        group.poll_once()
        assert chip.transactions - before <= expected + frames
        assert len(card.answered) - answered == 1 + 2 * len(card.levels)  # WUPA, then each level in full
        clock.advance(POLL)
    assert card.state == "halt" and kinds(events) == [("arrived", uid)]


def test_a_resting_card_stays_one_tap_through_lost_and_garbled_frames(clock, mock_factory, monkeypatch, strict):
    rig = ChipRig(clock, mock_factory, monkeypatch, strict=strict, miss=0.15, garble=0.15)
    events = []
    group = rig.open([0], events.append)
    rig.place("r0", CARD_7)
    run(group, clock, 10.0)
    assert kinds(events) == [("arrived", CARD_7)]


def test_hlta_gets_its_1_ms_before_the_next_command_even_polled_as_fast_as_a_profile_may(clock, mock_factory,
                                                                                         monkeypatch):
    """ISO/IEC 14443-3 6.4.3: a card that halts does not answer HLTA, and an answer within 1 ms is its NAK, so
    the reader listens (its timer: 1 ms) before its next command; at poll_ms 5 the next WUPA follows at once."""
    rig = ChipRig(clock, mock_factory, monkeypatch, miss=0, garble=0)
    events = []
    group = open_readers(rig.specs([0]), events.append, timing=ReaderTiming(poll_ms=5, gap_ms=500), clock=clock,
                         sleep=clock.sleep, pin_factory=rig.factory)
    group.settle(1.0, clock.sleep)
    card = rig.place("r0", CARD_7)
    simulate([group.poll_once], clock, 0.005, clock.now + 0.5)
    assert rig.chips["r0"].violations == []
    assert kinds(events) == [("arrived", CARD_7)] and card.state == "halt"


def test_the_next_frame_leaves_a_card_1172_fc_after_its_answer_on_a_fast_bus(clock, mock_factory, monkeypatch):
    """ISO/IEC 14443-3: at least 1172/fc (86 µs) from the end of a card's answer to the reader's next frame. At
    10 MHz and with no time per transfer, the register writes in between take less than that."""
    rig = ChipRig(clock, mock_factory, monkeypatch, bus=FakeBus(clock, transaction_cost=0), miss=0, garble=0)
    events = []
    group = rig.open([0], events.append, spi_hz=10_000_000)
    rig.place("r0", CARD_10)
    run(group, clock, 0.5)
    assert rig.chips["r0"].violations == []
    assert kinds(events) == [("arrived", CARD_10)]


def test_two_cards_never_give_a_wrong_uid_and_the_resting_card_stays(chip_rig, clock):
    events = []
    group = chip_rig.open([0], events.append)
    chip = chip_rig.chips["r0"]
    first = chip_rig.place("r0", CARD_4)
    run(group, clock, 0.2)
    chip_rig.place("r0", "a1b2c3d5")  # differs from the first in the last bit of the UID part
    chip_rig.place("r0", CARD_7)
    run(group, clock, 3 * GAP)
    assert {e.uid for e in tags(events)} <= {CARD_4, "a1b2c3d5", CARD_7}
    assert tags(events)[0] == TagEvent("r0", CARD_4, "arrived", 0)
    chip.lift(first)
    chip.lift(chip.cards[0])
    run(group, clock, 3 * GAP)
    assert {e.uid for e in tags(events)} <= {CARD_4, "a1b2c3d5", CARD_7}
    assert group.readers["r0"].present == CARD_7


def test_a_collision_keeps_the_resting_card_and_resolves_when_one_is_lifted(clock, mock_factory, monkeypatch, strict):
    rig = ChipRig(clock, mock_factory, monkeypatch, strict=strict, miss=0, garble=0, noise=0)
    events = []
    group = rig.open([0], events.append)
    chip = rig.chips["r0"]
    first = rig.place("r0", CARD_4)
    run(group, clock, 0.2)
    rig.place("r0", CARD_7)
    run(group, clock, 3 * GAP)
    assert kinds(events) == [("arrived", CARD_4)]
    assert said(events) == ["Two cards: one at a time"]  # once, however long they stay
    chip.lift(first)
    run(group, clock, 0.2)
    assert kinds(events) == [("arrived", CARD_4), ("removed", CARD_4), ("arrived", CARD_7)]
    assert len(said(events)) == 1


def test_cards_colliding_in_the_atqa_are_never_one_clean_card_even_if_one_misses_the_anticollision(chip_rig, clock):
    """Two cards with different UID sizes collide in their ATQAs (04 00 and 44 00). If the second then misses
    the anticollision frame, the first answers it cleanly: the ATQA's collision still says two cards."""
    events = []
    group = chip_rig.open([0], events.append)
    chip = chip_rig.chips["r0"]
    chip.place(FakeCard(CARD_4))
    chip.place(FakeCard(CARD_7, deaf_to=bytes([0x93])))
    clock.advance(PLACE_S)
    run(group, clock, 3 * GAP)
    assert kinds(events) == [] and said(events) == ["Two cards: one at a time"]


@pytest.mark.parametrize("frame", [0, 1])
def test_an_atqa_or_a_uid_part_with_a_parity_error_is_not_a_clean_read(chip_rig, clock, frame):
    """ErrorReg's errors in the answer to WUPA (frame 0) count as they do in an anticollision answer (1)."""
    events = []
    group = chip_rig.open([0], events.append)
    chip = chip_rig.chips["r0"]
    chip.disturb("parity", frame=frame)
    chip_rig.place("r0", CARD_4)
    group.poll_once()
    assert kinds(events) == []
    clock.advance(POLL)
    group.poll_once()
    assert kinds(events) == [("arrived", CARD_4)]


def test_why_a_field_is_unreadable_is_logged_with_errorreg_and_collreg_as_the_answer_left_them(chip_rig, clock, caplog):
    """HLTA, a Transceive, clears ErrorReg and CollReg: they are read with the answer, before it."""
    events = []
    group = chip_rig.open([0], events.append)
    chip_rig.place("r0", CARD_4)
    chip_rig.place("r0", "a1b2c3d5")  # the same ATQA; their UIDs differ in bit 25 of the anticollision answer
    with caplog.at_level(logging.INFO):
        run(group, clock, 2 * GAP)
    assert said(events) == ["Two cards: one at a time"]
    assert any("Two cards" in record.getMessage() and "ErrorReg 0x08, CollReg 0x19" in record.getMessage()
               for record in caplog.records)


def test_a_random_id_is_no_component_not_even_through_a_restart(chip_rig, clock):
    """A 4-byte UID starting 08 is a random ID (ISO/IEC 14443-3; phones, many bank cards), drawn anew each
    time the card is powered: it names no component (a card swapped for it is removed), and a reader's
    restart must not make it a second tap. The players are told once that it is no game piece."""
    events = []
    group = chip_rig.open([0], events.append)
    chip = chip_rig.chips["r0"]
    chip_rig.place("r0", CARD_4)
    run(group, clock, 0.2)
    chip_rig.lift("r0")
    phone = chip.place(FakeCard.random_id(seed=1))
    clock.advance(PLACE_S)
    run(group, clock, GAP + 3 * POLL)
    assert kinds(events) == [("arrived", CARD_4), ("removed", CARD_4)]
    assert said(events) == ["Not a game piece (phone?)"]
    drawn = phone.uid
    broken_by("reset", chip)
    run(group, clock, 2.0)
    assert phone.uid != drawn and phone.uid[0] == 0x08 and phone.answered
    assert kinds(events) == [("arrived", CARD_4), ("removed", CARD_4)]


def test_the_receiver_gain_is_set_per_reader_and_reads_a_weakly_coupled_sticker(chip_rig, clock):
    events = []
    weak_spec, strong_spec = chip_rig.specs([0, 1])
    group = open_readers([dataclasses.replace(weak_spec, gain_db=33), strong_spec], events.append, timing=TIMING,
                         clock=clock, sleep=clock.sleep, pin_factory=chip_rig.factory)
    group.settle(1.0, clock.sleep)
    weak, strong = chip_rig.chips["r0"], chip_rig.chips["r1"]
    assert (weak.regs[RF_CFG], weak.gain_db) == (0x48, 33)  # RxGain 100b, reserved bits as at reset
    assert (strong.regs[RF_CFG], strong.gain_db) == (0x68, 43)  # the default: 110b
    for chip in (weak, strong):
        chip.place(FakeCard(CARD_7, min_gain_db=43))
    clock.advance(PLACE_S)
    run(group, clock, 1.0)
    assert tags(events) == [TagEvent("r1", CARD_7, "arrived", 1)]


# -- faults: a resting card stays one tap, the others play on -------------------------------------

def broken_by(fault, chip):
    """Break `chip` the way `fault` names."""
    if fault == "reset":
        chip.reset_line(False)  # something else pulled its reset line: a hard reset
        chip.reset_line(True)
    elif fault == "brown-out":
        chip.brown_out()
    elif fault == "spi-errors":
        chip.spi_errors = 3
    elif fault == "silent-for-a-while":
        chip.unplug()
    return fault


@pytest.mark.parametrize("fault", ["reset", "brown-out", "spi-errors", "silent-for-a-while"])
def test_a_resting_card_is_one_arrival_and_no_removal_through_a_fault(chip_rig, clock, caplog, fault):
    events = []
    group = chip_rig.open([0], events.append)
    chip = chip_rig.chips["r0"]
    chip_rig.place("r0", CARD_7)
    run(group, clock, 0.3)
    broken_by(fault, chip)
    run(group, clock, 2.0)
    if fault == "silent-for-a-while":
        assert group.problems()["r0"].startswith("/dev/spidev0.0 is not answering")
        chip.plug()
    run(group, clock, 10.0)
    assert group.problems() == {}
    statuses = [e for e in events if isinstance(e, ReaderStatus)]
    assert statuses[0].reader == "r0" and statuses[0].problem and statuses[-1] == ReaderStatus("r0", 1)
    assert kinds(events) == [("arrived", CARD_7)]
    assert any("works again" in record.getMessage() for record in caplog.records)


def resting(rig, clock, uid):
    """Reader r0, opened with `uid` resting on it (None: nothing) and polled: its group, chip and events."""
    events = []
    group = rig.open([0], events.append)
    if uid:
        rig.place("r0", uid)
    run(group, clock, 0.2)
    return group, rig.chips["r0"], events


def reset_pulses(rig):
    """How often reader r0's reset line has changed level."""
    return len(rig.factory.pin(WIRING[0][2]).states)


@pytest.mark.parametrize("card", [None, CARD_7])
def test_an_answer_that_breaks_off_is_polled_again_never_a_restart(chip_rig, clock, card):
    """TAuto stops the timer at an answer's 5th bit; an answer that then breaks off (noise, a card at the edge
    of the field) sets neither RxIRq nor TimerIRq. The chip is working: the poll is made again (HLTA first, so
    that a card woken by it answers the next WUPA), the field is read as it is, and nobody sees a restart."""
    group, chip, events = resting(chip_rig, clock, card)
    pulses = reset_pulses(chip_rig)
    for _ in range(20):
        chip.disturb("broken")  # the next poll's first answer (WUPA's, in an empty field noise) breaks off
        group.poll_once()
        assert group.readers["r0"].present == card
        clock.advance(POLL)
    assert reset_pulses(chip_rig) == pulses and not any(isinstance(e, ReaderStatus) for e in events)
    chip.lift()
    for _ in range(round(GAP / POLL) + 2):
        chip.disturb("broken")
        group.poll_once()
        clock.advance(POLL)
    assert kinds(events) == ([("arrived", card), ("removed", card)] if card else [])  # each poll found it empty


def test_answers_that_break_off_twice_are_an_unreadable_poll_and_a_resting_card_stays(chip_rig, clock):
    group, chip, events = resting(chip_rig, clock, CARD_7)
    pulses = reset_pulses(chip_rig)
    for _ in range(round(2 * GAP / POLL)):
        chip.disturb("broken")  # WUPA's answer
        chip.disturb("broken", frame=2)  # after the HLTA, the second WUPA's
        group.poll_once()
        clock.advance(POLL)
    assert kinds(events) == [("arrived", CARD_7)] and said(events) == ["Tag unreadable: again"]
    assert reset_pulses(chip_rig) == pulses and group.problems() == {}


def test_a_chip_whose_timer_stops_too_is_restarted_and_its_resting_card_stays_one_tap(chip_rig, clock):
    """Silence, then a timer started anew that does not run out either: the chip's clock stopped. That, or a
    register check that fails (a reset chip: TAuto and the antenna off), is a fault, and the reader restarts."""
    group, chip, events = resting(chip_rig, clock, CARD_7)
    pulses = reset_pulses(chip_rig)
    chip.stall()
    run(group, clock, 1.0)
    statuses = [e for e in events if isinstance(e, ReaderStatus)]
    assert [e.short for e in statuses] == ["restarting", None] and "clock stopped" in statuses[0].problem
    assert reset_pulses(chip_rig) == pulses + 2  # one hard reset
    assert kinds(events) == [("arrived", CARD_7)]


def test_an_overheated_reader_is_a_fault_so_named_and_its_resting_card_stays_one_tap(chip_rig, clock):
    """ErrorReg's TempErr: the chip switched its antenna off, which is no evidence of an empty field. The
    reader is failing ("overheating"), retried with the back-off, and works again once the chip is cool."""
    events = []
    group = chip_rig.open([0], events.append)
    chip = chip_rig.chips["r0"]
    chip_rig.place("r0", CARD_7)
    run(group, clock, 0.3)
    pulses = len(chip_rig.factory.pin(WIRING[0][2]).states)
    chip.overheat()
    run(group, clock, 3.0)
    assert "overheating" in group.problems()["r0"]
    assert [e.short for e in events if isinstance(e, ReaderStatus)] == ["overheating"]
    assert len(chip_rig.factory.pin(WIRING[0][2]).states) - pulses <= 2 * 4  # restarted at 0.2, 0.6, 1.4 and 3.0 s
    chip.cool_down()
    run(group, clock, 6.0)
    assert group.problems() == {} and events[-1] == ReaderStatus("r0", 1)
    assert kinds(events) == [("arrived", CARD_7)]


def test_a_card_put_on_a_failed_reader_arrives_once_it_works_again(chip_rig, clock):
    events = []
    group = chip_rig.open([0], events.append)
    chip = chip_rig.chips["r0"]
    chip.unplug()
    run(group, clock, 1.0)
    chip.place(FakeCard(CARD_4))
    run(group, clock, 1.0)
    chip.plug()
    run(group, clock, 6.0)
    assert kinds(events) == [("arrived", CARD_4)]


def test_a_failed_reader_is_retried_with_a_growing_back_off_and_costs_the_others_nothing(chip_rig, clock):
    events = []
    specs = chip_rig.specs([0, 1])
    del chip_rig.bus.chips[0, 1]  # /dev/spidev0.1 is missing: every attempt fails at once
    group = open_readers(specs, events.append, timing=TIMING, clock=clock, sleep=clock.sleep,
                         pin_factory=chip_rig.factory)
    group.settle(1.0, clock.sleep)
    spent = []
    failing = group.readers["r1"]
    for _ in range(round(30.0 / POLL)):
        started = clock.now
        failing.poll()
        spent.append(clock.now - started)
        group.readers["r0"].poll()
        clock.advance(POLL)
    attempts = [at for at, bus, device in chip_rig.bus.attempts if (bus, device) == (0, 1)]
    gaps = [b - a for a, b in zip(attempts, attempts[1:])]
    wanted = [0.2, 0.4, 0.8, 1.6, 3.2] + [5.0] * (len(gaps) - 5)
    assert len(gaps) >= 8 and all(w <= g < w + POLL + 0.01 for g, w in zip(gaps, wanted)), gaps
    assert max(spent) == 0  # no SPI transfer, no sleep: the others' polls are not delayed


def test_an_unplugged_reader_costs_the_other_reader_no_tap_and_no_delay(clock, mock_factory, monkeypatch, strict):
    def latencies(unplugged: bool) -> list[float]:
        """20 taps on r0 at odd moments, polled as the group's thread polls; r1 (a card resting on
        it) is unplugged for 3 s of them when `unplugged`. The delay of each arrival after its tap."""
        rig = ChipRig(clock, mock_factory, monkeypatch, strict=strict, miss=0, garble=0, noise=0)
        events = []
        group = rig.open([0, 1], lambda event: events.append((clock.now, event)))
        resting = rig.place("r1", CARD_4)
        start = clock.now + 0.3
        taps = [(start + 0.7 * i + 0.013 * i % 0.05, f"{i:08x}") for i in range(20)]
        actions = [(at, lambda at, uid=uid: rig.chips["r0"].place(FakeCard(uid), at=at)) for at, uid in taps]
        actions += [(at + 0.2, lambda at: rig.lift("r0")) for at, _ in taps]
        if unplugged:
            actions += [(start + 2.0, lambda at: rig.chips["r1"].unplug()),
                        (start + 5.0, lambda at: rig.chips["r1"].plug())]
        simulate([group.poll_once], clock, POLL, start + 0.7 * 20 + 6.0, actions)
        arrivals = [(at, e.uid) for at, e in events if isinstance(e, TagEvent) and e.kind == "arrived" and e.reader == "r0"]
        assert [uid for _, uid in arrivals] == [uid for _, uid in taps]  # all 20, in order
        assert [(e.kind, e.uid) for _, e in events if isinstance(e, TagEvent) and e.reader == "r1"] == [("arrived", CARD_4)]
        assert resting.state != "off" and any(isinstance(e, ReaderStatus) for _, e in events) == unplugged
        group.close()
        mock_factory.reset()
        return [arrived - tapped for (arrived, _), (tapped, _) in zip(arrivals, taps)]

    healthy, faulty = latencies(False), latencies(True)
    assert max(faulty) <= POLL + GUARD_S + 0.01  # the next round after the card powered up
    assert max(f - h for f, h in zip(faulty, healthy)) < 0.001


@pytest.mark.parametrize("pull_up", [True, False], ids=["pulled-up", "floating"])
def test_the_reset_line_is_pulsed_at_start_and_a_closed_reader_stays_powered_down_its_field_off(
        clock, mock_factory, monkeypatch, strict, pull_up):
    """Once released, gpiozero leaves the reset line an input without a pull: a module's pull-up takes it high.
    The chip, put in soft power-down before, stays so (its field off, microamps) on either wiring, as long
    as a floating line stays where it was."""
    rig = ChipRig(clock, mock_factory, monkeypatch, strict=strict, pull_up=pull_up)
    group = rig.open([0], print)
    chip = rig.chips["r0"]
    chip.place(FakeCard(CARD_4))
    pin = mock_factory.pin(WIRING[0][2])
    assert pin.function == "output" and pin.state is True
    assert [state.state for state in pin.states[-2:]] == [False, True]  # a hard reset pulse
    run(group, clock, 0.2)
    assert chip.field
    group.close()
    assert pin.function == "input" and pin.state is True  # released high, never pulsed low
    assert chip.power == "soft power-down" and not chip.field and chip.cards[0].state == "off"
    assert all(spi.closed for spi in rig.bus.opened)


@pytest.mark.parametrize("pull_up", [True, False], ids=["pulled-up", "floating"])
def test_a_reader_closed_while_starting_or_failing_is_held_in_hard_power_down_until_released(
        clock, mock_factory, monkeypatch, pull_up):
    """A chip that does not confirm its soft power-down (here it is still starting: its writes are lost) has
    its reset line driven low before the line is released: a module's pull-up then resets it, with the
    antenna off; a floating line stays low."""
    rig = ChipRig(clock, mock_factory, monkeypatch, pull_up=pull_up)
    group = open_readers(rig.specs([0]), print, timing=TIMING, clock=clock, sleep=clock.sleep,
                         pin_factory=rig.factory)
    group.poll_once()  # the hard reset: the chip's oscillator is starting
    group.close()
    pin, chip = mock_factory.pin(WIRING[0][2]), rig.chips["r0"]
    assert [state.state for state in pin.states[-3:]] == ([True, False, True] if pull_up else [False, True, False])
    assert chip.power == ("running" if pull_up else "hard power-down") and not chip.field


# -- messages for the first hour on a Pi -----------------------------------------------------------

def problem_of(chip_rig, clock, break_it, seats=(0,), events=None):
    """The readers on `seats`, opened once `break_it()` broke something, and their ReaderStatus events."""
    events = [] if events is None else events
    specs = chip_rig.specs(list(seats))
    break_it()
    group = open_readers(specs, events.append, timing=TIMING, clock=clock, sleep=clock.sleep,
                         pin_factory=chip_rig.factory)
    group.settle(1.0, clock.sleep)
    return group, [e for e in events if isinstance(e, ReaderStatus)]


def test_a_missing_spi_device_says_how_to_enable_the_bus_and_the_others_keep_reading(chip_rig, clock):
    events = []
    group, statuses = problem_of(chip_rig, clock, lambda: chip_rig.bus.chips.pop((1, 0)), seats=(0, 1, 2),
                                 events=events)
    assert list(group.problems()) == ["r2"]
    assert "/dev/spidev1.0 does not exist" in group.problems()["r2"] and "dtoverlay=spi1-3cs" in group.problems()["r2"]
    assert statuses == [ReaderStatus("r2", 3, group.problems()["r2"], "SPI1 is off")]
    chip_rig.place("r1", CARD_4)
    run(group, clock, 0.2)
    assert tags(events) == [TagEvent("r1", CARD_4, "arrived", 1)]


def test_permission_denied_names_the_group_the_user_lacks(chip_rig, clock):
    group, statuses = problem_of(chip_rig, clock, lambda: chip_rig.bus.refuse.update({(0, 0): 13}))
    problem = group.problems()["r0"]
    assert "permission denied on /dev/spidev0.0" in problem and "not in group spi" in problem
    assert "sudo usermod -aG spi" in problem and statuses[0].short == "no permission"


@pytest.mark.parametrize("value", [0x00, 0xFF])
def test_a_silent_chip_names_every_wire_to_check(chip_rig, clock, value):
    def silence():
        chip_rig.chips["r0"].version = value

    group, statuses = problem_of(chip_rig, clock, silence)
    problem = group.problems()["r0"]
    assert f"version register reads 0x{value:02X}" in problem
    for wire in ("SCK to GPIO11 (pin 23)", "MOSI to GPIO10 (pin 19)", "MISO to GPIO9 (pin 21)",
                 "SDA (its chip select) to GPIO8 (pin 24)", "RST to GPIO25 (pin 22)"):
        assert wire in problem
    assert statuses[0].short == "not answering"


def test_a_clone_is_named_once_and_still_read(chip_rig, clock, caplog):
    events = []
    specs = chip_rig.specs([0])
    chip_rig.chips["r0"].version = 0x88
    group = open_readers(specs, events.append, timing=TIMING, clock=clock, sleep=clock.sleep,
                         pin_factory=chip_rig.factory)
    with caplog.at_level(logging.WARNING):
        group.settle(1.0, clock.sleep)
        chip_rig.chips["r0"].brown_out()  # restarted: the clone is not named twice
        run(group, clock, 2.0)
    assert group.readers["r0"].version == "FM17522 clone (0x88)"
    named = [r.getMessage() for r in caplog.records if "0x88" in r.getMessage()]
    assert len(named) == 1 and "not an NXP MFRC522" in named[0] and "gain_db" in named[0]
    chip_rig.place("r0", CARD_4)
    run(group, clock, 0.2)
    assert kinds(events) == [("arrived", CARD_4)]


def test_a_reset_line_wired_elsewhere_is_named(chip_rig, clock, caplog):
    chip_rig.bus.add_chip(0, 0, strict=chip_rig.chip_options["strict"])  # its NRSTPD is not on GPIO25
    clock.advance(0.1)
    group = open_readers([ReaderSpec("r0", "mfrc522", 0, 0, 0, 25)], print, timing=TIMING, clock=clock,
                         sleep=clock.sleep, pin_factory=chip_rig.factory)
    with caplog.at_level(logging.WARNING):
        group.settle(1.0, clock.sleep)
    assert group.problems() == {}
    assert any("RST is not wired to that GPIO" in r.getMessage() and "GPIO25 (pin 22)" in r.getMessage()
               for r in caplog.records)


def test_no_spidev_library_is_a_reader_problem_not_a_crash(clock, mock_factory, monkeypatch):
    monkeypatch.setitem(sys.modules, "spidev", None)
    events = []
    group = open_readers([ReaderSpec("a", "mfrc522", rst=25)], events.append, clock=clock, pin_factory=mock_factory)
    group.poll_once()
    assert "pip install spidev" in group.problems()["a"]
    assert events[0].short == "spidev missing"


def test_a_busy_reset_gpio_is_a_reader_problem_not_a_crash(chip_rig, clock):
    holder = Button(25, pin_factory=chip_rig.factory)  # another device holds the reset line's GPIO
    group, statuses = problem_of(chip_rig, clock, lambda: None)
    assert "GPIO25 (pin 22)" in group.problems()["r0"] and statuses[0].short == "GPIO busy"
    holder.close()


# -- the stock mfrc522 path, for comparison (skipped when the package is absent) -----------------

needs_stock = pytest.mark.skipif(
    importlib.util.find_spec("mfrc522") is None,
    reason="stock mfrc522 not installed: `.venv/bin/pip install --no-deps mfrc522==0.0.7` to compare with it")


@needs_stock
def test_the_stock_simple_mfrc522_path_costs_thousands_per_empty_poll_and_truncates_7_byte_uids(clock, strict):
    bus = FakeBus(clock)
    chip = bus.add_chip(0, 0, strict=strict, miss=0, garble=0, noise=0)
    clock.advance(0.1)  # the module was powered long before
    with stock_mfrc522(bus) as (mfrc522, gpio):
        reader = mfrc522.SimpleMFRC522()
        before = chip.transactions
        assert reader.read_id_no_block() is None and chip.transactions - before > 1900
        chip.place(FakeCard(CARD_7))
        clock.advance(PLACE_S)
        result = reader.read_id_no_block()
        assert result.to_bytes(5, "big").hex() == "8804a1b29f"  # cascade tag, 3 UID bytes, BCC: not the UID
        assert reader.read_id_no_block() is None  # REQA: a resting card every other poll
        reader.READER.Close_MFRC522()
        assert gpio.cleanups == 1  # the global GPIO.cleanup() that our back end never calls
