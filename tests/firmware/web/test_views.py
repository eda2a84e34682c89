"""The parts behind the pages: JSON of states, replays and timelines, per-game views and drawings,
the reader's checks, and the [web] settings."""

import dataclasses
import importlib
import itertools
import xml.etree.ElementTree as ET
from unittest import mock

import pytest

import engines
from engines.thurn_und_taxis.board import board as tnt_board
from firmware.journal import CorruptJournal, GameRecord
from firmware.web.chart import scores_chart
from firmware.web.games import generic, renderer
from firmware.web.games import thurn_und_taxis as tnt_view
from firmware.web.jsonify import state_json, to_json
from firmware.web.reader import NoSuchGame, Reader
from firmware.web.replay import Replay
from tests.engines.bots import bot_module

from .conftest import demo, play

GAME = engines.get("thurn_und_taxis")
SVG = "{http://www.w3.org/2000/svg}"


def demo_state(n: int):
    log = demo()
    return GAME.replay(log["players"], log["options"], log["actions"][:n])


# -- JSON of any state ------------------------------------------------------------------------------


@dataclasses.dataclass
class Inner:
    tiles: set


@dataclasses.dataclass
class Outer:
    pairs: tuple
    by_seat: dict
    inner: Inner
    mixed: set


def test_states_become_plain_json_with_sets_sorted():
    value = Outer(pairs=(("a", 1), ("b", 2)), by_seat={0: {"x"}, 1: set()}, inner=Inner({3, 1, 2}), mixed={None, "z", 1, ("t", 10), ("t", 9)})
    assert to_json(value) == {
        "pairs": [["a", 1], ["b", 2]],
        "by_seat": {"0": ["x"], "1": []},
        "inner": {"tiles": [1, 2, 3]},
        "mixed": [None, 1, "z", ["t", 9], ["t", 10]],
    }


def test_a_value_json_cannot_hold_is_refused_by_name():
    with pytest.raises(TypeError, match="cannot show a complex"):
        to_json({"x": 1j})
    with pytest.raises(TypeError, match="cannot use a tuple as a JSON key"):
        to_json({(1, 2): 3})


def test_a_state_leaves_its_log_to_the_timeline():
    state = demo_state(50)
    got = state_json(state)
    assert "actions" not in got and got["players"] == list(state.players)
    assert got["houses"] == [sorted(h) for h in state.houses]
    assert got["routes"] == [[list(card) for card in route] for route in state.routes]


# -- replays and timelines --------------------------------------------------------------------------


def test_a_replay_carried_forward_equals_one_made_from_scratch(journal):
    log = demo()
    session = play(journal, log["actions"][:40])
    first = Replay.of(journal.load("g1"))
    session.undo()
    for action in log["actions"][39:80]:
        session.apply(action)
    record = journal.load("g1")
    later, fresh = first.extended(record), Replay.of(record)
    assert later.states == fresh.states and later.steps == fresh.steps and later.standing == fresh.standing
    assert later.payload("full") == fresh.payload("full")
    assert first.entries == 40 and len(first.steps) == 40  # the first replay is untouched
    assert not any(step["undone"] for step in first.steps)


def test_a_replay_state_is_the_sessions_state(journal):
    session = play(journal, demo()["actions"][:120])
    session.undo()
    assert Replay.of(journal.load("g1")).state == session.state


def test_undo_with_nothing_standing_is_shown_as_such(journal):
    play(journal, [])
    journal.append("g1", 1, None)  # a marker with nothing before it (the session would not write one)
    replay = Replay.of(journal.load("g1"))
    assert replay.steps[0]["text"] == "undo: nothing to take back" and replay.steps[0]["undoes"] is None


def test_a_refused_entry_names_its_place(journal):
    play(journal, [])
    journal.append("g1", 1, {"type": "close", "player": 0, "houses": []})
    with pytest.raises(CorruptJournal, match=r"game g1: entry 1-0 is refused by the rules: a route is closed after laying"):
        Replay.of(journal.load("g1"))


def test_the_recent_timeline_is_the_last_steps(journal):
    play(journal, demo()["actions"][:30])
    payload = Replay.of(journal.load("g1")).payload()
    assert [s["n"] for s in payload["timeline"]] == list(range(19, 31))


