"""The recorded demos still play to their recorded end (re-record with tests/e2e/record_demos.py
after changing the table's questions)."""

import io

import pytest

from firmware import demo


@pytest.mark.parametrize("game", demo.demo_games())
def test_recorded_demo_plays_to_the_end(game):
    out = io.StringIO()
    assert demo.run(game, out) == 0, out.getvalue()[-2000:]
    assert "Winner:" in out.getvalue()


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
