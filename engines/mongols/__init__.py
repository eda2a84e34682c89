"""Mongols: throw dice to lower gems, collect plan cards, win the advisors by majority (2-5 players)."""

from .components import COMPONENTS, manifest
from .engine import Mongols, MongolsState, game

__all__ = ["COMPONENTS", "Mongols", "MongolsState", "game", "manifest"]