# -- the per-game views -----------------------------------------------------------------------------


def test_each_game_has_its_own_views_and_a_game_without_a_module_the_generic_ones():
    for name in engines.names():
        module = importlib.import_module(f"firmware.web.games.{name}")
        own = renderer(name)
        assert (own.board.own, own.view.own, own.describe.own) == (module.board, module.view, module.describe), name
    fallback = renderer("a_game_without_a_module")
    assert (fallback.board, fallback.view, fallback.describe) == (generic.board, generic.view, generic.describe)


def test_a_failing_game_view_gives_way_to_the_generic_one(caplog):
    state = demo_state(30)
    with mock.patch.object(tnt_view, "board", side_effect=KeyError("boom")), mock.patch.object(tnt_view, "view", side_effect=ValueError("bad")):
        renderer.cache_clear()
        try:
            views = renderer("thurn_und_taxis")
            assert views.board(GAME, state) is None
            assert views.view(GAME, state) == generic.view(GAME, state)
        finally:
            renderer.cache_clear()
    assert "the thurn_und_taxis board view failed" in caplog.text and "the thurn_und_taxis view view failed" in caplog.text


@pytest.mark.parametrize(("name", "setup"), [(name, k) for name in engines.names() for k in range(len(bot_module(name).SETUPS))])
def test_every_view_of_every_game_renders_every_state_of_random_games(name, setup):
    """Views, drawings and timeline lines of whole random games: well-formed SVG, text for every field."""
    game, bots = engines.get(name), bot_module(name)
    n_players, options = bots.SETUPS[setup]
    bot = bots.Bot(n_players, options, seed=setup)
    players = ["Ana", "<b>Ben</b>", 'C"y', "Dee & co", "Eve"][:n_players]
    state = game.start(players, options)
    module = importlib.import_module(f"firmware.web.games.{name}")
    for step in itertools.count():
        if step % 15 == 0 or game.is_over(state):
            drawing = module.board(game, state)
            assert "<b>" not in drawing and len(list(ET.fromstring(drawing).iter())) > 2
            shown = module.view(game, state)
            assert len(shown["seats"]) == n_players
            for section in (*shown["seats"], shown["table"]):
                assert all(isinstance(v, str) or all(isinstance(line, str) for line in v) for v in section.values())
        if game.is_over(state):
            break
        action = bot.choose(state)
        line = module.describe(game, state, action)
        assert isinstance(line, str) and line and "—" not in line, (action, line)  # the game's own words, not the generic ones
        state = game.apply(state, action)


@dataclasses.dataclass(kw_only=True)
class FancyState(engines.State):
    gems: list = dataclasses.field(default_factory=list)
    advisors: dict = dataclasses.field(default_factory=dict)
    round: int = 1
    deck_empty: bool = False


def test_the_generic_view_shows_seat_fields_per_seat_and_the_rest_on_the_table():
    state = FancyState(players=("Ana", "Ben"), options={}, gems=[{"blue": 2}, {"red": 1}], advisors={"green": 0}, round=3)
    assert generic.view(None, state) == {
        "seats": [{"Gems": "Blue: 2"}, {"Gems": "Red: 1"}],
        "table": {"Advisors": "Green: 0", "Round": "3", "Deck empty": "no"},
    }
    assert generic.board(None, state) is None
    assert generic.describe(None, state, {"type": "take", "player": 1, "card": {"id": "c1", "color": "red"}, "gem": "blue"}) == (
        "Ben: take — card Id: c1; Color: red, gem blue"
    )
    assert generic.describe(None, state, {"type": "parchment"}) == "parchment"


def test_the_thurn_und_taxis_view_lists_each_seats_holdings():
    state = demo_state(200)
    view = tnt_view.view(GAME, state)
    b = tnt_board()
    for seat, shown in enumerate(view["seats"]):
        assert shown["Houses"].startswith(f"{len(state.houses[seat])} placed, {20 - len(state.houses[seat])} left")
        for city in state.houses[seat]:
            assert b.city_name[city] in shown["Houses"]
        assert shown["Turns played"] == str(state.turns_done[seat])
        route = [b.city_name[city] for _, city in state.routes[seat]]
        assert shown["Route"] == (f"{' – '.join(route)} ({len(route)} card{'s' * (len(route) != 1)})" if route else "none")
    assert view["table"]["Turn"].startswith(state.players[state.turn])
    assert len(view["table"]["Bonus tiles left"]) == len(state.stacks) - 1  # the game-end tile has its own line


