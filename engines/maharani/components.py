"""Maharani components: 60 mosaic tiles, ten in each of six colours (free labels)."""

from engines.core import IllegalAction
from engines.core.manifest import Components, bundled_manifest, no_choices


def check(kind: str, fields: dict) -> None:
    colour = fields.get("color")
    if "color" in fields and (not isinstance(colour, str) or not colour.strip()):
        raise IllegalAction("Tile: colour needed", f"a tile's colour is a non-empty label, not {colour!r}")


COMPONENTS = Components(fields={"tile": ("color",)}, required={"tile": ("color",)}, check=check, choices=no_choices, totals={"tile": 60})


def manifest():
    return bundled_manifest(__package__, "maharani", COMPONENTS)
