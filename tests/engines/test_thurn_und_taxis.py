"""Thurn und Taxis: every rule of rules/002 and game-log.md section 4, the rule text's examples, random games."""

import itertools
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engines
from engines import IllegalAction
from engines.thurn_und_taxis.board import board

from .bots.thurn_und_taxis import Bot, closing_states, random_placement
from .playout import apply_junk, assert_refused, json_actions, play_random_game

game = engines.get("thurn_und_taxis")
_ids = itertools.count()


def card(city: str) -> dict:
    return {"id": f"{city}-{next(_ids)}", "city": city}


def lay(s, p, city, side=None):
    action = {"type": "lay", "player": p, "card": card(city)}
    if side:
        action["side"] = side
    return game.apply(s, action)


def end(s, p):
    return game.apply(s, {"type": "end_turn", "player": p})


def filler_turn(s, p):
    """Seat p lays any fitting card and ends its turn (keeps other seats moving in rule tests)."""
    route = s.routes[p]
    if not route:
        return end(lay(s, p, "lodz"), p)
    options = game.fitting(route, "right") or game.fitting(route, "left")
    if not options:
        s = game.apply(s, {"type": "discard_route", "player": p})
        return end(lay(s, p, "lodz"), p)
    side = "right" if game.fitting(route, "right") else "left"
    return end(lay(s, p, options[0], side), p)


def build(s, p, cities):
    """Seat p builds a route of `cities` one card a turn, from a fresh route; the other seats fill in between."""
    while s.turn != p:
        s = filler_turn(s, s.turn)
    if s.routes[p]:
        s = game.apply(s, {"type": "discard_route", "player": p})
    for i, city in enumerate(cities):
        s = lay(s, p, city, None if i < 2 else "right")
        if i < len(cities) - 1:
            s = end(s, p)
            for q in range(1, s.n_players):
                s = filler_turn(s, (p + q) % s.n_players)
    return s


def close(s, p, houses, coachman=False):
    return game.apply(s, {"type": "close", "player": p, "houses": houses, "coachman": coachman})


def refused(s, action) -> IllegalAction:
    return assert_refused(game, s, action)


# -- the rule text's examples ----------------------------------------------------------------------


def test_example_route_carlsruhe_stuttgart_nuernberg_regensburg():
    s = build(game.start(["Ana", "Ben"]), 0, ["carlsruhe", "stuttgart", "nuernberg"])
    s = end(s, 0)
    s = filler_turn(s, 1)
    s = lay(s, 0, "regensburg", "right")
    assert [c for _, c in s.routes[0]] == ["carlsruhe", "stuttgart", "nuernberg", "regensburg"]
    s = end(s, 0)
    s = filler_turn(s, 1)
    # Innsbruck has no road to Carlsruhe or Regensburg
    assert "does not fit" in refused(s, {"type": "lay", "player": 0, "card": card("innsbruck")}).short
    # Würzburg touches Stuttgart and Nürnberg, but a card never goes in between
    for side in (None, "left", "right"):
        refused(s, {"type": "lay", "player": 0, "card": card("wuerzburg"), "side": side})
    # Stuttgart is already in the route
    assert "in the route" in refused(s, {"type": "lay", "player": 0, "card": card("stuttgart")}).short


def _sigmaringen_augsburg_route():
    return build(game.start(["Ana", "Ben"]), 0, ["sigmaringen", "stuttgart", "nuernberg", "regensburg", "ingolstadt", "augsburg"])


def test_example_houses_one_city_in_each_region():
    s = _sigmaringen_augsburg_route()
    done = close(s, 0, ["sigmaringen", "stuttgart", "ingolstadt"])
    assert done.houses[0] == {"sigmaringen", "stuttgart", "ingolstadt"}
    # a second Baiern city with the other regions is neither mode
    refused(s, {"type": "close", "player": 0, "houses": ["sigmaringen", "stuttgart", "ingolstadt", "nuernberg"]})


def test_example_houses_every_city_of_one_region():
    s = _sigmaringen_augsburg_route()
    done = close(s, 0, ["nuernberg", "regensburg", "ingolstadt", "augsburg"])
    assert done.houses[0] == {"nuernberg", "regensburg", "ingolstadt", "augsburg"}
    refused(s, {"type": "close", "player": 0, "houses": ["nuernberg", "regensburg", "ingolstadt", "augsburg", "sigmaringen"]})


def _close_route(s, p, cities, houses=(), coachman=False):
    s = build(s, p, cities)
    s = close(s, p, list(houses), coachman)
    s = end(s, p)
    for q in range(1, s.n_players):
        s = filler_turn(s, (p + q) % s.n_players)
    return s


def test_example_carriages_three_then_five_then_four():
    s = game.start(["Ana", "Ben"])
    s = _close_route(s, 0, ["carlsruhe", "mannheim", "wuerzburg"])
    assert s.carriage[0] == 3
    s = _close_route(s, 0, ["basel", "zuerich", "kempten", "ulm", "augsburg"])
    assert s.carriage[0] == 4  # never skips the 4
    s = _close_route(s, 0, ["linz", "passau", "regensburg", "pilsen"])
    assert s.carriage[0] == 4  # a 4-card route does not reach the 5


def test_example_coachman_takes_the_seven_with_five_cards():
    s = game.start(["Ana", "Ben"])
    s.carriage[0] = 6
    s = build(s, 0, ["basel", "zuerich", "kempten", "ulm", "augsburg"])
    without = close(s, 0, [])
    assert without.carriage[0] == 6
    with_coachman = close(s, 0, [], coachman=True)
    assert with_coachman.carriage[0] == 7
    assert with_coachman.official == "coachman"


def test_example_wuerttemberg_hohenzollern_tile():
    s = game.start(["Ana", "Ben"])
    s = _close_route(s, 0, ["carlsruhe", "stuttgart", "mannheim"], houses=["stuttgart"])
    assert ("wuerttemberg_hohenzollern", 3) not in s.tiles[0]
    s = _close_route(s, 0, ["freiburg", "sigmaringen", "ulm"], houses=["sigmaringen", "ulm"])
    assert ("wuerttemberg_hohenzollern", 3) in s.tiles[0]


def test_example_final_score_7_plus_17_minus_4():
    s = game.start(["Ana", "Ben"])
    s.carriage[0] = 6
    s.tiles[0] = [("route_7", 4), ("outside_baiern", 6), ("baden", 3), ("boehmen_salzburg", 3), ("game_end", 1)]
    s.houses[0] = set(board().cities[:16])
    score = game.scores(s)[0]
    assert score.total == 20
    assert score.breakdown == {"carriage": 7, "route": 4, "regions": 12, "end": 1, "unplaced_houses": -4}


# -- routes ----------------------------------------------------------------------------------------


def test_first_card_starts_a_route_anywhere():
    s = lay(game.start(["Ana", "Ben"]), 0, "lodz")
    assert s.routes[0] == [(s.routes[0][0][0], "lodz")]


def test_side_required_only_when_both_ends_fit():
    s = build(game.start(["Ana", "Ben"]), 0, ["ulm", "augsburg"])
    s = end(s, 0)
    s = filler_turn(s, 1)
    # Kempten touches Ulm and Augsburg: both ends fit
    assert "left or right" in refused(s, {"type": "lay", "player": 0, "card": card("kempten")}).short
    assert [c for _, c in lay(s, 0, "kempten", "left").routes[0]] == ["kempten", "ulm", "augsburg"]
    assert [c for _, c in lay(s, 0, "kempten", "right").routes[0]] == ["ulm", "augsburg", "kempten"]
    # Innsbruck fits only after Augsburg: no side needed, and the wrong side is refused
    assert [c for _, c in lay(s, 0, "innsbruck").routes[0]] == ["ulm", "augsburg", "innsbruck"]
    assert "left" in refused(s, {"type": "lay", "player": 0, "card": card("innsbruck"), "side": "left"}).short


def test_second_card_may_name_its_side_of_a_one_card_route():
    s = build(game.start(["Ana", "Ben"]), 0, ["ulm"])
    s = filler_turn(end(s, 0), 1)
    assert [c for _, c in lay(s, 0, "augsburg").routes[0]] == ["ulm", "augsburg"]
    assert [c for _, c in lay(s, 0, "augsburg", "left").routes[0]] == ["augsburg", "ulm"]


def test_unknown_city_and_card_already_laid():
    s = game.start(["Ana", "Ben"])
    refused(s, {"type": "lay", "player": 0, "card": {"id": "x", "city": "paris"}})
    s = lay(s, 0, "ulm")
    s = end(s, 0)
    laid = s.routes[0][0][0]
    assert "route" in refused(s, {"type": "lay", "player": 1, "card": {"id": laid, "city": "ulm"}}).short


def test_discard_route_before_first_lay_only():
    s = build(game.start(["Ana", "Ben"]), 0, ["ulm", "augsburg"])
    refused(s, {"type": "discard_route", "player": 0})  # after this turn's lay
    s = end(s, 0)
    s = filler_turn(s, 1)
    s = game.apply(s, {"type": "discard_route", "player": 0})
    assert s.routes[0] == []
    refused(s, {"type": "discard_route", "player": 0})  # nothing left to discard
    s = lay(s, 0, "lodz")
    assert [c for _, c in s.routes[0]] == ["lodz"]


def test_wrong_seat_and_turn_order():
    s = game.start(["Ana", "Ben", "Cy"])
    assert refused(s, {"type": "lay", "player": 1, "card": card("ulm")}).short == "Ana's turn"
    s = end(lay(s, 0, "ulm"), 0)
    assert game.prompt(s).player == 1
    refused(s, {"type": "end_turn", "player": 1})  # every turn lays a card


# -- officials -------------------------------------------------------------------------------------


