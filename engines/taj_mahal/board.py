"""Taj Mahal boards: loading a board file (design/game-log.md, section 6), refusing a bad one, palace chains.

The real board's road network is unknown (notes/game-data.md), so no real board ships: the owner fills
config/boards/taj_mahal.template.toml from the physical board. A board is the `board` option: the name of
a bundled file next to this module, an inline table with the file's shape (what the firmware puts in a
game's options, so that a log replays without the file), or None.

A board must be consistent (every entry names known cities, no city in two provinces, nothing twice) and
playable: 12 provinces (one per round), one of them `agra` with exactly one fortress (the Taj Mahal's),
every province with at least 4 cities (a round hands out at most 4 ordinary palaces, so they always fit),
and no more fortresses than the 16 bonus tiles. How a board departs from the physical one (49 cities,
Agra 5 and the others 4, 16 fortresses, connected roads) is reported by `Board.differences()`, not
refused, so that small test boards stay possible.
"""

import json
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from engines.core import IllegalAction, read_toml_file

from .components import ROUNDS

AGRA = "agra"
#: The physical board (rules/000: "La province d'Agra ... comprend cinq cités. Les onze autres provinces
#: comprennent quatre cités ... 16 des 49 cités ... sont fortifiées").
REAL_CITIES, REAL_AGRA_CITIES, REAL_PROVINCE_CITIES, REAL_FORTRESSES = 49, 5, 4, 16
MIN_CITIES = 4
#: Where bundled boards live (tests point it elsewhere); manifest.toml beside it is not a board.
BOARD_DIR = resources.files(__package__)
NOT_BOARDS = frozenset({"manifest"})
_KEYS = ("name", "provinces", "roads")
_PROVINCE_KEYS = ("id", "cities", "fortresses")


class BoardError(IllegalAction):
    """A board file or option that breaks the schema or cannot be played; the message names the bad entry."""


@dataclass(frozen=True)
class Board:
    name: str
    #: province ids in the file's order
    provinces: tuple[str, ...]
    cities_of: dict[str, tuple[str, ...]]
    province_of: dict[str, str]
    fortresses: frozenset[str]
    neighbours: dict[str, frozenset[str]]
    #: the board in the schema's shape, plain JSON: what a game's `board` option holds
    data: dict

    @property
    def summary(self) -> str:
        """One line for `tablemate board check`."""
        roads = sum(len(near) for near in self.neighbours.values()) // 2
        return (
            f"{self.name}: {len(self.provinces)} provinces, {len(self.province_of)} cities, "
            f"{len(self.fortresses)} fortresses, {roads} roads"
        )

    def chain(self, owned: set[str], province: str) -> set[str]:
        """The other provinces joined to an owned city of `province` by roads through owned cities only."""
        reached = {city for city in owned if self.province_of.get(city) == province}
        frontier = list(reached)
        while frontier:
            for near in self.neighbours[frontier.pop()]:
                if near in owned and near not in reached:
                    reached.add(near)
                    frontier.append(near)
        return {self.province_of[city] for city in reached} - {province}

    def differences(self) -> list[str]:
        """How this board departs from the physical one; an owner's board file should have none."""
        found = []
        if len(self.province_of) != REAL_CITIES:
            found.append(f"the real board has {REAL_CITIES} cities, this one {len(self.province_of)}")
        for province, cities in self.cities_of.items():
            real = REAL_AGRA_CITIES if province == AGRA else REAL_PROVINCE_CITIES
            if len(cities) != real:
                found.append(f"province {province!r} has {len(cities)} cities, the real one {real}")
            if not _connected(set(cities), self.neighbours):
                found.append(f"province {province!r}: its cities are not all joined by roads inside it")
        if len(self.fortresses) != REAL_FORTRESSES:
            found.append(f"the real board has {REAL_FORTRESSES} fortresses, this one {len(self.fortresses)}")
        found += [f"city {city!r} has no road" for city in self.province_of if not self.neighbours[city]]
        if not _connected(set(self.province_of), self.neighbours):
            found.append("the roads do not join every city to every other")
        return found


def _connected(cities: set[str], neighbours: dict[str, frozenset[str]]) -> bool:
    """Whether roads between `cities` alone join them all."""
    if not cities:
        return True
    start = next(iter(cities))
    seen, frontier = {start}, [start]
    while frontier:
        for near in neighbours[frontier.pop()] & cities:
            if near not in seen:
                seen.add(near)
                frontier.append(near)
    return seen == cities


