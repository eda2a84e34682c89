"""Mongols components: 55 plan cards in five colours (free labels) and the parchment card."""

from engines.core import IllegalAction
from engines.core.manifest import Components, bundled_manifest, no_choices


def check(kind: str, fields: dict) -> None:
    colour = fields.get("color")
    if "color" in fields and (not isinstance(colour, str) or not colour.strip()):
        raise IllegalAction("Plan: colour needed", f"a plan card's colour is a non-empty label, not {colour!r}")
    if "parchment" in fields and fields["parchment"] is not True:
        raise IllegalAction("Parchment: true", f"the parchment card says parchment = true, not {fields['parchment']!r}")


COMPONENTS = Components(
    fields={"plan": ("color",), "parchment": ("parchment",)},
    required={"plan": ("color",), "parchment": ("parchment",)},
    check=check,
    choices=no_choices,
    totals={"plan": 55, "parchment": 1},
)


def manifest():
    return bundled_manifest(__package__, "mongols", COMPONENTS)
