"""Thurn und Taxis components: 66 city cards, three for each of the 22 cities (map.json)."""

from engines.core import IllegalAction
from engines.core.manifest import Components, bundled_manifest, no_choices

from .board import board


def check(kind: str, fields: dict) -> None:
    city = fields.get("city")
    if "city" in fields and city not in board().city_name:
        raise IllegalAction("Unknown city", f"{city!r} is not a city of the map: {', '.join(board().cities)}")


COMPONENTS = Components(fields={"card": ("city",)}, required={"card": ("city",)}, check=check, choices=no_choices, totals={"card": 66})


def manifest():
    return bundled_manifest(__package__, "thurn_und_taxis", COMPONENTS)