def _fail(source: str, short: str, detail: str) -> BoardError:
    return BoardError(f"Board: {short}", f"{source}: {detail}")


def _ids(value: Any, source: str, where: str, what: str) -> list[str]:
    if value is None:
        value = []
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise _fail(source, f"bad {what}", f"{where}: {what!r} must be a list of non-empty ids, not {value!r}")
    return value


def _unknown_keys(table: dict, allowed: tuple[str, ...], source: str, where: str) -> None:
    extra = sorted(set(table) - set(allowed), key=str)
    if extra:
        raise _fail(
            source,
            f"unknown key {str(extra[0])[:14]!r}",
            f"{where} has unknown key {extra[0]!r} (the keys are {', '.join(allowed)})",
        )


def parse_board(data: Any, source: str = "board") -> Board:
    """The Board described by `data` (the schema's shape); a bad entry raises BoardError naming it."""
    if not isinstance(data, dict):
        raise _fail(source, "not a table", f"a board is a table with {', '.join(_KEYS)}, not {data!r}")
    _unknown_keys(data, _KEYS, source, "the board")
    name = data.get("name", "")
    if not isinstance(name, str):
        raise _fail(source, "bad name", f"'name' must be a string, not {name!r}")
    provinces = data.get("provinces")
    if not isinstance(provinces, list) or not provinces:
        raise _fail(source, "no provinces", "'provinces' must be a non-empty list of province tables")
    cities_of: dict[str, tuple[str, ...]] = {}
    province_of: dict[str, str] = {}
    fortresses: set[str] = set()
    for number, province in enumerate(provinces, start=1):
        pid = _province(province, number, source, cities_of, province_of, fortresses)
        cities_of[pid] = tuple(province["cities"])
    neighbours: dict[str, set[str]] = {city: set() for city in province_of}
    roads = data.get("roads", [])
    if not isinstance(roads, list):
        raise _fail(source, "bad roads", f"'roads' must be a list of city pairs, not {roads!r}")
    for road in roads:
        if not (isinstance(road, list) and len(road) == 2 and all(isinstance(city, str) for city in road)):
            raise _fail(source, "bad road", f"road {road!r} must be a pair of city ids")
        a, b = road
        for city in road:
            if city not in province_of:
                raise _fail(source, f"unknown city {city[:16]!r}", f"road {road!r} names unknown city {city!r}")
        if a == b:
            raise _fail(source, "road to itself", f"road {road!r} joins a city to itself")
        if b in neighbours[a]:
            raise _fail(source, "road twice", f"road {road!r} is listed twice")
        neighbours[a].add(b)
        neighbours[b].add(a)
    board = Board(
        name=name,
        provinces=tuple(cities_of),
        cities_of=cities_of,
        province_of=province_of,
        fortresses=frozenset(fortresses),
        neighbours={city: frozenset(near) for city, near in neighbours.items()},
        data={
            "name": name,
            "provinces": [
                {"id": p["id"], "cities": list(p["cities"]), "fortresses": list(p.get("fortresses") or [])} for p in provinces
            ],
            "roads": [list(road) for road in roads],
        },
    )
    _check_playable(board, source)
    return board


def _province(province: Any, number: int, source: str, cities_of: dict, province_of: dict, fortresses: set) -> str:
    """Check one province table against the ones before it; its id."""
    if not isinstance(province, dict):
        raise _fail(source, "bad province", f"province #{number} must be a table, not {province!r}")
    pid = province.get("id")
    if not isinstance(pid, str) or not pid.strip():
        raise _fail(source, "province without id", f"province #{number} needs an 'id' (a non-empty string), not {pid!r}")
    where = f"province {pid!r}"
    _unknown_keys(province, _PROVINCE_KEYS, source, where)
    if pid in cities_of:
        raise _fail(source, f"{pid[:14]!r} twice", f"province {pid!r} is listed twice")
    cities = _ids(province.get("cities"), source, where, "cities")
    if not cities:
        raise _fail(source, f"{pid[:14]!r}: no cities", f"{where} lists no cities")
    for city in cities:
        if city in province_of:
            other = province_of[city]
            detail = (
                f"{where} lists city {city!r} twice" if other == pid else f"city {city!r} is in provinces {other!r} and {pid!r}"
            )
            raise _fail(source, f"city {city[:14]!r} twice", detail)
        province_of[city] = pid
    seen: set[str] = set()
    for fortress in _ids(province.get("fortresses"), source, where, "fortresses"):
        if fortress not in cities:
            raise _fail(source, f"fortress {fortress[:12]!r}?", f"fortress {fortress!r} of {where} is not one of its cities")
        if fortress in seen:
            raise _fail(source, f"fortress {fortress[:12]!r} twice", f"{where} lists fortress {fortress!r} twice")
        seen.add(fortress)
    fortresses.update(seen)
    return pid


