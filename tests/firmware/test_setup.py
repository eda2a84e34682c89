"""Set-up questions a game's adapter asks: the board files an owner bundled, the Mongols dice."""

from firmware.adapters import adapter_for
from firmware.flows import Running


def answers(flow, *values):
    running = Running(flow, undo_undoes=False)
    questions = []
    for value in values:
        questions.append(running.request.question)
        running.answer(value)
    assert running.done
    return questions, running.result


def test_taj_mahal_offers_the_bundled_boards(monkeypatch):
    assert answers(adapter_for("taj_mahal").setup(4)) == ([], {})  # none ship: chains are counted
    monkeypatch.setattr("firmware.adapters.taj_mahal.bundled_boards", lambda: ["club"])
    assert answers(adapter_for("taj_mahal").setup(4), "club") == (["Board?"], {"board": "club"})
    assert answers(adapter_for("taj_mahal").setup(4), None) == (["Board?"], {})


def test_maharani_asks_only_when_an_owner_added_a_board(monkeypatch):
    assert answers(adapter_for("maharani").setup(3)) == ([], {})
    monkeypatch.setattr("firmware.adapters.maharani.bundled_names", lambda: ["board", "mine"])
    assert answers(adapter_for("maharani").setup(3), "mine") == (["Which board?"], {"board": "mine"})


def test_mongols_asks_for_the_dice_assistant():
    assert answers(adapter_for("mongols").setup(3), True) == (["Dice assistant?"], {"dice": True})
