"""Per-game views for the web page: what to show of a state, the board drawing, the log lines.

A game gets its own look by adding one module here named like its engine (`thurn_und_taxis.py`)
that defines any of:

- `view(game, state) -> {"seats": [{label: text}, ...], "table": {label: text}}`: what each seat
  holds and what lies on the table, as display text (a list of texts shows as lines), in the order
  the page shows it;
- `board(game, state) -> str | None`: an SVG drawing of the board (built with `firmware.web.svg`);
- `describe(game, state, action) -> str`: one line for the timeline, `state` being the state
  before the action;
- `hints(game, state) -> {seat: text}`: what a move would do, per seat (shown when the table plays
  with hints).

What a module leaves out comes from `generic`, which shows any engine's state field by field, so a
newly merged engine is already readable on the page before its module exists. Should a game's own
function fail on some state, the failure is logged and the generic one answers instead: the scores
stay on the table's screen of record, the phone, whatever the drawing code does.
"""

import importlib
import logging
import pkgutil
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable

from . import generic

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Renderer:
    view: Callable[[Any, Any], dict]
    board: Callable[[Any, Any], str | None]
    describe: Callable[[Any, Any, dict], str]
    hints: Callable[[Any, Any], dict[int, str]]


@lru_cache(maxsize=None)
def renderer(name: str) -> Renderer:
    """The views of game `name`: its own module's functions where it has them, else the generic ones."""
    own = {m.name for m in pkgutil.iter_modules(__path__)} - {"generic"}
    module = importlib.import_module(f"{__name__}.{name}") if name in own else generic
    return Renderer(**{what: _guarded(name, what, getattr(module, what, None)) for what in ("view", "board", "describe", "hints")})


def _guarded(name: str, what: str, own: Callable | None) -> Callable:
    fallback = getattr(generic, what)
    if own is None or own is fallback:
        return fallback

    def call(*args: Any) -> Any:
        try:
            return own(*args)
        except Exception:
            log.exception("the %s %s view failed; showing the generic one", name, what)
            return fallback(*args)

    call.own = own
    return call
