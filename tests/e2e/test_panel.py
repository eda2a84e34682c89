"""The whole appliance on a real panel's wire: luma's ssd1306/sh1106 over luma's i2c interface over a
counting bus, the controller's RAM rebuilt from the bytes (tests/drivers/i2c_oled.py).

Whole recorded games of every game: the panel holds the table's current screen after every step
and every frame. A slow or stuck wire never delays taps, actions or the journal; a failing one is
retried and the table plays on. An idle table dims, then goes dark, and any input wakes it. A stop
leaves the paused frame dimmed on the panel, for the companion unit to turn off later."""

import contextlib
import threading

import pytest

from drivers.buttons import ButtonEvent
from drivers.display import DisplaySpec, shifted
from drivers.display.panel import off_after_stop
from drivers.readers import TagEvent
from firmware import script, tagfile
from firmware.demo import DEMOS
from firmware.screens import Screen
from firmware.views import MessageView
from tests.drivers.i2c_oled import CountingBus, panel_on, wired

from .rig import Rig

# luma.oled 3.16 still calls Image.getdata (at set-up, clearing the panel), which Pillow 13 deprecates.
pytestmark = pytest.mark.filterwarnings("ignore:Image.Image.getdata is deprecated:DeprecationWarning")

GAMES = ("taj_mahal", "maharani", "thurn_und_taxis", "mongols")
WAIT_S = 10.0
#: the Thurn und Taxis demo's first steps choose the game and the players
SETUP = 8


@pytest.fixture
def tables():
    """Makes Tables; each is closed after the test, failed or not (its wire patch and threads too)."""
    made: list[Table] = []

    def make(*args, **kwargs) -> "Table":
        made.append(Table(*args, **kwargs))
        return made[-1]

    yield make
    for table in reversed(made):
        table.close()


def steps(game: str) -> list[script.Step]:
    return script.parse(DEMOS.joinpath(f"{game}.script").read_text(encoding="utf-8"), f"{game}.script")


class Table:
    """A rig (virtual time) whose display is `driver` on a counted wire, with the panel's model."""

    def __init__(self, url: str, game: str, driver: str = "ssd1306", **display):
        self.bus = CountingBus()
        self.panel = panel_on(self.bus, driver)
        self._wire = contextlib.ExitStack()
        self._wire.enter_context(wired(self.bus))  # also for the re-opens after a fault
        self.rig = Rig(url, display=DisplaySpec(driver=driver, **display))
        self.rig.table.tags.set_many(tagfile.parse(DEMOS.joinpath(f"{game}.tags.toml").read_text(encoding="utf-8"), game))
        self.screen = self.rig.app.display
        self.closing: list = []  # what the test started that must stop first

    def shows_the_table(self) -> bool:
        """The panel holds the table's current view, as drawn and shifted (everything sent by now)."""
        assert self.screen.wait(WAIT_S)
        drawn = self.rig.app.loop.screen.render(self.rig.table.view())
        return self.panel.matches(shifted(drawn, self.screen.offset))

    def play(self, lines: list[script.Step]) -> None:
        for step in lines:
            self.rig.hands.do(step)

    def entries(self) -> list:
        session = self.rig.table.session
        return self.rig.table.journal.entries(session.gid) if session else []

    def close(self) -> None:
        """Idempotent; a wire still held is released first, so nothing waits on it."""
        self.bus.release()
        while self.closing:
            self.closing.pop()()
        self.rig.close()
        self._wire.close()


def reference_entries(url: str, game: str, lines: list[script.Step]) -> list:
    """What the table journals for `lines` on luma's dummy display."""
    rig = Rig(url, table="reference")
    rig.table.tags.set_many(tagfile.parse(DEMOS.joinpath(f"{game}.tags.toml").read_text(encoding="utf-8"), game))
    for step in lines:
        rig.hands.do(step)
    entries = rig.table.journal.entries(rig.table.session.gid)
    rig.close()
    return entries


@pytest.mark.parametrize("driver", ["ssd1306", "sh1106"])
@pytest.mark.parametrize("game", GAMES)
def test_the_panel_holds_the_screen_at_every_step_of_a_whole_game(tables, memory_url, game, driver):
    table = tables(memory_url, game, driver)
    inner = table.screen.display
    show, wrong = inner._show, []

    def checked(image) -> None:  # runs on the display thread: note, the test asserts below
        show(image)
        if not table.panel.matches(image):
            wrong.append(len(table.bus.transactions))

    inner._show = checked
    for number, step in enumerate(steps(game), start=1):
        table.rig.hands.do(step)
        assert table.shows_the_table(), f"{game} on {driver}: the panel differs from the screen after step {number}"
    session = table.rig.table.session
    assert session.game.is_over(session.state)
    assert wrong == [] and table.panel.errors == [] and table.panel.on


