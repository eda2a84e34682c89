"""Taj Mahal: every rule of rules/000 and game-log.md section 2 on its own, the rule text's examples,
board files, the deck manifest, and random games on a synthetic full-size board and without a board.

Round k visits PROVINCES[k - 1] of the synthetic board (tests/engines/bots/taj_mahal.py), whose roads
are: rings inside each province (x-1, x-2, x-3, x-4[, x-5]), and between the provinces of this grid

    s01 s02  s03 s04        east-west: <left>-2 to <right>-4 (s01-2 to s02-4, ...)
    s05 agra s06 s07        north-south: <upper>-3 to <lower>-1 (s01-3 to s05-1, ...)
    s08 s09  s10 s11

Fortresses: s01..s04 have two (-1 and -3), the other provinces one (-1), Agra agra-2.
"""

import copy
import itertools
import json
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engines
from engines import IllegalAction
from engines.taj_mahal.components import COMPONENTS
from engines.taj_mahal import BoardError, ManifestError, load_board_file, manifest, parse_board
from engines.taj_mahal import board as board_module
from engines.taj_mahal.components import check_fields, read_bonus_tile, read_card, read_item, read_province_tile
from engines.taj_mahal.manifest import parse as parse_manifest

from .bots.taj_mahal import SETUPS, SYNTHETIC_BOARD, Bot
from .playout import apply_junk, assert_refused, json_actions, play_random_game

game = engines.get("taj_mahal")
NAMES = ["Ana", "Ben", "Cy", "Dee", "Eve"]
PROVINCES = [p["id"] for p in SYNTHETIC_BOARD["provinces"] if p["id"] != "agra"] + ["agra"]
TEMPLATE = Path(__file__).resolve().parents[2] / "config" / "boards" / "taj_mahal.template.toml"
_ids = itertools.count()


def card(color: str, *symbols: str) -> dict:
    return {"id": f"{color}-{next(_ids)}", "color": color, "symbols": list(symbols)}


def white(symbol: str) -> dict:
    return card("white", symbol)


def special(kind: str) -> dict:
    return {"id": f"special-{kind}", "special": kind}


def tile(k: int, goods=None) -> dict:
    return {"number": k, "goods": goods or (["rice"] if k == 1 else ["rice", "tea"])}


def start(n: int = 3, board: bool = True):
    return game.start(NAMES[:n], {"board": SYNTHETIC_BOARD} if board else {})


def visit(s, goods=None, province=None):
    k = s.round + 1
    return game.apply(s, {"type": "visit", "province": province or PROVINCES[k - 1], "tile": tile(k, goods)})


def play(s, p, *cards):
    return game.apply(s, {"type": "play", "player": p, "cards": list(cards)})


def play_refused(s, p, *cards) -> str:
    """The short message refusing p's play of `cards` (the state unchanged)."""
    return refused(s, {"type": "play", "player": p, "cards": list(cards)}).short


def withdraw(s, p):
    return game.apply(s, {"type": "withdraw", "player": p})


def palace(s, p, city, bonus=None):
    action = {"type": "palace", "player": p, "city": city}
    if bonus is not None:
        action["bonus"] = bonus
    return game.apply(s, action)


def crown(s, p, city):
    return game.apply(s, {"type": "crown", "player": p, "city": city})


def skip_rounds(s, count):
    """Play `count` rounds in which everybody withdraws without a card."""
    for _ in range(count):
        s = visit(s)
        while s.province is not None:
            s = withdraw(s, s.turn)
    return s


def alone(s, p, *cards):
    """The other seats withdraw without a card as their turns come; p plays `cards`, one a turn, in order."""
    cards = list(cards)
    while sum(s.in_round) > 1 or s.turn != p:
        s = play(s, p, cards.pop(0)) if s.turn == p else withdraw(s, s.turn)
    for c in cards:
        s = play(s, p, c)
    return s


def refused(s, action) -> IllegalAction:
    return assert_refused(game, s, action)


def points(s, p):
    return game.scores(s)[p].breakdown


# -- visits and turn order -------------------------------------------------------------------------


def test_visit_opens_round_with_the_tile_numbered_like_the_round():
    s = start()
    assert game.prompt(s).expects == ("visit",)
    assert "agra" not in game.prompt(s).options["province"]
    assert "tile 1" in refused(s, {"type": "visit", "province": "s01", "tile": tile(2)}).short
    s = visit(s)
    assert (s.round, s.province, s.turn) == (1, "s01", 0)
    assert s.events == ("Round 1: s01",)
    assert game.phase(s) == "Round 1/12"
    assert "on" in refused(s, {"type": "visit", "province": "s02", "tile": tile(2)}).short


def test_no_province_twice_and_agra_last():
    s = skip_rounds(start(), 1)
    assert "visited" in refused(s, {"type": "visit", "province": "s01", "tile": tile(2)}).short
    assert "Agra" in refused(s, {"type": "visit", "province": "agra", "tile": tile(2)}).short
    assert "No province" in refused(s, {"type": "visit", "province": "paris", "tile": tile(2)}).short
    s = skip_rounds(s, 10)
    assert game.prompt(s).options["province"] == ("agra",)
    assert "visited" in refused(s, {"type": "visit", "province": "s11", "tile": tile(12)}).short
    s = skip_rounds(s, 1)
    assert s.visited == PROVINCES
    refused(s, {"type": "visit", "province": "agra", "tile": tile(12)})


def test_first_player_rotates_clockwise():
    s = start(4)
    firsts = []
    for _ in range(6):
        s = visit(s)
        firsts.append(s.turn)
        while s.province is not None:
            s = withdraw(s, s.turn)
    assert firsts == [0, 1, 2, 3, 0, 1]


def test_play_goes_clockwise_among_players_still_in():
    s = visit(start(4))
    s = play(s, 0, card("red", "elephant", "monk"))
    assert s.turn == 1
    s = withdraw(s, 1)
    s = play(s, 2, card("green", "vizier", "monk"))
    assert s.turn == 3
    s = play(s, 3, card("green", "elephant", "general"))
    assert s.turn == 0
    s = play(s, 0, card("red", "elephant", "monk"))
    assert s.turn == 2  # seat 1 is out
    assert play_refused(s, 1, card("red", "mogul", "monk")) == "Cy's turn"


def test_province_tile_goods_count_follows_the_rule_text():
    s = start()
    assert "1 good" in refused(s, {"type": "visit", "province": "s01", "tile": tile(1, ["rice", "tea"])}).short
    s = skip_rounds(s, 1)
    assert "2 goods" in refused(s, {"type": "visit", "province": "s02", "tile": tile(2, ["rice"])}).short
    refused(s, {"type": "visit", "province": "s02", "tile": tile(2, ["rice", "gold"])})


# -- playing cards ---------------------------------------------------------------------------------


def test_play_one_coloured_card_then_maybe_a_white_or_special():
    s = visit(start())
    assert "Coloured card first" == play_refused(s, 0, white("elephant"))
    assert "Coloured" in play_refused(s, 0, special("points"))
    assert "One coloured" in play_refused(s, 0, card("red", "elephant", "monk"), card("red", "vizier", "monk"))
    assert "1 or 2" in play_refused(s, 0)
    assert "1 or 2" in play_refused(s, 0, card("red", "elephant", "monk"), white("monk"), white("vizier"))
    s = play(s, 0, card("red", "elephant", "monk"), white("monk"))
    assert s.counts[0] == {"elephant": 1, "monk": 2}
    assert s.colour[0] == "red"
    assert s.events == ("Ana: red + white",)


def test_first_card_fixes_the_colour_for_the_round():
    s = visit(start())
    s = play(s, 0, card("red", "elephant", "monk"))
    s = play(s, 1, card("red", "elephant", "vizier"))  # another player may play the same colour
    s = play(s, 2, card("green", "elephant", "vizier"))
    assert play_refused(s, 0, card("green", "elephant", "monk")) == "Play red: you began in red"
    s = play(s, 0, card("red", "general", "monk"))
    s = skip_rest_of_round(s)
    s = visit(s)
    s = play(s, 1, card("purple", "elephant", "elephant"))  # a new round, a new colour
    assert s.colour[1] == "purple"


def skip_rest_of_round(s):
    while s.province is not None:
        s = withdraw(s, s.turn) if s.placer is None else place_anything(s)
    return s


def place_anything(s):
    """The placer puts what is owed on the first legal cities (with their bonus tiles)."""
    p = s.placer
    prompt = game.prompt(s)
    if "crown" in prompt.expects:
        return crown(s, p, prompt.options["crown"][0])
    city = prompt.options["palace"][-1]
    return palace(
        s, p, city, {"kind": "taj"} if city == "agra-2" else {"kind": "points"} if city in prompt.options["bonus"] else None
    )


def test_no_card_twice_on_the_table():
    s = visit(start())
    red = card("red", "elephant", "monk")
    s = play(s, 0, red)
    assert "table" in play_refused(s, 1, red)
    same = card("yellow", "elephant", "monk")
    assert "twice" in refused(s, {"type": "play", "player": 1, "cards": [same, {**white("monk"), "id": same["id"]}]}).short
    # once Ana withdraws her cards are discarded: the id may come back (a reshuffled discard pile)
    s = play(s, 1, card("yellow", "vizier", "monk"))
    s = play(s, 2, card("green", "vizier", "monk"))
    s = withdraw(s, 0)
    s = place_until_done(s)
    s = play(s, 1, {**red, "color": "yellow"})
    assert red["id"] in s.table[1]


def place_until_done(s):
    while s.placer is not None:
        s = place_anything(s)
    return s


def test_card_descriptors_are_checked():
    s = visit(start())
    bad = [
        {"id": "r1", "color": "red", "symbols": ["elephant"]},
        {"id": "r1", "color": "red", "symbols": ["elephant", "monk", "vizier"]},
        {"id": "r1", "color": "blue", "symbols": ["elephant", "monk"]},
        {"id": "r1", "color": "red", "symbols": ["elephant", "dragon"]},
        {"id": "", "color": "red", "symbols": ["elephant", "monk"]},
        {"color": "red", "symbols": ["elephant", "monk"]},
        {"id": "r1", "color": "red", "symbols": "elephant"},
        {"id": 5, "color": "red", "symbols": ["elephant", "monk"]},
    ]
    for desc in bad:
        refused(s, {"type": "play", "player": 0, "cards": [desc]})
    white_two = {"id": "w1", "color": "white", "symbols": ["monk", "vizier"]}
    assert play_refused(s, 0, card("red", "elephant", "monk"), white_two) == "A white card: 1 symbol"
    assert "2 symbols" in refused(s, {"type": "play", "player": 0, "cards": [bad[0]]}).short
    both = {"id": "x", "special": "points", "color": "red"}
    refused(s, {"type": "play", "player": 0, "cards": [card("red", "elephant", "monk"), both]})
    labelled = {**card("red", "elephant", "elephant"), "label": "red double elephant #2"}
    assert play(s, 0, labelled).counts[0] == {"elephant": 2}


# -- special cards ---------------------------------------------------------------------------------


def with_special(s, kind, seat):
    s = s.copy()
    s.holder[kind] = seat
    return s


def test_a_special_card_is_played_only_by_its_holder_and_once_a_round():
    s = visit(with_special(start(), "elephant", 0))
    assert "Not your" in play_refused(s, 0, card("red", "monk", "vizier"), special("mogul"))
    assert game.prompt(s).options["specials"] == ("elephant",)
    s = play(s, 0, card("red", "monk", "vizier"), special("elephant"))
    assert s.counts[0] == {"monk": 1, "vizier": 1, "elephant": 1}
    s = play(s, 1, card("red", "monk", "general"))
    s = play(s, 2, card("red", "monk", "general"))
    assert game.prompt(s).options["specials"] == ()
    assert "out" in play_refused(s, 0, card("red", "monk", "vizier"), special("elephant"))


def test_points_special_scores_two_at_once_and_goes_back_to_hand():
    s = visit(with_special(start(), "points", 0))
    s = play(s, 0, card("red", "monk", "vizier"), special("points"))
    assert points(s, 0)["special"] == 2 and game.scores(s)[0].total == 2
    s = play(s, 1, card("red", "monk", "general"))
    s = play(s, 2, card("red", "monk", "general"))
    s = withdraw(s, 0)
    s = place_until_done(s)
    assert s.table[0] == [] and s.specials_out[0] == [] and s.holder["points"] == 0
    s = skip_rest_of_round(s)
    s = visit(s)
    s = play(s, 1, card("red", "monk", "general"))
    s = play(s, 2, card("red", "monk", "general"))
    s = play(s, 0, card("green", "monk", "vizier"), special("points"))  # back in hand: played again
    assert points(s, 0)["special"] == 4


