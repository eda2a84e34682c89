"""Loading the data files that live next to each engine (maps, decks, boards), once; and the limits on
a file a person gives to read (a board here; tag files, profiles, game logs and backups in firmware).

A file a person gives is refused (FileRefused, one sentence) over MAX_FILE bytes, before it is read,
and when what it holds nests deeper than MAX_DEPTH, or deeper than the parser's recursion or the
memory can take: no real board, tag map, profile or game log comes near either, and a file built to
exhaust the parser gets the same clear refusal as a syntax error, never a traceback.
"""

import json
import os
import tomllib
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Callable

from .errors import IllegalAction

#: the largest file a person gives to read, in bytes (a full Taj Mahal board file is under 20 KB)
MAX_FILE = 16 * 1024 * 1024
#: the deepest nesting of tables and lists such a file may have (real ones stay under 10)
MAX_DEPTH = 32


class FileRefused(ValueError):
    """A file refused for its size or its nesting, before or while it is parsed; the message is one
    sentence naming the file."""


def read_text(path: str | Path, limit: int = MAX_FILE) -> str:
    """The UTF-8 text of the file at `path`, refused (FileRefused) over `limit` bytes before it is read
    (a device or a pipe: once more than that arrived); OSError and UnicodeDecodeError as reading raises them."""
    with open(path, "rb") as file:
        size = os.fstat(file.fileno()).st_size
        data = b"" if size > limit else file.read(limit + 1)
    if size > limit or len(data) > limit:
        raise FileRefused(f"{path}: {max(size, len(data))} bytes, more than the {limit // 1024 // 1024} MB such a file may "
                          "have: refused before reading it")
    return data.decode("utf-8")


def parsed(parse: Callable[[str], Any], text: str, source: str) -> Any:
    """parse(text), refused (FileRefused) when what it holds nests deeper than MAX_DEPTH, or too deep
    for the parser (RecursionError) or too large for the memory (MemoryError)."""
    try:
        data = parse(text)
    except RecursionError:
        raise FileRefused(f"{source}: nested too deeply to be read (at most {MAX_DEPTH} levels of tables and lists)") from None
    except MemoryError:
        raise FileRefused(f"{source}: too large to be read in this machine's memory") from None
    if depth(data) > MAX_DEPTH:
        raise FileRefused(f"{source}: nested more than {MAX_DEPTH} levels of tables and lists deep")
    return data


def depth(value: Any) -> int:
    """How deep tables (dicts) and lists nest in `value` (0: neither), counted without recursion and
    only until MAX_DEPTH is passed."""
    deepest, stack = 0, [(value, 1)]
    while stack and deepest <= MAX_DEPTH:
        item, level = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is not None:
            deepest = max(deepest, level)
            stack.extend((child, level + 1) for child in children)
    return deepest


@lru_cache(maxsize=None)
def _load(package: str, filename: str) -> Any:
    text = resources.files(package).joinpath(filename).read_text(encoding="utf-8")
    if filename.endswith(".json"):
        return json.loads(text)
    if filename.endswith(".toml"):
        return tomllib.loads(text)
    raise ValueError(f"unsupported data file type: {filename}")


def load_data(package: str, filename: str) -> Any:
    """The parsed content of `filename` inside `package` (JSON or TOML), cached.

    Callers must treat the result as read-only: it is shared.
    """
    return _load(package, filename)


def read_toml_file(path: str | Path, error: type[IllegalAction] = IllegalAction) -> Any:
    """The content of a TOML file an owner wrote (a board), or `error` naming the file and the fault."""
    path = Path(path)
    try:
        return parsed(tomllib.loads, read_text(path), str(path))
    except FileRefused as fault:
        raise error("Board: file refused", str(fault)) from None
    except (OSError, UnicodeDecodeError) as fault:
        raise error("Board: cannot read file", f"cannot read board file {str(path)!r}: {fault}") from None
    except tomllib.TOMLDecodeError as fault:
        raise error("Board: not valid TOML", f"{path.name}: not valid TOML: {fault}") from None