def test_the_thurn_und_taxis_timeline_lines():
    state = GAME.start(["Ana", "Ben"])
    assert tnt_view.describe(GAME, state, {"type": "lay", "player": 0, "card": {"id": "m", "city": "muenchen"}, "side": "left"}) == "Ana lays München (left)"
    assert tnt_view.describe(GAME, state, {"type": "close", "player": 1, "houses": ["ulm", "kempten"], "coachman": True}) == (
        "Ben closes the route: houses in Ulm, Kempten (coachman)"
    )
    assert tnt_view.describe(GAME, state, {"type": "close", "player": 1, "houses": []}) == "Ben closes the route: no house"
    assert tnt_view.describe(GAME, state, {"type": "end_turn", "player": 0}) == "Ana ends the turn"


def test_the_map_shows_every_city_road_house_and_route():
    state = demo_state(200)
    drawing = ET.fromstring(tnt_view.board(GAME, state))
    b = tnt_board()
    circles = [c for c in drawing.iter(f"{SVG}circle") if c.get("class") == "city"]
    assert len(circles) == len(b.cities) == 22
    assert len([line for line in drawing.iter(f"{SVG}line") if line.get("class") == "road"]) == 45
    houses = [r for r in drawing.iter(f"{SVG}rect") if r.get("class", "").startswith("house")]
    assert sorted(h.get("class") for h in houses) == sorted(f"house seat{seat}" for seat, hs in enumerate(state.houses) for _ in hs)
    routes = {p.get("class"): p for p in drawing.iter(f"{SVG}polyline")}
    for seat, route in enumerate(state.routes):
        if len(route) > 1:
            assert len(routes[f"route seat{seat}"].get("points").split()) == len(route)
    width, height = map(float, drawing.get("viewBox").split()[2:])
    for circle in circles:
        assert 0 < float(circle.get("cx")) < width and 0 < float(circle.get("cy")) < height


def test_names_in_drawings_are_escaped():
    state = GAME.replay(["<b>Ana</b>", 'B"en'], {}, [{"type": "lay", "player": 0, "card": {"id": "u", "city": "ulm"}}, {"type": "end_turn", "player": 0}])
    drawing = tnt_view.board(GAME, state)
    assert "<b>" not in drawing and ET.fromstring(drawing) is not None
    chart = scores_chart(["<b>Ana</b>", 'B"en'], [0, 0], [{"totals": [1, 2]}, {"totals": [3, -1]}])
    assert "<b>" not in chart and len(list(ET.fromstring(chart).iter(f"{SVG}polyline"))) == 2


def test_a_layout_that_misses_a_city_is_refused_by_name():
    data = {"positions": {"ulm": [10, 48]}, "region_colours": {}}
    with pytest.raises(ValueError, match="positions differ from the map's cities: .*'augsburg'"):
        tnt_view.Layout(data)


def test_the_chart_has_one_line_per_player_and_a_point_per_entry():
    chart = ET.fromstring(scores_chart(["A", "B", "C"], [-20, -20, 0], [{"totals": [i, -i, 0]} for i in range(1, 11)]))
    lines = list(chart.iter(f"{SVG}polyline"))
    assert [line.get("class") for line in lines] == ["line seat0", "line seat1", "line seat2"]
    assert all(len(line.get("points").split()) == 11 for line in lines)
    first_y = [float(line.get("points").split()[0].split(",")[1]) for line in lines]
    assert first_y[0] == first_y[1] > first_y[2]  # the start totals, -20 below 0
    assert [t.text for t in chart.iter(f"{SVG}text")][:2] == ["10", "-20"]  # the axis spans every total
    assert scores_chart(["A"], [0], []) is None


# -- the reader --------------------------------------------------------------------------------------