def test_first_turn_postmaster_is_compulsory():
    s = game.start(["Ana", "Ben"])
    assert "postmaster" in refused(s, {"type": "official", "player": 0, "official": "administrator"}).short
    noted = game.apply(s, {"type": "official", "player": 0, "official": "postmaster"})
    refused(noted, {"type": "official", "player": 0, "official": "postmaster"})
    s = lay(s, 0, "ulm")
    assert "one card" in refused(s, {"type": "lay", "player": 0, "card": card("augsburg")}).short


def _turn(s, p, cities, side="right"):
    """Seat p lays `cities` (two: with the postillion) and ends its turn; then the other seats fill in."""
    for city in cities:
        s = lay(s, p, city, side if s.routes[p] else None)
    s = end(s, p)
    for q in range(1, s.n_players):
        s = filler_turn(s, (p + q) % s.n_players)
    return s


def test_empty_hand_after_laying_every_card_drawn_needs_the_postmaster():
    s = _turn(game.start(["Ana", "Ben"]), 0, ["ulm"])  # the first turn: 2 drawn, 1 laid
    after_one = _turn(s, 0, ["augsburg"])  # 1 or 2 drawn (the postmaster need not be recorded), 1 laid
    assert game.prompt(after_one).options["official"] == ("postmaster", "administrator")
    s = _turn(s, 0, ["augsburg", "innsbruck"])  # the postillion: 1 drawn, 2 laid; the hand is empty
    assert game.prompt(s).options["official"] == ("postmaster",)
    assert refused(s, {"type": "official", "player": 0, "official": "administrator"}).short == "Empty hand: postmaster"
    assert game.apply(s, {"type": "official", "player": 0, "official": "postmaster"}).official == "postmaster"
    s = lay(s, 0, "salzburg", "right")
    assert game.prompt(s).options["coachman"] == (False,)
    assert refused(s, {"type": "lay", "player": 0, "card": card("linz")}).short == "Empty hand: one card only"
    assert refused(s, {"type": "close", "player": 0, "houses": [], "coachman": True}).short == "Empty hand: no coachman"


def test_closing_cuts_the_hand_to_three():
    s = game.start(["Ana", "Ben"])
    for city in ("ulm", "augsburg", "innsbruck", "salzburg"):
        s = _turn(s, 0, [city])  # at most 1, 2, 3, 4 cards left
    s = lay(s, 0, "linz", "right")
    s = _turn(close(s, 0, []), 0, [])  # at most 5, cut to 3
    for pair in (("carlsruhe", "mannheim"), ("stuttgart", "ulm"), ("augsburg", "kempten")):
        assert game.prompt(s).options["official"] == ("postmaster", "administrator")
        s = _turn(s, 0, pair)  # the postillion each time: one card fewer
    assert game.prompt(s).options["official"] == ("postmaster",)


def test_a_fourth_card_of_a_city_is_a_mistaken_tag():
    s = game.start(["Ana", "Ben", "Cy", "Dee"])
    for seat in range(3):
        s = end(game.apply(s, {"type": "lay", "player": seat, "card": {"id": f"ulm-{seat + 1}", "city": "ulm"}}), seat)
    fourth = refused(s, {"type": "lay", "player": 3, "card": {"id": "ulm-4", "city": "ulm"}})
    assert fourth.short == "Ulm: only 3 cards exist" and "Ana, Ben, Cy" in str(fourth)
    assert game.apply(s, {"type": "lay", "player": 3, "card": {"id": "augsburg-1", "city": "augsburg"}}).routes[3]


def test_second_lay_is_the_postillion_and_one_official_per_turn():
    s = build(game.start(["Ana", "Ben"]), 0, ["ulm", "augsburg"])
    s = end(s, 0)
    s = filler_turn(s, 1)
    helped = game.apply(s, {"type": "official", "player": 0, "official": "administrator"})
    s = lay(s, 0, "innsbruck")
    two = lay(s, 0, "salzburg")
    assert two.official == "postillion" and len(two.routes[0]) == 4
    refused(two, {"type": "lay", "player": 0, "card": card("linz")})  # never a third card
    refused(two, {"type": "official", "player": 0, "official": "postmaster"})
    assert "official" in refused(two, {"type": "close", "player": 0, "houses": [], "coachman": True}).short
    helped = lay(helped, 0, "innsbruck")
    assert "official" in refused(helped, {"type": "lay", "player": 0, "card": card("salzburg")}).short
    assert "official" in refused(helped, {"type": "close", "player": 0, "houses": [], "coachman": True}).short


def test_officials_help_in_the_draw_before_any_card_is_laid():
    """ "dans l'ordre indiqué": draw (postmaster, administrator), then lay (or discard the route), then close."""
    s = _turn(game.start(["Ana", "Ben"]), 0, ["ulm"])
    s = _turn(s, 0, ["augsburg"])
    laid = lay(s, 0, "innsbruck")
    assert "official" not in game.prompt(laid).expects
    for official in ("postmaster", "administrator"):
        assert refused(laid, {"type": "official", "player": 0, "official": official}).short == "Officials: before laying"
    discarded = game.apply(s, {"type": "discard_route", "player": 0})
    assert "official" not in game.prompt(discarded).expects
    assert refused(discarded, {"type": "official", "player": 0, "official": "postmaster"}).short == "Officials: before laying"
    helped = game.apply(s, {"type": "official", "player": 0, "official": "administrator"})
    helped = lay(game.apply(helped, {"type": "discard_route", "player": 0}), 0, "lodz")
    assert helped.official == "administrator" and [c for _, c in helped.routes[0]] == ["lodz"]
    first = lay(game.start(["Ana", "Ben"]), 0, "ulm")  # the compulsory postmaster, too, is noted before the card
    assert refused(first, {"type": "official", "player": 0, "official": "postmaster"}).short == "Officials: before laying"


# -- closing ---------------------------------------------------------------------------------------


def test_close_needs_three_cards_and_a_lay_this_turn():
    s = build(game.start(["Ana", "Ben"]), 0, ["ulm", "augsburg"])
    assert "3 cards" in refused(s, {"type": "close", "player": 0, "houses": []}).short
    s = end(s, 0)
    s = filler_turn(s, 1)
    s = lay(s, 0, "innsbruck")
    s = end(s, 0)
    s = filler_turn(s, 1)
    assert "Lay" in refused(s, {"type": "close", "player": 0, "houses": []}).short
    s = lay(s, 0, "salzburg")
    done = close(s, 0, ["salzburg"])
    assert done.routes[0] == [] and done.closed
    assert "closed" in refused(done, {"type": "lay", "player": 0, "card": card("ulm")}).short


def test_houses_never_twice_in_a_city_and_only_on_the_route():
    s = _close_route(game.start(["Ana", "Ben"]), 0, ["carlsruhe", "stuttgart", "ulm"], houses=["stuttgart"])
    s = build(s, 0, ["mannheim", "stuttgart", "ulm"])
    assert "already" in refused(s, {"type": "close", "player": 0, "houses": ["stuttgart"]}).short
    assert "not on route" in refused(s, {"type": "close", "player": 0, "houses": ["lodz"]}).short
    assert "twice" in refused(s, {"type": "close", "player": 0, "houses": ["ulm", "ulm"]}).short
    assert close(s, 0, ["ulm"]).houses[0] == {"stuttgart", "ulm"}


def test_opponent_houses_do_not_block():
    s = _close_route(game.start(["Ana", "Ben"]), 0, ["carlsruhe", "stuttgart", "ulm"], houses=["stuttgart"])
    s = _close_route(s, 1, ["wuerzburg", "stuttgart", "ulm"], houses=["stuttgart"])
    assert "stuttgart" in s.houses[0] and "stuttgart" in s.houses[1]


def test_two_houses_left_on_three_baiern_cities_any_two_and_the_game_ends():
    s = build(game.start(["Ana", "Ben"]), 0, ["nuernberg", "regensburg", "ingolstadt"])
    s.houses[0] = {c for c in board().cities if board().region_of[c] != "baiern"}  # 14 placed, 6 left
    s.houses[0] |= {"augsburg", "kempten", "muenchen", "passau"}  # 18 placed, 2 left
    assert refused(s, {"type": "close", "player": 0, "houses": ["nuernberg", "regensburg", "ingolstadt"]}).short == "Only 2 houses left"
    sets = game.prompt(s).options["house_sets"]
    assert sets == (("nuernberg", "ingolstadt"), ("nuernberg", "regensburg"), ("regensburg", "ingolstadt"), ())
    for houses in sets[:-1]:
        done = close(s, 0, list(houses))
        assert len(done.houses[0]) == 20 and done.end_holder == 0 and ("game_end", 1) in done.tiles[0]
        assert game.is_over(filler_turn(end(done, 0), 1))  # Ben, right of the first player, plays the last turn
    assert close(s, 0, ["ingolstadt"]).end_holder is None  # one house: one left, the game goes on


def _legal(route: list[str], placed: set[str], supply: int, houses: tuple[str, ...]) -> bool:
    """rules/002, "Poser des maisons", read again for the test: route cities without the player's
    house, no more than the houses left, either all in one region or each in a different region."""
    regions = [board().region_of[c] for c in houses]
    return set(houses) <= set(route) - placed and len(houses) <= supply and (len(set(regions)) <= 1 or len(set(regions)) == len(houses))


