"""Maharani: every rule of rules/001 and game-log.md section 3, the rule text's examples, boards, random games.

The default board (engines/maharani/board.toml), rows 1..8 top to bottom, columns a..h; the turntable
takes d4 e4 d5 e5 and the corners are absent:

    .  b1 c1 d1 | e1 f1 g1 .       quarter 1: a..d, rows 1-4    quarter 2: e..h, rows 1-4
    a2 b2 c2 d2 | e2 f2 g2 h2      quarter 4: a..d, rows 5-8    quarter 3: e..h, rows 5-8
    a3 b3 c3 d3 | e3 f3 g3 h3
    a4 b4 c4 .  | .  f4 g4 h4
    ------------+------------
    a5 b5 c5 .  | .  f5 g5 h5 ...
"""

import itertools
import tomllib
from importlib import resources

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engines
from engines import IllegalAction
from engines.maharani import load_board_file
from engines.maharani.board import board_of, parse, resolve

from .bots.maharani import SETUPS, Bot
from .playout import apply_junk, assert_refused, json_actions, play_random_game

game = engines.get("maharani")
BOARD = resolve(None)[1]
NAMES = ["Ana", "Ben", "Cy", "Dee"]
_ids = itertools.count()


def tile(colour: str) -> dict:
    return {"id": f"{colour}-{next(_ids)}", "color": colour}


def arranged(n: int = 4, tiles: dict | None = None, artisans: dict | None = None, board=None):
    """A new game with tiles already on the board ({space: colour}) and artisans ({space: (seat, set)})."""
    s = game.start(NAMES[:n], {"board": board} if board is not None else None)
    for space, colour in (tiles or {}).items():
        s.tiles[space] = colour
        s.tile_ids.add(f"pre-{space}")
    for space, owner in (artisans or {}).items():
        s.artisans[space] = owner
        s.reserve[owner[0]][owner[1]] -= 1
    return s


def place_action(s, space, colour, *, frm=None, arrow=False, artisan=None, player=None) -> dict:
    action = {
        "type": "place",
        "player": s.turn if player is None else player,
        "tile": tile(colour),
        "from_quarter": game.board(s).quarter_of[space] if frm is None else frm,
        "space": space,
        "arrow_to_player": arrow,
    }
    if artisan is not None:
        action["artisan"] = artisan
    return action


def place(s, space, colour, **kwargs):
    return game.apply(s, place_action(s, space, colour, **kwargs))


def others(s):
    """Every seat but Ana places a tile in the first empty space of quarter 4 and ends its turn."""
    while s.turn != 0:
        space = next(sp for sp in BOARD.spaces_in[4] if sp not in s.tiles)
        s = end(place(s, space, ("green", "yellow", "white")[len(s.tiles) % 3]))
    return s


def end(s):
    return game.apply(s, {"type": "end_turn", "player": s.turn})


def refresh(s):
    return game.apply(s, {"type": "refresh", "player": s.turn})


def refused(s, action) -> IllegalAction:
    return assert_refused(game, s, action)


def gold(s, seat: int, key: str | None = None) -> int:
    score = game.scores(s)[seat]
    return score.total if key is None else score.breakdown[key]


Q1 = BOARD.spaces_in[1]


# -- the rule text's examples ----------------------------------------------------------------------


def test_example_blue_zone_of_three_worth_three():
    s = arranged(tiles={"c2": "blue"})
    s = place(s, "d1", "blue")  # touches no blue tile
    assert gold(s, 0, "tiles") == 1
    s = place(s, "c1", "blue", frm=2)  # joins c2 and d1: a zone of 3
    assert gold(s, 0, "tiles") == 1 + 3
    assert s.events == ("Ana: +3 gold",)


def test_example_new_artisan_then_a_group_of_two():
    s = place(arranged(), "b2", "orange", arrow=True)
    assert s.artisans["b2"] == (0, 0) and s.reserve[0] == [7]
    assert gold(s, 0, "artisans") == 1
    s = place(end(s), "g6", "red")  # Ben, far away
    s = place(end(s), "c7", "red")  # Cy
    s = place(end(s), "g7", "red")  # Dee
    s = place(end(s), "b3", "blue", arrow=True)  # Ana's second artisan, next to the first
    assert gold(s, 0, "artisans") == 1 + 2
    assert s.events == ("Ana: +1 gold, artisan +2",)


def test_example_artisan_moves_to_the_new_tile_of_its_colour():
    s = arranged(tiles={"b1": "blue", "a2": "orange"}, artisans={"b1": (0, 0), "a2": (0, 0)})
    s = place(s, "d3", "blue", arrow=True)
    assert "b1" not in s.artisans and s.artisans["d3"] == (0, 0) and s.artisans["a2"] == (0, 0)
    assert s.reserve[0] == [6]  # moved, not taken from the reserve
    assert gold(s, 0, "artisans") == 1


def test_example_zone_across_two_quarters_worth_eight_with_its_artisan():
    s = arranged(
        tiles={"c1": "blue", "d1": "blue", "d2": "blue", "f1": "blue", "e2": "orange"},
        artisans={"d1": (0, 0), "e2": (0, 0)},
    )
    s = place(s, "e1", "blue", arrow=True)  # top left of quarter 2
    assert gold(s, 0, "tiles") == 5  # e1 d1 c1 d2 f1, across the border
    assert gold(s, 0, "artisans") == 3  # e1 d1 e2
    assert gold(s, 0) == 8


def test_example_evaluation_five_three_one_none():
    colours = ["blue", "orange", "green", "red", "yellow", "white", "white", "white", "red", "blue", "orange", "green", "blue"]
    tiles = dict(zip(Q1[:13], colours))
    artisans = {space: (0, 0) for space in Q1[:5]}  # Ana: 5, on 5 colours
    artisans.update({space: (1, 0) for space in Q1[9:12]})  # Ben: 3
    artisans[Q1[12]] = (2, 0)  # Cy: 1; Dee none
    s = arranged(tiles=tiles, artisans=artisans)
    s = place(s, Q1[13], "white")
    assert s.evaluated == [] and len(s.artisans) == 9  # evaluated at the end of the turn, not before
    s = end(s)
    assert [gold(s, seat, "quarters") for seat in range(4)] == [18, 9, 4, 0]
    assert s.events[-1] == "Q1 done: Ana 18, Ben 9, Cy 4"
    assert s.artisans == {} and [r[0] for r in s.reserve] == [8, 8, 8, 8]
    assert all(space in s.tiles for space in Q1)  # the tiles stay
    assert s.evaluated == [1] and not game.is_over(s)


def test_example_second_tile_costs_two_at_the_end_of_the_turn():
    s = arranged(tiles={"f6": "red", "g6": "red", "g5": "red"})
    s = place(s, "b2", "blue")
    s = place(s, "f5", "red", frm=3)  # a zone of 4: the marker advances 4
    assert gold(s, 0) == 1 + 4 and gold(s, 0, "second_tiles") == 0
    s = end(s)
    assert gold(s, 0, "second_tiles") == -2 and gold(s, 0) == 3
    assert "Ana: 2nd tile -2" in s.events


def test_example_marker_down_blocks_its_quarter_until_refresh():
    s = place(arranged(), "f6", "red", frm=1)  # quarter 1's tile goes to quarter 3
    assert s.down[0] == [1]
    s = others(end(s))
    assert "Marker Q1" in refused(s, place_action(s, "f7", "red", frm=1)).short
    assert game.prompt(s).options["reach_q1"] == (1,)
    place(s, "a3", "red", frm=1)  # in its own quarter: no marker needed
    s = end(place(s, "f7", "red", frm=2))  # another slot's marker is still up
    assert s.down[0] == [1, 2]
    s = refresh(others(s))
    assert s.down[0] == [] and s.turn == 1 and s.events == ("Ana: markers up",)
    s = place(others(s), "g7", "red", frm=1)
    assert s.down[0] == [1]


# -- placing tiles ---------------------------------------------------------------------------------


def test_tile_in_its_own_quarter_turns_no_marker():
    s = place(arranged(), "b2", "blue")
    assert s.down == [[], [], [], []] and s.tiles["b2"] == "blue"


def test_space_must_be_empty_and_exist():
    s = arranged(tiles={"b2": "blue"})
    assert "taken" in refused(s, place_action(s, "b2", "red")).short
    refused(s, {**place_action(s, "b3", "red"), "space": "z9"})
    refused(s, {**place_action(s, "b3", "red"), "from_quarter": 5})


def test_lone_tile_one_gold_and_diagonals_do_not_count():
    s = arranged(tiles={"b1": "red", "a2": "red", "c3": "red", "b2": "blue"})
    s = place(s, "c2", "blue")  # touches b2 only
    assert gold(s, 0, "tiles") == 2
    s = place(arranged(tiles={"a2": "red", "c2": "red"}), "b1", "red")  # a2 and c2 touch b1 only at corners
    assert gold(s, 0, "tiles") == 1


def test_zone_joins_two_zones_and_reaches_into_an_evaluated_quarter():
    s = arranged(tiles={"b2": "blue", "d2": "blue", "e2": "blue"})
    s.evaluated = [2]  # quarter 2's tiles stay and still count
    s = place(s, "c2", "blue")
    assert gold(s, 0, "tiles") == 4


def test_at_most_two_tiles_and_not_twice_from_one_slot():
    s = place(arranged(), "b2", "blue")
    assert "Slot Q1" in refused(s, place_action(s, "b3", "blue")).short
    s = place(s, "f6", "red", frm=3)
    assert "Two tiles" in refused(s, place_action(s, "g7", "red", frm=2)).short
    assert game.prompt(s).expects == ("end_turn",)


