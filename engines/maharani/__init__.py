"""Maharani / Mosaic Palace: lay mosaic tiles in the palace's quarters, place artisans, evaluate quarters (2-4 players)."""

from .board import Board, bundled_boards, load_board_file
from .components import COMPONENTS, manifest
from .engine import Maharani, MaharaniState, game

__all__ = ["COMPONENTS", "Board", "Maharani", "MaharaniState", "bundled_boards", "game", "load_board_file", "manifest"]
