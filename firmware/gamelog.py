"""Game log files: a header (game, players, options) and the accepted actions, as one JSON object.

This is the format of `tablemate log export` and of `tablemate replay FILE`; it needs nothing else
(no tag map, no hardware) to be replayed.
"""

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import engines
from engines.core.data import FileRefused, parsed, read_text


class BadLog(ValueError):
    """A game log file that cannot be read; the message says what is wrong and where."""


@dataclass
class GameLog:
    game: str
    players: list[str]
    options: dict[str, Any] = field(default_factory=dict)
    actions: list[dict] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"game": self.game, "players": self.players, "options": self.options, "actions": self.actions}

    def replay(self) -> engines.State:
        """The state after every action (IllegalAction names the first refused one)."""
        return engines.replay(self.game, self.players, self.options, self.actions)


def parse(data: Any, source: str = "game log") -> GameLog:
    if not isinstance(data, dict):
        raise BadLog(f"{source}: a game log is a JSON object with game, players, options and actions")
    unknown = sorted(set(data) - {"game", "players", "options", "actions"})
    if unknown:
        raise BadLog(f"{source}: unknown key {unknown[0]!r}")
    name = data.get("game")
    if name not in engines.names():
        raise BadLog(f"{source}: unknown game {name!r}; the games are {', '.join(engines.names())}")
    players, options, actions = data.get("players"), data.get("options", {}), data.get("actions", [])
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise BadLog(f"{source}: 'players' must be a list of names")
    if not isinstance(options, dict):
        raise BadLog(f"{source}: 'options' must be an object")
    if not isinstance(actions, list):
        raise BadLog(f"{source}: 'actions' must be a list")
    return GameLog(name, players, options, actions)


def load(path: str | Path) -> GameLog:
    try:
        data = parsed(json.loads, read_text(path), str(path))
    except OSError as error:
        raise BadLog(f"{path}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise BadLog(f"{path}: not JSON (not UTF-8 text)") from None
    except json.JSONDecodeError as error:
        raise BadLog(f"{path}: not JSON ({error.msg} at line {error.lineno})") from None
    except FileRefused as error:
        raise BadLog(str(error)) from None
    return parse(data, str(path))
