"""The panels on the counted I2C wire: luma's real devices and i2c interface over a counting bus,
the controllers' RAM rebuilt from the bytes by models written from the datasheets.

Only what changed is sent; the whole frame goes at set-up, after a fault and every REFRESH_S; what the
panel holds is always the frame shown; dim, off and the stopped panel's later switch-off."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageDraw

from drivers.display import DisplaySpec, open_display
from drivers.display.panel import REFRESH_S, off_after_stop
from drivers.display.pages import PAGES
from firmware.screens import Screen
from firmware.views import Row, ScoreView

from .i2c_oled import CountingBus, PanelError, Transaction, panel_on, wired

# luma.oled 3.16 still calls Image.getdata (at set-up, clearing the panel), which Pillow 13 deprecates.
pytestmark = pytest.mark.filterwarnings("ignore:Image.Image.getdata is deprecated:DeprecationWarning")

PANELS = ("ssd1306", "sh1106")
#: one whole frame on the wire as luma's own devices send it: SSD1306, the column and page window
#: (2 + 6 bytes) and 1,024 bytes of data (2 + 1024); SH1106, per page the position (2 + 3) and 128 bytes (2 + 128)
WHOLE = {"ssd1306": 8 + 1026, "sh1106": 8 * (5 + 130)}


def wire(transactions: list[Transaction]) -> int:
    return sum(t.wire_bytes for t in transactions)


def scoreboard(totals: tuple[int, ...]) -> Image.Image:
    rows = tuple(Row(name, total, current=seat == 1) for seat, (name, total) in enumerate(zip(("Ana", "Ben", "Cy"), totals)))
    return Screen().render(ScoreView("Thurn und Taxis", "Round 3", rows, "Ben: lay a card", ("Ana: Ulm",)))


def random_frame(draw_ops) -> Image.Image:
    image = Image.new("1", (128, 64))
    draw = ImageDraw.Draw(image)
    for x, y, w, h, fill in draw_ops:
        draw.rectangle((x, y, x + w, y + h), fill=255 if fill else 0)
    return image


class Wired:
    """A panel display over a counting bus, with the controller model listening on the wire."""

    def __init__(self, driver: str, clock=None, **spec):
        self.bus = CountingBus()
        self.model = panel_on(self.bus, driver)
        options = {"clock": clock, "sleep": clock.sleep} if clock else {}
        with wired(self.bus):
            self.display = open_display(DisplaySpec(driver=driver, **spec), **options)

    def show(self, image: Image.Image) -> list[Transaction]:
        mark = self.bus.mark()
        with wired(self.bus):
            self.display.show(image)
        return self.bus.since(mark)


@pytest.mark.parametrize("driver", PANELS)
def test_the_model_rebuilds_what_luma_itself_sends(driver):
    """The datasheet models against the reference: luma's own devices, whole frames."""
    from luma.core.interface.serial import i2c
    from luma.oled.device import sh1106, ssd1306

    bus = CountingBus()
    model = panel_on(bus, driver)
    with wired(bus):
        device = {"ssd1306": ssd1306, "sh1106": sh1106}[driver](i2c(port=1, address=0x3C))
    frame = scoreboard((12, 7, 30))
    mark = bus.mark()
    device.display(frame)
    assert wire(bus.since(mark)) == WHOLE[driver]
    assert model.matches(frame) and model.on


@pytest.mark.parametrize("driver", PANELS)
def test_the_first_frame_goes_whole_then_a_score_change_sends_only_the_pages_it_touched(driver):
    panel = Wired(driver)
    before, after = scoreboard((12, 7, 30)), scoreboard((12, 9, 30))
    assert wire(panel.show(before)) == WHOLE[driver] and panel.model.matches(before)
    sent = panel.show(after)
    assert panel.model.matches(after)
    changed = {page for page in range(PAGES)
               if before.crop((0, 8 * page, 128, 8 * page + 8)).tobytes() != after.crop((0, 8 * page, 128, 8 * page + 8)).tobytes()}
    commands = [t.payload[1:] for t in sent if not t.data]
    if driver == "ssd1306":
        pages = {page for c in commands for page in range(c[4], c[5] + 1)}  # 21h c0 c1 22h p0 p1
        assert all(c[0] == 0x21 and c[3] == 0x22 for c in commands)
    else:
        pages = {c[0] - 0xB0 for c in commands}  # B0h+page, column low, column high
    assert pages == changed == {2}
    assert wire(sent) < WHOLE[driver] // 20
    assert wire(panel.show(after)) == 0  # the same frame again: nothing to send