@pytest.mark.parametrize(
    "route, placed",
    [
        (["sigmaringen", "stuttgart", "nuernberg", "regensburg", "ingolstadt", "augsburg"], 0),
        (["sigmaringen", "stuttgart", "nuernberg", "regensburg", "ingolstadt", "augsburg"], 17),
        (["nuernberg", "regensburg", "ingolstadt"], 18),
        (["nuernberg", "regensburg", "ingolstadt"], 19),
        # 12 cards through five regions: 72 ways to place one house in each, none left out
        (["augsburg", "ulm", "kempten", "zuerich", "basel", "freiburg", "carlsruhe", "mannheim", "stuttgart", "nuernberg", "pilsen", "budweis"], 0),
        (["augsburg", "ulm", "kempten", "zuerich", "basel", "freiburg", "carlsruhe", "mannheim", "stuttgart", "nuernberg", "pilsen", "budweis"], 10),
        # 13 cards through all nine regions, 3 houses left: a choice of regions, then of cities
        (["carlsruhe", "freiburg", "basel", "zuerich", "sigmaringen", "ulm", "augsburg", "innsbruck", "salzburg", "linz", "budweis", "pilsen", "lodz"], 17),
        (["wuerzburg", "nuernberg", "regensburg", "muenchen", "augsburg", "kempten", "ulm", "ingolstadt"], 1),
    ],
)
def test_house_sets_are_every_largest_legal_placement(route, placed):
    s = game.start(["Ana", "Ben"])
    s.routes[0] = [(f"{city}-1", city) for city in route]
    s.lays = 1
    others = [c for c in board().cities if c not in route]
    s.houses[0] = set(others[:placed]) | set(route[: max(0, placed - len(others))])
    supply = 20 - placed
    legal = {frozenset(h) for k in range(len(route) + 1) for h in itertools.combinations(route, k) if _legal(route, s.houses[0], supply, h)}
    largest = {h for h in legal if h and not any(h | {city} in legal for city in route if city not in h)}
    sets = game.prompt(s).options["house_sets"]
    assert sets[-1] == () and len(set(sets)) == len(sets)
    assert {frozenset(h) for h in sets[:-1]} == largest
    if route[0] == "augsburg" and placed == 0:
        assert len(sets) == 3 * 2 * 2 * 3 * 2 + 5 + 1  # a city in each region; every city of one region; none
    assert [len(h) for h in sets[:-1]] == sorted((len(h) for h in sets[:-1]), reverse=True)
    for houses in sets:
        close(s, 0, list(houses))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n_players=st.integers(2, 4), placed=st.sampled_from([0, 10, 15, 18]))
def test_every_close_the_engine_accepts_is_reachable_through_the_offered_choices(seed, n_players, placed):
    """In random games: a closing is accepted exactly when its houses are a subset of an offered set."""
    rng = random.Random(seed)
    for s in closing_states(n_players, seed, placed):
        offered = [set(h) for h in game.prompt(s).options["house_sets"]]
        for _ in range(4):
            houses = random_placement(rng, s)
            action = {"type": "close", "player": s.turn, "houses": houses}
            reachable = any(set(houses) <= h for h in offered)
            if reachable:
                assert set(game.apply(s, action).houses[s.turn]) >= set(houses)
            else:
                refused(s, action)


def test_route_length_tiles_and_fallback():
    s = build(game.start(["Ana", "Ben"]), 0, ["basel", "zuerich", "kempten", "ulm", "augsburg", "ingolstadt", "nuernberg"])
    assert ("route_7", 4) in close(s, 0, []).tiles[0]
    s.stacks["route_7"] = []
    assert ("route_6", 3) in close(s, 0, []).tiles[0]
    s.stacks["route_6"] = []
    assert ("route_5", 2) in close(s, 0, []).tiles[0]
    s.stacks["route_5"] = []
    assert not any(t.startswith("route") for t, _ in close(s, 0, []).tiles[0])


def test_no_route_tile_below_five_cards():
    s = build(game.start(["Ana", "Ben"]), 0, ["basel", "zuerich", "kempten", "ulm"])
    assert not any(t.startswith("route") for t, _ in close(s, 0, []).tiles[0])


def test_region_tiles_top_value_first_and_once_per_player():
    s = game.start(["Ana", "Ben", "Cy"])
    s.houses[1] = {"carlsruhe", "freiburg", "mannheim"}
    s.tiles[1] = [("baden", 3)]
    s.stacks["baden"] = [2, 1]
    s = _close_route(s, 0, ["carlsruhe", "mannheim", "wuerzburg"], houses=["carlsruhe", "mannheim"])
    s = _close_route(s, 0, ["basel", "freiburg", "carlsruhe"], houses=["freiburg"])
    assert ("baden", 2) in s.tiles[0] and s.stacks["baden"] == [1]
    # Ana qualifies again on a later close but never takes a second Baden tile
    s = _close_route(s, 0, ["mannheim", "carlsruhe", "freiburg"])
    assert [t for t in s.tiles[0] if t[0] == "baden"] == [("baden", 2)]


def test_region_tile_gone_when_stack_empty():
    s = game.start(["Ana", "Ben"])
    s.stacks["baden"] = []
    s = _close_route(s, 0, ["carlsruhe", "mannheim", "wuerzburg"], houses=["carlsruhe", "mannheim"])
    s = _close_route(s, 0, ["basel", "freiburg", "carlsruhe"], houses=["freiburg"])
    assert not any(t == "baden" for t, _ in s.tiles[0])


def test_outside_baiern_needs_a_house_in_each_other_region():
    s = game.start(["Ana", "Ben"])
    s.houses[0] = {"carlsruhe", "stuttgart", "sigmaringen", "basel", "innsbruck", "pilsen", "lodz"}
    s = _close_route(s, 0, ["passau", "linz", "budweis"], houses=["linz"])
    assert ("outside_baiern", 6) in s.tiles[0]


def test_baiern_tile_needs_all_eight_cities():
    s = game.start(["Ana", "Ben"])
    s.houses[0] = {"augsburg", "kempten", "muenchen", "passau", "wuerzburg"}
    s = _close_route(s, 0, ["nuernberg", "regensburg", "ingolstadt"], houses=["nuernberg", "regensburg"])
    assert ("baiern", 5) not in s.tiles[0]
    s = _close_route(s, 0, ["ulm", "ingolstadt", "regensburg"], houses=["ingolstadt"])
    assert ("baiern", 5) in s.tiles[0]


# -- the end ---------------------------------------------------------------------------------------


def test_seven_carriage_ends_the_game_after_the_last_seat():
    s = game.start(["Ana", "Ben", "Cy"])
    s.carriage[1] = 6
    s = filler_turn(s, 0)
    s = build(s, 1, ["basel", "zuerich", "kempten", "ulm", "augsburg", "ingolstadt", "nuernberg"])
    s = close(s, 1, [])
    assert s.carriage[1] == 7 and s.end_holder == 1 and ("game_end", 1) in s.tiles[1]
    assert game.phase(s).startswith("Last round")
    s = end(s, 1)
    assert not game.is_over(s)
    s = filler_turn(s, 2)  # seat 2 sits right of the first player: the last turn
    assert game.is_over(s) and game.prompt(s) is None
    refused(s, {"type": "lay", "player": 0, "card": card("ulm")})


def test_last_house_ends_the_game_and_only_the_first_trigger_takes_the_tile():
    s = game.start(["Ana", "Ben"])
    s.houses[0] = set(board().cities) - {"carlsruhe", "mannheim", "wuerzburg", "stuttgart", "ulm"}
    s.houses[1] = set(s.houses[0])
    s.carriage[1] = 6
    s = build(s, 0, ["carlsruhe", "stuttgart", "wuerzburg"])
    s.routes[1] = [(f"b{i}", c) for i, c in enumerate(["ulm", "stuttgart", "mannheim", "wuerzburg", "nuernberg", "regensburg"])]
    s = close(s, 0, ["carlsruhe", "stuttgart", "wuerzburg"])
    assert len(s.houses[0]) == 20 and s.end_holder == 0
    s = end(s, 0)
    s = close(lay(s, 1, "passau"), 1, [])  # Ben's last turn: a 7 carriage, but no second game-end tile
    assert s.carriage[1] == 7 and s.end_holder == 0
    assert not any(t == "game_end" for t, _ in s.tiles[1])
    assert game.is_over(end(s, 1))


def test_tie_break_game_end_holder_then_clockwise():
    s = game.start(["Ana", "Ben", "Cy", "Dee"])
    s.over = True
    s.end_holder = 2
    for seat in range(4):
        s.houses[seat] = set(board().cities[:10])
    s.tiles[3] = [("baden", 3)]
    s.tiles[0] = [("baden", 2), ("route_5", 1)]
    assert game.winners(s) == [3]  # Ana and Dee tie on 3: Dee is first clockwise from Cy, the holder
    s.tiles[2] = [("game_end", 1), ("route_5", 2)]
    assert game.winners(s) == [2]  # the holder among the leaders
    s.tiles[2] = [("game_end", 1)]
    assert game.winners(s) == [3]  # first tied leader clockwise from the holder (seat 2): Dee before Ana


def test_scores_count_unplaced_houses_against():
    s = game.start(["Ana", "Ben"])
    assert [sc.total for sc in game.scores(s)] == [-20, -20]


def test_prompt_lists_fitting_cities_and_house_sets():
    s = build(game.start(["Ana", "Ben"]), 0, ["sigmaringen", "stuttgart", "ulm"])
    prompt = game.prompt(s)
    assert "close" in prompt.expects and "end_turn" in prompt.expects
    sets = prompt.options["house_sets"]
    assert ("stuttgart", "ulm") in sets and ("sigmaringen", "stuttgart") in sets and sets[-1] == ()
    for houses in sets:
        close(s, 0, list(houses))  # every listed set is legal
    s = end(s, 0)
    s = filler_turn(s, 1)
    prompt = game.prompt(s)
    assert prompt.expects[0] == "lay"
    assert set(prompt.options["left"]) == board().neighbours["sigmaringen"] - {"stuttgart", "ulm"}


# -- data ------------------------------------------------------------------------------------------