def test_colour_change_card_works_for_one_play_only():
    s = visit(with_special(start(), "color_change", 0))
    s = play(s, 0, card("red", "elephant", "monk"))
    s = play(s, 1, card("red", "monk", "general"))
    s = play(s, 2, card("red", "monk", "general"))
    s = play(s, 0, card("green", "elephant", "monk"), special("color_change"))
    assert s.colour[0] == "red" and s.counts[0] == {"elephant": 2, "monk": 2}
    s = play(s, 1, card("red", "monk", "general"))
    s = play(s, 2, card("red", "monk", "general"))
    assert "began in red" in play_refused(s, 0, card("green", "elephant", "monk"))
    assert "out" in play_refused(s, 0, card("green", "elephant", "monk"), special("color_change"))
    assert play(s, 0, card("red", "vizier", "monk")).colour[0] == "red"


def test_colour_change_on_the_first_play_still_fixes_that_colour():
    s = visit(with_special(start(), "color_change", 0))
    s = play(s, 0, card("green", "elephant", "monk"), special("color_change"))
    s = play(s, 1, card("red", "monk", "general"))
    s = play(s, 2, card("red", "monk", "general"))
    assert s.colour[0] == "green"
    refused(s, {"type": "play", "player": 0, "cards": [card("red", "elephant", "monk")]})


def test_two_identical_tokens_buy_the_special_card_from_its_holder():
    s = with_special(start(), "mogul", 1)  # Ben holds the +1 mogul card
    s.tokens[0]["vizier"] = 1
    s = visit(s)
    s = play(s, 0, card("red", "vizier", "monk"))
    s = play(s, 1, card("red", "elephant", "general"), special("mogul"))
    s = play(s, 2, card("green", "princess", "general"))
    s = withdraw(s, 0)  # vizier and monk
    s = place_until_done(s)
    s = skip_rest_of_round(s)
    assert s.holder["mogul"] == 0 and s.tokens[0]["vizier"] == 0
    assert "Ana: +1 mogul card" in s.events
    s = visit(s)
    assert "Not your" in play_refused(s, 1, card("red", "elephant", "monk"), special("mogul"))
    s = play(s, 1, card("red", "elephant", "monk"))
    s = play(s, 2, card("red", "elephant", "monk"))
    assert game.prompt(s).options["specials"] == ("mogul",)
    assert play(s, 0, card("red", "elephant", "monk"), special("mogul")).counts[0]["mogul"] == 1


def test_special_taken_from_beside_the_board_and_one_token_is_not_enough():
    s = start()
    s.tokens[0]["monk"] = 1
    s = visit(s)
    s = play(s, 0, card("red", "monk", "general"))
    s = play(s, 1, card("red", "vizier", "elephant"))
    s = play(s, 2, card("red", "princess", "mogul"))
    s = skip_rest_of_round(withdraw(s, 0))
    assert s.holder["color_change"] == 0 and s.tokens[0] == {"monk": 0, "general": 1}
    assert s.holder["elephant"] is None  # one general token buys nothing


# -- withdrawing: majorities -----------------------------------------------------------------------


def test_withdraw_wins_strict_majorities_and_announces_them():
    s = visit(start())
    s = play(s, 0, card("red", "vizier", "elephant"), white("mogul"))
    s = play(s, 1, card("green", "elephant", "monk"))
    s = play(s, 2, card("yellow", "general", "princess"))
    s = play(s, 0, card("red", "elephant", "monk"))
    s = withdraw(s, 1)  # Ben: monk 1 vs Ana's 1: tie; nothing
    assert s.events == ("Ben: nothing",)
    assert s.placer is None and s.turn == 2
    s = play(s, 2, card("yellow", "elephant", "general"))
    s = withdraw(s, 0)  # Ana: vizier 1-0, monk (Ben out), mogul 1-0, elephant 2-1
    assert s.events[0] == "Ana: vizier, monk, crown, province"
    assert s.placer == 0 and s.owed_palaces == 2 and s.owed_crown
    assert s.court == ["general", "princess"]
    assert s.tokens[0] == {"vizier": 1, "monk": 1}


def test_a_tied_symbol_is_won_by_nobody():
    s = visit(start())
    s = play(s, 0, card("red", "vizier", "elephant"))
    s = play(s, 1, card("green", "vizier", "elephant"))
    s = play(s, 2, card("yellow", "general", "princess"))
    s = withdraw(s, 0)
    assert s.events == ("Ana: nothing",) and "vizier" in s.court and "province" in s.court
    s = withdraw(s, 1)  # Ana's cards are gone: Ben now leads alone
    assert s.events[0] == "Ben: vizier, province"


def test_a_withdrawn_players_cards_no_longer_count():
    s = visit(start())
    s = play(s, 0, card("red", "vizier", "elephant"))
    s = play(s, 1, card("green", "vizier", "elephant"))
    s = play(s, 2, card("yellow", "vizier", "elephant"))
    s = play(s, 0, card("red", "vizier", "elephant"))
    s = play(s, 1, card("green", "elephant", "general"))
    s = withdraw(s, 2)
    s = withdraw(s, 0)  # viziers 2-1; elephants 2-2 with Ben
    assert s.events[0] == "Ana: vizier"
    s = place_until_done(s)
    assert s.counts[0] == {} and s.table[0] == []
    s = withdraw(s, 1)  # Ana's two elephants left the table with her: Ben's two win the province
    assert s.events[0] == "Ben: general, province"


def test_the_last_player_alone_plays_on_and_wins_what_he_has():
    s = visit(start())
    s = play(s, 0, card("red", "vizier", "elephant"))
    s = play(s, 1, card("green", "vizier", "vizier"))
    s = withdraw(s, 2)
    s = play(s, 0, card("red", "vizier", "elephant"))
    s = withdraw(s, 1)  # Ben: vizier 2-2 with Ana: nothing
    assert s.events == ("Ben: nothing",)
    assert game.prompt(s).player == 0
    s = play(s, 0, card("red", "monk", "mogul"))
    assert s.turn == 0  # alone: Ana plays again
    s = play(s, 0, card("red", "princess", "general"))
    s = withdraw(s, 0)
    assert s.events[0] == "Ana: vizier, general, monk, princess, crown, province"
    assert s.owed_palaces == 4 and s.owed_crown
    prompt = game.prompt(s)  # the four palaces need the four cities: the crown goes beside one of them
    assert prompt.expects == ("palace",) and prompt.text == "Ana: 4 palaces, crown"
    s = palace(s, 0, "s01-1", {"kind": "card"})
    assert game.prompt(s).expects == ("palace", "crown") and game.prompt(s).options["crown"] == ("s01-1",)
    for city in ("s01-2", "s01-3", "s01-4"):
        s = palace(s, 0, city, {"kind": "card"} if city == "s01-3" else None)
    assert game.prompt(s).expects == ("crown",) and len(game.prompt(s).options["crown"]) == 4
    s = crown(s, 0, "s01-4")
    assert points(s, 0) == {"palaces": 1, "bonus": 0, "province": 1, "special": 0, "hand": 0}


def test_withdrawing_without_a_card_scores_nothing():
    s = visit(start())
    s = withdraw(s, 0)
    assert s.events == ("Ana: out, no card",)
    assert s.placer is None and s.turn == 1 and s.in_round == [False, True, True]
    assert game.scores(s)[0].total == 0
    s = play(s, 1, card("red", "elephant", "monk"))
    s = withdraw(s, 2)
    s = withdraw(s, 1)
    assert s.events[0] == "Ben: monk, province"
    assert s.province is not None  # Ben places his palace, then the round ends


def test_special_cards_count_as_symbols():
    s = visit(with_special(with_special(start(), "elephant", 0), "mogul", 1))
    s = play(s, 0, card("red", "elephant", "monk"), special("elephant"))
    s = play(s, 1, card("green", "elephant", "mogul"), special("mogul"))
    s = play(s, 2, card("yellow", "elephant", "mogul"))
    s = withdraw(s, 0)
    assert s.events[0] == "Ana: monk, province"  # elephants 2-1-1 thanks to the card
    s = place_until_done(s)
    s = withdraw(s, 1)
    assert s.events[0] == "Ben: crown"  # moguls 2-1


def test_a_token_won_this_round_cannot_be_won_again():
    s = visit(start())
    s = play(s, 0, card("red", "vizier", "monk"))
    s = play(s, 1, card("green", "vizier", "vizier"))
    s = play(s, 2, card("yellow", "general", "princess"))
    s = play(s, 0, card("red", "elephant", "elephant"))
    s = withdraw(s, 1)
    assert s.events[0] == "Ben: vizier"
    s = place_until_done(s)
    s = withdraw(s, 2)
    s = place_until_done(s)
    s = withdraw(s, 0)
    assert s.events[0] == "Ana: monk, province"  # the vizier is gone from the court


# -- placements ------------------------------------------------------------------------------------


def won(cards, board=True, k=1):
    """Round k, where Ana plays `cards` and withdraws last; the others withdraw without a card."""
    s = skip_rounds(start(3, board), k - 1)
    return withdraw(alone(visit(s), 0, *cards), 0)


def test_the_prompt_after_a_withdraw_offers_the_legal_cities():
    s = won([card("red", "vizier", "mogul")])
    prompt = game.prompt(s)
    assert prompt.player == 0 and set(prompt.expects) == {"palace", "crown"}
    assert set(prompt.options["palace"]) == {"s01-1", "s01-2", "s01-3", "s01-4"}
    assert prompt.options["palace"][:2] in (("s01-1", "s01-3"), ("s01-3", "s01-1"))  # bonus tiles first
    assert prompt.options["bonus"] == prompt.options["palace"][:2]
    assert set(prompt.options["crown"]) == {"s01-1", "s01-2", "s01-3", "s01-4"}
    s = palace(s, 0, "s01-1", {"kind": "points"})
    prompt = game.prompt(s)
    assert prompt.expects == ("crown",) and prompt.options["crown"][0] in ("s01-2", "s01-4")  # next to her palace first
    assert "s01-1" in prompt.options["crown"]


def test_palace_on_a_free_city_of_the_province_only():
    s = won([card("red", "vizier", "monk")])
    assert "not in" in refused(s, {"type": "palace", "player": 0, "city": "s02-2"}).short
    assert "placing" in refused(s, {"type": "palace", "player": 1, "city": "s01-2"}).short
    assert "No crown" in refused(s, {"type": "crown", "player": 0, "city": "s01-2"}).short
    refused(s, {"type": "withdraw", "player": 1})
    s = palace(s, 0, "s01-2")
    assert s.palaces["s01"]["s01-2"] == [0, None]
    assert "already" in refused(s, {"type": "palace", "player": 0, "city": "s01-2"}).short
    s = palace(s, 0, "s01-4")
    assert s.placer is None and points(s, 0)["palaces"] == 1
    assert s.events == ("Ana: palace s01-4", "Ana: palaces +1")
    assert "No palace" in refused(s, {"type": "palace", "player": 0, "city": "s01-2"}).short


def test_fortress_palace_takes_its_bonus_tile():
    s = won([card("red", "vizier", "monk")])
    assert refused(s, {"type": "palace", "player": 0, "city": "s01-1"}).short == "Tap the bonus tile"
    assert "No bonus" in refused(s, {"type": "palace", "player": 0, "city": "s01-2", "bonus": {"kind": "points"}}).short
    assert "Taj" in refused(s, {"type": "palace", "player": 0, "city": "s01-1", "bonus": {"kind": "taj"}}).short
    s = palace(s, 0, "s01-1", {"kind": "points"})
    assert points(s, 0)["bonus"] == 2 and s.tiles[0] == [("bonus", "points", None)]
    s = palace(s, 0, "s01-3", {"kind": "card"})
    assert points(s, 0)["bonus"] == 2 and points(s, 0)["palaces"] == 1


