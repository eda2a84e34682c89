"""Whole games played through the table by their inputs; the journal replays to the same scores."""

import json

import pytest

import engines
from firmware.journal import Journal
from firmware.store import connect
from firmware.table import Table, TableSettings
from firmware.tagmap import TagEntry, TagMap
from tests.engines.bots import bot_module

from .autopilot import KIND_OF, Autopilot

NAMES = ["Ana", "Ben", "Cy", "Dee", "Eve"]
#: the action fields that name physical components, across the games
COMPONENT_FIELDS = ("card", "cards", "tile", "bonus")


def bot_game(name: str, n_players: int, options: dict, seed: int) -> list[dict]:
    game, bot = engines.get(name), bot_module(name).Bot(n_players, options, seed)
    state = game.start(NAMES[:n_players], options)
    while not game.is_over(state):
        state = game.apply(state, bot.choose(state))
    return list(state.actions)


class DirectInputs:
    """Inputs straight into the Table (the driver-level rig replaces this in tests/e2e/test_rig.py)."""

    def __init__(self, table):
        self.table = table

    def tap(self, uid, seat):
        self.table.tag(uid, seat)

    def press(self, role):
        self.table.press(role)


def enrol_components(tags: TagMap, name: str, actions: list[dict]) -> dict[str, str]:
    """Enrol a tag for every component the log mentions; returns component id -> uid.

    A tag map gives every component an id (from the game's manifest); descriptors the bots write
    without one (Taj Mahal tiles) get one here, as enrolment would.
    """
    uids: dict[str, str] = {}
    for number, action in enumerate(actions):
        for field in COMPONENT_FIELDS:
            value = action.get(field)
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, dict):
                    item.setdefault("id", f"component-{number}")
    for action in actions:
        for value in (action.get(field) for field in COMPONENT_FIELDS):
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, dict) and "id" in item and item["id"] not in uids:
                    uids[item["id"]] = f"{len(uids) + 1:08x}"
                    tags.set(uids[item["id"]], TagEntry(name, KIND_OF[name](item), item, item["id"]))
    return uids


def play_through_table(url: str, name: str, n_players: int, options: dict, actions: list[dict]) -> Table:
    """Play `actions` through a Table on `url` by their inputs; check the journal replays to the same scores."""
    client = connect(url)
    tags = TagMap(client, "t1")
    uids = enrol_components(tags, name, actions)
    journal = Journal(client, "t1")
    table = Table(journal, tags, TableSettings(players=NAMES[:n_players]))
    table.new_game(name, NAMES[:n_players], options)
    Autopilot(table, DirectInputs(table), lambda d: uids[d["id"]]).play(actions)
    game = table.session.game
    assert game.is_over(table.session.state)
    exported = json.loads(json.dumps(Journal(connect(url), "t1").load(table.session.gid).actions))
    replayed = engines.replay(name, NAMES[:n_players], options, exported)
    assert game.scores(replayed) == game.scores(table.session.state)
    return table


@pytest.mark.parametrize("url_kind", ["memory", "redis"])
def test_thurn_und_taxis_full_game_through_the_table(url_kind, memory_url, request):
    url = memory_url if url_kind == "memory" else request.getfixturevalue("redis_server").url
    play_through_table(url, "thurn_und_taxis", 3, {}, bot_game("thurn_und_taxis", 3, {}, seed=5))


@pytest.mark.parametrize("dice", [False, True])
def test_mongols_full_game_through_the_table(dice, memory_url):
    actions = bot_game("mongols", 4, {"dice": dice}, seed=3)
    for action in actions:
        if action["type"] == "parchment":
            action.setdefault("card", {"id": "parchment", "parchment": True})
    table = play_through_table(memory_url, "mongols", 4, {"dice": dice}, actions)
    assert table.session.state.parchment


@pytest.mark.parametrize("n_players, seed", [(2, 1), (3, 2), (4, 4)])
def test_maharani_full_game_through_the_table(n_players, seed, memory_url):
    play_through_table(memory_url, "maharani", n_players, {}, bot_game("maharani", n_players, {}, seed))


@pytest.mark.parametrize("board", [True, False])
def test_taj_mahal_full_game_through_the_table(board, memory_url):
    from tests.engines.bots.taj_mahal import SYNTHETIC_BOARD

    options = {"board": SYNTHETIC_BOARD} if board else {}
    actions = bot_game("taj_mahal", 5, options, seed=7)
    if not board:
        actions = table_labels(actions)
    play_through_table(memory_url, "taj_mahal", 5, options, actions)


def table_labels(actions: list[dict]) -> list[dict]:
    """The bot names provinces and cities after its synthetic board even without one; without a
    board the table names them after the province tile (city k of province p is "p-k")."""
    from firmware.adapters.taj_mahal import TajMahalAdapter

    rename: dict[str, str] = {}
    for action in actions:
        if action["type"] == "visit":
            rename[action["province"]] = TajMahalAdapter.province_label(action["tile"]["number"])
            action["province"] = rename[action["province"]]
        elif "city" in action:
            province, k = action["city"].rsplit("-", 1)
            action["city"] = f"{rename[province]}-{k}"
    return actions
