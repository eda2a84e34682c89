"""Maharani boards: read a board (a bundled TOML file, a file on disk, or an inline dict) and validate it.

Schema (design/game-log.md, section 6): `spaces = [{id, quarter, row, col}, ...]` and an optional
`name = "..."` (without one, a file is named after itself and an inline dict is "inline board").
Two spaces touch when one coordinate is equal and the other differs by exactly one. A board that breaks
the schema is refused with an IllegalAction whose message quotes the offending entry, so an owner
fixing a file sees which line to change.

States keep only a board's key (a short string); `board_of` turns it back into the Board, from a cache
or by reading the source named in the state's options again.
"""

import hashlib
import json
import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from engines.core import IllegalAction, load_data, read_toml_file

#: The bundled board used when the `board` option is not given.
DEFAULT = "board"
#: The name of an inline board that gives none (the contract's schema is only `spaces`).
INLINE_NAME = "inline board"
_SPACE_KEYS = ("id", "quarter", "row", "col")
_BOARD_KEYS = ("name", "spaces")
_NAME = re.compile(r"[a-z0-9_]+")


@dataclass(frozen=True)
class Board:
    """A validated board: its spaces (file order), their quarters and their orthogonal neighbours."""

    name: str
    spaces: tuple[str, ...]
    quarter_of: dict[str, int]
    quarters: tuple[int, ...]
    spaces_in: dict[int, tuple[str, ...]]
    neighbours: dict[str, tuple[str, ...]]
    #: space -> (row, col) on the board's grid, for drawing it
    position: dict[str, tuple[int, int]]

    @property
    def summary(self) -> str:
        """One line for `tablemate board check`: spaces per quarter."""
        sizes = ", ".join(f"Q{q} {len(self.spaces_in[q])}" for q in self.quarters)
        return f"{self.name}: {len(self.spaces)} spaces in {len(self.quarters)} quarters ({sizes})"


def _refuse(short: str, detail: str) -> IllegalAction:
    return IllegalAction(f"Board: {short}", f"bad Maharani board: {detail}")


def _int(space: dict, key: str) -> int:
    value = space[key]
    if type(value) is not int:
        raise _refuse(f"bad {key}", f"space {space!r}: {key!r} must be an integer, not {value!r}")
    return value


def parse(data: Any, default_name: str = INLINE_NAME) -> Board:
    """The Board described by `data` (the parsed file or inline dict), or IllegalAction naming the bad entry.

    A board without a name (or with a blank one) is called `default_name`.
    """
    if not isinstance(data, dict):
        raise _refuse("not a table", f"a board is a table with 'spaces' (and a 'name'), not {data!r}")
    extra = sorted(set(data) - set(_BOARD_KEYS))
    if extra:
        raise _refuse(f"unknown key {extra[0]!r}", f"unknown key(s) {', '.join(map(repr, extra))}; a board has {_BOARD_KEYS}")
    name = data.get("name", default_name)
    if not isinstance(name, str):
        raise _refuse("bad name", f"'name' must be a string, not {name!r}")
    spaces = data.get("spaces")
    if not isinstance(spaces, list) or not spaces:
        raise _refuse("no spaces", f"'spaces' must be a non-empty list of spaces, not {spaces!r}")
    quarter_of: dict[str, int] = {}
    at: dict[tuple[int, int], str] = {}
    for space in spaces:
        if not isinstance(space, dict):
            raise _refuse("bad space", f"space {space!r} must be a table {{id, quarter, row, col}}")
        missing = [key for key in _SPACE_KEYS if key not in space]
        unknown = sorted(set(space) - set(_SPACE_KEYS))
        if missing or unknown:
            what = f"has no {missing[0]!r}" if missing else f"has an unknown key {unknown[0]!r}"
            raise _refuse("bad space", f"space {space!r} {what}; a space has exactly {', '.join(_SPACE_KEYS)}")
        space_id = space["id"]
        if not isinstance(space_id, str) or not space_id.strip():
            raise _refuse("bad space id", f"space {space!r}: 'id' must be a non-empty string")
        quarter, row, col = _int(space, "quarter"), _int(space, "row"), _int(space, "col")
        if quarter < 1:
            raise _refuse("bad quarter", f"space {space!r}: quarters are numbered from 1")
        if space_id in quarter_of:
            raise _refuse(f"space {space_id!r} twice", f"space {space!r} listed twice")
        if (row, col) in at:
            raise _refuse("two spaces, 1 square", f"space {space!r} is on the same square as space {at[row, col]!r}")
        quarter_of[space_id] = quarter
        at[row, col] = space_id
    neighbours = {
        space_id: tuple(at[near] for near in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)) if near in at)
        for (r, c), space_id in at.items()
    }
    quarters = tuple(sorted(set(quarter_of.values())))
    return Board(
        name=name.strip() or default_name,
        spaces=tuple(quarter_of),
        quarter_of=quarter_of,
        quarters=quarters,
        spaces_in={q: tuple(s for s, sq in quarter_of.items() if sq == q) for q in quarters},
        neighbours={space_id: neighbours[space_id] for space_id in quarter_of},
        position={space_id: rc for rc, space_id in at.items()},
    )


def bundled_boards() -> list[str]:
    """The boards shipped next to the engine (file names without `.toml`; the component manifest is not one)."""
    folder = resources.files(__package__)
    return sorted(entry.name[:-5] for entry in folder.iterdir() if entry.name.endswith(".toml") and entry.name != "manifest.toml")


@lru_cache(maxsize=None)
def _bundled(name: str) -> Board:
    if not _NAME.fullmatch(name) or name not in bundled_boards():
        raise _refuse(f"no board {name!r}", f"no bundled board {name!r}; the bundled boards are: {', '.join(bundled_boards())}")
    try:
        data = load_data(__package__, f"{name}.toml")
    except tomllib.TOMLDecodeError as error:
        raise _refuse("not TOML", f"{name}.toml is not valid TOML: {error}") from None
    return parse(data, name)


def load_board_file(path: str | Path) -> Board:
    """The Board in the TOML file at `path` (for `tablemate board check maharani FILE`); IllegalAction if bad."""
    return parse(read_toml_file(path), Path(path).stem)


_by_key: dict[str, Board] = {}


def resolve(source: Any) -> tuple[str, Board]:
    """The key and Board of the `board` option: None (the default), a bundled name, or an inline dict."""
    if source is None:
        source = DEFAULT
    if isinstance(source, str):
        key, board = f"bundled:{source}", _bundled(source)
    elif isinstance(source, dict):
        text = json.dumps(source, sort_keys=True)
        key = "inline:" + hashlib.sha1(text.encode()).hexdigest()
        board = _by_key.get(key) or parse(source)
    else:
        raise _refuse("name or table", f"the 'board' option is a bundled board's name or a table, not {source!r}")
    _by_key[key] = board
    return key, board


def board_of(key: str, source: Any) -> Board:
    """The Board of a state: `key` from the cache, else read again from `source` (its `board` option)."""
    board = _by_key.get(key)
    return board if board is not None else resolve(source)[1]