def test_tile_id_colour_count_and_colour_number_are_checked():
    s = arranged(tiles={"b2": "blue"})
    assert "already" in refused(s, {**place_action(s, "b3", "red"), "tile": {"id": "pre-b2", "color": "red"}}).short
    six = arranged(tiles=dict(zip(Q1, ["blue", "orange", "green", "red", "yellow", "white"])))
    assert "7th colour" in refused(six, place_action(six, "f6", "pink")).short
    place(six, "f6", "white")
    ten = arranged(tiles={space: "blue" for space in BOARD.spaces[:10]})
    assert "11 blue" in refused(ten, place_action(ten, "f6", "blue")).short
    refused(s, {**place_action(s, "b3", "red"), "tile": {"id": "", "color": "red"}})
    refused(s, {**place_action(s, "b3", "red"), "tile": {"id": "x"}})


def test_wrong_seat_and_turn_order():
    s = arranged()
    assert refused(s, place_action(s, "b2", "blue", player=1)).short == "Ana's turn"
    assert "Place a tile" in refused(s, {"type": "end_turn", "player": 0}).short
    s = end(place(s, "b2", "blue"))
    assert s.turn == 1 and game.prompt(s).player == 1
    s = refresh(s)
    assert s.turn == 2


def test_refresh_only_instead_of_placing():
    s = place(arranged(), "f6", "blue", frm=1)
    assert "end turn" in refused(s, {"type": "refresh", "player": 0}).short
    assert game.prompt(s).expects == ("end_turn", "place")


# -- artisans --------------------------------------------------------------------------------------


def test_no_arrow_no_artisan():
    s = place(arranged(), "b2", "blue")
    assert s.artisans == {} and gold(s, 0, "artisans") == 0
    s = arranged()
    assert "No arrow" in refused(s, place_action(s, "b2", "blue", artisan={"set": 0, "move": False})).short


def test_same_colour_in_another_quarter_does_not_move():
    s = arranged(tiles={"f6": "blue"}, artisans={"f6": (0, 0)})
    s = place(s, "b2", "blue", arrow=True)
    assert s.artisans == {"f6": (0, 0), "b2": (0, 0)} and s.reserve[0] == [6]


def test_other_players_artisan_on_the_colour_does_not_move():
    s = arranged(tiles={"b1": "blue"}, artisans={"b1": (1, 0)})
    s = place(s, "d3", "blue", arrow=True)
    assert s.artisans == {"b1": (1, 0), "d3": (0, 0)}


def test_empty_reserve_means_no_artisan():
    s = arranged(3)
    s.reserve[0] = [0]
    s = place(s, "b2", "blue", arrow=True)
    assert s.artisans == {} and s.events == ("Ana: +1 gold, no artisan left",)
    s = arranged(3)
    s.reserve[0] = [0]
    assert "No artisans left" in refused(s, place_action(s, "b2", "blue", arrow=True, artisan={"set": 0, "move": False})).short


def test_empty_reserve_still_moves():
    s = arranged(tiles={"b1": "blue"}, artisans={"b1": (0, 0)})
    s.reserve[0] = [0]
    s = place(s, "d3", "blue", arrow=True)
    assert s.artisans == {"d3": (0, 0)}


def test_three_or_four_players_artisan_if_given_must_be_the_forced_one():
    s = arranged(tiles={"b1": "blue"}, artisans={"b1": (0, 0)})
    assert "move it" in refused(s, place_action(s, "d3", "blue", arrow=True, artisan={"set": 0, "move": False})).short
    assert "No artisan set 1" in refused(s, place_action(s, "d3", "blue", arrow=True, artisan={"set": 1, "move": True})).short
    assert place(s, "d3", "blue", arrow=True, artisan={"set": 0, "move": True}).artisans == {"d3": (0, 0)}
    fresh = arranged()
    assert "none to move" in refused(fresh, place_action(fresh, "b2", "blue", arrow=True, artisan={"set": 0, "move": True})).short
    refused(fresh, place_action(fresh, "b2", "blue", arrow=True, artisan={"set": 0, "move": False, "x": 1}))


def test_artisan_group_is_the_players_own_and_crosses_quarters():
    s = arranged(tiles={"d2": "red", "c3": "green", "e3": "orange"}, artisans={"d2": (0, 0), "c3": (1, 0), "e3": (0, 0)})
    s = place(s, "d3", "blue", arrow=True)
    assert gold(s, 0, "artisans") == 3  # d3 d2 e3; Ben's c3 is not Ana's group


def test_moving_artisan_leaves_its_old_group():
    s = arranged(tiles={"b2": "blue", "b3": "red", "c3": "green"}, artisans={"b2": (0, 0), "b3": (0, 0), "c3": (0, 0)})
    s = place(s, "a2", "blue", arrow=True)  # the blue artisan moves from b2 to a2; b2 was its link to b3
    assert set(s.artisans) == {"a2", "b3", "c3"}
    assert gold(s, 0, "artisans") == 1


def test_artisans_per_player():
    assert arranged(4).reserve == [[8]] * 4
    assert arranged(3).reserve == [[10]] * 3
    assert arranged(2).reserve == [[7, 7]] * 2


# -- two players -----------------------------------------------------------------------------------


def test_two_players_new_artisan_of_either_set():
    s = arranged(2)
    assert "which" in refused(s, place_action(s, "b2", "blue", arrow=True)).short
    one = place(s, "b2", "blue", arrow=True, artisan={"set": 1, "move": False})
    assert one.artisans == {"b2": (0, 1)} and one.reserve[0] == [7, 6]
    s.reserve[0] = [0, 3]
    assert "Set 0: none left" in refused(s, place_action(s, "b2", "blue", arrow=True, artisan={"set": 0, "move": False})).short
    assert place(s, "b2", "blue", arrow=True).artisans == {"b2": (0, 1)}  # only one choice: may be left out


def test_two_players_move_or_new_of_the_other_set():
    s = arranged(2, tiles={"b1": "blue"}, artisans={"b1": (0, 0)})
    assert game.artisan_choices(s, "d3", "blue") == ({"set": 0, "move": True}, {"set": 1, "move": False})
    moved = place(s, "d3", "blue", arrow=True, artisan={"set": 0, "move": True})
    assert moved.artisans == {"d3": (0, 0)}
    new = place(s, "d3", "blue", arrow=True, artisan={"set": 1, "move": False})
    assert new.artisans == {"b1": (0, 0), "d3": (0, 1)}
    assert "move it" in refused(s, place_action(s, "d3", "blue", arrow=True, artisan={"set": 0, "move": False})).short
    assert "none to move" in refused(s, place_action(s, "d3", "blue", arrow=True, artisan={"set": 1, "move": True})).short
    s.reserve[0] = [6, 0]  # no new artisan possible: must move
    assert game.artisan_choices(s, "d3", "blue") == ({"set": 0, "move": True},)
    assert place(s, "d3", "blue", arrow=True).artisans == {"d3": (0, 0)}


def test_two_players_both_sets_on_the_colour_choose_which_moves():
    s = arranged(2, tiles={"b1": "blue", "a3": "blue"}, artisans={"b1": (0, 0), "a3": (0, 1)})
    assert game.artisan_choices(s, "d3", "blue") == ({"set": 0, "move": True}, {"set": 1, "move": True})
    assert place(s, "d3", "blue", arrow=True, artisan={"set": 1, "move": True}).artisans == {"b1": (0, 0), "d3": (0, 1)}
    refused(s, place_action(s, "d3", "blue", arrow=True))


def test_two_players_sets_never_group_together():
    s = arranged(2, tiles={"c2": "red", "b3": "green", "c4": "white"}, artisans={"c2": (0, 0), "b3": (0, 1), "c4": (0, 1)})
    s = place(s, "c3", "blue", arrow=True, artisan={"set": 1, "move": False})
    assert gold(s, 0, "artisans") == 3  # c3 b3 c4 of set 1; c2 of set 0 is not in the group


def test_two_players_sets_evaluated_separately():
    tiles = dict(zip(Q1[:13], ["blue", "orange", "green", "red", "yellow", "blue", "orange", "white", "white", "white", "red", "red", "red"]))
    artisans = {space: (0, 0) for space in Q1[:5]}
    artisans.update({Q1[5]: (0, 1), Q1[6]: (0, 1), Q1[7]: (1, 1)})
    s = end(place(arranged(2, tiles=tiles, artisans=artisans), Q1[13], "green"))
    assert gold(s, 0, "quarters") == 18 + 6 and gold(s, 1, "quarters") == 4
    assert s.events[-1] == "Q1 done: Ana 18+6, Ben 4"
    assert s.reserve == [[7, 7], [7, 7]]


def test_prompt_offers_the_artisan_choice_only_when_real():
    s = arranged(2, tiles={"b1": "blue", "f6": "red"}, artisans={"b1": (0, 0), "f6": (0, 0)})
    s.reserve[0] = [0, 5]
    options = game.prompt(s).options
    assert options["artisan_q1_blue"] == ({"set": 0, "move": True}, {"set": 1, "move": False})
    assert "artisan" not in options  # a new artisan can only be of set 1
    assert "artisan" not in game.prompt(arranged(3)).options


# -- evaluation and the end ------------------------------------------------------------------------