def test_crowned_palace_on_an_occupied_city_and_an_ordinary_one_beside_a_crown():
    s = visit(start())
    s = play(s, 0, card("red", "vizier", "monk"))
    s = play(s, 1, card("red", "mogul", "general"))
    s = play(s, 2, card("red", "elephant", "elephant"))
    s = withdraw(s, 0)  # vizier, monk
    s = palace(s, 0, "s01-2")
    s = palace(s, 0, "s01-4")
    s = withdraw(s, 1)  # general, crown
    s = crown(s, 1, "s01-2")  # beside Ana's palace
    assert s.palaces["s01"]["s01-2"] == [0, 1]
    assert "already" in refused(s, {"type": "palace", "player": 1, "city": "s01-2"}).short
    s = palace(s, 1, "s01-3", {"kind": "points"})
    assert points(s, 1) == {"palaces": 1, "bonus": 2, "province": 0, "special": 0, "hand": 0}


def test_crowned_palace_on_a_fortress_takes_no_bonus_and_leaves_it():
    s = visit(start())
    s = play(s, 0, card("red", "mogul", "elephant"))
    s = play(s, 1, card("red", "vizier", "general"))
    s = play(s, 2, card("red", "monk", "princess"))
    s = withdraw(s, 0)  # crown, province
    refused(s, {"type": "crown", "player": 0, "city": "s01-1", "bonus": {"kind": "points"}})
    s = crown(s, 0, "s01-1")
    assert points(s, 0)["bonus"] == 0 and points(s, 0)["palaces"] == 1
    s = withdraw(s, 1)  # vizier, general
    assert s.palaces["s01"]["s01-1"] == [None, 0]
    assert "s01-1" in game.prompt(s).options["bonus"]
    s = palace(s, 1, "s01-1", {"kind": "goods", "goods": "tea"})
    assert s.palaces["s01"]["s01-1"] == [1, 0] and points(s, 1)["bonus"] == 1


def last_free_city_with_crown_and_palace_owed():
    """Ana and Ben take three cities of s01; Cy withdraws owing the crown and one palace: one city is left."""
    s = visit(start(4))
    s = play(s, 0, card("red", "vizier", "general"))
    s = play(s, 1, card("red", "monk", "elephant"))
    s = play(s, 2, card("red", "mogul", "princess"))
    s = withdraw(s, 3)
    s = withdraw(s, 0)
    s = palace(s, 0, "s01-1", {"kind": "points"})
    s = palace(s, 0, "s01-2")
    s = withdraw(s, 1)
    s = palace(s, 1, "s01-3", {"kind": "points"})
    return withdraw(s, 2)  # Cy: princess and the crown


def test_an_ordinary_palace_never_beside_its_owners_crown():
    s = won([card("red", "vizier", "mogul")])
    s = crown(s, 0, "s01-2")
    assert "Your crown" in refused(s, {"type": "palace", "player": 0, "city": "s01-2"}).short
    assert "s01-2" not in game.prompt(s).options["palace"]


def test_the_crown_waits_when_the_last_free_city_is_needed_for_a_palace():
    s = last_free_city_with_crown_and_palace_owed()
    prompt = game.prompt(s)
    assert prompt.options["palace"] == ("s01-4",)
    assert "s01-4" not in prompt.options["crown"] and set(prompt.options["crown"]) == {"s01-1", "s01-2", "s01-3"}
    assert refused(s, {"type": "crown", "player": 2, "city": "s01-4"}).short == "Place the palace first"
    done = palace(crown(s, 2, "s01-2"), 2, "s01-4")
    assert done.palaces["s01"]["s01-2"] == [0, 2] and done.palaces["s01"]["s01-4"] == [2, None]
    done = crown(palace(s, 2, "s01-4"), 2, "s01-4")  # palace first: the crown may then join it
    assert done.palaces["s01"]["s01-4"] == [2, 2]


def test_taj_mahal_only_on_agras_fortress_in_round_12():
    s = won([card("red", "vizier", "monk")], k=12)
    assert s.province == "agra" and game.prompt(s).options["bonus"] == ("agra-2",)
    assert "Taj" in refused(s, {"type": "palace", "player": 0, "city": "agra-2", "bonus": {"kind": "points"}}).short
    s = palace(s, 0, "agra-2", {"kind": "taj"})
    assert points(s, 0)["bonus"] == 4 and s.taj_taken


def test_bonus_tile_descriptors_are_checked():
    s = won([card("red", "vizier", "monk")])
    for bonus in (
        {"kind": "gold"},
        {"kind": "goods"},
        {"kind": "goods", "goods": "gold"},
        {"kind": "points", "goods": "tea"},
        {"kind": 3},
    ):
        refused(s, {"type": "palace", "player": 0, "city": "s01-1", "bonus": bonus})


# -- scoring ---------------------------------------------------------------------------------------


def test_province_tile_scores_its_goods_with_the_new_tile():
    s = won([card("red", "elephant", "elephant")])
    assert s.events == ("Ana: province", "Ana: province +1")
    assert s.tiles[0] == [("province", 1, ("rice",))] and s.goods[0] == {"rice": 1}
    assert points(s, 0)["province"] == 1 and points(s, 0)["palaces"] == 0


def test_a_good_shown_twice_on_a_tile_counts_its_kind_once():
    """The rule counts the goods "du ou des types figurant sur ce jeton": each kind once, all its copies."""
    s = skip_rounds(start(), 1)
    s.goods[0] = {"rice": 1}
    s = withdraw(alone(visit(s, ["rice", "rice"]), 0, card("red", "elephant", "elephant")), 0)
    assert points(s, 0)["province"] == 3 and s.goods[0] == {"rice": 3}


def test_rule_example_province_tile_worth_8():
    s = start()
    s = skip_rounds(s, 4)
    # Ana's tiles: provinces [rice, spice], [tea, jewels] and [rice, tea], bonus tiles rice and tea
    s.goods[0] = {"rice": 3, "tea": 3, "spice": 1, "jewels": 1}
    s = visit(s, ["rice", "tea"])
    s = withdraw(alone(s, 0, card("red", "elephant", "elephant")), 0)
    assert s.events[-1] == "Ana: province +8"  # rice 1+1+1 + the new 1, tea the same
    assert points(s, 0)["province"] == 8


def test_rule_example_two_goods_bonus_tiles_score_3_then_4():
    s = start()
    s.goods[0] = {"rice": 2}
    s = visit(s)
    s = withdraw(alone(s, 0, card("red", "vizier", "elephant"), card("red", "monk", "elephant")), 0)
    assert s.events == ("Ana: vizier, monk, province",)
    s = palace(s, 0, "s01-1", {"kind": "goods", "goods": "rice"})
    assert points(s, 0)["bonus"] == 3  # 1 + 1 + 1
    s = palace(s, 0, "s01-3", {"kind": "goods", "goods": "rice"})
    assert points(s, 0)["bonus"] == 7  # + (1 + 1 + 1 + 1)
    assert s.events == ("Ana: palace s01-3", "Ana: rice +4", "Ana: province +5", "Ana: palaces +1")  # the tile counts them all


def test_scoring_order_bonus_tiles_before_the_province_tile():
    """A bonus tile counts the tiles held before it, not the province tile won in the same withdrawal."""
    s = start()
    s = withdraw(alone(visit(s), 0, card("red", "vizier", "elephant")), 0)  # vizier (a palace) and the province tile (rice)
    s = palace(s, 0, "s01-1", {"kind": "goods", "goods": "rice"})
    assert points(s, 0)["bonus"] == 1
    assert points(s, 0)["province"] == 2


def test_palace_points_one_however_many_palaces():
    s = won([card("red", "vizier", "monk"), card("red", "general", "princess")])
    s = palace(s, 0, "s01-2")
    s = palace(s, 0, "s01-4")
    s = palace(s, 0, "s01-1", {"kind": "points"})
    s = palace(s, 0, "s01-3", {"kind": "points"})
    assert points(s, 0)["palaces"] == 1


def chain_state(palaces: dict, n: int = 3):
    """Round 3 in s02, with `palaces` from earlier rounds (province -> city -> [ordinary, crowned])."""
    s = start(n)
    s = skip_rounds(s, 2)  # s01 and s02 are visited...
    s.visited = ["s05", "s03"]  # ...but the test's earlier rounds were elsewhere
    s.palaces = {"s05": {}, "s03": {}, **copy.deepcopy(palaces)}
    s = visit(s, province="s02")
    return s


def ana_places(s, *cities):
    """Ana wins one influence token per city and puts her palaces there."""
    tokens = ["vizier", "monk", "general", "princess"][: len(cities)]
    s = alone(s, 0, *(card("red", a, b) for a, b in zip(tokens[::2], tokens[1::2] + tokens[-1:])))
    s = withdraw(s, 0)
    for city in cities:
        s = palace(s, 0, city)
    return s


def test_chain_joins_provinces_through_own_palaces():
    s = chain_state({"s01": {"s01-2": [0, None]}, "s03": {"s03-4": [0, None]}})
    s = ana_places(s, "s02-4", "s02-2")  # s02-4 - s01-2 and s02-2 - s03-4
    assert points(s, 0)["palaces"] == 3


def test_chain_through_a_city_holding_two_palaces():
    before = {"s01": {"s01-2": [1, 0], "s01-3": [0, None]}, "s05": {"s05-1": [0, None]}}
    s = ana_places(chain_state(before), "s02-4")  # s02-4, s01-2 (Ben's and Ana's crowned), s01-3, s05-1
    assert points(s, 0)["palaces"] == 3
    s = withdraw(alone(chain_state({"s01": {"s01-2": [1, 0]}}), 1, card("red", "vizier", "vizier")), 1)
    s = palace(s, 1, "s02-4")
    assert points(s, 1)["palaces"] == 2  # the same city serves Ben's chain


def test_chain_broken_by_an_empty_or_foreign_city():
    empty = {"s01": {"s01-3": [0, None]}, "s05": {"s05-1": [0, None]}}
    assert points(ana_places(chain_state(empty), "s02-4"), 0)["palaces"] == 1
    foreign = {"s01": {"s01-2": [1, None], "s01-3": [0, None]}, "s05": {"s05-1": [0, None]}}
    assert points(ana_places(chain_state(foreign), "s02-4"), 0)["palaces"] == 1
    foreign_crown = {"s01": {"s01-2": [None, 2], "s01-3": [0, None]}}
    assert points(ana_places(chain_state(foreign_crown), "s02-4"), 0)["palaces"] == 1


def test_chain_counts_each_province_once_and_starts_from_a_crown_too():
    before = {"s01": {"s01-2": [0, None], "s01-3": [0, None], "s01-1": [0, None]}, "s05": {"s05-1": [0, None]}}
    s = withdraw(alone(chain_state(before), 0, card("red", "mogul", "mogul")), 0)
    assert s.events[0] == "Ana: crown"
    s = crown(s, 0, "s02-4")
    assert points(s, 0)["palaces"] == 3


def test_cards_leave_the_table_and_the_round_ends_when_all_are_out():
    s = visit(start())
    s = play(s, 0, card("red", "vizier", "monk"))
    s = withdraw(s, 1)
    s = withdraw(s, 2)
    s = withdraw(s, 0)
    assert s.table[0] == [] and s.counts[0] == {}
    assert s.province is not None  # Ana still places her palaces
    s = place_until_done(s)
    assert s.province is None and s.turn is None and game.prompt(s).expects == ("visit",)
    assert game.phase(s) == "Round 2/12"


# -- without a board -------------------------------------------------------------------------------


def test_without_a_board_labels_are_free_and_the_players_count_the_chain():
    s = start(board=False)
    assert game.prompt(s).options == {}
    s = withdraw(alone(visit(s, province="north-east"), 0, card("red", "vizier", "mogul")), 0)
    prompt = game.prompt(s)
    assert set(prompt.expects) == {"palace", "crown"} and prompt.options == {}
    s = palace(s, 0, "by the river", {"kind": "points"})
    s = crown(s, 0, "by the river")
    assert game.prompt(s).expects == ("chain",) and game.prompt(s).options["provinces"] == (0,)
    assert "Chain: 0 to 0" == refused(s, {"type": "chain", "player": 0, "provinces": 1}).short
    refused(s, {"type": "visit", "province": "x", "tile": tile(2)})
    s = game.apply(s, {"type": "chain", "player": 0, "provinces": 0})
    assert points(s, 0)["palaces"] == 1 and points(s, 0)["bonus"] == 2
    s = withdraw(alone(visit(s, province="south"), 0, card("red", "vizier", "monk")), 0)
    s = palace(s, 0, "a")
    s = palace(s, 0, "b")
    assert game.prompt(s).options["provinces"] == (0, 1)
    s = game.apply(s, {"type": "chain", "player": 0, "provinces": 1})
    assert points(s, 0)["palaces"] == 3


