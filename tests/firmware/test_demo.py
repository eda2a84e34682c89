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


def test_every_game_has_a_demo():
    import engines

    assert demo.demo_games() == engines.names()