@pytest.mark.parametrize("n, paid", [(1, 4), (2, 6), (3, 9), (4, 13), (5, 18), (6, 24)])
def test_evaluation_table(n, paid):
    colours = ["blue", "orange", "green", "red", "yellow", "white"] * 3
    s = arranged(tiles=dict(zip(Q1[:13], colours)), artisans={space: (1, 0) for space in Q1[:n]})
    s = end(place(s, Q1[13], "white"))
    assert gold(s, 1, "quarters") == paid and s.reserve[1] == [8]


def test_two_quarters_filled_in_one_turn_are_both_evaluated():
    q2 = BOARD.spaces_in[2]
    colours = ["blue", "orange", "green", "red", "yellow", "white"] * 5
    tiles = {**dict(zip(Q1[:13], colours)), **dict(zip(q2[:13], colours))}
    s = arranged(3, tiles=tiles, artisans={Q1[0]: (1, 0), q2[0]: (2, 0), q2[11]: (2, 0)})
    s = end(place(place(s, Q1[13], "white"), q2[13], "yellow"))
    assert s.evaluated == [1, 2]
    assert [gold(s, seat, "quarters") for seat in range(3)] == [0, 4, 6]
    assert s.events[-2:] == ("Q1 done: Ben 4", "Q2 done: Cy 6")


def test_quarter_with_no_artisans():
    colours = ["blue", "orange", "green", "red", "yellow", "white"] * 3
    s = end(place(arranged(tiles=dict(zip(Q1[:13], colours))), Q1[13], "white"))
    assert s.evaluated == [1] and s.events[-1] == "Q1 done: no artisans"


def _small_board():
    """Two quarters of two spaces in a row: x1 x2 | y1 y2."""
    return {
        "name": "tiny",
        "spaces": [
            {"id": "x1", "quarter": 1, "row": 0, "col": 0},
            {"id": "x2", "quarter": 1, "row": 0, "col": 1},
            {"id": "y1", "quarter": 2, "row": 0, "col": 2},
            {"id": "y2", "quarter": 2, "row": 0, "col": 3},
        ],
    }


def test_game_on_another_board_ends_after_the_last_evaluation():
    s = arranged(2, board=_small_board())
    s = end(place(s, "x1", "blue", arrow=True, artisan={"set": 0, "move": False}))
    s = place(s, "x2", "blue", arrow=True, artisan={"set": 1, "move": False})
    assert gold(s, 1, "tiles") == 2 and gold(s, 1, "artisans") == 1
    s = end(s)
    assert s.evaluated == [1] and gold(s, 0, "quarters") == 4 and gold(s, 1, "quarters") == 4
    s = place(s, "y1", "blue", arrow=True, artisan={"set": 0, "move": False})
    assert gold(s, 0, "tiles") == 1 + 3 and gold(s, 0, "artisans") == 1 + 1  # x1's artisan went home
    s = place(s, "y2", "red", frm=1)
    assert s.down[0] == [1]
    s = end(s)
    assert game.is_over(s) and game.prompt(s) is None and game.phase(s) == "Game over"
    assert s.events[-2:] == ("Q2 done: Ana 4", "Game over")
    assert [sc.total for sc in game.scores(s)] == [1 + 4 + 1 + 4 + 4 + 1 - 2, 2 + 1 + 4]
    assert game.winners(s) == [0]
    refused(s, {"type": "refresh", "player": 1})


def test_winners_share_a_tie():
    s = arranged(3)
    s.gold[0]["tiles"] = s.gold[2]["tiles"] = 5
    s.gold[1]["tiles"] = 4
    assert game.winners(s) == [0, 2]


def test_end_game_when_stuck_evaluates_unfinished_quarters():
    s = arranged(tiles={"b1": "blue", "c1": "red", "f6": "red"}, artisans={"b1": (0, 0), "c1": (0, 0), "f6": (1, 0)})
    s = place(s, "b2", "green")
    assert "End the turn" in refused(s, {"type": "end_game"}).short
    refused(end(s), {"type": "end_game", "player": 1})
    s = game.apply(end(s), {"type": "end_game"})
    assert game.is_over(s) and game.prompt(s) is None and game.phase(s) == "Game over (stuck)"
    assert [gold(s, seat, "quarters") for seat in range(4)] == [6, 4, 0, 0]
    assert s.evaluated == [1, 2, 3, 4]
    assert s.events == ("Tiles stuck: last count", "Q1 done: Ana 6", "Q2 done: no artisans", "Q3 done: Ben 4", "Q4 done: no artisans", "Game over")
    refused(s, place_action(s, "b3", "blue"))


def test_scores_and_phase_during_the_game():
    s = arranged()
    assert game.phase(s) == "Round 1, 0/4 done"
    for _ in range(4):
        s = refresh(s)
    assert game.phase(s) == "Round 2, 0/4 done"
    assert all(sc.breakdown == {"tiles": 0, "artisans": 0, "quarters": 0, "second_tiles": 0} for sc in game.scores(s))


def test_prompt_lists_spaces_and_reachable_quarters():
    s = arranged(tiles={sp: "blue" for sp in Q1[:10]})
    s.down[0] = [2]
    options = game.prompt(s).options
    assert options["spaces_q1"] == Q1[10:]
    assert options["space"][:4] == Q1[10:] and len(options["space"]) == 46
    assert options["reach_q2"] == (2,) and options["reach_q1"] == (1, 2, 3, 4)
    for q in (1, 2, 3, 4):
        for dest in options[f"reach_q{q}"]:
            place(s, options[f"spaces_q{dest}"][-1], "red", frm=q)  # every offered placement is legal
    s = place(s, Q1[10], "red", frm=1)
    options = game.prompt(s).options
    assert 1 not in options["from_quarter"] and "reach_q1" not in options


# -- boards ----------------------------------------------------------------------------------------


def test_default_board_is_the_marked_reconstruction():
    assert len(BOARD.spaces) == 56 and BOARD.quarters == (1, 2, 3, 4)
    assert all(len(BOARD.spaces_in[q]) == 14 for q in BOARD.quarters)
    assert set(BOARD.neighbours["e1"]) == {"d1", "f1", "e2"}  # across the quarter border
    assert "unverified" in BOARD.name.lower()
    text = resources.files("engines.maharani").joinpath("board.toml").read_text(encoding="utf-8")
    assert "UNVERIFIED" in text and "tablemate board check maharani" in text
    assert game.start(NAMES, {"board": "board"}).board_key == game.start(NAMES).board_key


def _space(sid, quarter=1, row=0, col=0, **extra):
    return {"id": sid, "quarter": quarter, "row": row, "col": col, **extra}


@pytest.mark.parametrize(
    "board, named",
    [
        ({"name": "b", "spaces": [_space("a1"), _space("a1", col=1)]}, "space {'id': 'a1', 'quarter': 1, 'row': 0, 'col': 1} listed twice"),
        ({"name": "b", "spaces": [_space("a1"), _space("a2")]}, "space {'id': 'a2', 'quarter': 1, 'row': 0, 'col': 0} is on the same square"),
        ({"name": "b", "spaces": [{"id": "a1", "quarter": 1, "row": 0}]}, "has no 'col'"),
        ({"name": "b", "spaces": [_space("a1", colum=2)]}, "unknown key 'colum'"),
        ({"name": "b", "spaces": [_space("a1", row="0")]}, "'row' must be an integer"),
        ({"name": "b", "spaces": [_space("a1", quarter=True)]}, "'quarter' must be an integer"),
        ({"name": "b", "spaces": [_space("a1", quarter=0)]}, "numbered from 1"),
        ({"name": "b", "spaces": [_space("")]}, "'id' must be a non-empty string"),
        ({"name": "b", "spaces": ["a1"]}, "space 'a1' must be a table"),
        ({"name": "b", "spaces": []}, "'spaces' must be a non-empty list"),
        ({"name": 7, "spaces": [_space("a1")]}, "'name' must be a string"),
        ({"name": "b", "spaces": [_space("a1")], "roads": []}, "unknown key(s) 'roads'"),
        ("no_such_board", "no bundled board 'no_such_board'"),
        ("../board", "no bundled board"),
        (7, "bundled board's name or a table"),
    ],
)
def test_bad_boards_are_refused_naming_the_entry(board, named):
    with pytest.raises(IllegalAction) as refusal:
        game.start(NAMES, {"board": board})
    assert named in str(refusal.value)
    assert refusal.value.short.startswith("Board:")


def test_state_finds_its_board_again_without_the_cache():
    s = arranged(2, board=_small_board())
    assert board_of("inline:not-cached", s.options["board"]) == game.board(s)
    assert board_of("bundled:board", None) is BOARD


def test_a_board_without_a_name_is_the_contracts_schema():
    """game-log.md section 6 gives a Maharani board only `spaces`: an inline board needs no name."""
    nameless = {"spaces": _small_board()["spaces"]}
    s = game.start(["Ana", "Ben"], {"board": nameless})
    assert game.board(s).name == "inline board" and game.board(s).spaces == ("x1", "x2", "y1", "y2")
    assert parse({**nameless, "name": "  "}).name == "inline board"


def test_board_file_without_a_name_is_named_after_the_file(tmp_path):
    plain = tmp_path / "my_board.toml"
    plain.write_text('spaces = [{id = "x", quarter = 1, row = 0, col = 0}]\n')
    assert load_board_file(plain).name == "my_board"