def test_without_a_board_the_rules_still_hold():
    s = skip_rounds(start(board=False), 1)
    assert "visited" in refused(s, {"type": "visit", "province": "s01", "tile": tile(2)}).short
    cards = card("red", "vizier", "monk"), card("red", "general", "princess"), card("red", "mogul", "mogul")
    s = withdraw(alone(visit(s, province="q"), 0, *cards), 0)
    assert "Taj" in refused(s, {"type": "palace", "player": 0, "city": "a", "bonus": {"kind": "taj"}}).short
    s = palace(s, 0, "a")
    assert "already" in refused(s, {"type": "palace", "player": 0, "city": "a"}).short
    s = palace(s, 0, "b")
    assert refused(s, {"type": "crown", "player": 0, "city": "c"}).short == "Place the palaces first"
    s = palace(s, 0, "c")
    s = palace(s, 0, "d")
    assert "4 cities" in refused(s, {"type": "crown", "player": 0, "city": "e"}).short
    s = crown(s, 0, "a")
    assert s.palaces["q"] == {"a": [0, 0], "b": [0, None], "c": [0, None], "d": [0, None]}
    assert game.prompt(s).expects == ("chain",)
    assert "No chain" in refused(start(), {"type": "chain", "player": 0, "provinces": 0}).short


def test_chain_refused_with_a_board_and_before_placements_are_done():
    s = won([card("red", "vizier", "monk")])
    assert "No chain" in refused(s, {"type": "chain", "player": 0, "provinces": 0}).short
    s = won([card("red", "vizier", "monk")], board=False)
    assert "No chain" in refused(s, {"type": "chain", "player": 0, "provinces": 0}).short


def test_without_a_board_one_taj_mahal():
    s = won([card("red", "vizier", "monk")], board=False, k=12)
    assert "Taj" in refused(s, {"type": "palace", "player": 0, "city": "a", "bonus": {"kind": "points"}}).short
    s = palace(s, 0, "a", {"kind": "taj"})
    assert points(s, 0)["bonus"] == 4
    assert "taken" in refused(s, {"type": "palace", "player": 0, "city": "b", "bonus": {"kind": "taj"}}).short


def test_without_a_board_at_most_15_square_bonus_tiles():
    s = won([card("red", "vizier", "monk")], board=False, k=2)
    s.bonus_taken = 15
    assert "15" in refused(s, {"type": "palace", "player": 0, "city": "a", "bonus": {"kind": "card"}}).short


# -- the end ---------------------------------------------------------------------------------------


def test_hands_after_round_12_and_the_final_score():
    s = skip_rounds(start(), 11)
    refused(s, {"type": "hand", "player": 0, "cards": []})
    s = skip_rounds(s, 1)
    s.holder["points"] = 0
    s.points[1]["palaces"] = 7
    prompt = game.prompt(s)
    assert prompt.expects == ("hand",) and prompt.player is None and prompt.options["player"] == (0, 1, 2)
    assert game.phase(s) == "Final hands"
    reds = [card("red", "elephant", "monk") for _ in range(3)]
    greens = [card("green", "elephant", "monk") for _ in range(3)]
    hand = reds + greens + [card("purple", "vizier", "monk"), white("elephant"), white("mogul")]
    s = game.apply(s, {"type": "hand", "player": 0, "cards": hand})
    assert points(s, 0)["hand"] == 1 + 2 + 3  # a special, two whites, three of a colour (a tie counts once)
    assert s.events == ("Ana: hand +6",)
    assert "declared" in refused(s, {"type": "hand", "player": 0, "cards": []}).short
    assert "twice" in refused(s, {"type": "hand", "player": 1, "cards": [reds[0]]}).short
    assert "twice" in refused(s, {"type": "hand", "player": 1, "cards": [white("monk")] * 2}).short
    assert "special" in refused(s, {"type": "hand", "player": 1, "cards": [special("points")]}).short.lower()
    assert game.prompt(s).options["player"] == (1, 2)
    s = game.apply(s, {"type": "hand", "player": 2, "cards": [card("red", "elephant", "monk")]})
    assert not game.is_over(s)
    s = game.apply(s, {"type": "hand", "player": 1, "cards": []})
    assert game.is_over(s) and game.prompt(s) is None and game.phase(s) == "Game over"
    assert s.events == ("Ben: hand +0", "Game over")
    assert [sc.total for sc in game.scores(s)] == [6, 7, 1]
    assert game.winners(s) == [1]
    refused(s, {"type": "visit", "province": "agra", "tile": tile(12)})


def test_the_twelfth_rounds_exchange_still_buys_a_special_that_scores_in_hand():
    """rules/000: the tokens are exchanged at the end of every round, the twelfth included, and each
    special card held at the end scores a point with the hand."""
    s = skip_rounds(start(), 11)
    s.tokens[0]["vizier"] = 1
    s = visit(s)
    hands = {0: card("red", "vizier", "monk"), 1: card("red", "elephant", "general"), 2: card("green", "princess", "general")}
    for _ in range(3):
        s = play(s, s.turn, hands[s.turn])
    s = skip_rest_of_round(s)
    assert s.holder["mogul"] == 0 and "Ana: +1 mogul card" in s.events
    s = game.apply(s, {"type": "hand", "player": 0, "cards": []})
    assert points(s, 0)["hand"] == 1


def test_tied_leaders_share_the_win():
    s = skip_rounds(start(), 12)
    for seat in range(3):
        s = game.apply(s, {"type": "hand", "player": seat, "cards": [] if seat == 2 else [white("monk")]})
    assert game.winners(s) == [0, 1]


def test_scores_sum_their_breakdown():
    s = won([card("red", "vizier", "elephant")])
    s = palace(s, 0, "s01-1", {"kind": "points"})
    score = game.scores(s)[0]
    assert score.breakdown == {"palaces": 1, "bonus": 2, "province": 1, "special": 0, "hand": 0} and score.total == 4


# -- options and boards ----------------------------------------------------------------------------


def bad_board(change) -> BoardError:
    data = copy.deepcopy(SYNTHETIC_BOARD)
    change(data)
    with pytest.raises(BoardError) as caught:
        parse_board(data)
    assert len(caught.value.short) <= 42 and isinstance(caught.value, IllegalAction) and isinstance(caught.value, ValueError)
    return caught.value


def province(data, pid):
    return next(p for p in data["provinces"] if p["id"] == pid)


def drop_province(data, pid):
    cities = set(province(data, pid)["cities"])
    data["provinces"] = [p for p in data["provinces"] if p["id"] != pid]
    data["roads"] = [road for road in data["roads"] if not cities & set(road)]


def drop_city(data, city):
    for p in data["provinces"]:
        p["cities"] = [c for c in p["cities"] if c != city]
        p["fortresses"] = [c for c in p["fortresses"] if c != city]
    data["roads"] = [road for road in data["roads"] if city not in road]


def to_toml(data) -> str:
    """A board as a TOML file (ids are plain, so JSON strings and arrays are TOML values too)."""
    lines = [f"name = {json.dumps(data['name'])}", f"roads = {json.dumps(data['roads'])}"]
    for p in data["provinces"]:
        lines += ["", "[[provinces]]", f"id = {json.dumps(p['id'])}", f"cities = {json.dumps(p['cities'])}"]
        lines.append(f"fortresses = {json.dumps(p['fortresses'])}")
    return "\n".join(lines) + "\n"


def test_synthetic_board_is_full_size_and_playable():
    board = parse_board(SYNTHETIC_BOARD)
    assert len(board.provinces) == 12 and len(board.province_of) == 49 and len(board.fortresses) == 16
    assert board.differences() == []
    assert board.data == SYNTHETIC_BOARD


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d["roads"].append(["agra-1", "x"]), "road ['agra-1', 'x'] names unknown city 'x'"),
        (lambda d: d["roads"].append(["agra-1", "agra-1"]), "road ['agra-1', 'agra-1'] joins a city to itself"),
        (lambda d: d["roads"].append(["s01-2", "s01-1"]), "road ['s01-2', 's01-1'] is listed twice"),
        (lambda d: d["roads"].append(["s01-2"]), "road ['s01-2'] must be a pair of city ids"),
        (lambda d: province(d, "s02")["cities"].append("s01-1"), "city 's01-1' is in provinces 's01' and 's02'"),
        (lambda d: province(d, "s02")["cities"].append("s02-1"), "province 's02' lists city 's02-1' twice"),
        (lambda d: d["provinces"].append(copy.deepcopy(province(d, "s02"))), "province 's02' is listed twice"),
        (
            lambda d: province(d, "s02")["fortresses"].append("s03-1"),
            "fortress 's03-1' of province 's02' is not one of its cities",
        ),
        (lambda d: province(d, "s02")["fortresses"].append("s02-1"), "province 's02' lists fortress 's02-1' twice"),
        (lambda d: d.update(provinse=[]), "the board has unknown key 'provinse'"),
        (lambda d: province(d, "s02").update(town="x"), "province 's02' has unknown key 'town'"),
        (lambda d: province(d, "s02").pop("id"), "province #2 needs an 'id'"),
        (lambda d: province(d, "s02").update(cities="s02-1"), "province 's02': 'cities' must be a list"),
        (lambda d: d.update(roads={"a": "b"}), "'roads' must be a list"),
        (lambda d: d.update(provinces=[]), "'provinces' must be a non-empty list"),
        (lambda d: province(d, "agra").update(id="taj"), "no province 'agra'"),
        (lambda d: drop_province(d, "s11"), "the board has 11 provinces; the game visits 12"),
        (lambda d: drop_city(d, "s07-4"), "province 's07' has 3 cities; every province has at least 4"),
        (lambda d: province(d, "agra")["fortresses"].append("agra-1"), "province 'agra' needs exactly one fortress"),
        (
            lambda d: province(d, "agra").update(fortresses=[]),
            "province 'agra' needs exactly one fortress (the Taj Mahal's), not 0",
        ),
        (
            lambda d: province(d, "s08")["fortresses"].append("s08-2"),
            "the board has 17 fortresses; there are only 16 bonus tiles",
        ),
    ],
)
def test_bad_boards_are_refused_naming_the_entry(change, message):
    assert message in str(bad_board(change))


def test_a_bad_board_is_refused_at_start():
    data = copy.deepcopy(SYNTHETIC_BOARD)
    data["roads"].append(["agra-1", "x"])
    with pytest.raises(IllegalAction, match="names unknown city 'x'"):
        game.start(NAMES[:3], {"board": data})
    with pytest.raises(IllegalAction, match="no bundled board 'real'.*none ships"):
        game.start(NAMES[:3], {"board": "real"})
    with pytest.raises(IllegalAction, match="name, a table or null"):
        game.start(NAMES[:3], {"board": 3})
    with pytest.raises(IllegalAction):
        game.start(NAMES[:2])
    with pytest.raises(IllegalAction):
        game.start(NAMES[:3], {"map": None})


def test_a_small_board_departs_from_the_real_one():
    data = copy.deepcopy(SYNTHETIC_BOARD)
    province(data, "s07")["cities"].append("s07-5")
    province(data, "s08")["fortresses"] = []
    data["roads"] = [road for road in data["roads"] if "s11-1" not in road]
    found = parse_board(data).differences()
    assert "the real board has 49 cities, this one 50" in found
    assert "province 's07' has 5 cities, the real one 4" in found
    assert "the real board has 16 fortresses, this one 15" in found
    assert "province 's11': its cities are not all joined by roads inside it" in found
    assert "city 's07-5' has no road" in found and "the roads do not join every city to every other" in found


def test_bundled_boards_by_name(tmp_path, monkeypatch):
    (tmp_path / "club.toml").write_text(to_toml(SYNTHETIC_BOARD))
    (tmp_path / "manifest.toml").write_text('game = "taj_mahal"\n')
    monkeypatch.setattr(board_module, "BOARD_DIR", tmp_path)
    board_module._bundled.cache_clear()
    try:
        assert board_module.bundled_boards() == ["club"]
        s = game.start(NAMES[:3], {"board": "club"})
        assert game.prompt(s).options["province"][0] == "s01"
        assert "s01-1" in game.board(s).fortresses
        with pytest.raises(IllegalAction, match="bundled: club"):
            game.start(NAMES[:3], {"board": "manifest"})
    finally:
        board_module._bundled.cache_clear()