def test_map_matches_the_component_counts():
    b = board()
    assert len(b.cities) == 22 and len(b.region_name) == 9
    assert sum(len(n) for n in b.neighbours.values()) == 2 * 45
    assert all(a in b.neighbours[c] for a in b.cities for c in b.neighbours[a])
    assert b.carriage_points == {3: 2, 4: 3, 5: 5, 6: 7, 7: 10}
    assert sum(len(v) for v in b.stacks.values()) == 30


def test_setup_refusals():
    with pytest.raises(IllegalAction):
        game.start(["Ana"])
    with pytest.raises(IllegalAction):
        game.start(["Ana", "Ana"])
    with pytest.raises(IllegalAction):
        game.start(["Ana", "Ben"], {"board": "x"})


# -- random games ----------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n_players=st.integers(2, 4))
def test_random_games_keep_the_contract(seed, n_players):
    players = ["Ana", "Ben", "Cy", "Dee"][:n_players]
    state = play_random_game("thurn_und_taxis", players, {}, Bot(n_players, {}, seed), seed)
    for seat in range(n_players):
        assert len(state.houses[seat]) + (-game.scores(state)[seat].breakdown["unplaced_houses"]) == 20
    assert state.end_holder is not None
    assert sum(v for tiles in state.tiles for t, v in tiles if t == "game_end") == 1


@settings(max_examples=200, deadline=None)
@given(
    junk=json_actions(game, ("player", "card", "houses", "side", "official", "coachman"))
)
def test_random_json_is_refused_cleanly(junk):
    s = build(game.start(["Ana", "Ben"]), 0, ["ulm", "augsburg", "innsbruck"])
    apply_junk(game, s, junk)


# -- whole games through the public API, worked by hand from rules/002 --------------------------------


def _spec(cities=(), close=None, coachman=False):
    """One scripted turn: lay `cities` one after another (each after the last), then close with `close` houses."""
    return {"cities": list(cities), "close": close, "coachman": coachman}


def _route(cities, houses=(), coachman=False):
    """The turns that build `cities` one card a turn and close the route on the last one, placing `houses`."""
    return [_spec([city]) for city in cities[:-1]] + [_spec(cities[-1:], list(houses), coachman)]


def _play(s, scripts):
    """Each seat plays its scripted turns in turn order until every script is done (or the game is over);
    a seat whose script is done fills in."""
    scripts = {seat: list(turns) for seat, turns in scripts.items()}
    while any(scripts.values()) and not game.is_over(s):
        p = s.turn
        if not scripts.get(p):
            s = filler_turn(s, p)
            continue
        spec = scripts[p].pop(0)
        for city in spec["cities"]:
            s = lay(s, p, city, "right" if s.routes[p] else None)
        if spec["close"] is not None:
            s = close(s, p, spec["close"], spec["coachman"])
        s = end(s, p)
    return s


BAIERN_PATH = ["wuerzburg", "nuernberg", "regensburg", "passau", "muenchen", "ingolstadt", "augsburg", "kempten"]


def test_example_final_score_played_out_7_plus_17_minus_4_is_20():
    """The rule text's scoring example, reached in play: best carriage the 6 (7 points), bonus tiles worth 17,
    4 houses not placed. Ben ends the game with a 7 carriage on the last seat's turn."""
    ana = (
        _route(["basel", "freiburg", "sigmaringen"], ["basel", "freiburg", "sigmaringen"])  # carriage 3
        + _route(["ulm", "kempten", "innsbruck", "salzburg"], ["ulm", "innsbruck", "salzburg"])  # carriage 4
        + _route(["lodz", "pilsen", "budweis", "linz", "passau"], ["lodz", "pilsen"])  # 5, route 5, outside Baiern
        + _route(BAIERN_PATH, BAIERN_PATH)  # carriage 6, route 7, Baiern
    )
    ben = (
        _route(["carlsruhe", "mannheim", "wuerzburg"])
        + _route(["carlsruhe", "mannheim", "stuttgart"], coachman=True)
        + _route(["basel", "zuerich", "kempten"], coachman=True)
        + _route(["ulm", "augsburg", "innsbruck", "salzburg"], coachman=True)
        + _route(["lodz", "pilsen", "budweis", "linz", "salzburg", "innsbruck", "kempten"])
    )
    assert len(ana) == len(ben) == 20
    s = _play(game.start(["Ana", "Ben"]), {0: ana[:12], 1: ben[:12]})
    assert s.carriage == [5, 5] and s.tiles[0] == [("route_5", 2), ("outside_baiern", 6)]
    s = _play(s, {0: ana[12:], 1: ben[12:]})
    assert game.is_over(s) and s.end_holder == 1 and s.carriage == [6, 7]
    assert s.tiles[0] == [("route_5", 2), ("outside_baiern", 6), ("route_7", 4), ("baiern", 5)]
    assert s.tiles[1] == [("route_7", 3), ("game_end", 1)]
    ana_score, ben_score = game.scores(s)
    assert ana_score.total == 7 + 17 - 4 == 20
    assert ana_score.breakdown == {"carriage": 7, "route": 6, "regions": 11, "end": 0, "unplaced_houses": -4}
    assert ben_score.total == 10 + 3 + 1 - 20
    assert game.winners(s) == [0]


def test_last_house_ends_the_game_and_a_short_supply_places_fewer():
    """Ana places her 20th house with a choice that wants 2: she places 1, takes the game-end tile, and Ben,
    on the last seat, plays his turn."""
    other_regions = ["carlsruhe", "stuttgart", "sigmaringen", "zuerich", "kempten", "innsbruck", "salzburg", "linz", "budweis", "pilsen", "lodz"]
    ana = (
        _route(BAIERN_PATH, BAIERN_PATH)  # 8 houses: carriage 3, route 7 (4), Baiern (5)
        + _route(other_regions, ["carlsruhe", "stuttgart", "sigmaringen", "zuerich", "innsbruck", "salzburg", "budweis", "lodz"])
        + _route(["ulm", "sigmaringen", "freiburg", "basel"], ["ulm", "freiburg", "basel"])  # 19: W/H and S/T at once
        + _route(["linz", "budweis", "pilsen"])[:2]
    )
    s = _play(game.start(["Ana", "Ben"]), {0: ana})
    assert len(s.houses[0]) == 19 and s.carriage[0] == 4 and s.end_holder is None
    assert s.tiles[0] == [("route_7", 4), ("baiern", 5), ("route_7", 3), ("outside_baiern", 6), ("wuerttemberg_hohenzollern", 3), ("schweiz_tyrol", 3)]
    s = filler_turn(s, 1)
    s = lay(s, 0, "pilsen", "right")
    assert refused(s, {"type": "close", "player": 0, "houses": ["linz", "pilsen"]}).short == "Only 1 house left"
    assert game.prompt(s).options["house_sets"] == (("linz",), ("pilsen",), ())
    s = end(close(s, 0, ["pilsen"]), 0)
    assert len(s.houses[0]) == 20 and s.end_holder == 0 and not game.is_over(s)
    s = filler_turn(s, 1)
    assert game.is_over(s)
    score = game.scores(s)[0]
    assert score.breakdown == {"carriage": 3, "route": 7, "regions": 17, "end": 1, "unplaced_houses": 0}
    assert score.total == 28 and game.winners(s) == [0]


# Ben climbs to the 7 carriage with the coachman (5 closings, 18 turns) and places no house:
# 10 + route 5 (2) + game end (1) - 20 = -7. The others climb to the 6 (7 points) in 13 turns.
_BEN_TO_SEVEN = (
    _route(["basel", "freiburg", "sigmaringen"])
    + _route(["sigmaringen", "ulm", "kempten"], coachman=True)
    + _route(["nuernberg", "regensburg", "ingolstadt"], coachman=True)
    + _route(["wuerzburg", "nuernberg", "ingolstadt", "muenchen"], coachman=True)
    + _route(["augsburg", "innsbruck", "salzburg", "linz", "budweis"], coachman=True)
)


def _to_six(last_houses):
    """Carriage 6 in four closings with 6 houses + `last_houses`, no bonus tile, then five cards never closed."""
    return (
        _route(["carlsruhe", "mannheim", "wuerzburg"], ["carlsruhe", "mannheim"])
        + _route(["stuttgart", "ulm", "augsburg"], ["stuttgart", "augsburg"], coachman=True)
        + _route(["linz", "budweis", "pilsen"], ["budweis", "pilsen"], coachman=True)
        + _route(["muenchen", "innsbruck", "kempten", "zuerich"], last_houses, coachman=True)
        + [_spec([city]) for city in ("lodz", "pilsen", "regensburg", "passau", "salzburg")]
    )


def test_tie_among_leaders_goes_to_the_game_end_holder():
    s = _play(game.start(["Ana", "Ben"]), {0: _to_six([]), 1: _BEN_TO_SEVEN})
    assert game.is_over(s) and s.end_holder == 1  # Ben, on the last seat, ended it with his own turn
    assert [sc.total for sc in game.scores(s)] == [7 + 6 - 20, 10 + 2 + 1 - 20] == [-7, -7]
    assert game.winners(s) == [1]  # not seat order: the holder of the game-end tile


def test_one_more_house_beats_the_game_end_holder():
    s = _play(game.start(["Ana", "Ben"]), {0: _to_six(["innsbruck"]), 1: _BEN_TO_SEVEN})
    assert [sc.total for sc in game.scores(s)] == [-6, -7] and game.winners(s) == [0]


def test_tie_without_the_holder_goes_to_the_first_leader_clockwise_from_the_holder():
    s = _play(game.start(["Ana", "Ben", "Cy"]), {0: _to_six(["innsbruck"]), 1: _BEN_TO_SEVEN, 2: _to_six(["innsbruck"])})
    assert game.is_over(s) and s.end_holder == 1 and s.turns_done == [18, 18, 18]  # Cy, the last seat, played out the round
    assert [sc.total for sc in game.scores(s)] == [-6, -7, -6]
    assert game.winners(s) == [2]  # clockwise from Ben: Cy before Ana


