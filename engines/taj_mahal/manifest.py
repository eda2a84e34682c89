"""The Taj Mahal component manifest (manifest.toml), checked against the engine.

On top of the common manifest checks (engines.core.manifest): the rule text's cards per colour,
21 of each of red, yellow, green and purple, and 12 white.
"""

from functools import lru_cache
from typing import Any

from engines.core import load_data
from engines.core.manifest import Group, ManifestError, parse_manifest

from .components import COLOURS, COMPONENTS, WHITE

PER_COLOUR, WHITES = 21, 12


def parse(data: Any) -> tuple[Group, ...]:
    groups = parse_manifest(data, "taj_mahal", COMPONENTS)
    for colour in COLOURS + (WHITE,):
        found = sum(g.count for g in groups if g.kind == "card" and g.known.get("color") == colour)
        wanted = WHITES if colour == WHITE else PER_COLOUR
        if found != wanted:
            raise ManifestError(f"the manifest lists {found} {colour} cards; the game has {wanted}")
    return groups


@lru_cache(maxsize=1)
def manifest() -> tuple[Group, ...]:
    """The groups of the bundled manifest.toml, checked."""
    return parse(load_data(__package__, "manifest.toml"))