def test_load_board_file(tmp_path):
    data = tomllib.loads(TEMPLATE.read_text())
    province(data, "agra")["fortresses"] = ["agra-1"]
    good = tmp_path / "mine.toml"
    good.write_text(to_toml(data))
    board = load_board_file(good)
    assert len(board.provinces) == 12 and len(board.province_of) == 49
    assert "the real board has 16 fortresses, this one 1" in board.differences()
    assert board.data == data
    with pytest.raises(BoardError, match="cannot read board file"):
        load_board_file(tmp_path / "missing.toml")
    broken = tmp_path / "broken.toml"
    broken.write_text("name = \n")
    with pytest.raises(BoardError, match="broken.toml: not valid TOML.*line 1"):
        load_board_file(broken)
    data["roads"].append(["agra-1", "agra-9"])
    wrong = tmp_path / "wrong.toml"
    wrong.write_text(to_toml(data))
    with pytest.raises(BoardError, match=r"wrong.toml: road \['agra-1', 'agra-9'\] names unknown city 'agra-9'"):
        load_board_file(wrong)


def test_the_template_is_a_real_sized_skeleton_to_fill():
    data = tomllib.loads(TEMPLATE.read_text())
    assert len(data["provinces"]) == 12
    assert sum(len(p["cities"]) for p in data["provinces"]) == 49
    assert [len(p["cities"]) for p in data["provinces"] if p["id"] == "agra"] == [5]
    with pytest.raises(BoardError, match="province 'agra' needs exactly one fortress"):
        load_board_file(TEMPLATE)


# -- the deck manifest -----------------------------------------------------------------------------


def test_manifest_totals_add_up():
    groups = manifest()
    by_kind = {}
    for group in groups:
        by_kind[group.kind] = by_kind.get(group.kind, 0) + group.count
    assert by_kind == {"card": 96, "special": 4, "province": 12, "bonus": 16}
    for colour, wanted in (("red", 21), ("yellow", 21), ("green", 21), ("purple", 21), ("white", 12)):
        assert sum(g.count for g in groups if g.known.get("color") == colour) == wanted
    ids = [ident for group in groups for ident in group.ids()]
    assert len(ids) == len(set(ids)) == 128 and all("{" not in ident for ident in ids)


def completed(group, ident):
    """A descriptor as enrolment would complete it: known fields plus a legal pick for every asked one."""
    picks = {"symbols": ["vizier", "monk"], "number": 5, "goods": ["rice", "tea"], "kind": "points"}
    if group.kind == "province" and group.known.get("number") == 1:
        picks["goods"] = ["rice"]
    return {"id": ident, **group.known, **{key: picks[key] for key in group.ask if key != "goods" or group.kind != "bonus"}}


def test_every_choice_offered_at_enrolment_completes_a_valid_component():
    for group in manifest():
        for choice in COMPONENTS.choices(group.kind, group.known) if group.ask else [{}]:
            descriptor = {"id": group.ids()[0], **group.known, **choice}
            assert COMPONENTS.descriptor_problem(group.kind, descriptor) is None, descriptor
    assert len(COMPONENTS.choices("card", {"color": "red"})) == 16
    assert len(COMPONENTS.choices("province", {"number": 1})) == 4
    assert len(COMPONENTS.choices("province", {"number": 7})) == 10
    assert COMPONENTS.descriptor_problem("card", {"id": "x", "color": "red", "symbols": ["monk"]}) is not None


def test_every_manifest_descriptor_is_valid_for_the_engine():
    readers = {"card": read_item, "special": read_item, "province": read_province_tile, "bonus": read_bonus_tile}
    for group in manifest():
        check_fields(group.kind, group.known)
        for ident in group.ids():
            readers[group.kind](completed(group, ident))
    assert read_card(completed(manifest()[0], "x")).symbols == ("elephant", "mogul")


def manifest_data():
    return tomllib.loads((Path(board_module.__file__).parent / "manifest.toml").read_text())


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d["group"][0].update(count=3), "97 card components; the game has 96"),
        (
            lambda d: d["group"][0].update(known={"color": "green", "symbols": ["elephant", "mogul"]}),
            "19 red cards; the game has 21",
        ),
        (lambda d: d["group"][0].update(known={"color": "red", "symbols": ["elephant", "dragon"]}), "refuses its known fields"),
        (lambda d: d["group"][0].update(known={"color": "red", "symbols": ["elephant"]}), "refuses its known fields"),
        (lambda d: d["group"][0].update(known={"color": "red"}), "'symbols' is neither known nor asked"),
        (lambda d: d["group"][0].update(ask=["goods"]), "'goods' is not a field"),
        (lambda d: d["group"][0].update(ask=["color"]), "both known and asked"),
        (lambda d: d["group"][1].update(id="red-em-{n}"), "id 'red-em-1' is also in group"),
        (lambda d: d["group"][1].update(id="red-ev"), "with {n}"),
        (lambda d: d["group"][1].pop("source"), "needs exactly the keys"),
        (lambda d: d["group"][1].update(confidence="sure"), "confidence 'sure'"),
        (lambda d: d["group"][1].update(kind="meeple"), "kind 'meeple'"),
        (lambda d: d.update(game="maharani"), 'game = "taj_mahal"'),
    ],
)
def test_a_broken_manifest_is_refused(change, message):
    data = manifest_data()
    change(data)
    with pytest.raises(ManifestError, match=message.replace("[", r"\[").replace("{", r"\{").replace("}", r"\}")):
        parse_manifest(data)


# -- random games ----------------------------------------------------------------------------------


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), setup=st.sampled_from(SETUPS))
def test_random_games_keep_the_contract(seed, setup):
    n_players, options = setup
    state = play_random_game("taj_mahal", NAMES[:n_players], options, Bot(n_players, options, seed), seed)
    assert state.round == 12 and state.visited[-1] == "agra" and len(set(state.visited)) == 12
    assert all(hand is not None for hand in state.hands)
    for cities in state.palaces.values():  # at most one ordinary palace per token, one crown a round
        assert sum(o[0] is not None for o in cities.values()) <= 4 and sum(o[1] is not None for o in cities.values()) <= 1
    for seat in range(n_players):
        goods = [g for t in state.tiles[seat] for g in (t[2] if t[0] == "province" else (t[2],) if t[2] else ())]
        assert {g: goods.count(g) for g in set(goods)} == {g: c for g, c in state.goods[seat].items() if c}
        assert all(count < 2 for count in state.tokens[seat].values())  # pairs were exchanged
    assert sum(t[0] == "province" for tiles in state.tiles for t in tiles) <= 12
    assert sum(t[:2] == ("bonus", "taj") for tiles in state.tiles for t in tiles) <= 1


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n_players=st.integers(3, 5))
def test_the_same_game_scores_the_same_with_or_without_the_board(seed, n_players):
    """Without a board the players enter the chains they count on the table: the scores must not differ."""
    totals = []
    for options in ({"board": SYNTHETIC_BOARD}, {}):
        bot, s = Bot(n_players, options, seed), game.start(NAMES[:n_players], options)
        while not game.is_over(s):
            s = game.apply(s, bot.choose(s))
        totals.append([score.breakdown for score in game.scores(s)])
    assert totals[0] == totals[1]


@settings(max_examples=300, deadline=None)
@given(
    junk=json_actions(game, ("player", "cards", "city", "bonus", "province", "tile", "provinces")),
    where=st.sampled_from(("mid-round", "placing", "between", "no board placing", "hands")),
)
def test_random_json_is_refused_cleanly(junk, where):
    s = {
        "mid-round": lambda: play(visit(start()), 0, card("red", "vizier", "monk")),
        "placing": lambda: won([card("red", "vizier", "mogul")]),
        "between": lambda: skip_rounds(start(), 1),
        "no board placing": lambda: won([card("red", "vizier", "mogul")], board=False),
        "hands": lambda: skip_rounds(start(), 12),
    }[where]()
    apply_junk(game, s, junk)


def test_would_win_tells_any_seat_still_in_the_round_what_withdrawing_gives():
    s = play(visit(start()), 0, card("red", "vizier", "mogul"))
    s = play(s, 1, card("green", "elephant", "vizier"))
    assert game.would_win(s, 0) == ["crown"]  # the viziers tie
    assert game.would_win(s, 1) == ["province"]
    assert game.would_win(s, 2) == []
    preview = game.preview(s, {"type": "withdraw", "player": 2})
    assert preview.legal and preview.events == ("Cy: out, no card",)


# -- scenarios worked by hand from the rule text ---------------------------------------------------
#
# Each scenario drives the public API only (start, apply, prompt, scores, is_over, winners, replay) through
# a stretch of play on the synthetic board (roads in the module docstring). Every expected figure was
# worked out by hand from rules/000 (French, quoted) and rules/003 before the engine was run.


class Table:
    """A table that plays through the public API, keeps the accepted log and checks refusals leave nothing behind."""

    def __init__(self, n: int, board: bool = True):
        self.names, self.options = NAMES[:n], {"board": SYNTHETIC_BOARD} if board else {}
        self.s = game.start(self.names, self.options)
        self.log: list[dict] = []

    def do(self, kind: str, **fields):
        action = {"type": kind, **fields}
        self.s = game.apply(self.s, action)
        self.log.append(action)
        return self.s

    def visit(self, province: str, number: int, goods: list[str]):
        return self.do("visit", province=province, tile={"number": number, "goods": goods})

    def play(self, p: int, *cards):
        return self.do("play", player=p, cards=list(cards))

    def outs(self, *seats: int):
        """These seats withdraw, in this order."""
        for p in seats:
            self.out(p)

    def out(self, p: int):
        return self.do("withdraw", player=p)

    def palace(self, p: int, city: str, bonus=None):
        return self.do("palace", player=p, city=city, bonus=bonus)

    def crown(self, p: int, city: str):
        return self.do("crown", player=p, city=city)

    def refuse(self, kind: str, **fields) -> str:
        """The short message refusing the action (the state equal before and after); nothing is logged."""
        return refused(self.s, {"type": kind, **fields}).short

    @property
    def prompt(self):
        return game.prompt(self.s)

    def totals(self) -> list[int]:
        return [score.total for score in game.scores(self.s)]

    def breakdown(self, p: int) -> dict:
        return game.scores(self.s)[p].breakdown

    def replayed(self):
        """The state rebuilt from the log alone equals the one played (the log needs nothing else)."""
        again = engines.replay("taj_mahal", self.names, self.options, self.log)
        assert again == self.s
        return again


def pts(palaces=0, bonus=0, province=0, special=0, hand=0) -> dict:
    return {"palaces": palaces, "bonus": bonus, "province": province, "special": special, "hand": hand}