def test_carriages_never_skip_and_the_coachman_counts_for_the_carriage_only():
    s = _play(game.start(["Ana", "Ben"]), {0: _route(["basel", "zuerich", "kempten", "ulm", "augsburg", "ingolstadt", "nuernberg", "pilsen"])})
    assert s.carriage[0] == 3 and s.tiles[0] == [("route_7", 4)]  # 8 cards: the first carriage is the 3; the route 7 tile
    s = _play(s, {0: _route(["carlsruhe", "mannheim", "stuttgart", "ulm"], coachman=True)})
    assert s.carriage[0] == 4 and s.tiles[0] == [("route_7", 4)]  # 4 + 2 cards reach the 4 only; no route 5 tile
    s = _play(s, {0: _route(["basel", "freiburg", "carlsruhe"], coachman=True)})
    assert s.carriage[0] == 5  # 3 cards + 2 = 5


def test_closing_without_houses_still_takes_carriage_and_route_tile_and_own_house_cities_may_be_laid():
    s = _play(game.start(["Ana", "Ben"]), {0: _route(["carlsruhe", "mannheim", "stuttgart"], ["carlsruhe", "mannheim"])})
    s = _play(s, {0: [_spec(["freiburg"]), _spec(["carlsruhe"]), _spec(["mannheim"]), _spec(["stuttgart"])]})
    assert [c for _, c in s.routes[0]] == ["freiburg", "carlsruhe", "mannheim", "stuttgart"]
    s = _play(s, {0: [_spec(["ulm"], [])]})
    assert s.carriage[0] == 4 and s.tiles[0] == [("route_5", 2)] and s.houses[0] == {"carlsruhe", "mannheim"}


def test_discarding_then_starting_anew_with_the_postillion():
    s = filler_turn(_play(game.start(["Ana", "Ben"]), {0: [_spec(["ulm"]), _spec(["augsburg"])]}), 1)
    s = game.apply(s, {"type": "discard_route", "player": 0})
    assert s.routes[0] == [] and "discard_route" not in game.prompt(s).expects
    s = lay(lay(s, 0, "lodz"), 0, "pilsen")
    assert [c for _, c in s.routes[0]] == ["lodz", "pilsen"] and s.official == "postillion"
    assert "3 cards" in refused(s, {"type": "close", "player": 0, "houses": []}).short
    assert "Two cards" in refused(s, {"type": "lay", "player": 0, "card": card("budweis")}).short


# -- scenarios worked by hand from the rule text ------------------------------------------------------
#
# Each scenario drives only the calls of game-log.md section 1 (start, apply, scores, prompt, is_over,
# winners) through a stretch of play; every figure was worked out by hand from rules/002 before the
# test ran. Table used throughout (map.json): carriage points 3:2, 4:3, 5:5, 6:7, 7:10; stacks top
# first: route 7 [4, 3, 2, 1], route 6 [3, 2, 1], route 5 [2, 1], Extérieur Baiern [6, 5, 4, 3],
# Baiern [5, 4, 3, 2], Baden [3, 2, 1], Württemberg/Hohenzollern [3, 2, 1], Schweiz/Tyrol [3, 2, 1],
# Böhmen/Salzburg [4, 3, 2], Fin du jeu [1]. Each player has 20 houses.


def T(*lays, close=None, coachman=False, official=None, discard=False):
    """One scripted turn: [official], [discard_route], lays (a city, or (city, side)), [close], end_turn."""
    return {"lays": lays, "close": close, "coachman": coachman, "official": official, "discard": discard}


def idle(turns, city="lodz"):
    """A seat that keeps starting over: a card of `city`, then each turn discards it and lays another.

    "s'il ne veut pas la poser, il doit défausser les cartes de sa route en construction et commencer
    une nouvelle route avec l'une de ses cartes en main."
    """
    return [T(city)] + [T(city, discard=True) for _ in range(turns - 1)]


def by_hand_turn(s, p, turn):
    """Seat p plays `turn` (see T) through apply alone, after the prompt confirms it is p's turn."""
    assert game.prompt(s).player == p
    if turn["official"]:
        s = game.apply(s, {"type": "official", "player": p, "official": turn["official"]})
    if turn["discard"]:
        s = game.apply(s, {"type": "discard_route", "player": p})
    for laid in turn["lays"]:
        city, side = (laid, None) if isinstance(laid, str) else laid
        if side is None and "right" in game.prompt(s).options:  # a route lies there: the scripts extend it rightwards
            side = "right"
        s = game.apply(s, {"type": "lay", "player": p, "card": card(city), "side": side})
    if turn["close"] is not None:
        s = game.apply(s, {"type": "close", "player": p, "houses": list(turn["close"]), "coachman": turn["coachman"]})
    return game.apply(s, {"type": "end_turn", "player": p})


def by_hand(s, plans):
    """Play each seat's scripted turns in the order the engine's prompt asks for them, until all are done."""
    plans = {seat: list(turns) for seat, turns in plans.items()}
    while any(plans.values()):
        p = game.prompt(s).player
        assert plans.get(p), f"seat {p} is asked to play but has no turn scripted"
        s = by_hand_turn(s, p, plans[p].pop(0))
    return s


def breakdown(s, seat):
    """What seat's score is made of, as the scoreboard shows it."""
    return game.scores(s)[seat].breakdown


def totals(s):
    """Every seat's total, seat order."""
    return [score.total for score in game.scores(s)]


def lay_action(p, city, side=None):
    """A lay of a fresh card of `city` by seat p."""
    return {"type": "lay", "player": p, "card": card(city), "side": side}


def test_by_hand_building_a_route_ends_only_fitting_cards_discard_and_start_anew():
    """Ana builds at the ends of her route, meets each refusal of "Il est interdit de poser", then gives up
    the route ("s'il ne veut pas la poser, il doit défausser ... et commencer une nouvelle route")."""
    s = game.start(["Ana", "Ben"])
    # A1. "lors du premier tour de jeu, chaque joueur doit demander l'aide du chef de poste"
    assert game.prompt(s).options["official"] == ("postmaster",)
    s = game.apply(s, lay_action(0, "stuttgart"))
    assert refused(s, lay_action(0, "ulm")).short == "Empty hand: one card only"
    s = end(s, 0)
    s = by_hand_turn(s, 1, T("lodz"))
    # A2. A one-card route: any neighbour of Stuttgart fits, at either end.
    neighbours = ("carlsruhe", "ingolstadt", "mannheim", "nuernberg", "sigmaringen", "ulm", "wuerzburg")
    assert game.prompt(s).options["left"] == game.prompt(s).options["right"] == neighbours
    s = game.apply(s, lay_action(0, "nuernberg"))
    # The postillion's second card "doit convenir": Würzburg touches both Stuttgart and Nürnberg, so Ana says where.
    assert refused(s, lay_action(0, "wuerzburg")).short == "Würzburg: left or right?"
    s = game.apply(s, lay_action(0, "wuerzburg", "left"))
    s = end(s, 0)  # 1 in hand + 1 drawn - 2 laid: her hand is empty
    s = by_hand_turn(s, 1, T("pilsen"))
    # A3. Empty hand: "il doit demander l'aide du chef de poste. Il ne pourra donc demander l'aide d'aucun autre personnage"
    prompt = game.prompt(s)
    assert prompt.options["official"] == ("postmaster",)
    assert prompt.options["left"] == ("mannheim",) and prompt.options["right"] == ("ingolstadt", "pilsen", "regensburg")
    assert refused(s, {"type": "official", "player": 0, "official": "administrator"}).short == "Empty hand: postmaster"
    # "une carte dont la ville ... n'a aucune connexion directe avec la ville se trouvant à droite ou à gauche"
    assert refused(s, lay_action(0, "innsbruck")).short == "Innsbruck does not fit"
    # "une carte identique à une carte déjà posée dans la route en construction"
    assert refused(s, lay_action(0, "stuttgart")).short == "Stuttgart is in the route"
    # Mannheim touches Würzburg (left end) and Stuttgart (inside): never at the right end, never inside
    assert refused(s, lay_action(0, "mannheim", "right")).short == "Mannheim doesn't fit right"
    s = game.apply(s, lay_action(0, "regensburg"))  # only the right end fits: no side needed
    prompt = game.prompt(s)
    assert prompt.options["cities"] == ("wuerzburg", "stuttgart", "nuernberg", "regensburg")  # the route, left to right
    assert prompt.options["coachman"] == (False,)  # the postmaster is her one official this turn
    assert refused(s, lay_action(0, "ingolstadt")).short == "Empty hand: one card only"
    assert refused(s, {"type": "close", "player": 0, "houses": [], "coachman": True}).short == "Empty hand: no coachman"
    s = end(s, 0)
    # B3. Ben closes Lodz-Pilsen-Budweis with every Böhmen city: carriage 3 (2 points), 2 houses placed.
    s = by_hand_turn(s, 1, T("budweis", close=["pilsen", "budweis"]))
    assert breakdown(s, 1) == {"carriage": 2, "route": 0, "regions": 0, "end": 0, "unplaced_houses": -18}
    # A4. Ana gives up her four cards and starts again with the postillion's help.
    assert "discard_route" in game.prompt(s).expects
    s = game.apply(s, {"type": "discard_route", "player": 0})
    assert game.prompt(s).expects == ("lay",)  # a new route must be started; nothing to discard, too late for officials
    s = game.apply(s, lay_action(0, "carlsruhe"))
    assert refused(s, {"type": "discard_route", "player": 0}).short == "Discard before laying"
    assert refused(s, {"type": "close", "player": 0, "houses": []}).short == "Route needs 3 cards"
    s = end(game.apply(s, lay_action(0, "freiburg")), 0)
    s = by_hand_turn(s, 1, T("lodz"))
    # A5. The hand is empty again (1 + 1 - 2); the new route is Carlsruhe-Freiburg.
    prompt = game.prompt(s)
    assert prompt.options["official"] == ("postmaster",)
    assert prompt.options["left"] == ("mannheim", "stuttgart") and prompt.options["right"] == ("basel", "sigmaringen", "zuerich")
    assert totals(s) == [-20, 2 - 18]


