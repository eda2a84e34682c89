"""Table adapters, one per game: how taps and presses become that game's actions."""

import importlib
from typing import Sequence

from ..boards import Offer
from .base import Adapter


def adapter_for(game: str, hints: bool = True, boards: Sequence[Offer] = ()) -> Adapter:
    """The table adapter of `game`; with `hints` it also says what a move would do; `boards` are the
    boards set-up offers (the owner's, then the bundled ones: firmware.boards)."""
    module = importlib.import_module(f"{__name__}.{game}")
    return next(
        cls(hints, boards) for cls in vars(module).values() if isinstance(cls, type) and issubclass(cls, Adapter) and cls is not Adapter
    )