def test_board_file_check(tmp_path):
    good = tmp_path / "good.toml"
    good.write_text('name = "tiny"\nspaces = [{id = "x", quarter = 1, row = 0, col = 0}, {id = "y", quarter = 2, row = 0, col = 1}]\n')
    board = load_board_file(good)
    assert board.summary == "tiny: 2 spaces in 2 quarters (Q1 1, Q2 1)" and board.neighbours["x"] == ("y",)
    twice = tmp_path / "twice.toml"
    twice.write_text('name = "t"\nspaces = [{id = "x", quarter = 1, row = 0, col = 0}, {id = "x", quarter = 1, row = 0, col = 1}]\n')
    with pytest.raises(IllegalAction, match="listed twice"):
        load_board_file(twice)
    broken = tmp_path / "broken.toml"
    broken.write_text("name = \n")
    with pytest.raises(IllegalAction, match="not valid TOML"):
        load_board_file(broken)
    with pytest.raises(IllegalAction, match="cannot read"):
        load_board_file(tmp_path / "missing.toml")
    bundled = resources.files("engines.maharani").joinpath("board.toml")
    assert load_board_file(str(bundled)) == parse(tomllib.loads(bundled.read_text(encoding="utf-8")))


def test_setup_refusals():
    with pytest.raises(IllegalAction):
        game.start(["Ana"])
    with pytest.raises(IllegalAction):
        game.start(NAMES + ["Eve"])
    with pytest.raises(IllegalAction):
        game.start(NAMES, {"colours": 6})


# -- random games ----------------------------------------------------------------------------------


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), setup=st.sampled_from(SETUPS))
def test_random_games_keep_the_contract(seed, setup):
    n_players, options = setup
    state = play_random_game("maharani", NAMES[:n_players], options, Bot(n_players, options, seed), seed)
    assert state.artisans == {}  # every quarter was evaluated: all artisans are home
    assert [sum(sets) for sets in state.reserve] == [14 if n_players == 2 else {3: 10, 4: 8}[n_players]] * n_players
    if not state.stuck:
        assert len(state.tiles) == 56 and sorted(state.evaluated) == [1, 2, 3, 4]
    for seat, score in enumerate(game.scores(state)):
        assert score.breakdown["tiles"] >= sum(1 for a in state.actions if a["type"] == "place" and a["player"] == seat)


def test_random_games_reach_both_ends():
    ends = {play_random_game("maharani", NAMES[:n], {}, Bot(n, {}, seed), seed).stuck for seed in range(12) for n in (2, 4)}
    assert ends == {False, True}


@settings(max_examples=200, deadline=None)
@given(junk=json_actions(game, ("player", "tile", "from_quarter", "space", "arrow_to_player", "artisan")))
def test_random_json_is_refused_cleanly(junk):
    s = place(arranged(2, tiles={"b1": "blue"}, artisans={"b1": (0, 0)}), "c1", "red")
    apply_junk(game, s, junk)


def test_the_component_manifest_is_not_a_board():
    from engines.maharani.board import bundled_boards

    assert bundled_boards() == ["board"]
    with pytest.raises(IllegalAction):
        game.start(["Ana", "Ben"], {"board": "manifest"})


# -- whole turns through the public API, worked by hand from rules/001 ------------------------------


def _line(*quarters, row=0):
    """An inline board of one row: `quarters` lists each quarter's space ids, left to right."""
    spaces, col = [], 0
    for q, ids in enumerate(quarters, start=1):
        for sid in ids:
            spaces.append({"id": sid, "quarter": q, "row": row, "col": col})
            col += 1
    return {"spaces": spaces}


def test_example_evaluation_played_out_five_three_one_none():
    """Quarter 1 filled in play: Ana 5 artisans (18), Ben 3 (9), Cy 1 (4), Dee none (0), paid when the turn ends."""
    s = game.start(NAMES)
    rounds = [
        [("b1", "blue", True), ("c1", "orange", True), ("d1", "green", True), ("a2", "red", False)],
        [("b2", "orange", True), ("c2", "blue", True), ("d2", "red", False), ("a3", "yellow", False)],
        [("b3", "green", True), ("c3", "yellow", True), ("d3", "white", False), ("a4", "white", False)],
    ]
    for turns in rounds:
        for space, colour, arrow in turns:
            s = end(place(s, space, colour, arrow=arrow))
    s = place(s, "b4", "red", arrow=True)
    s = place(s, "c4", "yellow", frm=2, arrow=True)  # the last space of quarter 1, with a second tile
    assert len([sp for sp in s.artisans if sp in Q1]) == 9 and s.evaluated == []
    s = end(s)
    assert [gold(s, seat, "quarters") for seat in range(4)] == [18, 9, 4, 0]
    assert s.events[-2:] == ("Ana: 2nd tile -2", "Q1 done: Ana 18, Ben 9, Cy 4")
    assert s.artisans == {} and s.reserve == [[8]] * 4 and all(sp in s.tiles for sp in Q1)
    # Ana: tiles 1+1+1+1+2 (c4 joins Ben's yellow c3), artisans 1+2+3+4+5 (one growing group), -2, 18
    assert game.scores(s)[0].breakdown == {"tiles": 6, "artisans": 15, "quarters": 18, "second_tiles": -2}
    assert gold(s, 0) == 37 and not game.is_over(s) and s.turn == 1


def test_example_zone_across_two_quarters_played_out_worth_eight():
    s = end(place(place(game.start(NAMES), "d1", "blue", arrow=True), "c1", "blue", frm=2))
    s = end(place(place(others(s), "d2", "blue"), "f1", "blue", frm=2))
    s = end(place(others(s), "e2", "orange", arrow=True))
    before = gold(s, 0)
    s = place(others(s), "e1", "blue", arrow=True)  # top left of quarter 2, next to d1 and e2
    assert gold(s, 0) - before == 5 + 3  # blue zone e1 d1 c1 d2 f1, artisans e1 d1 e2
    assert s.events == ("Ana: +5 gold, artisan +3",)


def test_example_second_tile_advances_four_then_costs_two():
    s = end(place(game.start(NAMES[:3]), "f6", "red"))
    s = end(place(end(place(end(place(s, "b2", "blue")), "b6", "green")), "g6", "red"))
    s = end(place(end(place(s, "c2", "white")), "c6", "white"))
    s = place(s, "g5", "red")  # f6 g6 g5: +3
    before = gold(s, 0)
    s = place(s, "h5", "red", frm=2)  # the second tile: a zone of 4
    assert gold(s, 0) - before == 4 and s.down[0] == [2]
    s = end(s)
    assert gold(s, 0) - before == 4 - 2 and gold(s, 0, "second_tiles") == -2


def test_artisan_placed_then_moved_in_the_same_turn():
    s = place(game.start(NAMES), "b2", "blue", arrow=True)
    assert s.reserve[0] == [7] and gold(s, 0, "artisans") == 1
    s = place(s, "c3", "blue", frm=2, arrow=True)  # same colour, same quarter: the artisan moves on
    assert s.artisans == {"c3": (0, 0)} and s.reserve[0] == [7] and gold(s, 0, "artisans") == 2
    assert s.events == ("Ana: +1 gold, artisan +1",)


def test_second_tile_joins_the_artisans_of_a_quarter_filled_this_turn_before_its_evaluation():
    """x1 x2 | y1 y2: Ana fills quarter 1 with her first tile, then her second tile's artisan joins the group still
    standing there; quarter 1 is paid when her turn ends, quarter 2 ends the game."""
    s = game.start(NAMES[:3], {"board": _line(["x1", "x2"], ["y1", "y2"])})
    s = refresh(refresh(end(place(s, "x1", "red", arrow=True))))  # refreshing with every marker up is allowed
    s = place(s, "x2", "blue", arrow=True)
    assert gold(s, 0, "artisans") == 1 + 2
    s = place(s, "y1", "green", frm=2, arrow=True)
    assert gold(s, 0, "artisans") == 1 + 2 + 3 and s.evaluated == []
    s = end(s)
    assert s.evaluated == [1] and s.artisans == {"y1": (0, 0)} and s.reserve[0] == [9]
    assert game.scores(s)[0].breakdown == {"tiles": 3, "artisans": 6, "quarters": 6, "second_tiles": -2}
    s = end(place(s, "y2", "green", frm=2, arrow=True))  # Ben: green zone of 2, a lone artisan
    assert game.is_over(s) and s.events[-2:] == ("Q2 done: Ana 4, Ben 4", "Game over")
    assert [sc.total for sc in game.scores(s)] == [13 + 4, 2 + 1 + 4, 0] and game.winners(s) == [0]


def test_tile_of_a_full_quarter_needs_its_marker():
    """Quarter 1 is full: the tile in its turntable slot can only go elsewhere, with quarter 1's marker."""
    s = game.start(NAMES[:3], {"board": _line(["x1", "x2"], ["y1", "y2", "y3"])})
    s = end(place(place(s, "x1", "red"), "x2", "blue", frm=2))
    assert s.evaluated == [1] and s.down[0] == [2]
    s = end(place(s, "y1", "red", frm=1))  # Ben: quarter 1's tile into quarter 2, marker down
    assert game.prompt(s).options["reach_q1"] == (2,)  # Cy's marker is up: elsewhere only
    s = refresh(refresh(s))
    assert game.prompt(s).options["from_quarter"] == (2,) and "reach_q1" not in game.prompt(s).options
    assert "Marker Q1" in refused(s, place_action(s, "y2", "red", frm=1)).short
    assert "taken" in refused(s, place_action(s, "x1", "red", frm=1)).short


