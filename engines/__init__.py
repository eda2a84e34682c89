"""Pure rules engines, one package per game, behind one API (design/game-log.md, section 1).

A game is a subpackage that exposes `game`, an instance of `engines.core.Game`; adding a package is
all it takes for `names()` and `get()` to know it.
"""

import importlib
import pkgutil
from functools import lru_cache
from typing import Any, Iterable, Mapping

from .core import Game, IllegalAction, Preview, Prompt, Score, State, UnknownGame

__all__ = ["Game", "IllegalAction", "Preview", "Prompt", "Score", "State", "UnknownGame", "get", "names", "replay"]


@lru_cache(maxsize=1)
def _names() -> tuple[str, ...]:
    return tuple(sorted(m.name for m in pkgutil.iter_modules(__path__) if m.ispkg and m.name != "core"))


def names() -> list[str]:
    """The installed games' names, sorted."""
    return list(_names())


def get(name: str) -> Game:
    """The engine of game `name`; an unknown name raises UnknownGame listing the known ones."""
    if name not in _names():
        raise UnknownGame(name, names())
    return _game(name)


@lru_cache(maxsize=None)
def _game(name: str) -> Game:
    """Imported once: the table asks for its game's engine several times per input."""
    return importlib.import_module(f"{__name__}.{name}").game


def replay(name: str, players: Iterable[str], options: Mapping[str, Any] | None, actions: Iterable[Any]) -> State:
    """The state of game `name` after `actions` (a refused action raises IllegalAction naming its place)."""
    return get(name).replay(players, options, actions)
