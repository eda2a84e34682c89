"""Random-move bots, one module per game, for the contract tests, the benchmarks and recorded demos.

Each module `tests/engines/bots/<game>.py` defines `Bot(n_players, options, seed)` with
`choose(state) -> action` (a legal action, keeping the table's hidden information such as the deck),
and `SETUPS`, the (number of players, options) pairs its random games cover.
"""

import importlib
from types import ModuleType


def bot_module(game: str) -> ModuleType:
    return importlib.import_module(f"{__name__}.{game}")