def test_a_wire_taking_100_ms_a_frame_or_stuck_delays_no_tap_and_the_last_frame_is_right(tables, memory_url):
    game, lines = "thurn_und_taxis", steps("thurn_und_taxis")
    quick = lines[SETUP:SETUP + 20]
    assert [step.verb for step in quick].count("tap") >= 5
    expected = reference_entries(memory_url, game, lines[:SETUP + 20])
    table = tables(memory_url, game)
    table.play(lines[:SETUP])
    loop, readers, shown = table.rig.app.loop, table.rig.app.readers.readers, table.screen.shown
    table.bus.slow_s = 0.1
    table.bus.hold()  # the first frame after this waits on the wire until released
    serving = threading.Thread(target=lambda: [None for _ in iter(lambda: loop.step(0.01), False)], name="tablemate-loop")
    serving.start()
    table.closing.append(lambda: (loop.stop(), serving.join(WAIT_S)))
    for step in quick:  # twenty inputs in quick succession, as the drivers would post them
        if step.verb == "tap":
            reader = readers[step.args[0]]
            loop.post(TagEvent(reader.name, step.args[1], "arrived", reader.seat))
        else:
            loop.post(ButtonEvent(step.args[0], "press"))
    assert table.bus.waiting.wait(WAIT_S)  # the display thread is stuck in a transfer...
    deadline = threading.Event()
    while table.entries() != expected and not deadline.wait(0.01):
        pass  # ...and the loop takes every input meanwhile
    assert table.entries() == expected and table.bus.waiting.is_set() and table.screen.shown == shown
    table.bus.release()
    loop.stop()
    serving.join(WAIT_S)
    assert table.shows_the_table()
    assert table.screen.dropped >= 15 and table.screen.shown - shown <= 5  # superseded frames were never sent


def test_a_failing_wire_is_retried_and_the_table_plays_on(tables, memory_url):
    game, lines = "thurn_und_taxis", steps("thurn_und_taxis")
    expected = reference_entries(memory_url, game, lines[:SETUP + 30])
    table = tables(memory_url, game)
    table.play(lines[:SETUP])
    for step in lines[SETUP:SETUP + 15]:  # a flaky wire: each step's first transaction fails
        table.bus.failures = 1
        table.rig.hands.do(step)
        assert table.shows_the_table() and not table.screen.failed
    table.bus.failures = 10_000  # a cable pulled out: the display gives up, the game goes on
    table.play(lines[SETUP + 15:SETUP + 30])
    assert table.screen.failed and "I2C device not found on address: 0x3C" in table.screen.error  # luma's words
    assert table.entries() == expected
    table.bus.failures = 0  # the cable back: the display is tried again within its retry time
    table.rig.step("wait", "31000")
    assert not table.screen.failed and table.shows_the_table()


def test_an_idle_table_dims_then_goes_dark_and_a_tap_wakes_it_and_counts(tables, memory_url):
    game, lines = "thurn_und_taxis", steps("thurn_und_taxis")
    table = tables(memory_url, game, dim_contrast=8, dim_after_min=10, off_after_min=60, shift_every_min=0)
    table.play(lines[:SETUP])
    panel, lit = table.panel, table.panel.contrast
    table.rig.step("wait", str(10 * 60_000 - 5_000))
    assert panel.on and panel.contrast == lit
    table.rig.step("wait", "10000")
    assert panel.on and panel.contrast == 8 and table.shows_the_table()
    table.rig.step("wait", str(50 * 60_000))
    assert not panel.on and table.shows_the_table()  # dark, its memory kept
    before = len(table.entries())
    first_tap = next(step for step in lines[SETUP:] if step.verb == "tap")
    table.rig.hands.do(first_tap)
    assert panel.on and panel.contrast == lit and table.shows_the_table()
    assert len(table.entries()) == before + 1  # the waking tap was played too


def test_a_stop_leaves_the_paused_frame_dimmed_for_the_companion_to_turn_off(tables, memory_url):
    table = tables(memory_url, "thurn_und_taxis", dim_contrast=8)
    table.play(steps("thurn_und_taxis")[:SETUP + 5])
    loop = table.rig.app.loop
    loop.finish()
    table.close()
    paused = Screen().render(MessageView("Paused", ("tablemate stopped", "Memory store: not kept")))  # a memory:// rig
    assert table.panel.on and table.panel.contrast == 8 and table.panel.matches(paused)
    with wired(table.bus):
        off_after_stop(table.rig.app.profile.display, sleep=lambda seconds: None)
    assert not table.panel.on and table.panel.matches(paused)