def test_two_players_sets_on_one_colour_evaluated_apart():
    """2x2 quarter: Ana puts both sets on blue, must then move one of them, and each set is paid on its own."""
    board = {
        "spaces": [
            {"id": "x1", "quarter": 1, "row": 0, "col": 0},
            {"id": "x2", "quarter": 1, "row": 0, "col": 1},
            {"id": "x3", "quarter": 1, "row": 1, "col": 0},
            {"id": "x4", "quarter": 1, "row": 1, "col": 1},
            {"id": "y1", "quarter": 2, "row": 5, "col": 0},
            {"id": "y2", "quarter": 2, "row": 5, "col": 1},
        ]
    }
    new, moved = {"move": False}, {"move": True}
    s = game.start(NAMES[:2], {"board": board})
    assert "which" in refused(s, place_action(s, "x1", "blue", arrow=True)).short
    s = end(place(s, "x1", "blue", arrow=True, artisan={"set": 0, **new}))
    s = end(place(s, "y1", "green"))
    s = end(place(s, "x2", "blue", arrow=True, artisan={"set": 1, **new}))  # a new one of the other set
    assert s.artisans == {"x1": (0, 0), "x2": (0, 1)} and gold(s, 0, "artisans") == 1 + 1  # sets never group
    s = refresh(s)
    assert "which" in refused(s, place_action(s, "x3", "blue", arrow=True)).short
    assert refused(s, place_action(s, "x3", "blue", arrow=True, artisan={"set": 0, **new})).short == "Set 0 on blue: move it"
    s = end(place(s, "x3", "blue", arrow=True, artisan={"set": 0, **moved}))
    assert s.artisans == {"x2": (0, 1), "x3": (0, 0)} and s.reserve[0] == [6, 6]
    s = refresh(s)
    s = end(place(s, "x4", "red", arrow=True, artisan={"set": 1, **new}))  # x4 joins x2 (set 1), not x3 (set 0)
    assert s.evaluated == [1] and s.events[-1] == "Q1 done: Ana 4+6"
    assert game.scores(s)[0].breakdown == {"tiles": 1 + 2 + 3 + 1, "artisans": 1 + 1 + 1 + 2, "quarters": 4 + 6, "second_tiles": 0}
    s = end(place(s, "y2", "green"))
    assert game.is_over(s) and [sc.total for sc in game.scores(s)] == [22, 1 + 2] and game.winners(s) == [0]


def test_stuck_end_evaluates_unfinished_quarters_and_ties_share_the_win():
    s = game.start(NAMES[:2], {"board": _line(["x1", "x2"], ["y1", "y2"])})
    s = end(place(s, "x1", "red", arrow=True, artisan={"set": 0, "move": False}))
    s = end(place(s, "y2", "red", arrow=True, artisan={"set": 1, "move": False}))
    s = game.apply(s, {"type": "end_game"})
    assert game.is_over(s) and [sc.total for sc in game.scores(s)] == [1 + 1 + 4, 1 + 1 + 4]
    assert game.winners(s) == [0, 1]


# -- scenarios worked by hand from the rule text ----------------------------------------------------
#
# Each scenario drives the contract's calls only (start, apply, scores, prompt, is_over, winners, replay):
# no state is arranged by hand. The figures in the asserts were worked out on paper from rules/001; the
# comments quote the sentence each one rests on. Slots are named by the quarter they face on the player's
# turn ("from_quarter"); a tile placed in its own slot's quarter uses no marker.


def _put(player, space, colour, slot, *, arrow=False, artisan=None, tile_id=None) -> dict:
    action = {
        "type": "place",
        "player": player,
        "tile": {"id": tile_id or f"{colour}-{next(_ids)}", "color": colour},
        "from_quarter": slot,
        "space": space,
        "arrow_to_player": arrow,
    }
    if artisan is not None:
        action["artisan"] = artisan
    return action


def _play(s, *actions):
    """Apply `actions` in order through the public API; tuples are shorthand for `_put`."""
    for action in actions:
        if isinstance(action, tuple):
            *args, kwargs = action if isinstance(action[-1], dict) else (*action, {})
            action = _put(*args, **kwargs)
        s = game.apply(s, action)
    return s


def _end(p) -> dict:
    return {"type": "end_turn", "player": p}


def _refresh(p) -> dict:
    return {"type": "refresh", "player": p}


def _totals(s) -> list[int]:
    return [score.total for score in game.scores(s)]


def _refused_cleanly(s, action) -> str:
    """The refusal's short text; the state, the scores and the prompt are as before."""
    scores, prompt = game.scores(s), game.prompt(s)
    short = refused(s, action).short
    assert game.scores(s) == scores and game.prompt(s) == prompt
    return short


def test_scenario_markers_are_per_player_and_per_slot_and_refresh_ends_the_turn():
    """3 players, default board.

    "sans utiliser de marqueur d'action ... sur n'importe quelle case vide du quartier où se trouve la tuile";
    "en utilisant un marqueur d'action ... sur n'importe quelle case libre d'un des 3 autres quartiers ... le
    joueur doit retourner face cachée son marqueur d'action associé au quartier où se trouve la tuile dans le
    tourniquet"; "quand le marqueur d'action d'un quartier est retourné face cachée, les tuiles qui y
    apparaissent ne peuvent plus être placées dans d'autres quartiers"; "Poser une seconde tuile coûte
    cependant 2 pièces d'or"; "Le joueur retourne tous ses marqueurs d'action, face visible".
    """
    s = game.start(NAMES[:3])
    # Ana: slot 2's tile into quarter 1 (marker 2 down), lone blue: +1.
    s = _play(s, (0, "b2", "blue", 2))
    # The slot just emptied is refilled only "À la fin de son tour": no second tile from it.
    assert _refused_cleanly(s, _put(0, "b3", "red", 2)) == "Slot Q2 is empty"
    # Second tile: slot 1's tile into quarter 3 (marker 1 down), lone red: +1; -2 at the end of the turn.
    s = _play(s, (0, "f6", "red", 1), _end(0))
    assert _totals(s) == [1 + 1 - 2, 0, 0]
    # Ben's markers are his own: slot 2 into quarter 1 is open to him. Green c2 touches only blue b2: +1.
    s = _play(s, (1, "c2", "green", 2), _end(1))
    # Cy refreshes with every marker up: the rule sets no condition, and it is his whole turn.
    s = _play(s, _refresh(2))
    assert game.prompt(s).player == 0 and _totals(s) == [0, 1, 0]
    options = game.prompt(s).options
    assert options["reach_q1"] == (1,) and options["reach_q2"] == (2,)  # Ana's markers 1 and 2 are down
    assert options["reach_q3"] == (3, 1, 2, 4) and options["reach_q4"] == (4, 1, 2, 3)
    assert _refused_cleanly(s, _put(0, "b3", "blue", 2)) == "Marker Q2 is down"
    assert _refused_cleanly(s, _put(0, "g6", "blue", 1)) == "Marker Q1 is down"
    # In its own quarter a tile needs no marker, down or not: blue b3 joins b2, a zone of 2: +2.
    s = _play(s, (0, "b3", "blue", 1))
    # Second tile from slot 3 into quarter 1 (marker 3 down): blue b1 joins b2 b3, a zone of 3: +3.
    s = _play(s, (0, "b1", "blue", 3), _end(0))
    assert _totals(s) == [0 + 2 + 3 - 2, 1, 0]
    # Ben: blue a2 (slot 4, marker 4 down) touches b2: the zone a2 b2 b3 b1 is 4: +4.
    s = _play(s, (1, "a2", "blue", 4), _end(1))
    # Cy: red f7 in its own quarter touches Ana's red f6: tile gold is the zone's size whoever laid it: +2.
    s = _play(s, (2, "f7", "red", 3), _end(2))
    assert _totals(s) == [3, 5, 2]
    # Ana refreshes: all her markers up "à partir de son prochain tour de jeu"; Ben's stay as they are.
    assert _refused_cleanly(s, _refresh(1)) == "Ana's turn"
    s = _play(s, _refresh(0))
    assert game.prompt(s).player == 1 and game.prompt(s).options["reach_q4"] == (4,)
    s = _play(s, _refresh(1), _refresh(2))
    assert all(len(game.prompt(s).options[f"reach_q{q}"]) == 4 for q in (1, 2, 3, 4))
    s = _play(s, (0, "g7", "red", 1))  # slot 1 to quarter 3 again: red g7 joins f6 f7: +3
    assert _refused_cleanly(s, _refresh(0)) == "Tile placed: end turn"
    assert _totals(_play(s, _end(0))) == [6, 5, 2]


def test_scenario_tile_gold_counts_the_whole_zone_across_quarters_never_diagonals():
    """4 players, default board, every tile from its own slot.

    "Si la tuile qui vient d'être placée crée ou prolonge une zone continue formée de plusieurs tuiles de la
    même couleur, le joueur reçoit 1 pièce d'or pour chaque tuile qu'elle comprend"; "Les diagonales ne
    comptent pas"; "Les zones de tuiles ... ne sont pas limitées par les frontières des quartiers."
    """
    s = game.start(NAMES)
    turns = [
        (0, "d3", "orange", 1, 1),  # alone
        (1, "e3", "orange", 2, 2),  # d3 | e3 across the border between quarters 1 and 2
        (2, "c4", "orange", 1, 1),  # d3 is diagonal to c4: alone
        (3, "c5", "orange", 4, 2),  # c4 above c5, across the border between quarters 1 and 4
        (0, "c3", "orange", 1, 5),  # joins d3 e3 and c4 c5: 5
        (1, "f4", "orange", 2, 1),  # e3 is diagonal to f4: alone
        (2, "e2", "orange", 2, 6),  # on top of e3: e2 e3 d3 c3 c4 c5 (f4 still apart)
        (3, "d2", "blue", 1, 1),  # among orange tiles, but blue
    ]
    expected = [0, 0, 0, 0]
    for player, space, colour, slot, paid in turns:
        s = _play(s, (player, space, colour, slot))
        expected[player] += paid
        assert _totals(s) == expected, space
        s = _play(s, _end(player))
    assert _totals(s) == [6, 3, 7, 3]
    assert all(score.breakdown == {"tiles": total, "artisans": 0, "quarters": 0, "second_tiles": 0} for score, total in zip(game.scores(s), [6, 3, 7, 3]))


