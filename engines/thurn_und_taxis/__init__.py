"""Thurn und Taxis: build postal routes across southern Germany and place houses (2-4 players)."""

from .engine import ThurnUndTaxis, TnTState, game

__all__ = ["ThurnUndTaxis", "TnTState", "game"]
