"""Hints: what a move would do, from the engine's preview; off when the table plays without."""

import engines
from firmware.adapters import adapter_for
from firmware.flows import Choose

def lay(state, p, city, side=None):
    action = {"type": "lay", "player": p, "card": {"id": f"{city}-{len(state.actions)}", "city": city}}
    if side:
        action["side"] = side
    return engines.get("thurn_und_taxis").apply(state, action)


def test_thurn_und_taxis_hint_names_the_cities_that_fit_each_end():
    game = engines.get("thurn_und_taxis")
    s = lay(game.start(["Ana", "Ben"]), 0, "ulm")
    s = game.apply(s, {"type": "end_turn", "player": 0})
    s = game.apply(lay(s, 1, "lodz"), {"type": "end_turn", "player": 1})
    assert adapter_for("thurn_und_taxis").hint(s) == "Fit Augsb Ingol Kempt Sigma Stutt|Augsb Ingol Kempt Sigma Stutt"
    s = lay(s, 0, "augsburg")
    assert adapter_for("thurn_und_taxis").hint(s).startswith("Fit Ingol")  # the postillion may lay a second card
    s = lay(s, 0, "innsbruck")
    assert adapter_for("thurn_und_taxis").hint(s) == ""  # two cards laid: nothing more fits this turn


def test_taj_mahal_hint_says_what_withdrawing_wins():
    game = engines.get("taj_mahal")
    s = game.start(["Ana", "Ben", "Cy"])
    s = game.apply(s, {"type": "visit", "province": "p1", "tile": {"number": 1, "goods": ["rice"]}})
    s = game.apply(s, {"type": "play", "player": 0, "cards": [{"id": "r1", "color": "red", "symbols": ["elephant", "vizier"]}]})
    s = game.apply(s, {"type": "play", "player": 1, "cards": [{"id": "g1", "color": "green", "symbols": ["monk", "vizier"]}]})
    s = game.apply(s, {"type": "withdraw", "player": 2})
    assert adapter_for("taj_mahal").hint(s) == "Out now: province +1"  # the elephant wins the rice tile at once
    s = game.apply(s, {"type": "play", "player": 0, "cards": [{"id": "r2", "color": "red", "symbols": ["vizier", "mogul"]}]})
    assert adapter_for("taj_mahal").hint(s) == "Out now: monk"


def test_mongols_hint_is_the_exact_bust_chance():
    game = engines.get("mongols")
    s = game.start(["Ana", "Ben"], {"dice": True})
    assert adapter_for("mongols").hint(s) == "Bust 2d 0%"
    off = game.start(["Ana", "Ben"], {"dice": False})
    assert adapter_for("mongols").hint(off) == ""


def test_maharani_space_labels_show_the_gold_each_space_earns():
    game = engines.get("maharani")
    s = game.start(["Ana", "Ben", "Cy"])
    s = game.apply(s, {"type": "place", "player": 0, "tile": {"id": "t1", "color": "blue"}, "from_quarter": 1, "space": "b2", "arrow_to_player": False})
    s = game.apply(s, {"type": "end_turn", "player": 0})
    from firmware.tagmap import TagEntry

    flow = adapter_for("maharani").tag(s, TagEntry("maharani", "tile", {"id": "t2", "color": "blue"}), 1)
    request = next(flow)
    request = flow.send(1) if request.question == "From which slot?" else request
    assert isinstance(request, Choose) and request.question == "Which quarter?"
    assert [option.label for option in request.options][:2] == ["Q1 13 free +2", "Q2 14 free +1"]
    request = flow.send(1)
    assert request.question == "Which space?"
    labels = dict((option.value, option.label) for option in request.options)
    assert labels["b3"] == "Q1 b3 +2" and labels["c4"] == "Q1 c4 +1"
    assert len(labels) == 13 and "b2" not in labels  # Q1's free spaces only
    plain = adapter_for("maharani", hints=False).tag(s, TagEntry("maharani", "tile", {"id": "t2", "color": "blue"}), 1)
    request = next(plain)
    request = plain.send(1) if request.question == "From which slot?" else request
    assert request.options[0].label == "Q1 13 free"
    assert dict((o.value, o.label) for o in plain.send(1).options)["b3"] == "Q1 b3"