def test_by_hand_houses_one_per_region_or_one_whole_region_and_fewer_by_choice():
    """Carlsruhe-Mannheim-Stuttgart-Ulm-Augsburg crosses Baden, Württemberg and Baiern. "il peut poser une maison
    dans une seule ville de chaque région ... OU ... dans toutes les villes qui se trouvent dans une seule région"."""
    s = by_hand(game.start(["Ana", "Ben"]), {0: [T("carlsruhe"), T("mannheim"), T("stuttgart"), T("ulm")], 1: idle(4)})
    s = game.apply(s, lay_action(0, "augsburg", "right"))
    prompt = game.prompt(s)
    one_per_region = {frozenset({b, w, "augsburg"}) for b in ("carlsruhe", "mannheim") for w in ("stuttgart", "ulm")}
    whole_region = {frozenset({"carlsruhe", "mannheim"}), frozenset({"stuttgart", "ulm"})}  # Augsburg alone lies in a larger set
    assert prompt.options["house_sets"][-1] == ()
    assert {frozenset(h) for h in prompt.options["house_sets"][:-1]} == one_per_region | whole_region
    for mixed in (["carlsruhe", "mannheim", "stuttgart"], ["carlsruhe", "mannheim", "augsburg"], ["stuttgart", "ulm", "augsburg"]):
        assert refused(s, {"type": "close", "player": 0, "houses": mixed}).short == "One per region or 1 region"
    assert refused(s, {"type": "close", "player": 0, "houses": ["lodz"]}).short == "Lodz not on route"
    # "il peut poser": Ana places two houses where the first way allowed three.
    s = game.apply(s, {"type": "close", "player": 0, "houses": ["mannheim", "ulm"]})
    # 5 cards: the route-5 tile (2); the first carriage is the 3 ("Il n'est pas possible de 'sauter' une valeur")
    assert breakdown(s, 0) == {"carriage": 2, "route": 2, "regions": 0, "end": 0, "unplaced_houses": -18}
    s = end(s, 0)
    s = by_hand(s, {1: [T("lodz", discard=True), T("basel", discard=True), T("freiburg")], 0: [T("freiburg"), T("carlsruhe")]})
    # A8. Freiburg-Carlsruhe-Mannheim: Ana has Mannheim already ("il n'est pas possible de poser une maison dans
    # une ville où l'on a déjà une maison"), so the largest choice is Baden's two other cities.
    s = game.apply(s, lay_action(0, "mannheim", "right"))
    assert game.prompt(s).options["house_sets"] == (("freiburg", "carlsruhe"), ())
    assert refused(s, {"type": "close", "player": 0, "houses": ["mannheim"]}).short == "House in Mannheim already"
    s = end(game.apply(s, {"type": "close", "player": 0, "houses": ["freiburg", "carlsruhe"]}), 0)
    # All three Baden cities, over two routes ("Les maisons peuvent avoir été posées grâce à plusieurs routes"):
    # Baden 3. Three cards do not reach the carriage 4.
    assert breakdown(s, 0) == {"carriage": 2, "route": 2, "regions": 3, "end": 0, "unplaced_houses": -16}
    # B8, A9, B9. Ben closes Basel-Freiburg-Carlsruhe-Mannheim with every Baden city (Ana's houses do not block
    # him): the next Baden tile, 2; four cards, but his first carriage is the 3.
    s = by_hand(s, {1: [T("carlsruhe"), T("mannheim", close=["freiburg", "carlsruhe", "mannheim"])], 0: [T("lodz")]})
    assert breakdown(s, 1) == {"carriage": 2, "route": 0, "regions": 2, "end": 0, "unplaced_houses": -17}
    assert totals(s) == [2 + 2 + 3 - 16, 2 + 2 - 17] == [-9, -13]


def route_turns(cities, houses=(), coachman=False):
    """The turns that lay `cities` one a turn and close the route on the last, placing `houses`."""
    return [T(city) for city in cities[:-1]] + [T(cities[-1], close=list(houses), coachman=coachman)]


def test_by_hand_route_tiles_go_top_first_fall_back_to_a_shorter_stack_and_run_out():
    """Three players close 6-card routes (the route-6 stack 3, 2, 1), then 6, 5 and 5 cards.
    "si une tuile Bonus n'est plus disponible, le joueur prend une tuile Bonus pour la longueur de route
    inférieure": Ana's second 6 falls back to the route-5 stack (2), Ben's 5 takes its last tile (1), and
    Cy's 5 finds no stack below: no tile. The carriages go 3 then 4, whatever the length."""
    first = {
        0: route_turns(["basel", "zuerich", "kempten", "ulm", "augsburg", "innsbruck"], ["zuerich", "kempten", "ulm", "innsbruck"]),
        1: route_turns(["lodz", "pilsen", "budweis", "linz", "passau", "regensburg"], ["lodz", "pilsen", "linz", "passau"]),
        2: route_turns(["mannheim", "wuerzburg", "nuernberg", "ingolstadt", "muenchen", "salzburg"], ["wuerzburg", "nuernberg", "ingolstadt", "muenchen"]),
    }
    s = by_hand(game.start(["Ana", "Ben", "Cy"]), first)
    assert [breakdown(s, seat)["route"] for seat in range(3)] == [3, 2, 1]
    assert totals(s) == [2 + 3 - 16, 2 + 2 - 16, 2 + 1 - 16] == [-11, -12, -13]
    second = {
        0: route_turns(["freiburg", "carlsruhe", "stuttgart", "nuernberg", "regensburg", "muenchen"], ["freiburg", "carlsruhe"]),
        # Ben and Cy lay a card, then give it up and lay the five cards they close in the same round as Ana, after her.
        1: [T("lodz"), T("sigmaringen", discard=True)]
        + route_turns(["stuttgart", "mannheim", "carlsruhe", "freiburg"], ["sigmaringen", "stuttgart", "mannheim"]),
        2: [T("lodz"), T("basel", discard=True)] + route_turns(["freiburg", "sigmaringen", "ulm", "augsburg"], ["basel", "freiburg", "sigmaringen", "ulm", "augsburg"]),
    }
    s = by_hand(s, second)
    assert breakdown(s, 0) == {"carriage": 3, "route": 3 + 2, "regions": 0, "end": 0, "unplaced_houses": -14}
    assert breakdown(s, 1) == {"carriage": 3, "route": 2 + 1, "regions": 0, "end": 0, "unplaced_houses": -13}
    assert breakdown(s, 2) == {"carriage": 3, "route": 1, "regions": 0, "end": 0, "unplaced_houses": -11}
    assert totals(s) == [-6, -7, -7] and not game.is_over(s)


def test_by_hand_region_tiles_over_several_routes_top_first_once_per_player():
    """Württemberg/Hohenzollern (Stuttgart, Ulm, Sigmaringen) cannot be won with one route of those three
    cities: one per region gives two houses, a whole region two. Ana needs two routes and takes the 3; Ben
    takes the Baden 3, then the W/H 2. "un joueur ne peut récupérer qu'une seule tuile Bonus pour chaque
    région": Ana, still qualified at her next closing, takes no second W/H tile."""
    s = game.start(["Ana", "Ben"])
    s = by_hand(s, {0: [T("stuttgart"), T("ulm")], 1: route_turns(["freiburg", "carlsruhe", "mannheim"], ["freiburg", "carlsruhe", "mannheim"])[:2]})
    s = game.apply(s, lay_action(0, "sigmaringen", "right"))
    pairs = {("stuttgart", "sigmaringen"), ("ulm", "sigmaringen"), ("stuttgart", "ulm")}
    assert set(game.prompt(s).options["house_sets"]) == pairs | {()}
    assert refused(s, {"type": "close", "player": 0, "houses": ["stuttgart", "ulm", "sigmaringen"]}).short == "One per region or 1 region"
    s = end(game.apply(s, {"type": "close", "player": 0, "houses": ["stuttgart", "ulm"]}), 0)
    s = by_hand_turn(s, 1, T("mannheim", close=["freiburg", "carlsruhe", "mannheim"]))
    assert breakdown(s, 1)["regions"] == 3  # Baden, top tile
    s = by_hand(
        s,
        {
            0: [T("carlsruhe"), T("mannheim"), T("stuttgart")],
            1: route_turns(["stuttgart", "ulm", "kempten"], ["stuttgart", "ulm"]),
        },
    )
    # A7. Carlsruhe-Mannheim-Stuttgart-Sigmaringen: Stuttgart is Ana's already; one per region is a Baden city and Sigmaringen.
    s = game.apply(s, lay_action(0, "sigmaringen", "right"))
    assert set(game.prompt(s).options["house_sets"]) == {("carlsruhe", "sigmaringen"), ("mannheim", "sigmaringen"), ("carlsruhe", "mannheim"), ()}
    assert refused(s, {"type": "close", "player": 0, "houses": ["stuttgart", "sigmaringen"]}).short == "House in Stuttgart already"
    s = end(game.apply(s, {"type": "close", "player": 0, "houses": ["mannheim", "sigmaringen"]}), 0)
    assert breakdown(s, 0) == {"carriage": 3, "route": 0, "regions": 3, "end": 0, "unplaced_houses": -16}  # W/H 3; 4 cards: carriage 4
    s = by_hand(
        s,
        {
            1: route_turns(["freiburg", "sigmaringen", "kempten"], ["sigmaringen", "kempten"]) + [T("lodz")],
            0: route_turns(["basel", "zuerich", "sigmaringen"], ["basel", "zuerich"]),
        },
    )
    # Ben: Baden 3 + W/H 2 (the second tile); carriage 3 only (his 3-card routes never reach the 4).
    assert breakdown(s, 1) == {"carriage": 2, "route": 0, "regions": 3 + 2, "end": 0, "unplaced_houses": -13}
    # Ana: no second W/H tile although one is left; Schweiz/Tyrol needs Innsbruck too. Carriage stays the 4.
    assert breakdown(s, 0) == {"carriage": 3, "route": 0, "regions": 3, "end": 0, "unplaced_houses": -14}
    assert totals(s) == [-8, -6]


