"""Whole games for the end-to-end tests and the recorded demos: bot games, their components enrolled."""

import dataclasses

import engines
from firmware import enrolment
from firmware.sim import catalogue
from firmware.tagmap import TagEntry, TagMap
from tests.engines.bots import bot_module

from .autopilot import KIND_OF

NAMES = ["Ana", "Ben", "Cy", "Dee", "Eve"]
#: the action fields that name physical components, across the games
COMPONENT_FIELDS = ("card", "cards", "tile", "bonus")


def bot_game(name: str, n_players: int, options: dict, seed: int) -> list[dict]:
    """A complete random game of `name`, as the table would record it (no-board Taj Mahal labels included)."""
    game, bot = engines.get(name), bot_module(name).Bot(n_players, options, seed)
    state = game.start(NAMES[:n_players], options)
    while not game.is_over(state):
        state = game.apply(state, bot.choose(state))
    actions = [dict(action) for action in state.actions]
    if name == "taj_mahal" and not options.get("board"):
        actions = table_labels(actions)
    if name == "mongols":
        for action in actions:
            if action["type"] == "parchment":
                action.setdefault("card", {"id": "parchment", "parchment": True})
    return actions


def table_labels(actions: list[dict]) -> list[dict]:
    """The bot names provinces and cities after its synthetic board even without one; without a
    board the table names them after the province tile ("Province 3", its city k "city k of province 3")."""
    from firmware.adapters.taj_mahal import TajMahalAdapter

    rename: dict[str, str] = {}
    for action in actions:
        if action["type"] == "visit":
            rename[action["province"]] = TajMahalAdapter.province_label(action["tile"]["number"])
            action["province"] = rename[action["province"]]
        elif "city" in action:
            province, k = action["city"].rsplit("-", 1)
            action["city"] = TajMahalAdapter.city_label(rename[province], int(k))
    return actions


def components(name: str, actions: list[dict]) -> dict[str, TagEntry]:
    """A tag (uid -> entry) for every physical component the log mentions, enrolled as guided
    enrolment would: each gets the id and name of a free manifest slot whose known fields it shows
    (the actions are changed to use that id); one no slot fits keeps its own id and a name made from
    its fields (firmware.sim.catalogue)."""
    slots = {slot.id: slot for slot in enrolment.slots(name)}
    free = list(slots)
    renamed: dict[str, str] = {}
    found: dict[str, TagEntry] = {}
    for number, action in enumerate(actions):
        for field in COMPONENT_FIELDS:
            value = action.get(field)
            for item in value if isinstance(value, list) else [value]:
                if not isinstance(item, dict):
                    continue
                own = item.setdefault("id", f"component-{number}")
                if own not in renamed:
                    kind = KIND_OF[name](item)
                    fits = [i for i in free if slots[i].group.kind == kind
                            and all(item.get(k) == v for k, v in slots[i].group.known.items())]
                    best = max(fits, key=lambda i: len(slots[i].group.known), default=None)
                    renamed[own] = best or own
                    if best:
                        free.remove(best)
                    found[renamed[own]] = TagEntry(name, kind, {**item, "id": renamed[own]}, slots[best].label if best else "")
                item["id"] = renamed[own]
    entries = list(found.values())
    labels = {c.id: c.label for c in catalogue.named(name, [(str(n), e) for n, e in enumerate(entries)])}
    prefix = engines.names().index(name) + 1  # each game's tags apart, so all can be enrolled at once
    return {f"{prefix:02x}{n + 1:06x}": dataclasses.replace(e, label=e.label or labels[e.descriptor["id"]])
            for n, e in enumerate(entries)}


def enrol(tags: TagMap, entries: dict[str, TagEntry]) -> dict[str, str]:
    """Enrol `entries`; returns component id -> uid, for the autopilot."""
    tags.set_many(entries)
    return {entry.descriptor["id"]: uid for uid, entry in entries.items()}
