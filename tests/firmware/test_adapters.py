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


def test_taj_mahal_asks_for_the_province_tile_by_its_number():
    """Round k is opened by province tile k alone (rules/000): the question names it, so another tile's
    refusal ("Round 1: tile 1") is no surprise."""
    import dataclasses

    game = engines.get("taj_mahal")
    state = game.start(["Ana", "Ben", "Cy"])
    adapter = adapter_for("taj_mahal")
    asked = next(adapter.follow_up(state))
    assert asked.question == "Round 1: tap province tile 1" and asked.only == ("province-1",)
    assert next(adapter.follow_up(dataclasses.replace(state, round=11))).question == "Round 12: tap province tile 12"


def test_another_province_tile_than_the_rounds_is_refused_by_the_table_and_greyed_on_the_virtual_table(memory_url):
    from pathlib import Path

    from firmware import tagfile
    from firmware.journal import Journal
    from firmware.sim import catalogue
    from firmware.store import connect
    from firmware.table import Table, TableSettings
    from firmware.tagmap import TagMap
    from firmware.views import FlashView, TapView

    from .test_table import choose

    client = connect(memory_url)
    tags = TagMap(client, "t1")
    tags.set_many(tagfile.load(Path(__file__).parents[2] / "firmware" / "demos" / "taj_mahal.tags.toml"))
    table = Table(Journal(client, "t1"), tags, TableSettings(players=["Ana", "Ben", "Cy"]), lambda: 0.0)
    table.boot()
    for label in ("Taj Mahal", "3 players", "Hints on"):
        choose(table, label)
    table.flash = None
    components = catalogue.catalogue(tags, "taj_mahal")
    now, why = catalogue.tappable(table, components)
    assert [c.id for c in now] == ["province-1"] and why == "Round 1: tap province tile 1:"
    entries = len(table.journal.load(table.session.gid).entries)
    table.tag(next(c.uid for c in components if c.id == "province-3"), None)
    assert isinstance(table.view(), FlashView) and table.view().lines == ("Tap: Round 1: tap province tile 1",)
    assert len(table.journal.load(table.session.gid).entries) == entries and table.running.request.only == ("province-1",)
    table.flash = None
    assert isinstance(table.view(), TapView)
    table.tag(now[0].uid, None)
    assert table.session.actions[-1]["tile"]["id"] == "province-1"


def _taj_state_in_round(colour: str | None, holder: int | None):
    """Round 1 of three, Ana (seat 0) to play, her round colour `colour`, the colour-change card held by `holder`."""
    import dataclasses

    game = engines.get("taj_mahal")
    state = game.apply(game.start(["Ana", "Ben", "Cy"]), {"type": "visit", "province": "1", "tile": {"id": "province-1", "number": 1, "goods": ["tea"]}})
    return dataclasses.replace(state, colour=[colour, None, None], holder={**state.holder, "color_change": holder})


def test_taj_mahal_a_card_of_another_colour_than_the_rounds_asks_for_the_colour_change_card_its_holder_plays_after_it():
    """rules/000: a play is always a coloured card first; "changement de couleur" lets it be of another colour."""
    from firmware.tagmap import TagEntry

    adapter = adapter_for("taj_mahal")
    red = TagEntry("taj_mahal", "card", {"id": "red-1", "color": "red", "symbols": ["monk"]})
    change = TagEntry("taj_mahal", "special", {"id": "special-color_change", "special": "color_change"})
    flow = adapter.tag(_taj_state_in_round("purple", holder=0), red, 0)
    asked = next(flow)
    assert asked.question == "Ana: red needs colour change: tap it" and asked.kinds == ("special",)
    with pytest.raises(StopIteration) as done:
        flow.send(change)
    assert done.value.value == {"type": "play", "player": 0, "cards": [dict(red.descriptor), dict(change.descriptor)]}
    for colour, holder in (("purple", 1), ("red", 0), (None, 0)):  # not hers, her own colour, her first play
        with pytest.raises(StopIteration) as done:
            next(adapter.tag(_taj_state_in_round(colour, holder), red, 0))
        assert done.value.value == {"type": "play", "player": 0, "cards": [dict(red.descriptor)]}


def test_taj_mahal_places_a_palace_without_asking_where_when_one_city_is_free():
    """Without a board, a province's cities are numbered; three of four hold a palace, so the palace
    goes to the fourth: the next question is the bonus tile's, not the city's."""
    import dataclasses

    state = engines.get("taj_mahal").start(["Ana", "Ben", "Cy"])
    taken = {f"city {k} of province 3": [1, None] for k in (1, 2, 3)}
    state = dataclasses.replace(state, province="Province 3", palaces={"Province 3": taken})
    adapter = adapter_for("taj_mahal")
    flow = adapter._placement(state, Prompt(0, ("palace",), {}, ""))
    question = next(flow)
    assert question.question == "A bonus tile there?" and question.field == "has_bonus"
    with pytest.raises(StopIteration) as done:
        flow.send(False)
    assert done.value.value == {"type": "palace", "player": 0, "city": "city 4 of province 3", "bonus": None}
    two_free = dataclasses.replace(state, palaces={"Province 3": dict(list(taken.items())[:2])})
    question = next(adapter._placement(two_free, Prompt(0, ("palace",), {}, "")))
    assert question.field == "city" and [(o.label, o.value) for o in question.options] == [
        ("City 3", "city 3 of province 3"), ("City 4", "city 4 of province 3")]