def test_by_hand_outside_baiern_and_the_linked_regions_with_the_postillion_and_the_coachman():
    """Ana lays an 11-card route in 8 turns (the postillion every other turn, the compulsory postmaster after
    each empty hand) and places one house in each region but Baiern: "au moins une maison dans une ville de
    chaque région autre que Bavière" gives the Extérieur Baiern 6 at once, with the route-7 tile (4). Ben took
    Schweiz/Tyrol first (3), so Ana's is the 2; Böhmen/Salzburg (4) comes with her third route."""
    ana_route = ["carlsruhe", "stuttgart", "sigmaringen", "zuerich", "kempten", "innsbruck", "salzburg", "linz", "budweis", "pilsen", "lodz"]
    cadence = [ana_route[0:1], ana_route[1:3], ana_route[3:4], ana_route[4:6], ana_route[6:7], ana_route[7:9], ana_route[9:10]]
    s = game.start(["Ana", "Ben"])
    ben = route_turns(["innsbruck", "kempten", "zuerich"], ["innsbruck", "zuerich"]) + route_turns(["basel", "freiburg", "sigmaringen"], ["basel"])
    s = by_hand(s, {0: [T(*cities) for cities in cadence], 1: ben + [T("lodz")]})
    assert breakdown(s, 1) == {"carriage": 2, "route": 0, "regions": 3, "end": 0, "unplaced_houses": -17}  # S/T 3
    s = game.apply(s, lay_action(0, "lodz", "right"))
    sets = game.prompt(s).options["house_sets"]
    # one city in each of the 9 regions crossed: Salzburg and Böhmen have two route cities each, so 4 ways
    assert [len(h) for h in sets] == [9, 9, 9, 9, 2, 2, 0]
    outside = ["carlsruhe", "stuttgart", "sigmaringen", "zuerich", "innsbruck", "salzburg", "budweis", "lodz"]
    s = end(game.apply(s, {"type": "close", "player": 0, "houses": outside}), 0)
    assert breakdown(s, 0) == {"carriage": 2, "route": 4, "regions": 6, "end": 0, "unplaced_houses": -12}
    # Basel-Freiburg-Carlsruhe with the coachman: 3 cards count 5 for the carriage 4, and no route tile.
    # Basel completes Schweiz/Tyrol (Basel, Zürich, Innsbruck): the next tile, 2. Baden still lacks Mannheim.
    s = by_hand(s, {1: [T("lodz", discard=True)] * 4, 0: route_turns(["basel", "freiburg", "carlsruhe"], ["basel", "freiburg"], coachman=True)})
    assert breakdown(s, 0) == {"carriage": 3, "route": 4, "regions": 6 + 2, "end": 0, "unplaced_houses": -10}
    # Linz-Budweis-Pilsen: Linz (Salzburg) and Pilsen (Böhmen) complete Böhmen/Salzburg: 4. Three cards: no carriage 5.
    s = by_hand(s, {0: route_turns(["linz", "budweis", "pilsen"], ["linz", "pilsen"]), 1: [T("lodz", discard=True)] * 2})
    assert breakdown(s, 0) == {"carriage": 3, "route": 4, "regions": 6 + 2 + 4, "end": 0, "unplaced_houses": -8}
    assert totals(s) == [3 + 4 + 12 - 8, 2 + 3 - 17] == [11, -12]


def test_by_hand_officials_one_a_turn_in_the_order_of_the_turn():
    """ "durant son tour, un joueur ne peut utiliser qu'un seul personnage": the postmaster or the administrator
    in the draw, the postillion for a second card, the coachman at the closing; never two."""
    s = game.start(["Ana", "Ben"])
    # A1. The compulsory postmaster may be recorded, once.
    s = game.apply(s, {"type": "official", "player": 0, "official": "postmaster"})
    assert refused(s, {"type": "official", "player": 0, "official": "postmaster"}).short == "Postmaster noted already"
    s = by_hand(s, {0: [T("ulm")], 1: [T("lodz")]})
    # A2. The administrator changes the display; then no postillion.
    s = game.apply(s, {"type": "official", "player": 0, "official": "administrator"})
    assert refused(s, {"type": "official", "player": 0, "official": "postmaster"}).short == "One official per turn"
    s = game.apply(s, lay_action(0, "augsburg", "right"))
    assert refused(s, lay_action(0, "innsbruck", "right")).short == "One official per turn"
    s = end(s, 0)
    s = by_hand_turn(s, 1, T("lodz", discard=True))
    # A3. The postillion lays Salzburg after Innsbruck: then no coachman, and officials come before the cards.
    s = game.apply(game.apply(s, lay_action(0, "innsbruck", "right")), lay_action(0, "salzburg", "right"))
    assert refused(s, {"type": "close", "player": 0, "houses": [], "coachman": True}).short == "One official per turn"
    assert refused(s, {"type": "official", "player": 0, "official": "administrator"}).short == "Officials: before laying"
    # Four cards: the first carriage, the 3. Houses in Württemberg, Baiern, Tyrol and Salzburg, one each.
    s = end(game.apply(s, {"type": "close", "player": 0, "houses": ["ulm", "augsburg", "innsbruck", "salzburg"]}), 0)
    assert breakdown(s, 0) == {"carriage": 2, "route": 0, "regions": 0, "end": 0, "unplaced_houses": -16}
    # A4: the hand is empty (1 + 1 - 2, cut to 3 at the closing): the postmaster only.
    s = by_hand_turn(s, 1, T("lodz", discard=True))
    assert game.prompt(s).options["official"] == ("postmaster",)
    s = by_hand(s, {0: [T("carlsruhe"), T("mannheim")], 1: [T("lodz", discard=True)] * 2})
    assert game.prompt(s).options["official"] == ("postmaster", "administrator")
    # A6. Carlsruhe-Mannheim-Würzburg. With the administrator, three cards do not reach the carriage 4 ...
    helped = game.apply(game.apply(s, {"type": "official", "player": 0, "official": "administrator"}), lay_action(0, "wuerzburg", "right"))
    assert refused(helped, {"type": "close", "player": 0, "houses": [], "coachman": True}).short == "One official per turn"
    assert breakdown(game.apply(helped, {"type": "close", "player": 0, "houses": ["carlsruhe", "mannheim"]}), 0)["carriage"] == 2
    # ... with the coachman, "même s'il manque 2 cartes Ville", they take the next carriage, the 4 and not the 5,
    # and no route tile: the route has three cards.
    s = game.apply(s, lay_action(0, "wuerzburg", "right"))
    assert game.prompt(s).options["coachman"] == (False, True)
    s = game.apply(s, {"type": "close", "player": 0, "houses": ["carlsruhe", "mannheim"], "coachman": True})
    assert game.prompt(s).expects == ("end_turn",)
    assert breakdown(s, 0) == {"carriage": 3, "route": 0, "regions": 0, "end": 0, "unplaced_houses": -14}


#: Five closings that climb to the carriage 7 with the coachman on the last four (3 cards, 3+2, 3+2, 4+2, 5+2):
#: 18 turns, one card a turn. The last route has 5 cards: the route-5 tile.
CLIMB = [
    ["basel", "freiburg", "sigmaringen"],
    ["sigmaringen", "ulm", "kempten"],
    ["nuernberg", "regensburg", "ingolstadt"],
    ["wuerzburg", "nuernberg", "ingolstadt", "muenchen"],
    ["augsburg", "innsbruck", "salzburg", "linz", "budweis"],
]


def climb(houses):
    return [turn for i, cities in enumerate(CLIMB) for turn in route_turns(cities, houses[i], coachman=i > 0)]


def test_by_hand_the_first_seat_takes_the_seven_and_the_round_is_played_out():
    """ "Si un joueur récupère sa calèche de valeur 7 ... on termine le tour en cours. Le joueur assis à droite
    du premier joueur jouera donc en dernier." Ana (seat 0) takes the 7 on her 18th turn: Ben and Cy play
    their 18th turns, Ben closing a last route, and the game ends after Cy."""
    ana = climb([["basel", "freiburg", "sigmaringen"], ["ulm", "kempten"], ["nuernberg", "regensburg", "ingolstadt"], ["wuerzburg", "muenchen"], ["augsburg", "innsbruck", "linz", "budweis"]])
    ben = (
        route_turns(["carlsruhe", "mannheim", "stuttgart"], ["carlsruhe", "mannheim"])
        + idle(12)
        + route_turns(["pilsen", "nuernberg", "stuttgart"], ["lodz", "pilsen", "nuernberg", "stuttgart"])
    )
    assert len(ana) == len(ben) == 18
    s = by_hand(game.start(["Ana", "Ben", "Cy"]), {0: ana[:17], 1: ben[:17], 2: idle(17)})
    assert breakdown(s, 0) == {"carriage": 7, "route": 0, "regions": 0, "end": 0, "unplaced_houses": -10}
    s = by_hand_turn(s, 0, ana[17])
    # 7 cards counted (5 + 2): the carriage 7 (10 points) and "Fin du jeu" (1); 5 cards laid: route 5 (2).
    assert breakdown(s, 0) == {"carriage": 10, "route": 2, "regions": 0, "end": 1, "unplaced_houses": -6}
    assert not game.is_over(s) and game.prompt(s).player == 1
    assert refused(s, lay_action(0, "ulm")).short == "Ben's turn"
    s = by_hand_turn(s, 1, ben[17])  # Lodz-Pilsen-Nürnberg-Stuttgart: four regions, the carriage 4
    assert not game.is_over(s) and game.prompt(s).player == 2
    s = by_hand_turn(s, 2, T("lodz", discard=True))
    assert game.is_over(s) and game.prompt(s) is None
    for action in (lay_action(0, "ulm"), {"type": "end_turn", "player": 2}, {"type": "official", "player": 0, "official": "postmaster"}):
        assert refused(s, action).short == "The game is over"
    assert totals(s) == [10 + 2 + 1 - 6, 3 - 14, -20] == [7, -11, -20]
    assert game.winners(s) == [0]
    assert engines.replay("thurn_und_taxis", ["Ana", "Ben", "Cy"], {}, s.actions) == s  # the log alone gives the game again


