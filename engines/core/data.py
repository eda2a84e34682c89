"""Loading the data files that live next to each engine (maps, decks, boards), once."""

import json
import tomllib
from functools import lru_cache
from importlib import resources
from typing import Any


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
