"""Thurn und Taxis: build postal routes across southern Germany and place houses (2-4 players)."""

from .components import COMPONENTS, manifest
from .engine import ThurnUndTaxis, TnTState, game

__all__ = ["COMPONENTS", "ThurnUndTaxis", "TnTState", "game", "manifest"]
