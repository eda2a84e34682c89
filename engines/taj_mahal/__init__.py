"""Taj Mahal: twelve rounds of influence in the provinces of India, majorities resolved at withdraw (3-5 players)."""

from .board import Board, BoardError, bundled_boards, load_board_file, parse_board
from .components import COMPONENTS
from .engine import TajMahal, TajState, game
from .manifest import Group, ManifestError, manifest

__all__ = [
    "COMPONENTS",
    "Board",
    "BoardError",
    "bundled_boards",
    "Group",
    "ManifestError",
    "TajMahal",
    "TajState",
    "game",
    "load_board_file",
    "manifest",
    "parse_board",
]
