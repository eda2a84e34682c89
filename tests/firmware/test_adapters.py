"""Game adapters' questions: one with a single possible answer is not asked."""

import pytest

import engines
from engines.core.types import Prompt
from firmware.adapters import adapter_for


def test_taj_mahal_without_a_board_asks_no_question_with_one_answer_and_says_other_provinces():
    state = engines.get("taj_mahal").start(["Ana", "Ben", "Cy"])
    adapter = adapter_for("taj_mahal")
    with pytest.raises(StopIteration) as done:
        next(adapter._chain(state, Prompt(0, ("chain",), {"provinces": (0,)}, "")))
    assert done.value.value == {"type": "chain", "player": 0, "provinces": 0}
    question = next(adapter._chain(state, Prompt(1, ("chain",), {"provinces": (0, 1, 2)}, "")))
    assert [o.label for o in question.options] == ["0 other provinces", "1 other province", "2 other provinces"]
