"""Whole games for the end-to-end tests and the recorded demos: bot games, their components enrolled."""

import dataclasses
import importlib

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
    its fields (firmware.sim.catalogue). The bots' colour names become the manifest's (see
    `manifest_colours`), as an owner names the colours the rules leave unknown."""
    slots = {slot.id: slot for slot in enrolment.slots(name)}
    free = list(slots)
    renamed: dict[str, str] = {}
    found: dict[str, TagEntry] = {}
    colours = manifest_colours(name, actions)
    for number, action in enumerate(actions):
        for field in COMPONENT_FIELDS:
            value = action.get(field)
            for item in value if isinstance(value, list) else [value]:
                if not isinstance(item, dict):
                    continue
                if "color" in item:
                    item["color"] = colours.get(item["color"], item["color"])
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


def manifest_colours(name: str, actions: list[dict]) -> dict[str, str]:
    """The bots' colour names -> the manifest's: a name the manifest has stays, the others take the
    manifest's unused ones in order of first play ("red" -> "colour-3" in Maharani)."""
    known = list(dict.fromkeys(group.known["color"] for group in importlib.import_module(f"engines.{name}").manifest()
                               if isinstance(group.known.get("color"), str)))
    played = list(dict.fromkeys(item["color"] for action in actions for field in COMPONENT_FIELDS
                                for item in (action.get(field) if isinstance(action.get(field), list) else [action.get(field)])
                                if isinstance(item, dict) and isinstance(item.get("color"), str)))
    spare = iter(colour for colour in known if colour not in played)
    return {colour: colour if colour in known else next(spare, colour) for colour in played}


def complete(name: str, entries: dict[str, TagEntry]) -> dict[str, TagEntry]:
    """`entries` and a tag for every manifest slot they leave free, after them (their UIDs kept), so a
    demo's tag file holds the whole game as enrolment would. A free slot whose content enrolment asks
    (a Taj Mahal card's symbols) cannot be filled without inventing it: refused."""
    taken = {entry.descriptor["id"] for entry in entries.values()}
    free = [slot for slot in enrolment.slots(name) if slot.id not in taken]
    asked = [slot.label for slot in free if slot.group.ask]
    if asked:
        raise ValueError(f"{name}: the recorded game leaves {', '.join(asked)} free, whose content enrolment asks")
    prefix, count = engines.names().index(name) + 1, len(entries)
    added = {f"{prefix:02x}{count + n + 1:06x}": TagEntry(name, slot.group.kind, {**slot.group.known, "id": slot.id}, slot.label)
             for n, slot in enumerate(free)}
    assert not set(added) & set(entries), "a new tag's UID is taken"
    return {**entries, **added}


def enrol(tags: TagMap, entries: dict[str, TagEntry]) -> dict[str, str]:
    """Enrol `entries`; returns component id -> uid, for the autopilot."""
    tags.set_many(entries)
    return {entry.descriptor["id"]: uid for uid, entry in entries.items()}
