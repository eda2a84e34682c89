"""Tag files: the enrolled tag map as TOML a person can read and edit (`tablemate tags export/import`).

    [tags.04a1b2c3]
    game = "thurn_und_taxis"
    kind = "card"
    label = "Nürnberg 2/3"

    [tags.04a1b2c3.descriptor]
    id = "nuernberg-2"
    city = "nuernberg"

A player card (firmware.club.players) has no game, and carries the ticket that lets the club count
its games at the tables the file goes to (so a tag file goes to the owner's own tables only):

    [tags.04c3d2e1]
    kind = "player"
    label = "Zoé"
    descriptor = { id = "p-5e1c09a4b2f7", name = "Zoé", ticket = "9f1c..." }

An import is checked as a whole before anything is written: every entry against its game's component
description (engines.<game>.COMPONENTS), a player card's id against its UID, no UID twice, no
component on two tags, no player on two cards. One bad entry refuses the file, and the message names
its line.
"""

import importlib
import tomllib
from collections.abc import Iterable
from pathlib import Path

import tomli_w

import engines
from engines.core.data import FileRefused, parsed, read_text
from drivers.readers import normalise_uid as reader_uid

from .club import players
from .tagmap import TagEntry, normalise_uid


class BadTagFile(ValueError):
    """A tag file that cannot be imported; the message names the file and the line."""


def export_text(entries: list[tuple[str, TagEntry]], table: str) -> str:
    header = f"# tablemate tag map of table {table!r}: {len(entries)} tags. Edit, then `tablemate tags import`.\n\n"
    data = {
        "tags": {
            uid: {**({} if players.is_card(e) else {"game": e.game}), "kind": e.kind, "label": e.label, "descriptor": e.descriptor}
            for uid, e in entries
        }
    }
    return header + tomli_w.dumps(data)


def parse(text: str, source: str = "tag file") -> dict[str, TagEntry]:
    """The entries of a tag file's text, all checked; BadTagFile names the first bad line."""
    try:
        data = parsed(tomllib.loads, text, source)
    except tomllib.TOMLDecodeError as error:
        raise BadTagFile(f"{source}: not valid TOML: {error}") from None
    except FileRefused as error:
        raise BadTagFile(str(error)) from None
    if set(data) != {"tags"} or not isinstance(data["tags"], dict):
        raise BadTagFile(f"{source}: a tag file holds one table, [tags], with one [tags.<uid>] entry per tag")
    lines = text.splitlines()
    return check_entries((raw_uid, raw, f"{source}, line {_line_of(lines, raw_uid)} ([tags.{raw_uid}])")
                         for raw_uid, raw in data["tags"].items())


def check_entries(raw_entries: Iterable[tuple[str, object, str]]) -> dict[str, TagEntry]:
    """Tag entries as (UID as written, entry, where it is for messages), all checked: a UID the readers
    can report, each UID once, each entry a component of its game, no component on two tags.
    BadTagFile names the first bad one (a tag file's line, a backup's line)."""
    entries: dict[str, TagEntry] = {}
    components: dict[tuple[str, str], str] = {}
    for raw_uid, raw, where in raw_entries:
        try:
            uid = reader_uid(normalise_uid(raw_uid))
        except ValueError as error:
            raise BadTagFile(f"{where}: {raw_uid!r} is not a tag UID ({error})") from None
        if uid in entries:
            raise BadTagFile(f"{where}: UID {uid} appears twice")
        entry = _entry(where, raw, uid)
        key = ("player", entry.descriptor["name"].lower()) if players.is_card(entry) else (entry.game, entry.descriptor["id"])
        if key in components:
            what = f"player {entry.label!r}" if players.is_card(entry) else f"component {key[1]!r} of {entry.game}"
            raise BadTagFile(f"{where}: {what} is already on tag {components[key]}")
        components[key] = uid
        entries[uid] = entry
    return entries


def load(path: str | Path) -> dict[str, TagEntry]:
    try:
        text = read_text(path)
    except (OSError, UnicodeDecodeError) as error:
        raise BadTagFile(f"{path}: cannot read it ({error})") from None
    except FileRefused as error:
        raise BadTagFile(str(error)) from None
    return parse(text, str(path))


def _entry(where: str, raw: object, uid: str) -> TagEntry:
    if isinstance(raw, dict) and raw.get("kind") == players.KIND and raw.get("game", players.NO_GAME) == players.NO_GAME:
        return _player(where, raw, uid)
    if not isinstance(raw, dict) or set(raw) - {"game", "kind", "label", "descriptor"} or not {"game", "kind", "descriptor"} <= set(raw):
        raise BadTagFile(f"{where}: an entry has game, kind, descriptor and optionally label")
    game, kind, label, descriptor = raw["game"], raw["kind"], raw.get("label", ""), raw["descriptor"]
    if game not in engines.names():
        raise BadTagFile(f"{where}: unknown game {game!r}; the games are {', '.join(engines.names())}")
    if not isinstance(label, str):
        raise BadTagFile(f"{where}: label must be text")
    problem = importlib.import_module(f"engines.{game}").COMPONENTS.descriptor_problem(kind, descriptor)
    if problem:
        raise BadTagFile(f"{where}: {problem}")
    return TagEntry(game, kind, descriptor, label)


def _player(where: str, raw: dict, uid: str) -> TagEntry:
    """A player card: kind "player", the player's name as label, descriptor {id, name}; no game (a
    backup writes its game as "")."""
    if set(raw) - {"game", "kind", "label", "descriptor"} or "descriptor" not in raw:
        raise BadTagFile(f"{where}: a player card has kind, descriptor and optionally label (no game)")
    label = raw.get("label", "")
    problem = players.descriptor_problem(uid, raw["descriptor"], label)
    if problem:
        raise BadTagFile(f"{where}: {problem}")
    return players.card(uid, raw["descriptor"]["name"], raw["descriptor"].get("ticket"))


def _line_of(lines: list[str], uid: str) -> int:
    """The line where the entry of `uid` begins (its first mention), for messages."""
    for number, line in enumerate(lines, start=1):
        if uid in line:
            return number
    return 0
