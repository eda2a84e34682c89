"""The shared core of every engine: the contract (Game, State), its values and errors, and helpers."""

from . import check
from .data import load_data, read_toml_file
from .errors import SHORT_MAX, IllegalAction, UnknownGame
from .game import Game, State
from .turns import clockwise_from, leaders, next_seat, strict_majority
from .types import Preview, Prompt, Score

__all__ = [
    "SHORT_MAX",
    "Game",
    "IllegalAction",
    "Preview",
    "Prompt",
    "Score",
    "State",
    "UnknownGame",
    "check",
    "clockwise_from",
    "leaders",
    "load_data",
    "next_seat",
    "read_toml_file",
    "strict_majority",
]
