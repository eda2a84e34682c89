"""Loading the data files that live next to each engine (maps, decks, boards), once."""

import json
import tomllib
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from .errors import IllegalAction


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
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as fault:
        raise error("Board: cannot read file", f"cannot read board file {str(path)!r}: {fault}") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as fault:
        raise error("Board: not valid TOML", f"{path.name}: not valid TOML: {fault}") from None
