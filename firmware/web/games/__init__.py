"""Per-game views for the web page: what to show of a state, the board drawing, the log lines.

A game gets its own look by adding one module here named like its engine (`thurn_und_taxis.py`)
that defines any of:

- `view(game, state) -> {"seats": [{label: text}, ...], "table": {label: text}}`: what each seat
  holds and what lies on the table, as display text (a list of texts shows as lines), in the order
  the page shows it;
- `board(game, state) -> str | None`: an SVG drawing of the board (built with `firmware.web.svg`);
- `describe(game, state, action) -> str`: one line for the timeline, `state` being the state
  before the action.

What a module leaves out comes from `generic`, which shows any engine's state field by field, so a
newly merged engine is already readable on the page before its module exists.
"""

import importlib
import pkgutil
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable

from . import generic


@dataclass(frozen=True)
class Renderer:
    view: Callable[[Any, Any], dict]
    board: Callable[[Any, Any], str | None]
    describe: Callable[[Any, Any, dict], str]


@lru_cache(maxsize=None)
def renderer(name: str) -> Renderer:
    """The views of game `name`: its own module's functions where it has them, else the generic ones."""
    own = {m.name for m in pkgutil.iter_modules(__path__)} - {"generic"}
    module = importlib.import_module(f"{__name__}.{name}") if name in own else generic
    return Renderer(
        view=getattr(module, "view", generic.view),
        board=getattr(module, "board", generic.board),
        describe=getattr(module, "describe", generic.describe),
    )
