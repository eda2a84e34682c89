"""Whole games of every game through the mocked hardware (mock readers, MockFactory buttons, dummy
display) and the real loop, on fakeredis and on a real redis-server: the final scores equal the
engine's replay of the exported journal."""

import json

import pytest

import engines
from firmware.journal import Journal
from firmware.store import connect

from .autopilot import Autopilot
from .games import NAMES, bot_game, components, enrol
from .rig import Rig


def play(url: str, name: str, n_players: int, options: dict, seed: int, *, via_home: bool = True) -> Rig:
    actions = bot_game(name, n_players, options, seed)
    rig = Rig(url)
    uids = enrol(rig.table.tags, components(name, actions))
    if via_home:
        rig.choose(engines.get(name).title)
        rig.choose(f"{n_players} players")
        if name == "mongols":
            rig.choose("Yes" if options["dice"] else "No")
        rig.choose("Hints on")
    else:
        rig.table.new_game(name, NAMES[:n_players], options)
    Autopilot(rig.table, rig, lambda d: uids[d["id"]]).play(actions)
    session = rig.table.session
    assert session.game.is_over(session.state) and session.options == {**session.game.option_defaults, **options}
    exported = json.loads(json.dumps(Journal(connect(url), "t1").load(session.gid).actions))
    replayed = engines.replay(name, session.players, options, exported)
    assert session.game.scores(replayed) == session.game.scores(session.state)
    assert rig.image is not None and rig.image.getbbox() is not None  # the dummy display holds the last frame
    return rig


@pytest.fixture(params=["fakeredis", "redis-server"])
def url(request, memory_url):
    return memory_url if request.param == "fakeredis" else request.getfixturevalue("redis_server").url


def test_thurn_und_taxis(url):
    play(url, "thurn_und_taxis", 3, {}, seed=5).close()


@pytest.mark.parametrize("dice", [False, True])
def test_mongols(url, dice):
    rig = play(url, "mongols", 4, {"dice": dice}, seed=3)
    assert rig.table.session.state.parchment
    rig.close()


@pytest.mark.parametrize("n_players", [2, 4])
def test_maharani(url, n_players):
    play(url, "maharani", n_players, {}, seed=n_players).close()


def test_taj_mahal_five_players_without_a_board(url):
    play(url, "taj_mahal", 5, {}, seed=7).close()


def test_taj_mahal_a_player_alone_in_the_round_plays_the_colour_change_card_on_a_later_turn(memory_url):
    """Seed 14: Ben, alone in round 10 after the others withdrew, plays purple, then yellow with the
    colour change: tapped after his last play, the card starts his next turn instead of joining it."""
    play(memory_url, "taj_mahal", 3, {}, seed=14).close()


def test_taj_mahal_on_a_board(memory_url):
    from tests.engines.bots.taj_mahal import SYNTHETIC_BOARD

    play(memory_url, "taj_mahal", 4, {"board": SYNTHETIC_BOARD}, seed=2, via_home=False).close()