def test_the_ssd1306_model_refuses_a_page_mode_write_that_relies_on_a_narrow_column_window():
    """The datasheet does not say whether a 21h window bounds the pointer in page mode: a transfer
    relying on either reading fails here (as the page-mode switch itself must not)."""
    from .i2c_oled import Ssd1306

    model = Ssd1306()
    model.feed(Transaction(0x3C, bytes([0x00, 0x20, 0x00, 0x21, 10, 20, 0x22, 0, 7])))
    model.feed(Transaction(0x3C, bytes([0x40, 1, 2, 3])))
    model.feed(Transaction(0x3C, bytes([0x00, 0x20, 0x02, 0xB3, 0x05, 0x10])))
    with pytest.raises(PanelError, match="column window 10..20"):
        model.feed(Transaction(0x3C, bytes([0x40, 0xFF])))
    model.feed(Transaction(0x3C, bytes([0x00, 0x21, 0, 127, 0xB3, 0x05, 0x10])))
    model.feed(Transaction(0x3C, bytes([0x40, 0xFF])))
    assert model.ram[3][5] == 0xFF and model.ram[0][10:13] == bytes([1, 2, 3])


def test_the_ssd1306_sends_single_page_runs_in_page_mode_and_a_whole_frame_in_horizontal_mode():
    """Two text lines changed at opposite ends: page runs (3 command bytes each) beat column/page
    windows (6 each) once the switch (20h 02h, after the full column window) is paid; the periodic
    whole frame goes back to horizontal mode (20h 00h) for its single write."""
    panel = Wired("ssd1306")
    before = scoreboard((12, 7, 30))
    panel.show(before)
    after = before.copy()
    ImageDraw.Draw(after).rectangle((0, 40, 3, 47), fill=255)
    ImageDraw.Draw(after).rectangle((120, 56, 127, 63), fill=255)
    ImageDraw.Draw(after).rectangle((60, 24, 62, 31), fill=255)
    sent = panel.show(after)
    commands = [t.payload[1:] for t in sent if not t.data]
    assert commands[0] == bytes([0x21, 0, 127, 0x20, 0x02, 0xB3, 0x0C, 0x13])  # page 3, column 60
    assert commands[1:] == [bytes([0xB5, 0x00, 0x10]), bytes([0xB7, 0x08, 0x17])]
    data = 3 + 4 + 8
    assert wire(sent) == 3 * (2 + 3 + 2) + 5 + data < 3 * (2 + 6 + 2) + data  # runs + switch < windows
    assert panel.model.matches(after)
    panel.display.device.forget()
    whole = panel.show(before)
    assert whole[0].payload[1:3] == bytes([0x20, 0x00]) and wire(whole) == WHOLE["ssd1306"] + 2
    assert panel.model.matches(before) and panel.model.mode == 0
    assert wire(panel.show(after)) == wire(sent)  # and into page mode again


@pytest.mark.parametrize("driver", PANELS)
@settings(max_examples=25, deadline=None)
@given(frames=st.lists(st.lists(st.tuples(st.integers(0, 127), st.integers(0, 63), st.integers(0, 40),
                                          st.integers(0, 20), st.booleans()), max_size=6), min_size=2, max_size=6),
       rotate=st.sampled_from([0, 180]))
def test_the_panel_always_holds_the_frame_shown_and_never_costs_more_than_a_whole_one(driver, frames, rotate):
    panel = Wired(driver, rotate=rotate)
    for ops in frames:
        frame = random_frame(ops)
        assert wire(panel.show(frame)) <= WHOLE[driver]
        assert panel.model.matches(frame.rotate(rotate))
    assert panel.model.undefined in ([], [0x20, 0x8D])  # only luma's set-up of an SH1106 sends those


@pytest.mark.parametrize("driver", PANELS)
def test_after_a_bus_fault_the_whole_frame_is_sent_again(driver, clock):
    panel = Wired(driver, clock)
    panel.show(scoreboard((1, 2, 3)))
    panel.bus.failures = 1  # Errno 121 on the next transaction: luma's DeviceNotFoundError
    sent = panel.show(scoreboard((1, 5, 3)))
    assert not panel.display.failed
    assert panel.model.matches(scoreboard((1, 5, 3)))
    last_frame = sent[-(1 if driver == "ssd1306" else 8) * 2:]  # the re-opened device's first frame
    assert wire(last_frame) == WHOLE[driver]