def test_scenario_four_players_artisans_new_moved_grouped_then_the_reserve_runs_out():
    """4 players (8 artisans each), default board; Ben, Cy and Dee refresh, Ana places two tiles a turn.

    "Si le quartier ne comprend encore aucun artisan du joueur sur une tuile de la même couleur ... il doit
    déposer ... un nouvel artisan"; "Si le joueur dispose dans ce quartier d'un artisan sur une autre tuile
    de la même couleur, il l'en retire et le place sur celle qu'il vient de poser"; artisan gold: "1 pièce
    d'or pour chaque artisan du groupe"; "si la réserve d'artisans du joueur est épuisée, il peut
    exceptionnellement poser la tuile sans y placer de nouvel artisan"; groups cross quarter borders.
    """
    others = (_refresh(1), _refresh(2), _refresh(3))
    s = game.start(NAMES)
    # Turn 1: red b2 and blue f2, each a new artisan alone: tiles 1+1, artisans 1+1, -2.
    s = _play(s, (0, "b2", "red", 1, {"arrow": True}), (0, "f2", "blue", 2, {"arrow": True}), _end(0), *others)
    assert game.scores(s)[0].breakdown == {"tiles": 2, "artisans": 2, "quarters": 0, "second_tiles": -2}
    # Turn 2: blue b3 (no blue artisan in quarter 1: new, group b2 b3 = 2); red g2 (the red artisan b2 is in
    # another quarter: new, group f2 g2 = 2). Tiles alone: 1+1.
    s = _play(s, (0, "b3", "blue", 1, {"arrow": True}), (0, "g2", "red", 2, {"arrow": True}), _end(0), *others)
    assert _totals(s)[0] == 2 + (1 + 2 + 1 + 2 - 2)
    # Turn 3: green c2 (group b2 b3 c2 = 3), green e2 (group e2 f2 g2 = 3; c2 and e2 do not touch).
    s = _play(s, (0, "c2", "green", 1, {"arrow": True}), (0, "e2", "green", 2, {"arrow": True}), _end(0), *others)
    assert _totals(s)[0] == 6 + (1 + 3 + 1 + 3 - 2)
    # Turn 4: yellow d2 links both groups across the border (b2 b3 c2 d2 e2 f2 g2 = 7), yellow g3 under g2
    # makes 8: Ana's eighth and last artisan.
    s = _play(s, (0, "d2", "yellow", 1, {"arrow": True}), (0, "g3", "yellow", 2, {"arrow": True}))
    assert game.scores(s)[0].breakdown["artisans"] == 1 + 1 + 2 + 2 + 3 + 3 + 7 + 8
    s = _play(s, _end(0), *others)
    assert _totals(s)[0] == 12 + (1 + 7 + 1 + 8 - 2)
    # Turn 5: white b1, arrow to Ana, no white artisan in quarter 1 and the reserve is empty: the tile alone.
    assert _refused_cleanly(s, _put(0, "b1", "white", 1, arrow=True, artisan={"set": 0, "move": False})) == "No artisans left"
    s = _play(s, (0, "b1", "white", 1, {"arrow": True}))
    assert s.events == ("Ana: +1 gold, no artisan left",)
    # Second tile, red a2 from slot 4 (marker 4 down): the red artisan on b2 moves to a2, reserve or not.
    # Tile: a2 b2 red = 2. Artisan: a2's neighbours b2 (just left) and a3 (empty): 1.
    s = _play(s, (0, "a2", "red", 4, {"arrow": True}))
    assert s.events == ("Ana: +2 gold, artisan +1",)
    s = _play(s, _end(0), *others)
    # Turn 6: red f6 in quarter 3: Ana's red artisans are in quarters 1 and 2, so none moves; none is left.
    s = _play(s, (0, "f6", "red", 3, {"arrow": True}), _end(0))
    assert game.scores(s)[0].breakdown == {"tiles": 2 + 2 + 2 + 2 + 3 + 1, "artisans": 28, "quarters": 0, "second_tiles": -10}
    assert _totals(s) == [30, 0, 0, 0]


def test_scenario_three_players_have_ten_artisans():
    """ "3 joueurs : 10 artisans": Ana lays ten artisans apart from each other (five turns of two tiles, own
    slots, each tile and each artisan alone: +1+1+1+1-2 a turn); the eleventh arrow finds her reserve empty."""
    s = game.start(NAMES[:3])
    q1 = [("b1", "red"), ("d1", "blue"), ("a3", "green"), ("c3", "yellow"), ("b4", "white")]
    q3 = [("f5", "red"), ("h5", "blue"), ("e7", "green"), ("g7", "yellow"), ("f8", "white")]
    for (a, ca), (b, cb) in zip(q1, q3):
        s = _play(s, (0, a, ca, 1, {"arrow": True}), (0, b, cb, 3, {"arrow": True}))
        assert s.events == ("Ana: +1 gold, artisan +1",)
        s = _play(s, _end(0), _refresh(1), _refresh(2))
    assert game.scores(s)[0].breakdown == {"tiles": 10, "artisans": 10, "quarters": 0, "second_tiles": -10}
    s = _play(s, (0, "h7", "orange", 3, {"arrow": True}))
    assert s.events == ("Ana: +1 gold, no artisan left",) and _totals(s)[0] == 11


def test_scenario_the_artisan_follows_the_quarter_the_tile_goes_to_not_its_slot():
    """ "Si le joueur dispose dans ce quartier d'un artisan sur une autre tuile de la même couleur": "ce
    quartier" is where the new tile lies; the slot it came from does not matter."""
    s = game.start(NAMES[:3])
    s = _play(s, (0, "f6", "red", 3, {"arrow": True}), _end(0), _refresh(1), _refresh(2))  # +1 +1
    # Red from slot 1 into quarter 3 (marker 1 down), arrow to Ana: her red artisan in quarter 3 moves
    # from f6 to h7. Tile h7 alone: +1; artisan alone: +1.
    s = _play(s, (0, "h7", "red", 1, {"arrow": True}), _end(0), _refresh(1), _refresh(2))
    assert _totals(s)[0] == 4
    # If the f6 artisan had stayed, g6 would now join f6 to make 2; it left, so the g6 artisan is alone: +1.
    # Green g6 tile: alone: +1. A new artisan (no green one in quarter 3).
    s = _play(s, (0, "g6", "green", 3, {"arrow": True}))
    assert s.events == ("Ana: +1 gold, artisan +1",)
    # Red from slot 2 into quarter 1 (marker 2 down), arrow: the red artisan (now on h7) is in quarter 3,
    # so a new one goes on c2: tile +1, artisan +1.
    s = _play(s, (0, "c2", "red", 2, {"arrow": True}))
    assert s.events == ("Ana: +1 gold, artisan +1",)
    assert _totals(_play(s, _end(0)))[0] == 4 + 2 + 2 - 2


