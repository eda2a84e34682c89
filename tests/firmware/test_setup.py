"""Set-up questions a game's adapter asks: the boards on offer (firmware.boards), the Mongols dice."""

from firmware.adapters import adapter_for
from firmware.boards import Offer
from firmware.flows import Running


def answers(flow, *values):
    running = Running(lambda: flow, undo_undoes=False)
    questions = []
    for value in values:
        questions.append(running.request.question)
        running.answer(value)
    assert running.done
    return questions, running.result


def test_taj_mahal_offers_the_boards_on_offer():
    assert answers(adapter_for("taj_mahal").setup(4)) == ([], {})  # none ship: chains are counted
    club = Offer("club", {"name": "club", "provinces": []}, owner=True)
    assert answers(adapter_for("taj_mahal", boards=[club]).setup(4), club.option) == (["Board?"], {"board": club.option})
    assert answers(adapter_for("taj_mahal", boards=[club]).setup(4), None) == (["Board?"], {})


def test_maharani_asks_only_when_an_owner_added_a_board():
    bundled = Offer("board", "board", owner=False)
    assert answers(adapter_for("maharani", boards=[bundled]).setup(3)) == ([], {})
    mine = Offer("mine", {"name": "mine", "spaces": []}, owner=True)
    assert answers(adapter_for("maharani", boards=[mine, bundled]).setup(3), "board") == (["Which board?"], {"board": "board"})


def test_mongols_asks_for_the_dice_assistant():
    assert answers(adapter_for("mongols").setup(3), True) == (["Dice assistant?"], {"dice": True})
