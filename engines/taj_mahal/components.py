"""Taj Mahal's vocabulary and the descriptors of its components: what a tapped card or tile may say.

The table sends descriptors taken from the enrolled tag map (design/game-log.md, section 2). The engine
trusts what they say but refuses anything outside the vocabulary or the printed structure: a coloured card
shows two symbols and a white card one (notes/game-data.md, high confidence), province tile 1 shows one
good and the others two (rules/000: "Il n'y a qu'une seule ressource dans la première province; il y en a
deux dans toutes les autres"). Keys a descriptor adds (a label written at enrolment) are allowed.
The same checks serve the deck manifest (manifest.py), so a manifest can never promise a component the
engine would refuse.
"""

from itertools import combinations, combinations_with_replacement
from typing import Any, NamedTuple

from engines.core import IllegalAction, check
from engines.core.manifest import Components

COLOURS = ("red", "yellow", "green", "purple")
WHITE = "white"
SYMBOLS = ("vizier", "general", "monk", "princess", "mogul", "elephant")
#: The four influence tokens at the court; the mogul wins the crown and the elephant the province tile.
INFLUENCE = ("vizier", "general", "monk", "princess")
GOODS = ("rice", "tea", "spice", "jewels")
SPECIALS = ("elephant", "mogul", "points", "color_change")
BONUS_KINDS = ("points", "card", "goods", "taj")
#: The special card two identical influence tokens are exchanged for (rules/003's table).
SPECIAL_FOR_TOKEN = {"general": "elephant", "vizier": "mogul", "princess": "points", "monk": "color_change"}
SPECIAL_LABEL = {"elephant": "+1 elephant", "mogul": "+1 mogul", "points": "+2 points", "color_change": "colour change"}
ROUNDS = 12
#: Fields each kind of descriptor needs (a goods bonus tile also names its good).
REQUIRED = {"card": ("id", "color", "symbols"), "special": ("id", "special"), "province": ("number", "goods"), "bonus": ("kind",)}
FIELDS = {**REQUIRED, "bonus": ("kind", "goods")}


class Card(NamedTuple):
    id: str
    color: str
    symbols: tuple[str, ...]


class Special(NamedTuple):
    id: str
    special: str


class ProvinceTile(NamedTuple):
    number: int
    goods: tuple[str, ...]


class BonusTile(NamedTuple):
    kind: str
    goods: str | None


def _bad(short: str, detail: str) -> IllegalAction:
    return IllegalAction(short, detail)


def _known(values: list, vocabulary: tuple[str, ...], what: str) -> None:
    """Every one of `values` is a word of `vocabulary`."""
    for value in values:
        if value not in vocabulary:
            raise _bad(f"Unknown {what} {str(value)[:12]!r}", f"{what} {value!r} is not one of: {', '.join(vocabulary)}")


def _object(desc: Any, what: str) -> dict:
    if not isinstance(desc, dict):
        raise _bad(f"{what.capitalize()}: not an object", f"a {what} is described by an object, not {desc!r}")
    return desc


def _id(desc: dict, what: str) -> str:
    ident = check.field(desc, "id", str, what=what)
    if not ident.strip():
        raise _bad(f"{what.capitalize()}: empty id", f"{what} {desc!r} has an empty id")
    return ident


def check_fields(kind: str, fields: dict) -> None:
    """Check the descriptor fields of `kind` present in `fields` (any subset): the vocabulary and the printed structure."""
    checks = {"card": _card_fields, "special": _special_fields, "province": _province_fields, "bonus": _bonus_fields}
    checks[kind](fields)


def _card_fields(desc: dict) -> None:
    colour = desc.get("color")
    if "color" in desc:
        _known([colour], COLOURS + (WHITE,), "colour")
    if "symbols" not in desc:
        return
    symbols = check.field(desc, "symbols", list, what="card")
    _known(symbols, SYMBOLS, "symbol")
    if colour == WHITE and len(symbols) != 1:
        raise _bad("A white card: 1 symbol", f"a white card shows exactly one symbol, not {symbols!r}")
    if colour in COLOURS and len(symbols) != 2:
        raise _bad(f"A {colour} card: 2 symbols", f"a coloured card shows exactly two symbols, not {symbols!r}")


def _special_fields(desc: dict) -> None:
    if "special" in desc:
        _known([desc["special"]], SPECIALS, "special")