def test_scenario_two_players_choose_the_set_move_or_new_and_sets_are_paid_apart():
    """2 players (7 + 7 artisans each), default board, quarter 1 filled in play and evaluated.

    "il doit placer un nouvel artisan de la couleur de son choix"; "il peut choisir soit de déplacer
    l'artisan en question ..., soit d'y placer un nouvel artisan (s'il lui en reste) de sa deuxième couleur";
    "Si des artisans des deux couleurs de ce joueur se trouvent sur deux tuiles de la même couleur dans ce
    quartier, il choisit lequel d'entre eux il déplace"; "Les artisans de deux couleurs différentes ne forment
    jamais un groupe"; "Les artisans des deux couleurs d'un joueur sont évalués séparément."
    """
    new0, new1 = {"set": 0, "move": False}, {"set": 1, "move": False}
    move0, move1 = {"set": 0, "move": True}, {"set": 1, "move": True}
    s = game.start(NAMES[:2])
    assert _refused_cleanly(s, _put(0, "b2", "blue", 1, arrow=True)) == "Artisan: which one?"
    s = _play(s, (0, "b2", "blue", 1, {"arrow": True, "artisan": new0}), _end(0))  # Ana +1 +1
    s = _play(s, (1, "f6", "green", 3, {"arrow": True, "artisan": new0}), _end(1))  # Ben +1 +1
    # Blue b3 next to b2 (zone 2): a new artisan of the second set, which does not group with set 0: +1.
    assert _refused_cleanly(s, _put(0, "b3", "blue", 1, arrow=True, artisan=new0)) == "Set 0 on blue: move it"
    s = _play(s, (0, "b3", "blue", 1, {"arrow": True, "artisan": new1}), _end(0), _refresh(1))
    assert _totals(s) == [2 + 2 + 1, 2]
    # Blue c2: both sets stand on blue in quarter 1, so one of them moves: no new artisan, and a choice.
    assert _refused_cleanly(s, _put(0, "c2", "blue", 1, arrow=True)) == "Artisan: which one?"
    assert _refused_cleanly(s, _put(0, "c2", "blue", 1, arrow=True, artisan=new1)) == "Set 1 on blue: move it"
    assert game.prompt(s).options["artisan_q1_blue"] == (move0, move1)
    # Set 1 moves b3 -> c2; c2 touches b2, but b2 is set 0: alone, +1. Tile: b2 b3 c2 blue = 3.
    s = _play(s, (0, "c2", "blue", 1, {"arrow": True, "artisan": move1}), _end(0), _refresh(1))
    assert _totals(s) == [5 + 3 + 1, 2]
    # Red c3: no red artisan of Ana in quarter 1: a new one, set 1 chosen: group c2 c3 (set 1) = 2; tile +1.
    s = _play(s, (0, "c3", "red", 1, {"arrow": True, "artisan": new1}), _end(0))
    assert _totals(s)[0] == 9 + 1 + 2
    # Ben: green d3, a new set-0 artisan beside Ana's c3 (not his): +1; tile (c3 red, d2 e3 empty): +1.
    s = _play(s, (1, "d3", "green", 1, {"arrow": True, "artisan": new0}), _end(1))
    assert _totals(s) == [12, 4]
    # Ana: green a2, new set 0: group a2 b2 = 2, tile +1; yellow d2 from slot 2 (marker 2 down), new set 1:
    # group d2 c2 c3 = 3 (Ben's d3 is not hers), tile +1; -2.
    s = _play(s, (0, "a2", "green", 1, {"arrow": True, "artisan": new0}))
    s = _play(s, (0, "d2", "yellow", 2, {"arrow": True, "artisan": new1}), _end(0))
    assert _totals(s)[0] == 12 + 3 + 4 - 2
    # Ben: yellow d1, a new set-1 artisan (his choice): alone, +1; tile d1 d2 yellow = 2.
    s = _play(s, (1, "d1", "yellow", 1, {"arrow": True, "artisan": new1}), _end(1))
    assert _totals(s) == [17, 4 + 3]
    # Ana: white b1 (+1) and white c4 from slot 3 (+1; slot 2's marker is down), no arrows; -2.
    assert _refused_cleanly(_play(s, (0, "b1", "white", 1)), _put(0, "c4", "white", 2)) == "Marker Q2 is down"
    s = _play(s, (0, "b1", "white", 1), (0, "c4", "white", 3), _end(0))
    s = _play(s, (1, "c1", "orange", 1), _end(1))  # Ben: orange c1 among white, yellow, blue: +1
    assert _totals(s) == [17, 8]
    # Ana: orange a3, new set 0: group a3 a2 b2 = 3 (b3 is empty of artisans now); tile +1.
    s = _play(s, (0, "a3", "orange", 1, {"arrow": True, "artisan": new0}), _end(0))
    # Ben: orange a4 under a3 (zone 2), new set 0: alone among his: +1.
    s = _play(s, (1, "a4", "orange", 1, {"arrow": True, "artisan": new0}), _end(1))
    assert _totals(s) == [21, 11]
    # Ana fills quarter 1 with red b4: her red artisan is set 1 on c3, so she may move it or add set 0;
    # she adds set 0: b4 touches a4 (Ben's), b3, c4, b5 (no artisan of hers): +1; tile +1.
    assert game.prompt(s).options["artisan_q1_red"] == (move1, new0)
    s = _play(s, (0, "b4", "red", 1, {"arrow": True, "artisan": new0}))
    assert _totals(s) == [23, 11] and "spaces_q1" not in game.prompt(s).options  # quarter 1 is full
    s = _play(s, _end(0))
    # Quarter 1: Ana set 0 on b2 a2 a3 b4 = 4 -> 13, set 1 on c2 c3 d2 = 3 -> 9; Ben set 0 on d3 a4 = 2 -> 6,
    # set 1 on d1 = 1 -> 4. Ben's f6 is in quarter 3 and stays.
    assert s.events == ("Q1 done: Ana 13+9, Ben 6+4",)
    assert game.scores(s)[0].breakdown == {"tiles": 13, "artisans": 14, "quarters": 22, "second_tiles": -4}
    assert _totals(s) == [45, 21]


def _four_small_quarters() -> dict:
    """Four quarters of three spaces, two rows:  p1 p2 p3 | q1 q2 q3  over  s1 s2 s3 | r1 r2 r3.

    Quarters: p = 1, q = 2, r = 3, s = 4. p_i touches s_i, q_i touches r_i, p3 touches q1, s3 touches r1.
    """
    rows = [("p", 1, 0, 0), ("q", 2, 0, 3), ("r", 3, 1, 3), ("s", 4, 1, 0)]
    return {"spaces": [{"id": f"{k}{i + 1}", "quarter": q, "row": row, "col": col + i} for k, q, row, col in rows for i in range(3)]}


def test_scenario_whole_game_to_the_last_evaluation_and_a_shared_win():
    """3 players on a board of four 3-space quarters, played to the natural end.

    "Quand un joueur place une tuile de mosaïque sur la dernière case vide d'un quartier, ce dernier est évalué
    dès que le tour du joueur en question s'achève"; table 1:4 2:6; "tous les joueurs retirent leurs artisans
    de ce quartier"; "les tuiles d'un quartier déjà évalué peuvent toujours faire partie d'une zone"; "La
    partie s'achève une fois que le dernier quartier a été évalué"; "En cas d'égalité, les joueurs ayant le
    plus d'or sont vainqueurs ex-aequo."
    """
    options = {"board": _four_small_quarters()}
    s = game.start(NAMES[:3], options)
    s = _play(s, (0, "p1", "red", 1, {"arrow": True}), _end(0))  # Ana: tile 1, artisan 1
    s = _play(s, (1, "s1", "red", 4, {"arrow": True}), _end(1))  # Ben: s1 under p1: tile 2; artisan 1
    s = _play(s, (2, "p2", "blue", 1, {"arrow": True}), _end(2))  # Cy: tile 1, artisan 1 (p1 is Ana's)
    assert _totals(s) == [2, 3, 2]
    # Ana fills quarter 1 with blue p3 (zone p2 p3 = 2, artisan alone 1), then blue q1 from slot 2 (zone
    # p2 p3 q1 = 3; artisan group q1 p3 = 2: p3's artisan stays until the turn ends).
    s = _play(s, (0, "p3", "blue", 1, {"arrow": True}), (0, "q1", "blue", 2, {"arrow": True}))
    assert _totals(s) == [2 + 3 + 5, 3, 2]
    s = _play(s, _end(0))
    # -2 for the second tile; quarter 1: Ana p1 p3 = 2 -> 6, Cy p2 = 1 -> 4.
    assert s.events == ("Ana: 2nd tile -2", "Q1 done: Ana 6, Cy 4") and _totals(s) == [14, 3, 6]
    s = _play(s, (1, "q2", "green", 2), _end(1))  # Ben: +1
    s = _play(s, (2, "r2", "green", 3, {"arrow": True}), _end(2))  # Cy: zone q2 r2 = 2, artisan 1
    # Ana fills quarter 2 with yellow q3: tile 1, a new artisan (her q1 one is blue) alone 1; quarter 2:
    # Ana q1 q3 = 2 -> 6.
    s = _play(s, (0, "q3", "yellow", 2, {"arrow": True}), _end(0))
    assert s.events[-1] == "Q2 done: Ana 6" and _totals(s) == [22, 4, 9]
    # Ben: yellow r3 under q3 (zone 2); artisan alone (Cy's r2 is not his, q3's went home): 1.
    s = _play(s, (1, "r3", "yellow", 3, {"arrow": True}), _end(1))
    # Cy fills quarter 3 with blue r1: zone r1 q1 p3 p2 = 4, reaching into evaluated quarters 1 and 2;
    # artisan group r1 r2 = 2. Quarter 3: Cy 2 -> 6, Ben 1 -> 4.
    s = _play(s, (2, "r1", "blue", 3, {"arrow": True}))
    assert _totals(s)[2] == 9 + 4 + 2
    s = _play(s, _end(2))
    assert s.events == ("Q3 done: Cy 6, Ben 4",) and _totals(s) == [22, 11, 21]
    s = _play(s, (0, "s2", "white", 4), _end(0), _refresh(1))  # Ana +1; Ben refreshes
    assert not game.is_over(s) and game.prompt(s).player == 2
    # Cy fills the last quarter with white s3 (zone s2 s3 = 2); quarter 4: Ben s1 -> 4. The game is over.
    s = _play(s, (2, "s3", "white", 4), _end(2))
    assert s.events == ("Q4 done: Ben 4", "Game over")
    assert game.is_over(s) and game.prompt(s) is None
    assert [score.breakdown for score in game.scores(s)] == [
        {"tiles": 8, "artisans": 5, "quarters": 12, "second_tiles": -2},
        {"tiles": 5, "artisans": 2, "quarters": 8, "second_tiles": 0},
        {"tiles": 9, "artisans": 4, "quarters": 10, "second_tiles": 0},
    ]
    assert _totals(s) == [23, 15, 23] and game.winners(s) == [0, 2]
    assert _refused_cleanly(s, _refresh(0)) == "The game is over"
    assert _refused_cleanly(s, {"type": "end_game"}) == "The game is over"
    again = engines.replay("maharani", NAMES[:3], options, list(s.actions))
    assert game.scores(again) == game.scores(s) and game.winners(again) == [0, 2]


