"""Mongols: throw dice to lower gems, collect plan cards, win the advisors by majority (2-5 players)."""

from .engine import Mongols, MongolsState, game

__all__ = ["Mongols", "MongolsState", "game"]
