"""The Taj Mahal deck manifest (manifest.toml): what enrolment asks the owner to tap, checked against the engine.

The manifest is data for enrolment, not for the engine (which trusts the descriptors of enrolled tags).
Loading it checks the project-wide schema (label, kind, id, count, known, ask, confidence, source), that
every known descriptor field passes the engine's own checks (components.py), that known and asked fields
together make complete descriptors, that ids never collide, and that the totals are the rule text's
("100 cartes" = 96 + 4 special, "12 jetons province", "16 jetons bonus").
"""

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from engines.core import IllegalAction, load_data

from .components import COLOURS, FIELDS, REQUIRED, WHITE, check_fields

KEYS = ("label", "kind", "id", "count", "known", "ask", "confidence", "source")
CONFIDENCE = ("high", "medium", "unknown")
TOTALS = {"card": 96, "special": 4, "province": 12, "bonus": 16}
PER_COLOUR, WHITES = 21, 12


class ManifestError(ValueError):
    """The manifest breaks its schema or disagrees with the engine; the message names the group."""


@dataclass(frozen=True)
class Group:
    label: str
    kind: str
    id: str
    count: int
    known: dict
    ask: tuple[str, ...]
    confidence: str
    source: str

    def ids(self) -> list[str]:
        """The component ids of the group: the pattern with {n} = 1..count."""
        return [self.id.replace("{n}", str(n)) for n in range(1, self.count + 1)]


def parse_manifest(data: Any) -> tuple[Group, ...]:
    """The groups of a manifest's content; anything wrong raises ManifestError naming the group."""
    if (
        not isinstance(data, dict)
        or set(data) != {"game", "group"}
        or data["game"] != "taj_mahal"
        or not isinstance(data["group"], list)
    ):
        raise ManifestError('a Taj Mahal manifest has exactly: game = "taj_mahal" and [[group]] tables')
    groups = tuple(_group(number, raw) for number, raw in enumerate(data["group"], start=1))
    seen: dict[str, str] = {}
    for group in groups:
        for ident in group.ids():
            if ident in seen:
                raise ManifestError(f"group {group.label!r}: id {ident!r} is also in group {seen[ident]!r}")
            seen[ident] = group.label
    _check_totals(groups)
    return groups


def _group(number: int, raw: Any) -> Group:
    where = f"group #{number}" + (f" ({raw.get('label')!r})" if isinstance(raw, dict) else "")
    if not isinstance(raw, dict) or set(raw) != set(KEYS):
        keys = sorted(raw) if isinstance(raw, dict) else raw
        raise ManifestError(f"{where}: needs exactly the keys {', '.join(KEYS)}, has {keys!r}")
    kind, count, known, ask = raw["kind"], raw["count"], raw["known"], raw["ask"]
    if kind not in REQUIRED:
        raise ManifestError(f"{where}: kind {kind!r} is not one of {', '.join(REQUIRED)}")
    if type(count) is not int or count < 1:
        raise ManifestError(f"{where}: count must be a positive integer, not {count!r}")
    if not isinstance(raw["id"], str) or (count > 1 and "{n}" not in raw["id"]):
        raise ManifestError(f"{where}: id must be a string with {{n}} when count > 1, not {raw['id']!r}")
    if not isinstance(known, dict) or not isinstance(ask, list):
        raise ManifestError(f"{where}: known is a table and ask a list")
    unknown = [key for key in [*known, *ask] if key not in FIELDS[kind] or key == "id"]
    if unknown:
        fields = ", ".join(key for key in FIELDS[kind] if key != "id")
        raise ManifestError(f"{where}: {unknown[0]!r} is not a field a {kind} descriptor's owner can know or pick ({fields})")
    if set(known) & set(ask):
        raise ManifestError(f"{where}: a field is both known and asked: {sorted(set(known) & set(ask))}")
    missing = [key for key in REQUIRED[kind] if key != "id" and key not in known and key not in ask]
    if missing:
        raise ManifestError(f"{where}: {missing[0]!r} is neither known nor asked, so enrolment cannot complete it")
    try:
        check_fields(kind, known)
    except IllegalAction as refused:
        raise ManifestError(f"{where}: the engine refuses its known fields: {refused}") from None
    if raw["confidence"] not in CONFIDENCE:
        raise ManifestError(f"{where}: confidence {raw['confidence']!r} is not one of {', '.join(CONFIDENCE)}")
    for key in ("label", "source"):
        if not isinstance(raw[key], str) or not raw[key].strip():
            raise ManifestError(f"{where}: {key} must be a non-empty string")
    return Group(raw["label"], kind, raw["id"], count, dict(known), tuple(ask), raw["confidence"], raw["source"])


def _check_totals(groups: tuple[Group, ...]) -> None:
    for kind, total in TOTALS.items():
        found = sum(g.count for g in groups if g.kind == kind)
        if found != total:
            raise ManifestError(f"the manifest lists {found} {kind} components; the game has {total}")
    for colour in COLOURS + (WHITE,):
        found = sum(g.count for g in groups if g.kind == "card" and g.known.get("color") == colour)
        wanted = WHITES if colour == WHITE else PER_COLOUR
        if found != wanted:
            raise ManifestError(f"the manifest lists {found} {colour} cards; the game has {wanted}")


@lru_cache(maxsize=1)
def manifest() -> tuple[Group, ...]:
    """The groups of the bundled manifest.toml, checked."""
    return parse_manifest(load_data(__package__, "manifest.toml"))
