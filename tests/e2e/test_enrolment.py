"""Guided enrolment through the mocked hardware: mock readers, MockFactory buttons (a hold of undo
opens the menu), the real loop; then a short game played with the tags just enrolled."""

import pytest

import engines
from firmware.enrolment import slots
from firmware.flows import Choose

from .rig import Rig


def uid(n: int) -> str:
    return f"e1{n:06x}"


def asked(rig: Rig) -> bool:
    """Is the table asking what the component just tapped shows?"""
    request = rig.table.running.request if rig.table.running else None
    return isinstance(request, Choose) and request.question.endswith("it shows?")


def tap_new(rig: Rig, n: int) -> None:
    """Tap a new tag on the shared reader, answering "it shows?" with the first choice."""
    rig.tap(uid(n), None)
    while asked(rig):
        rig.press("ok")


def open_enrolment(rig: Rig, title: str) -> None:
    rig.step("hold", "undo", "1000")
    rig.choose("Enrol a game")
    rig.choose(title)


@pytest.mark.parametrize("name", engines.names())
def test_guided_enrolment_with_a_duplicate_a_replace_a_skip_and_a_resume_after_restart(memory_url, name):
    todo = slots(name)
    rig = Rig(memory_url)
    open_enrolment(rig, engines.get(name).title)
    tap_new(rig, 0)
    tap_new(rig, 1)
    rig.tap(uid(0), None)  # the first tag again, for the third component
    assert rig.table.running.request.question.startswith("Already:")
    rig.choose("Keep it")
    assert rig.table.view().note == f"3 of {len(todo)}"
    rig.tap(uid(1), None)  # the second tag again: this time it is the third component
    rig.choose(f"Make it {todo[2].label}")
    while asked(rig):
        rig.press("ok")
    assert rig.table.tags.get(uid(1)).descriptor["id"] == todo[2].id
    rig.press("ok")  # skip the fourth
    assert rig.table.view().note == f"5 of {len(todo)}"
    tap_new(rig, 4)
    rig.close()

    again = Rig(memory_url)  # a restart: the position is kept in Redis
    open_enrolment(again, engines.get(name).title)
    assert again.table.running.request.question == "Resume at 6?"
    again.choose("Resume")
    for n in range(5, len(todo)):
        tap_new(again, n + 10)
    assert again.table.view().lines == (f"{engines.get(name).title}: all {len(todo)} enrolled",)
    enrolled = {entry.descriptor["id"] for _, entry in again.table.tags.items()}
    assert enrolled == {s.id for s in todo} - {todo[1].id, todo[3].id}  # the second was made the third; the fourth skipped
    again.close()


def test_a_short_game_with_the_enrolled_tags(memory_url):
    rig = Rig(memory_url)
    open_enrolment(rig, "Thurn und Taxis")
    for n in range(66):
        tap_new(rig, n)
    rig.step("hold", "undo", "1000")
    rig.choose("New game")
    rig.choose("Thurn und Taxis")
    rig.choose("2 players")
    rig.choose("Hints on")
    ulm = rig.table.tags.find("thurn_und_taxis", "ulm-1")
    augsburg = rig.table.tags.find("thurn_und_taxis", "augsburg-2")
    rig.tap(ulm, 0)
    rig.press("pass")
    rig.tap(augsburg, 1)
    assert rig.table.session.state.routes == [[("ulm-1", "ulm")], [("augsburg-2", "augsburg")]]
    rig.tap(ulm, 0)  # the same card again
    assert rig.table.view().error and rig.table.session.entries == 3
    rig.close()
