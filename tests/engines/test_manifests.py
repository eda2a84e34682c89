"""Every game's component manifest: totals as in the box, ids unique, every component completable."""

import importlib

import pytest

import engines
from engines.core.manifest import ManifestError, parse_manifest

BOX = {
    "thurn_und_taxis": {"card": 66},
    "mongols": {"plan": 55, "parchment": 1},
    "maharani": {"tile": 60},
    "taj_mahal": {"card": 96, "special": 4, "province": 12, "bonus": 16},
}


@pytest.mark.parametrize("name", engines.names())
def test_manifest_matches_the_box_and_every_component_can_be_completed(name):
    package = importlib.import_module(f"engines.{name}")
    groups = package.manifest()
    totals: dict[str, int] = {}
    for group in groups:
        totals[group.kind] = totals.get(group.kind, 0) + group.count
        choices = package.COMPONENTS.choices(group.kind, group.known) if group.ask else [{}]
        assert choices, group
        for choice in choices:
            for ident in group.ids():
                assert package.COMPONENTS.descriptor_problem(group.kind, {"id": ident, **group.known, **choice}) is None
    assert totals == BOX[name]
    ids = [ident for group in groups for ident in group.ids()]
    assert len(ids) == len(set(ids))


def test_thurn_und_taxis_has_three_cards_per_city():
    from engines.thurn_und_taxis import manifest
    from engines.thurn_und_taxis.board import board

    groups = manifest()
    assert {g.known["city"] for g in groups} == set(board().cities) and {g.count for g in groups} == {3}


def test_bad_descriptors_are_explained():
    components = importlib.import_module("engines.thurn_und_taxis").COMPONENTS
    assert "needs a non-empty 'id'" in components.descriptor_problem("card", {"city": "ulm"})
    assert "not a city" in components.descriptor_problem("card", {"id": "x", "city": "paris"})
    assert "unknown kind" in components.descriptor_problem("meeple", {"id": "x"})
    mongols = importlib.import_module("engines.mongols").COMPONENTS
    assert mongols.descriptor_problem("parchment", {"id": "p", "parchment": False})


def test_a_manifest_that_breaks_the_box_count_is_refused():
    components = importlib.import_module("engines.maharani").COMPONENTS
    data = {"game": "maharani", "group": [{"label": "x", "kind": "tile", "id": "t{n}", "count": 3, "known": {"color": "a"}, "ask": [], "confidence": "high", "source": "s"}]}
    with pytest.raises(ManifestError, match="3 tile components; the game has 60"):
        parse_manifest(data, "maharani", components)