def test_scenario_a_first_round_majorities_ties_crown_and_the_last_player():
    """Round 1, three players, every majority resolved at withdraw.

    "Si le joueur qui se retire est, de tous les joueurs, celui qui a sur ses cartes le plus grand nombre de
    symboles de vizirs, de généraux, de moines ou de princesses, il prend ... le jeton influence
    correspondant" - strictly the most: a tie wins nothing. "Les cartes défaussées ne sont plus prises en
    compte ... des situations d'égalité peuvent ainsi être tranchées en faveur d'autres joueurs."
    """
    t = Table(3)
    t.visit("s01", 1, ["rice"])
    assert t.prompt.player == 0 and t.prompt.expects == ("play", "withdraw")  # "Le premier joueur débute"
    t.play(0, card("red", "elephant", "vizier"), white("mogul"))  # Ana: elephant 1, vizier 1, mogul 1
    t.play(1, card("green", "elephant", "elephant"))  # Ben: elephant 2
    t.play(2, card("yellow", "monk", "princess"))  # Cy: monk 1, princess 1
    t.play(0, card("red", "general", "vizier"))  # Ana: elephant 1, vizier 2, mogul 1, general 1
    t.play(1, card("green", "vizier", "monk"), white("elephant"))  # Ben: elephant 3, vizier 1, monk 1
    t.play(2, card("yellow", "monk", "general"))  # Cy: monk 2, princess 1, general 1
    # Ana: vizier 2 > 1, 0: the token; general 1 = Cy's 1: nothing; mogul 1 > 0: the crown; elephant 1 < 3.
    s = t.out(0)
    assert s.events[0] == "Ana: vizier, crown"
    assert t.prompt.player == 0 and set(t.prompt.expects) == {"palace", "crown"}
    # "Lorsqu'un joueur place un palais sur une cité fortifiée, il gagne le jeton bonus ... et marque
    # immédiatement": +2 at once, before her withdrawal is over.
    t.palace(0, "s01-1", {"kind": "points"})
    assert t.breakdown(0) == pts(bonus=2)
    t.crown(0, "s01-2")  # "le palais royal peut être placé sur une cité" - here an empty one
    # "Un joueur qui place un ou plusieurs palais ... marque 1 point": no other province, no chain.
    assert t.breakdown(0) == pts(palaces=1, bonus=2)
    # Ben next clockwise: elephant 3 > Cy's 0 wins the province tile (one rice: 1 point); vizier 1 would beat
    # Cy's 0 but the vizier token is gone ("nul ne peut bien sûr plus ... gagner le même jeton"); monk 1 < 2.
    assert t.prompt.player == 1
    s = t.out(1)
    assert s.events == ("Ben: province", "Ben: province +1")
    assert t.breakdown(1) == pts(province=1)
    # Cy is alone: "il peut jouer autant de tours qu'il le souhaite"
    assert t.prompt.player == 2
    t.play(2, card("yellow", "princess", "elephant"))
    assert t.prompt.player == 2
    s = t.out(2)  # monk 2, princess 2, general 1 (Ana's general left with her); the province tile is gone
    assert s.events[0] == "Cy: general, monk, princess"
    # "Si le palais royal est placé dans une cité encore inoccupée, un palais ordinaire pourra également y
    # être placé ... par un autre joueur": s01-2 (Ana's crown) is free for Cy, s01-1 is not.
    assert set(t.prompt.options["palace"]) == {"s01-2", "s01-3", "s01-4"}
    assert "already" in t.refuse("palace", player=2, city="s01-1")
    t.palace(2, "s01-2")
    t.palace(2, "s01-3", {"kind": "goods", "goods": "rice"})  # Cy's first rice: 1 point
    t.palace(2, "s01-4")
    assert t.breakdown(2) == pts(palaces=1, bonus=1)
    assert t.totals() == [3, 1, 2]
    assert t.prompt.expects == ("visit",) and t.prompt.player is None
    t.replayed()


def test_scenario_b_palace_chains_and_goods_over_four_rounds():
    """Chains count provinces, not palaces, and break on an empty or a foreign city; goods accumulate.

    "Il marque en outre 1 point supplémentaire par province dans laquelle il a au moins un palais relié par
    une ligne ininterrompue de routes et de ses propres palais à l'un de ses palais dans la province
    disputée. Toute cité sans palais ou avec uniquement un palais adverse interrompt la ligne. Une cité avec
    deux palais peut être utilisée comme connexion par les deux joueurs."
    Goods: "il marque autant de points d'influence qu'il a de ressources du ou des types figurant sur ce
    jeton sur tous les jetons bonus et les jetons province en sa possession, y compris celui qu'il vient de
    prendre", bonus tiles first ("On procède dans l'ordre suivant: 1) Jetons bonus ... 2) Jetons province").
    """
    t = Table(3)
    # Round 1, s01 (first: Ana). Ana alone wins vizier and monk.
    t.visit("s01", 1, ["rice"])
    t.play(0, card("red", "vizier", "monk"))
    t.outs(1, 2, 0)
    t.palace(0, "s01-2")
    t.palace(0, "s01-3", {"kind": "points"})
    assert t.totals() == [3, 0, 0]  # bonus 2, palaces 1
    # Round 2, s05 (first: Ben). Ana wins general and the province tile [tea, spice].
    t.visit("s05", 2, ["tea", "spice"])
    assert t.prompt.player == 1
    t.outs(1, 2)
    t.play(0, card("red", "general", "elephant"))
    t.out(0)
    # s05-1 (fortress) touches s01-3 (Ana's): s01 joins. Bonus tea: tea 1 -> 1. Tile: tea 2 + spice 1 = 3.
    t.palace(0, "s05-1", {"kind": "goods", "goods": "tea"})
    assert t.breakdown(0) == pts(palaces=1 + 2, bonus=2 + 1, province=3)
    # Round 3, s02 (first: Cy).
    t.visit("s02", 3, ["rice", "tea"])
    assert t.prompt.player == 2
    t.play(2, card("green", "vizier", "vizier"))
    t.play(0, card("red", "monk", "princess"))
    t.play(1, card("yellow", "general", "elephant"))
    t.out(2)  # vizier 2 > 0, 0
    t.palace(2, "s02-3", {"kind": "goods", "goods": "rice"})  # s02-3 touches s02-2, s02-4, agra-1: no chain
    assert t.breakdown(2) == pts(palaces=1, bonus=1)
    t.out(0)  # monk and princess
    t.palace(0, "s02-4")  # s02-4 - s01-2 - s01-3 - s05-1: s01 and s05, two palaces in s01 count once
    t.palace(0, "s02-1", {"kind": "card"})  # a card bonus tile: a card, no point
    assert t.breakdown(0) == pts(palaces=3 + 3, bonus=3, province=3)
    t.out(1)  # Ben alone: general, and the province tile (elephant 1)
    assert t.prompt.options == {"palace": ("s02-2",), "bonus": ()}  # the one city left
    t.palace(1, "s02-2")  # touches s02-1 (Ana), s02-3 (Cy), s03-4 (empty): no chain
    assert t.breakdown(1) == pts(palaces=1, province=2)  # rice 1 + tea 1
    # Ana's monks (rounds 1 and 3) are a pair: "À la fin d'une manche ... tout joueur qui a deux jetons
    # identiques doit les échanger contre la carte spéciale correspondante" - the monk's is the colour change.
    # Round 4, s03 (first: Ana).
    t.visit("s03", 4, ["spice", "jewels"])
    assert t.prompt.player == 0 and t.prompt.options["specials"] == ("color_change",)
    t.play(0, card("red", "vizier", "elephant"))
    t.play(1, card("yellow", "mogul", "princess"))
    t.out(2)  # Cy withdraws with no card: nothing
    t.out(0)  # vizier, province
    # s03-4 touches s03-1, s03-3 and s02-2, which holds only Ben's palace: the line is cut. Chain 0.
    t.palace(0, "s03-4")
    # spice: the tile of round 2 and this one, 2; jewels 1: 3 points.
    assert t.breakdown(0) == pts(palaces=6 + 1, bonus=3, province=3 + 3)
    t.out(1)  # Ben alone: crown and princess
    t.crown(1, "s03-4")  # beside Ana's palace: "à côté de ce dernier"
    t.palace(1, "s03-3", {"kind": "points"})
    # Ben's crowned palace on s03-4 joins his s02-2: s02 counts. Ana's palace there does not cut Ben's line.
    assert t.breakdown(1) == pts(palaces=1 + 2, bonus=2, province=2)
    assert t.totals() == [16, 7, 2]
    # The viziers of rounds 1 and 4 buy the +1 mogul card; the monks bought the colour change card.
    t.visit("s04", 5, ["rice", "jewels"])
    t.outs(1, 2)
    assert t.prompt.player == 0 and t.prompt.options["specials"] == ("mogul", "color_change")
    t.replayed()


def test_scenario_c_special_cards_change_hands_and_count_as_symbols():
    """The General pair buys the +1 elephant card (rules/003); it breaks a tie, goes back to its holder's
    hand at withdraw, and is taken by the next player with two General tokens.

    "Le joueur prend la carte sur la table, si elle y est encore, ou la prend au joueur qui la possède";
    "lorsqu'elles sont jouées, elles ne sont pas défaussées mais reviennent dans la main du joueur lorsqu'il
    se retire"; "+1 Éléphant · Effet identique à la carte blanche éléphant."
    """
    t = Table(3)
    t.visit("s01", 1, ["rice"])
    t.play(0, card("red", "general", "elephant"))
    t.outs(1, 2)
    t.out(0)  # general, province
    t.palace(0, "s01-2")
    assert t.breakdown(0) == pts(palaces=1, province=1)
    t.visit("s02", 2, ["rice", "tea"])
    t.outs(1, 2)
    assert "Not your +1 elephant" in t.refuse(
        "play", player=0, cards=[card("red", "general", "monk"), special("elephant")]
    )  # not yet hers: the exchange comes at the end of a round
    t.play(0, card("red", "general", "monk"))
    t.out(0)
    t.palace(0, "s02-4")  # touches s01-2: s01 joins
    t.palace(0, "s02-2")
    assert t.totals() == [4, 0, 0]
    # Round 3, s03 (first: Cy). Ana holds the +1 elephant card now.
    t.visit("s03", 3, ["spice", "jewels"])
    t.play(2, card("green", "elephant", "elephant"))
    assert t.prompt.player == 0 and t.prompt.options["specials"] == ("elephant",)
    t.play(0, card("red", "elephant", "princess"), special("elephant"))  # elephants 2
    t.play(1, card("yellow", "elephant", "vizier"))
    t.play(2, card("green", "elephant", "general"))  # Cy: elephant 3, general 1
    assert t.prompt.options["specials"] == ()  # on the table already
    assert "is out" in t.refuse("play", player=0, cards=[card("red", "elephant", "vizier"), special("elephant")])
    t.play(0, card("red", "elephant", "vizier"))  # Ana: elephant 3 (the card counts), princess 1, vizier 1
    s = t.out(1)  # Ben: vizier 1 = Ana's 1, elephant 1 < 3: nothing
    assert s.events == ("Ben: nothing",)
    s = t.out(2)  # Cy: elephant 3 = Ana's 3 (with her special): no province; general 1 > 0
    assert s.events[0] == "Cy: general"
    t.palace(2, "s03-2")
    s = t.out(0)  # Ana alone: elephant 3 wins the province, princess, vizier
    assert s.events[0] == "Ana: vizier, princess, province"
    t.palace(0, "s03-4")  # s03-4 - s02-2 (hers); s02-2 touches s02-1, s02-3 (empty), not s02-4: s02 only
    t.palace(0, "s03-1", {"kind": "points"})
    # round 3: bonus 2, province spice 1 + jewels 1 = 2, palaces 1 + 1 = 2
    assert t.breakdown(0) == pts(palaces=1 + 2 + 2, bonus=2, province=1 + 2)
    assert t.breakdown(2) == pts(palaces=1)
    # Round 4, s04 (first: Ana): the card came back to her hand.
    t.visit("s04", 4, ["jewels", "rice"])
    assert t.prompt.options["specials"] == ("elephant",)
    t.play(0, card("red", "elephant", "monk"), special("elephant"))
    t.out(1)
    t.play(2, card("green", "general", "mogul"))
    t.out(0)  # elephant 2, monk 1
    # jewels: round 3's tile and this one, 2; rice: round 1's tile and this one, 2 (round 2 gave no tile): 4.
    t.palace(0, "s04-4")  # s04-4 touches s04-1, s04-3 and s03-2, Cy's: no chain
    assert t.breakdown(0) == pts(palaces=5 + 1, bonus=2, province=3 + 4)
    t.out(2)  # Cy alone: general (his second) and the crown
    # "Le joueur qui place un palais royal sur une cité fortifiée ne gagne pas ... le jeton bonus."
    t.crown(2, "s04-1")
    # his own crown's city is not free for his palace; the fortress with its tile comes first
    assert t.prompt.options == {"palace": ("s04-3", "s04-2"), "bonus": ("s04-3",)}
    t.palace(2, "s04-3", {"kind": "card"})
    assert t.breakdown(2) == pts(palaces=2)
    assert t.totals() == [15, 0, 2]
    # The two Generals of Cy take the card from Ana; Ana's monks (rounds 2 and 4) bought the colour change.
    t.visit("s05", 5, ["tea", "spice"])
    t.play(1, card("yellow", "vizier", "monk"))
    assert t.prompt.player == 2 and t.prompt.options["specials"] == ("elephant",)
    t.play(2, card("green", "monk", "elephant"))
    assert t.prompt.player == 0 and t.prompt.options["specials"] == ("color_change",)
    assert "Not your" in t.refuse("play", player=0, cards=[card("red", "monk", "vizier"), special("elephant")])
    t.replayed()