@pytest.mark.parametrize("driver", PANELS)
def test_the_whole_frame_goes_again_every_refresh_period_on_a_tick_never_on_a_new_frame(driver, clock):
    panel = Wired(driver, clock)
    panel.show(scoreboard((1, 2, 3)))
    clock.advance(REFRESH_S / 2)
    assert 0 < wire(panel.show(scoreboard((1, 4, 3)))) < WHOLE[driver] // 10
    mark = panel.bus.mark()
    panel.display.tick()
    assert panel.bus.since(mark) == []  # not due yet
    clock.advance(REFRESH_S / 2)
    assert wire(panel.show(scoreboard((1, 6, 3)))) < WHOLE[driver] // 10  # a tap's frame stays small...
    mark = panel.bus.mark()
    panel.display.tick()  # ...the refresh rides on the idle tick: the same frame, whole
    assert wire(panel.bus.since(mark)) == WHOLE[driver] and panel.model.matches(scoreboard((1, 6, 3)))
    mark = panel.bus.mark()
    panel.display.tick()
    assert panel.bus.since(mark) == []  # and not again until the next period
    clock.advance(REFRESH_S)
    panel.display.tick()
    assert wire(panel.bus.since(mark)) == WHOLE[driver]


@pytest.mark.parametrize("driver", PANELS)
def test_dim_off_and_lit_again_keep_the_frame_and_survive_a_re_initialisation(driver, clock):
    panel = Wired(driver, clock, dim_contrast=5)
    lit = {"ssd1306": 0xCF, "sh1106": 0x7F}[driver]
    frame = scoreboard((3, 2, 1))
    panel.show(frame)
    assert panel.model.on and panel.model.contrast == lit
    panel.display.set_level("dim")
    assert panel.model.on and panel.model.contrast == 5
    panel.bus.failures = 1  # the next frame fails: the device is set up again, and dimmed again
    panel.show(scoreboard((3, 2, 4)))
    assert panel.model.contrast == 5 and panel.model.matches(scoreboard((3, 2, 4)))
    mark = panel.bus.mark()
    panel.display.set_level("off")
    assert [t.payload for t in panel.bus.since(mark)] == [bytes([0x00, 0xAE])]  # dark, its memory kept
    assert not panel.model.on and panel.model.matches(scoreboard((3, 2, 4)))
    panel.display.set_level("on")
    assert panel.model.on and panel.model.contrast == lit and panel.model.matches(scoreboard((3, 2, 4)))


def test_the_profile_contrast_is_the_lit_one():
    panel = Wired("ssd1306", contrast=0x60)
    assert panel.model.contrast == 0x60


@pytest.mark.parametrize("driver", PANELS)
def test_the_stopped_panel_is_turned_off_later_without_clearing_it(driver):
    panel = Wired(driver, dim_contrast=5)
    paused = scoreboard((9, 9, 9))
    panel.show(paused)
    panel.display.set_level("dim")
    panel.display.close(blank=False)
    assert panel.model.on and panel.model.matches(paused)
    slept: list[float] = []
    mark = panel.bus.mark()
    with wired(panel.bus):
        said = off_after_stop(DisplaySpec(driver=driver, stopped_off_after_min=15), sleep=slept.append)
    assert slept == [15 * 60] and "turned off 15 min after" in said
    assert [t.payload for t in panel.bus.since(mark)] == [bytes([0x00, 0xAE])]  # no set-up, no clearing
    assert not panel.model.on and panel.model.matches(paused)


@pytest.mark.parametrize("spec", [DisplaySpec(driver="ssd1306", stopped_off_after_min=0),
                                  DisplaySpec(driver="ssd1306", on_stop="blank"), DisplaySpec(driver="terminal")])
def test_panel_off_leaves_alone_what_the_profile_does_not_ask_it_to_turn_off(spec):
    bus = CountingBus()
    with wired(bus):
        said = off_after_stop(spec, sleep=lambda s: pytest.fail("waited"))
    assert bus.transactions == [] and ("nothing" in said or "leaves the panel" in said)


def test_a_panel_at_the_other_address_is_named_with_the_profile_line_that_fixes_it():
    bus = CountingBus()
    bus.answering = {0x3D}  # the module's address jumper set to 0x3D; the profile says 0x3C
    with wired(bus):
        display = open_display(DisplaySpec(driver="ssd1306", address=0x3C), attempts=1)
    assert display.failed
    assert "nothing answers at 0x3C on /dev/i2c-1, but a device does at 0x3D: set address = 0x3D in [display]" in display.error
    bus.answering = set()  # nobody at all: luma's own word
    with wired(bus):
        display = open_display(DisplaySpec(driver="ssd1306", address=0x3C), attempts=1)
    assert "I2C device not found on address: 0x3C" in display.error


def test_panel_off_names_a_panel_that_does_not_answer():
    with pytest.raises(OSError, match="ssd1306 on /dev/i2c-97 at 0x3C"):
        off_after_stop(DisplaySpec(driver="ssd1306", port=97), sleep=lambda s: None)