def test_scenario_two_quarters_completed_in_one_turn_and_the_stuck_end():
    """4 players on four 3-space quarters: one turn fills quarters 1 and 2; later the tiles left cannot be
    placed and the game ends with quarters 3 and 4 unfinished.

    "Quand un joueur place une tuile ... sur la dernière case vide d'un quartier, ce dernier est évalué dès
    que le tour du joueur en question s'achève"; "si ... il reste une ou plusieurs tuiles impossibles à placer
    sans enfreindre les règles, la partie s'achève. On évalue les quartiers non complétés comme d'habitude."
    """
    s = game.start(NAMES, {"board": _four_small_quarters()})
    s = _play(s, (0, "p1", "red", 1, {"arrow": True}), _end(0))  # Ana 1+1
    s = _play(s, (1, "q1", "red", 2, {"arrow": True}), _end(1))  # Ben 1+1 (p3 is still empty)
    s = _play(s, (2, "p2", "green", 1, {"arrow": True}), _end(2))  # Cy 1+1
    s = _play(s, (3, "q2", "green", 2, {"arrow": True}), _end(3))  # Dee 1+1
    # Ana: white p3 fills quarter 1 (zone 1; artisan alone 1: p2's is Cy's), white q3 from slot 3 (marker 3
    # down) fills quarter 2 (zone 1: p3 and q3 do not touch; artisan alone 1); -2.
    s = _play(s, (0, "p3", "white", 1, {"arrow": True}))
    assert _refused_cleanly(s, {"type": "end_game"}) == "End the turn first"
    s = _play(s, (0, "q3", "white", 3, {"arrow": True}), _end(0))
    # Quarter 1: Ana p1 p3 -> 6, Cy p2 -> 4; quarter 2: Ana q3 -> 4, Ben q1 -> 4, Dee q2 -> 4.
    assert s.events == ("Ana: 2nd tile -2", "Q1 done: Ana 6, Cy 4", "Q2 done: Ana 4, Ben 4, Dee 4")
    assert _totals(s) == [2 + 4 - 2 + 10, 6, 6, 6]
    # Ben: red r1 under q1 (zone q1 r1 = 2) with an artisan alone (q1's went home): 1. Cy: green s2 under p2
    # (zone 2), no arrow. Dee refreshes.
    s = _play(s, (1, "r1", "red", 3, {"arrow": True}), _end(1), (2, "s2", "green", 4), _end(2), _refresh(3))
    assert _totals(s) == [14, 9, 8, 6]
    # The tiles left cannot be placed: quarter 3 pays Ben r1 -> 4; quarter 4 has no artisans.
    assert _refused_cleanly(s, {"type": "end_game", "player": 0}) == "Unknown field 'player'"
    s = _play(s, {"type": "end_game"})
    assert s.events == ("Tiles stuck: last count", "Q3 done: Ben 4", "Q4 done: no artisans", "Game over")
    assert game.is_over(s) and game.prompt(s) is None and _totals(s) == [14, 13, 8, 6] and game.winners(s) == [0]
    assert _refused_cleanly(s, _put(0, "r2", "blue", 3)) == "The game is over"


def test_scenario_illegal_actions_are_refused_and_change_nothing():
    """Every refusal has a screen-sized short text, leaves state, scores and prompt as they were, and the
    game goes on from the same state with the figures the rules give."""
    s = _play(game.start(NAMES[:3]), (0, "b2", "blue", 1, {"arrow": True, "tile_id": "blue-1"}), _end(0))
    s = _play(s, (1, "f6", "red", 3), _end(1))
    start = s
    cases = [
        (_put(0, "b3", "blue", 1), "Cy's turn"),
        (_end(2), "Place a tile first"),
        (_put(2, "b2", "red", 1), "Space b2 is taken"),
        (_put(2, "z9", "red", 1), "No space 'z9'"),
        (_put(2, "b3", "red", 5), "No quarter 5"),
        (_put(2, "b3", "red", 0), "No quarter 0"),
        ({**_put(2, "b3", "red", 1), "from_quarter": "1"}, "Bad 'from_quarter'"),
        ({**_put(2, "b3", "red", 1), "from_quarter": True}, "Bad 'from_quarter'"),
        (_put(2, "b3", "red", 1, tile_id="blue-1"), "Tile already placed"),
        (_put(2, "b3", "red", 1, artisan={"set": 0, "move": False}), "No arrow, no artisan"),
        (_put(2, "b3", "red", 1, arrow=True, artisan={"set": 1, "move": False}), "No artisan set 1"),
        (_put(2, "b3", "red", 1, arrow=True, artisan={"set": 0, "move": True}), "Artisan: none to move"),
        ({k: v for k, v in _put(2, "b3", "red", 1).items() if k != "arrow_to_player"}, "Missing 'arrow_to_player'"),
        ({**_put(2, "b3", "red", 1), "rotation": 90}, "Unknown field 'rotation'"),
        ({**_put(2, "b3", "red", 1), "player": 3}, "No such seat"),
        ({"type": "pass", "player": 2}, "Unknown action"),
        ({"type": "refresh"}, "Missing 'player'"),
    ]
    for action, short in cases:
        assert _refused_cleanly(s, action) == short, action
    assert s == start
    s = _play(s, (2, "b3", "blue", 1, {"arrow": True}))  # blue b3 joins b2: +2, Cy's artisan alone +1
    assert _refused_cleanly(s, _put(2, "c3", "red", 1)) == "Slot Q1 is empty"
    s = _play(s, (2, "g6", "red", 2))  # red g6 joins f6: +2 (marker 2 down)
    assert _refused_cleanly(s, _put(2, "c3", "red", 4)) == "Two tiles placed"
    assert _refused_cleanly(s, _refresh(2)) == "Tile placed: end turn"
    assert game.prompt(s).expects == ("end_turn",)
    s = _play(s, _end(2))
    assert _totals(s) == [2, 1, 2 + 1 + 2 - 2]


def test_scenario_artisans_come_back_from_an_evaluated_quarter_and_serve_again():
    """4 players (8 artisans), Ana alone placing one tile a turn; quarter 1 (x) holds 3 spaces, quarter 2 (y)
    11 in a row, quarter 3 (z) 2; the three rows do not touch.

    "Une fois l'évaluation terminée, tous les joueurs retirent leurs artisans de ce quartier et les reprennent
    dans leurs réserves personnelles. Ils pourront les replacer dans d'autres quartiers par la suite."
    """
    rows = [("x", 1, 0, 3), ("y", 2, 2, 11), ("z", 3, 4, 2)]
    board = {"spaces": [{"id": f"{k}{i + 1}", "quarter": q, "row": row, "col": i} for k, q, row, n in rows for i in range(n)]}
    s = game.start(NAMES, {"board": board})
    others = (_refresh(1), _refresh(2), _refresh(3))
    # Six artisans apart in quarter 2, one per colour (tile 1, artisan 1 each), then red x1 (1 + 1) and blue
    # x2 (tile 1, artisan group x1 x2 = 2): all eight are out.
    placements = [("y1", "red"), ("y3", "blue"), ("y5", "green"), ("y7", "yellow"), ("y9", "white"), ("y11", "orange")]
    for space, colour in placements:
        s = _play(s, (0, space, colour, 2, {"arrow": True}), _end(0), *others)
    s = _play(s, (0, "x1", "red", 1, {"arrow": True}), _end(0), *others)
    s = _play(s, (0, "x2", "blue", 1, {"arrow": True}), _end(0), *others)
    assert _totals(s)[0] == 6 * 2 + 2 + 3
    # Green x3 fills quarter 1 with no artisan to put on it; at the end of the turn x1 and x2 are paid (2 -> 6)
    # and go back to Ana's reserve.
    s = _play(s, (0, "x3", "green", 1, {"arrow": True}))
    assert s.events == ("Ana: +1 gold, no artisan left",)
    s = _play(s, _end(0))
    assert s.events == ("Q1 done: Ana 6",) and _totals(s)[0] == 17 + 1 + 6
    s = _play(s, *others, (0, "z1", "red", 3, {"arrow": True}))
    assert s.events == ("Ana: +1 gold, artisan +1",)
    s = _play(s, _end(0), *others, (0, "z2", "blue", 3, {"arrow": True}))
    assert s.events == ("Ana: +1 gold, artisan +2",)
    s = _play(s, _end(0))
    assert s.events == ("Q3 done: Ana 6",) and _totals(s) == [24 + 2 + 3 + 6, 0, 0, 0]


@pytest.mark.parametrize(
    "change, short, named",
    [
        ({"tile": {"color": "red"}}, "Tile: no 'id'", "tile {'color': 'red'} needs the field 'id'"),
        ({"tile": {"id": "r-1", "color": 3}}, "Tile: bad 'color'", "field 'color' of tile {'id': 'r-1', 'color': 3}"),
        ({"arrow_to_player": True, "artisan": {"move": False}}, "Artisan: no 'set'", "artisan {'move': False} needs the field 'set'"),
        ({"arrow_to_player": True, "artisan": {"set": 0, "move": "no"}}, "Artisan: bad 'move'", "field 'move' of artisan"),
    ],
)
def test_scenario_a_malformed_tile_or_artisan_is_refused_naming_it(change, short, named):
    """A bad descriptor inside a placement is named as what it is (the tile, the artisan), not as "action None"."""
    s = game.start(NAMES[:2])
    refusal = refused(s, {**_put(0, "b2", "red", 1), **change})
    assert refusal.short == short and named in str(refusal)