def _province_fields(desc: dict) -> None:
    number = desc.get("number")
    if "number" in desc and (type(number) is not int or not 1 <= number <= ROUNDS):
        raise _bad("Province tile: 1 to 12", f"province tiles are numbered 1 to {ROUNDS}, not {number!r}")
    if "goods" not in desc:
        return
    goods = check.field(desc, "goods", list, what="province tile")
    _known(goods, GOODS, "good")
    if "number" in desc:
        wanted = 1 if number == 1 else 2
        if len(goods) != wanted:
            raise _bad(
                f"Tile {number} shows {wanted} good{'s' * (wanted > 1)}",
                f"province tile 1 shows one good and the others two (rules/000); tile {number} cannot show {goods!r}",
            )


def _bonus_fields(desc: dict) -> None:
    kind, good = desc.get("kind"), desc.get("goods")
    if "kind" in desc:
        _known([kind], BONUS_KINDS, "bonus kind")
    if good is not None:
        _known([good], GOODS, "good")
    if "kind" in desc and (kind == "goods") != (good is not None):
        raise _bad(
            "Goods bonus: 1 good" if kind == "goods" else "Bonus: no good on it",
            f"a goods bonus tile names its one good, other bonus tiles none: {desc!r}",
        )


def read_item(desc: Any) -> Card | Special:
    """A played card: a coloured or white card, or a special card (it has a 'special' field)."""
    desc = _object(desc, "card")
    if "special" in desc:
        if "color" in desc or "symbols" in desc:
            raise _bad("Card or special card?", f"{desc!r} has both a special and a colour or symbols")
        ident = _id(desc, "special card")
        check.field(desc, "special", str, what="special card")
        _special_fields(desc)
        return Special(ident, desc["special"])
    return read_card(desc)


def read_card(desc: Any) -> Card:
    """A coloured or white card (not a special one)."""
    desc = _object(desc, "card")
    if "special" in desc:
        raise _bad("Not a special card here", f"{desc!r} is a special card; the engine keeps track of those itself")
    ident = _id(desc, "card")
    check.field(desc, "color", str, what="card")
    check.field(desc, "symbols", list, what="card")
    _card_fields(desc)
    return Card(ident, desc["color"], tuple(desc["symbols"]))


def read_province_tile(desc: Any) -> ProvinceTile:
    desc = _object(desc, "province tile")
    check.field(desc, "number", int, what="province tile")
    check.field(desc, "goods", list, what="province tile")
    _province_fields(desc)
    return ProvinceTile(desc["number"], tuple(desc["goods"]))


def read_bonus_tile(desc: Any) -> BonusTile:
    desc = _object(desc, "bonus tile")
    check.field(desc, "kind", str, what="bonus tile")
    if desc.get("goods") is not None:
        check.field(desc, "goods", str, what="bonus tile")
    _bonus_fields(desc)
    return BonusTile(desc["kind"], desc.get("goods"))


def choices(kind: str, known: dict) -> list[dict]:
    """The ways an owner can complete a component whose other fields are `known`, at enrolment.

    A coloured card shows two different symbols or two elephants; a white card one symbol; province
    tile 1 one good and the others two; a square bonus tile +2 points, a card, or one good.
    """
    if kind == "card":
        colour = known.get("color")
        if colour == WHITE:
            return [{"symbols": [symbol]} for symbol in SYMBOLS]
        pairs = [list(pair) for pair in combinations(SYMBOLS, 2)] + [["elephant", "elephant"]]
        return [{"symbols": pair} for pair in pairs] if colour in COLOURS else []
    if kind == "province":
        singles = "number" in known and known["number"] == 1
        goods = [[good] for good in GOODS] if singles else [list(pair) for pair in combinations_with_replacement(GOODS, 2)]
        return [{"goods": g} for g in goods]
    if kind == "bonus":
        return [{"kind": "points"}, {"kind": "card"}] + [{"kind": "goods", "goods": good} for good in GOODS]
    return []


#: Taj Mahal's components for manifests and tag files; ids come from enrolment.
COMPONENTS = Components(
    fields={kind: tuple(key for key in keys if key != "id") for kind, keys in FIELDS.items()},
    required={kind: tuple(key for key in keys if key != "id") for kind, keys in REQUIRED.items()},
    check=check_fields,
    choices=choices,
    totals={"card": 96, "special": 4, "province": 12, "bonus": 16},
)