def test_by_hand_tie_goes_to_the_nearest_clockwise_from_the_game_end_holder():
    """ "En cas d'égalité parmi les joueurs qui ont le plus de points, c'est celui qui a récupéré la tuile Bonus
    'Fin du jeu', ou le plus proche dans le sens des aiguilles d'une montre, qui l'emporte." Four seats: Ben
    (seat 1) ends the game with the 7 and no house (10 + 2 + 1 - 20 = -7); Ana and Dee tie on -1; clockwise
    from Ben come Cy, then Dee: Dee wins, not Ana, the first seat."""
    s = game.start(["Ana", "Ben", "Cy", "Dee"])
    plans = {
        # Ana: all 8 Baiern cities in one route: carriage 3 (2), route 7 (4), Baiern (5), 12 houses left: -1
        0: route_turns(BAIERN_PATH, BAIERN_PATH) + idle(10),
        1: climb([[], [], [], [], []]),
        2: idle(18),
        # Dee, later in the same round: route 7 (3), Baiern (4), carriage 3 (2) = -3; then a 4-card route with one
        # house: the carriage 4 (3 points, +1) and a house (+1): -1
        3: route_turns(BAIERN_PATH, BAIERN_PATH) + route_turns(["carlsruhe", "mannheim", "stuttgart", "ulm"], ["ulm"]) + idle(6, "basel"),
    }
    s = by_hand(s, plans)
    assert game.is_over(s)
    assert breakdown(s, 0) == {"carriage": 2, "route": 4, "regions": 5, "end": 0, "unplaced_houses": -12}
    assert breakdown(s, 1) == {"carriage": 10, "route": 2, "regions": 0, "end": 1, "unplaced_houses": -20}
    assert breakdown(s, 3) == {"carriage": 3, "route": 3, "regions": 4, "end": 0, "unplaced_houses": -11}
    assert totals(s) == [-1, -7, -20, -1]
    assert game.winners(s) == [3]


def test_by_hand_refusals_mid_turn_change_nothing():
    """Ana has laid Stuttgart after Carlsruhe-Mannheim; every wrong action is refused with a message, and the
    state is unchanged (the helper compares it before and after)."""
    s = by_hand(game.start(["Ana", "Ben"]), {0: [T("carlsruhe"), T("mannheim")], 1: idle(2)})
    stuttgart = card("stuttgart")
    s = game.apply(s, {"type": "lay", "player": 0, "card": stuttgart, "side": "right"})
    cases = [
        (lay_action(1, "ulm"), "Ana's turn"),
        ({"type": "end_turn", "player": 2}, "No such seat"),
        ({"type": "lay", "player": 0, "card": {"id": "x-1", "city": "paris"}}, None),
        ({"type": "lay", "player": 0, "card": {"city": "ulm"}}, None),
        ({"type": "lay", "player": 0, "card": card("ulm"), "side": "up"}, None),
        ({"type": "lay", "player": 0, "card": stuttgart, "side": "right"}, "Card in Ana's route"),
        ({"type": "official", "player": 0, "official": "postillion"}, None),  # the postillion is the second lay itself
        ({"type": "official", "player": 0, "official": "coachman"}, None),  # the coachman is a flag of the closing
        ({"type": "draw", "player": 0}, "Unknown action"),
        ({"type": "close", "player": 0, "houses": "stuttgart"}, None),
        ({"type": "close", "player": 0, "houses": ["stuttgart"], "coachman": "yes"}, None),
        ({"type": "close", "player": 0, "houses": [], "extra": 1}, None),
        ({"type": "close", "player": 0, "houses": ["stuttgart", "stuttgart"]}, "A city named twice"),
        ({"type": "discard_route", "player": 0}, "Discard before laying"),
    ]
    for action, short in cases:
        problem = refused(s, action)
        assert short is None or problem.short == short, (action, problem.short)
    s = game.apply(s, lay_action(0, "ulm", "right"))  # the postillion
    assert refused(s, lay_action(0, "augsburg", "right")).short == "Two cards laid already"
    s = game.apply(s, {"type": "close", "player": 0, "houses": ["stuttgart", "ulm"]})
    for action, short in [
        (lay_action(0, "lodz"), "Route closed this turn"),
        ({"type": "close", "player": 0, "houses": []}, "Route needs 3 cards"),
        ({"type": "discard_route", "player": 0}, "Discard before laying"),
        ({"type": "official", "player": 0, "official": "postmaster"}, "Officials: before laying"),
    ]:
        assert refused(s, action).short == short
    # Four cards: carriage 3; all of Württemberg: 2 houses.
    assert totals(end(s, 0)) == [2 - 18, -20]


def test_by_hand_the_middle_seat_places_its_last_house_and_the_last_seat_still_plays():
    """Ben (seat 1 of 3) reaches 20 houses in four routes, laying with the postillion whenever his hand allows.
    "Le joueur qui termine la partie ... en posant sa dernière maison, prend la tuile Bonus 'Fin du jeu'";
    Cy, "assis à droite du premier joueur", plays his turn (and closes a route); Ana does not play again.
    With one house left, Ben cannot complete Böhmen/Salzburg: "si le joueur n'a pas assez de maisons pour en
    placer dans toutes les villes, il ne gagne pas la tuile Bonus"."""
    others = ["carlsruhe", "stuttgart", "sigmaringen", "zuerich", "kempten", "innsbruck", "salzburg", "linz", "budweis", "pilsen", "lodz"]
    ben = [
        # 8 cards in 6 turns (1, 2, 1, 2, 1, 1): all of Baiern, 8 houses; route 7 (4), Baiern (5), carriage 3
        T("wuerzburg"), T("nuernberg", "regensburg"), T("passau"), T("muenchen", "ingolstadt"), T("augsburg"),
        T("kempten", close=BAIERN_PATH),
        # 11 cards in 7 turns: one house in each region but Baiern (Kempten is his): route 7 (3), Extérieur Baiern (6), carriage 4
        T(*others[0:2]), T(*others[2:4]), T(others[4]), T(*others[5:7]), T(others[7]), T(*others[8:10]),
        T("lodz", close=["carlsruhe", "stuttgart", "sigmaringen", "zuerich", "innsbruck", "salzburg", "budweis", "lodz"]),
        # Ulm-Sigmaringen-Freiburg-Basel: Ulm, Freiburg, Basel (19 houses) complete W/H (3) and Schweiz/Tyrol (3)
        T("ulm", "sigmaringen"), T("freiburg"), T("basel", close=["ulm", "freiburg", "basel"]),
        T("linz", "budweis"),
    ]
    cy = idle(14) + [T("salzburg", discard=True), T("linz"), T("budweis")]
    s = by_hand(game.start(["Ana", "Ben", "Cy"]), {0: idle(18, "basel"), 1: ben, 2: cy})
    assert breakdown(s, 1) == {"carriage": 3, "route": 4 + 3, "regions": 5 + 6 + 3 + 3, "end": 0, "unplaced_houses": -1}
    s = game.apply(s, lay_action(1, "pilsen", "right"))
    assert game.prompt(s).options["house_sets"] == (("linz",), ("pilsen",), ())
    assert refused(s, {"type": "close", "player": 1, "houses": ["linz", "pilsen"]}).short == "Only 1 house left"
    s = end(game.apply(s, {"type": "close", "player": 1, "houses": ["pilsen"]}), 1)
    assert breakdown(s, 1) == {"carriage": 3, "route": 7, "regions": 17, "end": 1, "unplaced_houses": 0}
    assert not game.is_over(s) and game.prompt(s).player == 2
    # Cy's last turn: Salzburg-Linz-Budweis-Pilsen, one city of each region; four cards, his first carriage, the 3.
    s = by_hand_turn(s, 2, T("pilsen", close=["salzburg", "budweis"]))
    assert game.is_over(s) and game.prompt(s) is None
    assert totals(s) == [-20, 3 + 7 + 17 + 1, 2 - 18] == [-20, 28, -16]
    assert game.winners(s) == [1]


@pytest.mark.parametrize("bad, short, detail", [
    ({"city": "Ulm"}, "Card: no 'id'", "card {'city': 'Ulm'} needs the field 'id'"),
    ({"id": "c1"}, "Card: no 'city'", "card {'id': 'c1'} needs the field 'city'"),
])
def test_a_malformed_city_card_is_refused_naming_the_card_not_the_action(bad, short, detail):
    error = refused(game.start(["Ana", "Ben"], {}), {"type": "lay", "player": 0, "card": bad})
    assert error.short == short and detail in str(error)