def empty_rounds(t: Table, provinces: list[str], first: int):
    """Rounds where everybody withdraws without a card, in prompt order; the first players, as the engine saw them.

    "Un joueur peut choisir de se retirer dès le premier tour de la manche, sans même avoir joué une carte.
    Bien sûr, il ne place alors aucun palais et ne marque aucun point d'influence."
    """
    firsts = []
    for number, province in enumerate(provinces, start=first):
        t.visit(province, number, ["rice"] if number == 1 else ["rice", "tea"])
        firsts.append(t.prompt.player)
        while t.prompt.expects == ("play", "withdraw"):
            t.out(t.prompt.player)
    return firsts


def test_scenario_d_the_end_agra_taj_mahal_last_exchange_hands_and_a_shared_win():
    """Four players to the end.

    "Le joueur à gauche de l'ancien premier joueur devient le nouveau premier joueur"; "la dernière manche se
    déroulant dans la province n°12, celle d'Agra"; "Taj Mahal: 4 points d'influence"; "Le jeu se termine
    après la 12ème manche ... 1 point par carte spéciale · 1 point par carte blanche · 1 point par carte de
    la couleur dont il a le plus grand nombre (si deux couleurs sont en même nombre ..., il ne marque les
    points que pour l'une d'entre elles)"; "Le joueur ayant le plus grand nombre de points d'influence est
    vainqueur" (a tie shares the win: design/game-log.md).
    """
    t = Table(4)
    firsts = empty_rounds(t, [f"s{k:02d}" for k in range(1, 11)], 1)
    assert firsts == [0, 1, 2, 3, 0, 1, 2, 3, 0, 1] and t.totals() == [0, 0, 0, 0]
    # Round 11, s11: first Cy.
    t.visit("s11", 11, ["rice", "spice"])
    assert t.prompt.player == 2
    t.play(2, card("purple", "princess", "elephant"))
    t.out(3)
    t.play(0, card("red", "princess", "princess"))
    t.out(1)
    s = t.out(2)  # princess 1 < 2; elephant 1 > 0: the province tile, rice 1 + spice 1
    assert s.events == ("Cy: province", "Cy: province +2")
    t.play(0, card("red", "mogul", "general"))  # alone
    s = t.out(0)
    assert s.events[0] == "Ana: general, princess, crown"
    t.palace(0, "s11-1", {"kind": "goods", "goods": "spice"})  # her first spice: 1
    t.palace(0, "s11-2")
    t.crown(0, "s11-2")  # beside her own palace
    assert t.breakdown(0) == pts(palaces=1, bonus=1)
    # Round 12: Agra only, first Dee.
    assert t.prompt.options["province"] == ("agra",)
    assert "visited" in t.refuse("visit", province="s05", tile={"number": 12, "goods": ["tea", "jewels"]})
    t.visit("agra", 12, ["tea", "jewels"])
    assert t.prompt.player == 3
    t.play(3, card("purple", "vizier", "elephant"))
    t.play(0, card("red", "princess", "elephant"), white("princess"))
    t.play(1, card("yellow", "vizier", "vizier"))
    t.out(2)
    s = t.out(3)  # vizier 1 < Ben's 2; elephant 1 = Ana's 1
    assert s.events == ("Dee: nothing",)
    s = t.out(0)  # princess 2; elephant 1 > Ben's 0 (Dee's cards are gone)
    assert s.events[0] == "Ana: princess, province"
    t.palace(0, "agra-1")  # agra-1 touches agra-2, agra-5, s02-3: no chain
    assert t.breakdown(0) == pts(palaces=2, bonus=1, province=2)  # tea 1 + jewels 1
    s = t.out(1)  # Ben alone: vizier
    assert t.prompt.options["bonus"] == ("agra-2",)
    assert "Taj" in t.refuse("palace", player=1, city="agra-2", bonus={"kind": "points"})
    t.palace(1, "agra-2", {"kind": "taj"})
    assert t.breakdown(1) == pts(palaces=1, bonus=4)
    # Ana's princesses of rounds 11 and 12 buy the +2 points card at the end of the last round too.
    assert t.prompt.expects == ("hand",) and t.prompt.player is None and t.prompt.options["player"] == (0, 1, 2, 3)
    assert game.phase(t.s) == "Final hands" and not game.is_over(t.s)
    t.refuse("visit", province="s01", tile={"number": 12, "goods": ["tea", "jewels"]})
    t.refuse("play", player=0, cards=[card("red", "vizier", "monk")])
    t.do("hand", player=3, cards=[card("green", "monk", "vizier"), white("elephant"), white("mogul")])  # 1 + 2
    t.do("hand", player=2, cards=[])
    hand = [card("red", "monk", "vizier"), card("red", "elephant", "general"), card("green", "monk", "general"), white("monk")]
    t.do("hand", player=0, cards=hand)  # special 1 + white 1 + red 2
    assert t.breakdown(0)["hand"] == 4 and not game.is_over(t.s)
    ben = [card("yellow", "elephant", "monk") for _ in range(3)] + [card("purple", "elephant", "monk") for _ in range(3)]
    t.do("hand", player=1, cards=ben + [white("general")])  # white 1 + three of one colour (the tie counts once)
    assert [game.scores(t.s)[p].breakdown for p in range(4)] == [
        pts(palaces=2, bonus=1, province=2, hand=4),
        pts(palaces=1, bonus=4, hand=4),
        pts(province=2),
        pts(hand=3),
    ]
    assert t.totals() == [9, 9, 2, 3]
    assert game.is_over(t.s) and game.prompt(t.s) is None and game.winners(t.s) == [0, 1]
    assert t.refuse("hand", player=2, cards=[]) == "The game is over"
    t.replayed()


def test_scenario_e_five_players_ties_settled_by_withdrawing_and_the_turn_order():
    """Five players: who withdraws first gives up a tie, which the others then settle; play goes clockwise
    among the players still in the round.

    "Lorsqu'un joueur se retire, il ne prend plus part à la manche"; "La manche se poursuit en sens
    horaire, chacun des joueurs restants pouvant à son tour jouer une ou deux cartes ou se retirer."
    """
    t = Table(5)
    t.visit("s01", 1, ["jewels"])
    t.play(0, card("red", "elephant", "vizier"))
    t.play(1, card("green", "elephant", "vizier"))
    t.play(2, card("yellow", "elephant", "monk"))
    t.play(3, card("purple", "monk", "general"))
    s = t.out(4)
    assert s.events == ("Eve: out, no card",) and t.prompt.player == 0
    s = t.out(0)  # elephant 1 = Ben's = Cy's; vizier 1 = Ben's
    assert s.events == ("Ana: nothing",) and t.prompt.player == 1
    s = t.out(1)  # vizier 1 > 0 now; elephant 1 = Cy's
    assert s.events[0] == "Ben: vizier"
    t.palace(1, "s01-1", {"kind": "points"})
    s = t.out(2)  # elephant 1 > Dee's 0: the province; monk 1 = Dee's 1
    assert s.events == ("Cy: province", "Cy: province +1")
    s = t.out(3)  # Dee alone: monk and general
    assert s.events[0] == "Dee: general, monk"
    t.palace(3, "s01-2")
    t.palace(3, "s01-3", {"kind": "card"})
    assert t.totals() == [0, 3, 1, 1, 0]
    # Round 2, s02: Ben first; order Ben, Cy, Dee, Eve, Ana, then skipping those out.
    t.visit("s02", 2, ["rice", "tea"])
    seen = [t.prompt.player]
    t.play(1, card("red", "mogul", "monk"))
    seen.append(t.prompt.player)
    t.out(2)
    seen.append(t.prompt.player)
    t.play(3, card("green", "mogul", "general"))
    seen.append(t.prompt.player)
    t.out(4)
    seen.append(t.prompt.player)
    t.play(0, card("yellow", "mogul", "princess"))
    seen.append(t.prompt.player)
    t.play(1, card("red", "mogul", "elephant"))  # Ben: mogul 2
    seen.append(t.prompt.player)
    assert seen == [1, 2, 3, 4, 0, 1, 3]
    s = t.out(3)  # mogul 1 < 2; general 1 > 0
    assert s.events[0] == "Dee: general"
    t.palace(3, "s02-4")  # touches s01-2, Dee's: s01 joins
    assert t.breakdown(3) == pts(palaces=1 + 2)
    assert t.prompt.player == 0
    s = t.out(0)  # princess 1; mogul 1 < 2
    assert s.events[0] == "Ana: princess"
    t.palace(0, "s02-1", {"kind": "points"})
    assert t.prompt.player == 1
    s = t.out(1)  # crown, monk, province
    assert s.events[0] == "Ben: monk, crown, province"
    t.crown(1, "s02-1")  # beside Ana's palace: the fortress's tile is gone already
    t.palace(1, "s02-3", {"kind": "goods", "goods": "tea"})  # tea 1
    # tiles: rice 1, tea 2: 3. Palaces: s02-1 (crown) touches s02-2, s02-4 (Dee); s02-3 touches agra-1: 1.
    assert t.breakdown(1) == pts(palaces=2, bonus=3, province=3)
    assert t.totals() == [3, 8, 1, 3, 0]
    firsts = empty_rounds(t, ["s03", "s04", "s05", "s06"], 3)
    assert firsts == [2, 3, 4, 0]
    t.replayed()


def test_scenario_f_illegal_actions_are_refused_clearly_and_change_nothing():
    """A round where the table tries what the rules forbid at every step; each refusal names the rule and
    leaves the state equal to what it was (Table.refuse), and the accepted log alone replays the game.

    "doit toujours jouer d'abord une, et une seule, carte de couleur"; "toutes les cartes de couleur qu'il
    jouera devront avoir la même couleur que la toute première carte"; "Cartes blanches et cartes spéciales
    ne peuvent être jouées qu'à la suite d'une carte de couleur"; palaces "sur une cité non occupée";
    "Placez le jeton province numéro 12 dans la province d'Agra"; "Il n'y a qu'une seule ressource dans la
    première province".
    """
    t = Table(3)
    red = card("red", "vizier", "monk")
    assert t.refuse("play", player=0, cards=[red]) == "Nobody's turn now"
    assert t.refuse("withdraw", player=0) == "Nobody's turn now"
    assert t.refuse("palace", player=0, city="s01-2") == "No palace expected now"
    assert t.refuse("hand", player=0, cards=[]) == "Hands after round 12"
    assert t.refuse("visit", province="s01", tile={"number": 2, "goods": ["rice", "tea"]}) == "Round 1: tile 1"
    assert t.refuse("visit", province="agra", tile={"number": 1, "goods": ["rice"]}) == "Agra is the 12th"
    assert t.refuse("visit", province="s01", tile={"number": 1, "goods": ["rice", "tea"]}) == "Tile 1 shows 1 good"
    t.visit("s01", 1, ["rice"])
    assert t.refuse("play", player=1, cards=[red]) == "Ana's turn"
    assert t.refuse("play", player=0, cards=[white("vizier")]) == "Coloured card first"
    assert t.refuse("play", player=0, cards=[special("points")]) == "Coloured card first"
    assert t.refuse("play", player=0, cards=[red, special("points")]) == "Not your +2 points card"
    assert t.refuse("play", player=0, cards=[red, card("red", "monk", "general")]) == "One coloured card a turn"
    assert t.refuse("play", player=0, cards=[red, white("monk"), white("vizier")]) == "Play 1 or 2 cards"
    assert t.refuse("play", player=0, cards=[red, {**white("monk"), "id": red["id"]}]) == "Same card twice"
    assert t.refuse("play", player=0, cards=[card("red", "vizier", "dragon")]) == "Unknown symbol 'dragon'"
    assert t.refuse("play", player=7, cards=[red]) == "No such seat"
    assert t.refuse("play", player=0) == "Missing 'cards'"
    assert t.refuse("dance", player=0) == "Unknown action"
    t.play(0, red)
    green = card("green", "elephant", "elephant")
    t.play(1, green)
    t.play(2, card("yellow", "mogul", "general"))
    assert t.refuse("play", player=0, cards=[card("green", "vizier", "general")]) == "Play red: you began in red"
    assert t.refuse("play", player=0, cards=[{**green, "color": "red"}]) == "Card on Ben's table"
    t.play(0, card("red", "vizier", "general"))  # Ana: vizier 2, monk 1, general 1
    s = t.out(1)  # elephant 2: the province tile, rice 1
    assert s.events == ("Ben: province", "Ben: province +1")
    assert t.refuse("play", player=1, cards=[card("green", "vizier", "monk")]) == "Cy's turn"
    s = t.out(2)  # mogul 1: the crown; general 1 = Ana's 1: nothing
    assert s.events == ("Cy: crown",)
    assert t.refuse("withdraw", player=0) == "Nobody's turn now"
    assert t.refuse("palace", player=0, city="s01-2") == "Cy is placing"
    assert t.refuse("palace", player=2, city="s01-2") == "No palace owed"
    assert t.refuse("crown", player=2, city="s02-1") == "s02-1 not in s01"
    assert t.refuse("crown", player=2, city="s01-1", bonus={"kind": "points"}) == "Unknown field 'bonus'"
    assert t.refuse("chain", player=2, provinces=0) == "No chain to enter now"
    assert t.refuse("visit", province="s02", tile={"number": 2, "goods": ["rice", "tea"]}) == "Round 1 is on"
    t.crown(2, "s01-1")  # a fortress: the crown leaves its tile there
    assert t.breakdown(2) == pts(palaces=1)
    s = t.out(0)  # alone: vizier, general, monk
    assert s.events[0] == "Ana: vizier, general, monk"
    assert t.refuse("palace", player=0, city="s01-1") == "Tap the bonus tile"
    assert t.refuse("palace", player=0, city="s01-2", bonus={"kind": "points"}) == "No bonus tile in s01-2"
    assert t.refuse("palace", player=0, city="s01-1", bonus={"kind": "taj"}) == "Taj Mahal: Agra's fortress"
    assert t.refuse("palace", player=0, city="s01-1", bonus={"kind": "goods"}) == "Goods bonus: 1 good"
    assert t.refuse("crown", player=0, city="s01-2") == "No crown owed"
    t.palace(0, "s01-1", {"kind": "points"})  # beside Cy's crown, and the tile is still there
    assert t.refuse("palace", player=0, city="s01-1", bonus={"kind": "points"}) == "Palace in s01-1 already"
    t.palace(0, "s01-3", {"kind": "card"})
    t.palace(0, "s01-4")
    assert t.totals() == [3, 1, 1]
    assert "visited" in t.refuse("visit", province="s01", tile={"number": 2, "goods": ["rice", "tea"]})
    t.replayed()


