"""The recorded demos still play to their recorded end (re-record with tests/e2e/record_demos.py
after changing the table's questions)."""

import io
import re

import pytest

from firmware import demo, enrolment, tagfile
from firmware.screens import Screen
from firmware.views import ScoreView


#: an id where a player reads words: "province-3", "agra-2", "province(s)"
RAW = re.compile(r"\b(province|agra)-\d|\(s\)")
#: the inputs of the table: what the scoreboard's line of what the table waits for names
INPUTS = re.compile(r"\b(tap|ok|pass|withdraw|next|undo)\b")


@pytest.mark.parametrize("game", demo.demo_games())
def test_recorded_demo_plays_to_the_end_in_words_a_player_reads(game, monkeypatch):
    """The whole game played, and every screen on the way: no raw id, what the table waits for names
    the button or tap that answers it, and the top line holds the title and the phase whole."""
    shown, do = [], demo.VirtualTime.do

    def watched(self, step):
        do(self, step)
        shown.append(self.app.loop.table.view())

    monkeypatch.setattr(demo.VirtualTime, "do", watched)
    out = io.StringIO()
    assert demo.run(game, out) == 0, out.getvalue()[-2000:]
    assert "Winner:" in out.getvalue()
    screen = Screen()
    for view in shown:
        assert not RAW.search(repr(view)), view
        if isinstance(view, ScoreView):
            assert INPUTS.search(view.prompt), view.prompt
            title, phase = screen.heading(view)
            assert len(title) + 1 + len(phase) <= screen.top and view.phase.startswith(phase), view


@pytest.mark.parametrize("game", demo.demo_games())
def test_every_demo_tag_file_is_its_manifest_exactly_named_as_enrolment_names_it(game):
    """One tag for every manifest slot and no other, each with the slot's kind, label ("Tiles:
    colour-3 4/10") and known fields: the virtual table lists the whole game, in one naming."""
    entries = tagfile.parse(demo.DEMOS.joinpath(f"{game}.tags.toml").read_text(encoding="utf-8"), game)
    slots = {slot.id: slot for slot in enrolment.slots(game)}
    by_id = {entry.descriptor["id"]: entry for entry in entries.values()}
    assert len(by_id) == len(entries) and sorted(by_id) == sorted(slots)
    for ident, entry in by_id.items():
        slot = slots[ident]
        assert (entry.game, entry.kind, entry.label) == (game, slot.group.kind, slot.label), entry
        assert {k: entry.descriptor.get(k) for k in slot.group.known} == slot.group.known, entry


def test_the_demo_tag_files_can_all_be_enrolled_at_once():
    """`make run` enrols every demo's tags: no UID in two files."""
    uids = [uid for game in demo.demo_games()
            for uid in tagfile.parse(demo.DEMOS.joinpath(f"{game}.tags.toml").read_text(encoding="utf-8"), game)]
    assert len(uids) == len(set(uids))


def test_into_a_file_the_demo_prints_a_score_table_per_round_not_frames():
    out = io.StringIO()  # not a terminal
    assert demo.run("thurn_und_taxis", out) == 0
    text = out.getvalue()
    assert "After Round 1:" in text and "unplaced_houses" in text
    assert "\u2800" not in text and "┌" not in text  # no braille frames


def test_ctrl_c_stops_the_demo_cleanly(monkeypatch, capsys):
    def interrupted(self, step):
        raise KeyboardInterrupt

    monkeypatch.setattr(demo.VirtualTime, "do", interrupted)
    assert demo.run("mongols", io.StringIO()) == 130
    assert "demo stopped" in capsys.readouterr().err


def test_every_game_has_a_demo():
    import engines

    assert demo.demo_games() == engines.names()
