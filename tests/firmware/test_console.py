"""The desktop keyboard: typed lines become script steps on the mocked hardware."""

import pytest

from firmware.console import Console
from firmware.script import BadScript, RealTime, Step
from firmware.tagmap import TagEntry
from tests.e2e.rig import Rig


@pytest.fixture
def console(memory_url):
    rig = Rig(memory_url)
    rig.table.tags.set_many({"01000001": TagEntry("thurn_und_taxis", "card", {"id": "ulm-1", "city": "ulm"}, "Ulm 1/3")})
    yield rig, Console(rig.app, RealTime(rig.app))
    rig.close()


def test_letters_are_buttons_and_m_holds_undo(console):
    rig, keys = console
    assert keys.step("w") == Step("press", ("withdraw",), 0)
    assert keys.step("") == Step("press", ("ok",), 0)
    assert keys.step("m") == Step("hold", ("undo", str(rig.app.profile.buttons.hold_ms + 200)), 0)


def test_a_component_id_taps_on_the_reader_of_the_seat_to_play(console):
    rig, keys = console
    rig.table.new_game("thurn_und_taxis", ["Ana", "Ben"], {})
    assert keys.step("ulm-1") == Step("tap", ("seat0", "01000001"), 1)
    assert keys.step("1 ulm-1") == Step("tap", ("seat1", "01000001"), 1)
    assert keys.step("shared 04a1b2c3") == Step("tap", ("shared", "04a1b2c3"), 1)
    assert keys.step("tap seat2 04a1b2c3") == Step("tap", ("seat2", "04a1b2c3"), 1)


@pytest.mark.parametrize("line, message", [("9 ulm-1", "no reader '9'"), ("nowhere-7", "expected 8, 14 or 20 hex digits"), ("press jump", "no button 'jump'")])
def test_what_means_nothing_is_explained(console, line, message):
    _, keys = console
    with pytest.raises(BadScript, match=message):
        keys.step(line)