def _check_playable(board: Board, source: str) -> None:
    if AGRA not in board.cities_of:
        raise _fail(source, "no province 'agra'", f"no province {AGRA!r}: the province visited last, with the Taj Mahal")
    if len(board.provinces) != ROUNDS:
        raise _fail(
            source,
            f"{len(board.provinces)} provinces, not 12",
            f"the board has {len(board.provinces)} provinces; the game visits {ROUNDS}, one per round",
        )
    for province, cities in board.cities_of.items():
        if len(cities) < MIN_CITIES:
            raise _fail(
                source,
                f"{province[:12]!r}: {len(cities)} cities",
                f"province {province!r} has {len(cities)} cities; every province has at least {MIN_CITIES}, "
                f"so that the palaces won in a round always fit",
            )
    in_agra = [city for city in board.cities_of[AGRA] if city in board.fortresses]
    if len(in_agra) != 1:
        raise _fail(
            source, "Agra: one fortress", f"province {AGRA!r} needs exactly one fortress (the Taj Mahal's), not {len(in_agra)}"
        )
    if len(board.fortresses) > REAL_FORTRESSES:
        raise _fail(
            source,
            f"{len(board.fortresses)} fortresses",
            f"the board has {len(board.fortresses)} fortresses; there are only {REAL_FORTRESSES} bonus tiles",
        )


def load_board_file(path: str | Path) -> Board:
    """The board in the TOML file at `path`; an unreadable, malformed or bad file raises BoardError naming the problem."""
    return parse_board(read_toml_file(path, BoardError), Path(path).name)


def bundled_boards() -> list[str]:
    """Names of the board files bundled next to the engine."""
    return sorted(
        entry.name[: -len(".toml")]
        for entry in BOARD_DIR.iterdir()
        if entry.name.endswith(".toml") and entry.name[: -len(".toml")] not in NOT_BOARDS
    )


@lru_cache(maxsize=8)
def _bundled(name: str) -> Board:
    if name not in bundled_boards():
        known = ", ".join(bundled_boards()) or "none ships, since the real board is unknown"
        raise BoardError(f"No board {name[:20]!r}", f"no bundled board {name!r} (bundled: {known}); give the board as a table")
    entry = BOARD_DIR.joinpath(f"{name}.toml")
    try:
        data = tomllib.loads(entry.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise BoardError("Board: not valid TOML", f"{name}.toml: not valid TOML: {error}") from None
    return parse_board(data, f"{name}.toml")


@lru_cache(maxsize=32)
def _inline(text: str) -> Board:
    return parse_board(json.loads(text))


def board_from_option(spec: Any) -> Board | None:
    """The board a `board` option names: a bundled name, an inline table, or None (no board)."""
    if spec is None:
        return None
    if isinstance(spec, str):
        return _bundled(spec)
    if isinstance(spec, dict):
        return _inline(json.dumps(spec, sort_keys=True))
    raise BoardError("Board: name or table", f"the board option is a bundled board's name, a table or null, not {spec!r}")


#: Boards by the identity of a game's options (shared by all its states, never mutated): no parsing per action.
_BY_OPTIONS: dict[int, tuple[dict, Board | None]] = {}
_BY_OPTIONS_MAX = 64


def board_for(options: dict) -> Board | None:
    """The board of a game whose options are `options`."""
    entry = _BY_OPTIONS.get(id(options))
    if entry is None or entry[0] is not options:
        if len(_BY_OPTIONS) >= _BY_OPTIONS_MAX:
            del _BY_OPTIONS[next(iter(_BY_OPTIONS))]
        entry = _BY_OPTIONS[id(options)] = (options, board_from_option(options.get("board")))
    return entry[1]