@pytest.mark.parametrize("gid", ["", "a:b", "a*", "../x", "x" * 65, "g 1", "é", "-x", None, 12])
def test_a_malformed_game_id_never_reaches_redis(gid):
    client = mock.Mock()
    with pytest.raises(NoSuchGame, match="is not a game id"):
        Reader(client, "t1").game(gid)
    assert client.method_calls == []


def test_a_game_is_replayed_once_per_change(journal):
    session = play(journal, demo()["actions"][:20])
    reader = Reader(journal.client, "t1")
    first = reader.current()
    assert reader.current() is first  # nothing new: the same replay
    session.apply(demo()["actions"][20])
    with mock.patch.object(Replay, "of", side_effect=AssertionError("replayed from scratch")):
        second = reader.current()
    assert second.entries == 21 and second.states[:21] == first.states


def bot_state(name: str, setup: int, steps: int):
    """The state after `steps` actions (or the end) of a random game of the bots' setup number `setup`."""
    game, bots = engines.get(name), bot_module(name)
    n_players, options = bots.SETUPS[setup]
    bot, state = bots.Bot(n_players, options, seed=3), game.start(["Ana", "Ben", "Cy", "Dee", "Eve"][:n_players], options)
    for _ in range(steps):
        if game.is_over(state):
            break
        state = game.apply(state, bot.choose(state))
    return game, state


def classes(drawing: str, tag: str) -> list[str]:
    return [e.get("class", "") for e in ET.fromstring(drawing).iter(f"{SVG}{tag}")]


def test_the_maharani_grid_shows_tiles_artisans_and_quarters():
    from firmware.web.games import maharani
    from firmware.web.svg import paint

    game, state = bot_state("maharani", 0, 70)  # two players: two artisan sets each
    b = game.board(state)
    drawing = ET.fromstring(maharani.board(game, state))
    spaces = [r for r in drawing.iter(f"{SVG}rect") if r.get("class", "").startswith("space")]
    assert len(spaces) == len(b.spaces)
    fills = sorted(r.get("fill") for r in spaces if r.get("class") == "space")
    assert fills == sorted(paint(colour) for colour in state.tiles.values())
    artisans = classes(maharani.board(game, state), "circle")
    assert sorted(c for c in artisans if c.startswith("artisan seat")) == sorted(f"artisan seat{seat}" for seat, _ in state.artisans.values())
    assert artisans.count("artisan-set") == sum(1 for _, art_set in state.artisans.values() if art_set == 1)
    labels = [t.text for t in drawing.iter(f"{SVG}text")]
    assert labels == [f"Q{q}{' ✓' if q in state.evaluated else ''}" for q in b.quarters]
    shown = maharani.view(game, state)
    assert shown["seats"][0]["Artisans in reserve"] == f"set 1: {state.reserve[0][0]} / set 2: {state.reserve[0][1]}"


def test_a_finished_maharani_game_ticks_every_quarter():
    from firmware.web.games import maharani

    game, state = bot_state("maharani", 1, 10_000)
    assert game.is_over(state)
    texts = [t.text for t in ET.fromstring(maharani.board(game, state)).iter(f"{SVG}text")]
    assert texts == [f"Q{q} ✓" for q in game.board(state).quarters]


@pytest.mark.parametrize("with_board", [True, False])
def test_the_taj_mahal_provinces_show_every_palace_and_crown(with_board):
    from firmware.web.games import taj_mahal

    game, state = bot_state("taj_mahal", 0 if with_board else 3, 120)
    drawing = taj_mahal.board(game, state)
    boxes = [c for c in classes(drawing, "rect") if c.startswith("province")]
    owners = [owners for cities in state.palaces.values() for owners in cities.values()]
    rects = classes(drawing, "rect")
    assert sorted(c for c in rects if c.startswith("palace")) == sorted(f"palace seat{o[0]}" for o in owners if o[0] is not None)
    circles = classes(drawing, "circle")
    assert sorted(c for c in circles if c.startswith("crowned")) == sorted(f"crowned seat{o[1]}" for o in owners if o[1] is not None)
    if with_board:
        b = game.board(state)
        assert len(boxes) == 12 and sum(c.startswith("site") for c in circles) == 49
        free_fortresses = [f for f in b.fortresses if state.palaces.get(b.province_of[f], {}).get(f, [None, None])[0] is None]
        assert rects.count("bonus") == len(free_fortresses)
        assert boxes.count("province current") == (state.province is not None)
    else:
        assert len(boxes) == len(state.visited) and "road" not in classes(drawing, "line")
        named = sum(len(cities) for cities in state.palaces.values())
        assert sum(c.startswith("site") and c != "site blank" for c in circles) == named
    lines = taj_mahal.view(game, state)["table"]["Palaces by province"]
    assert [line.split(":")[0] for line in lines] == [f"{k}. {p}" for k, p in enumerate(state.visited, start=1)]