def test_scenario_g_the_points_and_colour_change_cards():
    """Princess pair: +2 points card; monk pair: colour change card (rules/003).

    "+2 points d'influence · Le joueur qui joue cette carte marque immédiatement deux points d'influence";
    "Changement de couleur · La carte de couleur jouée avec cette carte peut être d'une autre couleur ...
    Cette carte ne fait effet qu'au tour où elle est jouée"; "un joueur ne peut jouer qu'une seule carte
    blanche ou spéciale par tour"; specials "reviennent dans la main du joueur lorsqu'il se retire".
    """
    t = Table(3)
    t.visit("s01", 1, ["rice"])
    t.play(0, card("red", "princess", "monk"))
    t.outs(1, 2, 0)
    t.palace(0, "s01-2")
    t.palace(0, "s01-4")
    t.visit("s02", 2, ["rice", "tea"])
    t.outs(1, 2)
    t.play(0, card("red", "princess", "monk"))
    t.out(0)
    t.palace(0, "s02-2")  # touches s02-1, s02-3, s03-4: no chain (s02-4 is the one next to s01-2)
    t.palace(0, "s02-3", {"kind": "points"})
    assert t.breakdown(0) == pts(palaces=2, bonus=2)
    # Round 3, s03: first Cy. Ana holds both cards now.
    t.visit("s03", 3, ["spice", "jewels"])
    t.play(2, card("yellow", "elephant", "vizier"))
    assert t.prompt.options["specials"] == ("points", "color_change")
    t.play(0, card("red", "elephant", "general"), special("points"))
    assert t.breakdown(0) == pts(palaces=2, bonus=2, special=2)  # at once, before withdrawing
    t.play(1, card("green", "vizier", "mogul"))
    t.play(2, card("yellow", "elephant", "elephant"))  # Cy: elephant 3, vizier 1
    too_many = [card("green", "elephant", "elephant"), special("color_change"), special("points")]
    assert t.refuse("play", player=0, cards=too_many) == "Play 1 or 2 cards"
    assert t.refuse("play", player=0, cards=too_many[:1]) == "Play red: you began in red"
    assert t.refuse("play", player=0, cards=[card("red", "monk", "monk"), special("points")]) == "+2 points is out"
    t.play(0, *too_many[:2])  # Ana: elephant 3, general 1
    s = t.out(1)  # vizier 1 = Cy's 1; mogul 1: the crown
    assert s.events == ("Ben: crown",)
    t.crown(1, "s03-3")
    s = t.out(2)  # elephant 3 = Ana's 3; vizier 1 > 0 now
    assert s.events[0] == "Cy: vizier"
    t.palace(2, "s03-3", {"kind": "goods", "goods": "jewels"})  # beside Ben's crown; the tile was left there
    assert t.breakdown(2) == pts(palaces=1, bonus=1)
    assert "began in red" in t.refuse("play", player=0, cards=[card("green", "princess", "elephant")])
    t.play(0, card("red", "elephant", "princess"))  # alone: elephant 4, general 1, princess 1
    s = t.out(0)
    assert s.events[0] == "Ana: general, princess, province"
    t.palace(0, "s03-4")  # touches s02-2, hers: s02
    t.palace(0, "s03-1", {"kind": "points"})
    # round 3: special 2, bonus 2, province spice 1 + jewels 1, palaces 1 + 1
    assert t.breakdown(0) == pts(palaces=4, bonus=4, province=2, special=2)
    assert t.totals() == [12, 1, 2]
    # Round 4: both cards came back to Ana's hand; the +2 scores again.
    t.visit("s04", 4, ["tea", "rice"])
    assert t.prompt.player == 0 and t.prompt.options["specials"] == ("points", "color_change")
    t.play(0, card("purple", "monk", "vizier"), special("points"))
    assert t.breakdown(0)["special"] == 4 and t.totals()[0] == 14
    t.replayed()


def test_scenario_h_without_a_board_the_players_count_the_chain():
    """Without a board, cities are labels and the players enter how many other provinces the chain reaches
    (design/game-log.md, action `chain`); the rule's limits still hold: four cities a province ("Les onze
    autres provinces comprennent quatre cités"), one Taj Mahal, in Agra, visited last.
    """
    t = Table(3, board=False)
    assert t.prompt.expects == ("visit",) and t.prompt.options == {}  # no province list to offer
    t.visit("Lahore", 1, ["rice"])
    t.play(0, card("red", "vizier", "mogul"))
    t.outs(1, 2)
    t.out(0)  # vizier and the crown
    assert t.refuse("palace", player=0, city="fort", bonus={"kind": "taj"}) == "Taj Mahal: Agra's fortress"
    t.palace(0, "fort", {"kind": "points"})
    t.crown(0, "fort")
    assert t.prompt.expects == ("chain",) and t.prompt.options["provinces"] == (0,)
    assert t.refuse("chain", player=0, provinces=1) == "Chain: 0 to 0"
    t.do("chain", player=0, provinces=0)
    assert t.breakdown(0) == pts(palaces=1, bonus=2)
    t.visit("Multan", 2, ["rice", "tea"])
    t.outs(1, 2)
    t.play(0, card("red", "vizier", "monk"))
    t.play(0, card("red", "general", "princess"))
    t.play(0, card("red", "mogul", "elephant"))
    s = t.out(0)
    assert s.events[0] == "Ana: vizier, general, monk, princess, crown, province"
    for city in ("a", "b", "c", "d"):
        t.palace(0, city)
    assert t.refuse("crown", player=0, city="e") == "Only 4 cities here"
    t.crown(0, "a")
    assert t.prompt.options["provinces"] == (0, 1)
    t.do("chain", player=0, provinces=1)  # the table saw a line of Ana's palaces from Multan to Lahore
    assert t.breakdown(0) == pts(palaces=1 + 2, bonus=2, province=2)  # rice 1 + tea 1
    # The viziers of rounds 1 and 2 bought the +1 mogul card.
    t.visit("Delhi", 3, ["spice", "jewels"])
    t.out(2)
    assert t.prompt.player == 0 and t.prompt.options["specials"] == ("mogul",)
    t.replayed()


def test_scenario_i_agra_five_cities_four_palaces_a_crown_the_taj_and_a_chain_into_three_provinces():
    """Round 12 in Agra, whose five cities take four palaces and the crown; the chain runs out to three
    provinces; four pairs of tokens end as four special cards in hand.

    "La province d'Agra, celle du Taj Mahal, comprend cinq cités"; "Si un joueur est majoritaire pour
    plusieurs symboles, il prend tous les jetons influence correspondants, place un palais pour chacun";
    "1 point supplémentaire par province"; "1 point par carte spéciale".
    """
    t = Table(3)
    t.visit("s02", 1, ["rice"])
    t.play(0, card("red", "vizier", "monk"))
    t.outs(1, 2, 0)
    t.palace(0, "s02-3", {"kind": "points"})
    t.palace(0, "s02-2")
    t.visit("s06", 2, ["tea", "spice"])
    t.outs(1, 2)
    t.play(0, card("red", "vizier", "elephant"))
    t.out(0)
    t.palace(0, "s06-4")  # touches s06-1, s06-3 and agra-2, empty: no chain
    assert t.breakdown(0) == pts(palaces=2, bonus=2, province=2)
    t.visit("s09", 3, ["rice", "jewels"])
    t.out(2)
    t.play(0, card("red", "general", "princess"))
    t.outs(1, 0)
    t.palace(0, "s09-1", {"kind": "goods", "goods": "rice"})  # her first rice (round 1 gave her no tile): 1
    t.palace(0, "s09-2")  # s09-1 touches agra-3, s09-2 touches s10-4: both empty
    assert t.breakdown(0) == pts(palaces=3, bonus=3, province=2)
    empty_rounds(t, ["s01", "s03", "s04", "s05", "s07", "s08", "s10", "s11"], 4)
    # Round 12, Agra: first Cy. Ana holds the +1 mogul card (viziers of rounds 1 and 2).
    t.visit("agra", 12, ["rice", "tea"])
    t.out(2)
    assert t.prompt.options["specials"] == ("mogul",)
    t.play(0, card("red", "vizier", "monk"), special("mogul"))
    t.play(1, card("green", "elephant", "elephant"))
    t.play(0, card("red", "general", "princess"))
    s = t.out(1)  # elephant 2 > 0: the tile, rice 1 + tea 1
    assert s.events == ("Ben: province", "Ben: province +2")
    s = t.out(0)
    assert s.events[0] == "Ana: vizier, general, monk, princess, crown"
    assert t.prompt.options["palace"][0] == "agra-2" and t.prompt.options["bonus"] == ("agra-2",)
    t.crown(0, "agra-5")  # five cities: the crown may take one and still leave four for the palaces
    for city in ("agra-1", "agra-3", "agra-4"):
        t.palace(0, city)
    assert t.prompt.options == {"palace": ("agra-2",), "bonus": ("agra-2",)}
    t.palace(0, "agra-2", {"kind": "taj"})
    # agra-1 - s02-3: s02; agra-2 - s06-4: s06; agra-3 - s09-1: s09; agra-4 - s05-2: empty. 1 + 3.
    assert t.breakdown(0) == pts(palaces=3 + 4, bonus=3 + 4, province=2)
    # Exchange after round 12: Ana's vizier is alone again, but monk, general and princess make pairs.
    assert t.prompt.expects == ("hand",)
    t.do("hand", player=0, cards=[])  # the +1 mogul, colour change, +1 elephant and +2 points cards: 4
    t.do("hand", player=1, cards=[white("vizier")])
    t.do("hand", player=2, cards=[card("red", "monk", "vizier"), card("red", "elephant", "elephant")])
    assert t.breakdown(0)["hand"] == 4
    assert t.totals() == [20, 3, 2] and game.winners(t.s) == [0]
    t.replayed()
