"""Maharani's placement flow at the table: the quarter, then a space in it, each on the mini-map."""

import engines
from firmware.adapters import adapter_for
from firmware.flows import Choose
from firmware.tagmap import TagEntry

GAME = engines.get("maharani")


def place(state, player: int, tile: str, slot: int, space: str):
    state = GAME.apply(state, {"type": "place", "player": player, "tile": {"id": tile, "color": "blue"},
                               "from_quarter": slot, "space": space, "arrow_to_player": False})
    return GAME.apply(state, {"type": "end_turn", "player": player})


def flow_for(state, seat: int, tile: str = "t9"):
    return adapter_for("maharani", hints=False).tag(state, TagEntry("maharani", "tile", {"id": tile, "color": "red"}), seat)


def test_a_tile_that_may_leave_its_quarter_asks_the_quarter_then_lists_only_that_quarter_s_free_spaces():
    state = place(GAME.start(["Ana", "Ben"]), 0, "t1", 2, "e1")
    board = GAME.board(state)
    flow = flow_for(state, 1)
    request = flow.send(None)
    assert request.question == "From which slot?"
    request = flow.send(3)
    assert request.question == "Which quarter?"
    assert [option.value for option in request.options] == [3, 1, 2, 4]  # the slot's own quarter first
    assert [option.label for option in request.options] == ["Q3 14 free", "Q1 14 free", "Q2 13 free", "Q4 14 free"]
    q2 = [option.value for option in request.options].index(2)
    assert set(request.map.marks[q2]) == {board.position[sp] for sp in board.spaces_in[2] if sp != "e1"}
    request = flow.send(2)
    assert request.question == "Which space?"
    assert [option.value for option in request.options] == [sp for sp in board.spaces_in[2] if sp != "e1"]
    assert request.map.marks[0] == (board.position["f1"],)
    assert flow.send("f1").question == "Arrow at you?"


def test_a_tile_bound_to_its_own_quarter_is_not_asked_for_a_quarter():
    state = place(GAME.start(["Ana", "Ben"]), 0, "t1", 1, "e1")  # Ana's marker of slot 1 is used: e1 is in Q2
    state = place(state, 1, "t2", 3, "f5")
    assert GAME.prompt(state).options["reach_q1"] == (1,)
    flow = flow_for(state, 0)
    request = flow.send(None)
    request = flow.send(1) if request.question == "From which slot?" else request
    assert request.question == "Which space?"
    assert {option.value for option in request.options} == set(GAME.board(state).spaces_in[1])


def test_the_table_plays_a_placement_through_the_quarter_and_the_space():
    state = GAME.start(["Ana", "Ben"])
    flow = flow_for(state, 0)
    request = flow.send(None)
    for answer in (4, 2):  # the slot, the quarter
        assert isinstance(request, Choose)
        request = flow.send(answer)
    assert request.question == "Which space?"
    request = flow.send("e2")
    try:
        flow.send(False)
    except StopIteration as done:
        action = done.value
    assert action == {"type": "place", "player": 0, "tile": {"id": "t9", "color": "red"}, "from_quarter": 4,
                      "space": "e2", "arrow_to_player": False}
    assert GAME.board(GAME.apply(state, action)).quarter_of["e2"] == 2