@pytest.mark.parametrize("dice", [True, False])
def test_the_mongols_board_shows_gems_plans_and_advisors(dice):
    from firmware.web.games import mongols

    setup = next(k for k, (n, options) in enumerate(bot_module("mongols").SETUPS) if options.get("dice") == dice and n == 3)
    game, state = bot_state("mongols", setup, 150)
    drawing = mongols.board(game, state)
    circles = classes(drawing, "circle")
    assert circles.count("gem") + circles.count("gem down") == (9 if dice else 0)
    assert circles.count("gem down") == (len(state.down) if dice else 0)
    assert circles.count("advisor") == len(state.advisors)
    counts = [t.text for t in ET.fromstring(drawing).iter(f"{SVG}text") if t.get("class", "").startswith("plan-count")]
    per_seat = [[str(game.plan_counts(state, seat).get(c, 0)) for c in state.colours] for seat in range(3)]
    out = [str(sum(1 for card, c in state.cards.items() if c == colour and card not in state.owner)) for colour in state.colours]
    assert counts == [n for row in per_seat for n in row] + out
    shown = mongols.view(game, state)
    assert ("Gems down" in shown["table"]) == dice


def test_hints_on_the_live_view_for_every_seat_in_the_round_and_only_with_hints_on():
    from firmware.web.replay import Replay

    actions = [
        {"type": "visit", "province": "p1", "tile": {"number": 1, "goods": ["rice"]}},
        {"type": "play", "player": 0, "cards": [{"id": "r1", "color": "red", "symbols": ["elephant", "vizier"]}]},
        {"type": "play", "player": 1, "cards": [{"id": "g1", "color": "green", "symbols": ["monk", "mogul"]}]},
    ]
    for hints, expected in ((True, ["Out now wins: vizier, province", "Out now wins: monk, crown", "Out now wins: nothing"]), (False, [None, None, None])):
        record = GameRecord("g1", "taj_mahal", ["Ana", "Ben", "Cy"], {}, 0.0, "playing", [("action", a) for a in actions], hints=hints)
        seats = Replay.of(record).payload("recent")["view"]["seats"]
        assert [seat.get("Hint") for seat in seats] == expected


def test_the_taj_mahal_view_without_a_board_names_provinces_and_cities_as_the_table_does():
    """"Province 1", "city 2" under it, "the chain reaches no other province": no raw id, no "(s)"."""
    import dataclasses

    from firmware.adapters.taj_mahal import TajMahalAdapter
    from firmware.web.games import taj_mahal

    game = engines.get("taj_mahal")
    province = TajMahalAdapter.province_label(1)
    state = game.apply(game.start(["Ana", "Ben", "Cy"]), {"type": "visit", "province": province, "tile": {"number": 1, "goods": ["tea"]}})
    city = TajMahalAdapter.city_label(province, 2)
    state = dataclasses.replace(state, palaces={province: {city: [0, None]}})
    assert taj_mahal.view(game, state)["table"]["Palaces by province"] == ["1. Province 1: city 2: Ana"]
    assert taj_mahal.describe(game, state, {"type": "palace", "player": 0, "city": city, "bonus": None}) == "Ana: palace in city 2 of province 1"
    chain = [taj_mahal.describe(game, state, {"type": "chain", "player": 1, "provinces": n}) for n in (0, 1, 3)]
    assert chain == [f"Ben: the chain reaches {reach}" for reach in ("no other province", "1 other province", "3 other provinces")]
