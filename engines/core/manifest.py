"""Component manifests: every physical component of a game that the table identifies by tapping it.

Each game ships `manifest.toml` next to its engine: groups of components with what is known about
them (`known`) and what the owner picks at enrolment because nobody knows it yet (`ask`), how sure the
known part is (`confidence`) and where it comes from (`source`). A game describes its descriptors once
(`Components`); the same description checks the manifest, the tag files an owner imports, and offers
the choices for asked fields, so a manifest can never promise a component the engine would refuse.
"""

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, Mapping

from .data import load_data
from .errors import IllegalAction

KEYS = ("label", "kind", "id", "count", "known", "ask", "confidence", "source")
CONFIDENCE = ("high", "medium", "unknown")


class ManifestError(ValueError):
    """A manifest that breaks its schema or disagrees with the engine; the message names the group."""


@dataclass(frozen=True, eq=False)
class Components:
    """What a game's component descriptors look like.

    `fields`: kind -> every field a descriptor of that kind may carry (besides `id`); `required`: the
    ones it must carry; `check(kind, fields)` raises IllegalAction for a bad value among the fields
    given (any subset); `choices(kind, known)` lists the ways to complete the asked fields, each a dict
    of field values; `totals`: kind -> how many such components the box holds.
    """

    fields: Mapping[str, tuple[str, ...]]
    required: Mapping[str, tuple[str, ...]]
    check: Callable[[str, dict], None]
    choices: Callable[[str, dict], list[dict]]
    totals: Mapping[str, int] = field(default_factory=dict)

    def descriptor_problem(self, kind: str, descriptor: Any) -> str | None:
        """Why `descriptor` is not a complete component of `kind` (with an id), or None when it is."""
        if kind not in self.fields:
            return f"unknown kind {kind!r}; the kinds are {', '.join(self.fields)}"
        if not isinstance(descriptor, dict):
            return f"a descriptor is a table of fields, not {descriptor!r}"
        ident = descriptor.get("id")
        if not isinstance(ident, str) or not ident.strip():
            return f"{descriptor!r} needs a non-empty 'id'"
        missing = [key for key in self.required[kind] if key not in descriptor]
        if missing:
            return f"a {kind} needs {', '.join(map(repr, missing))}: {descriptor!r}"
        try:
            self.check(kind, {key: value for key, value in descriptor.items() if key in self.fields[kind]})
        except IllegalAction as refused:
            return str(refused)
        return None


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


def parse_manifest(data: Any, game: str, components: Components) -> tuple[Group, ...]:
    """The groups of a manifest's content; anything wrong raises ManifestError naming the group."""
    if not isinstance(data, dict) or set(data) != {"game", "group"} or data["game"] != game or not isinstance(data["group"], list):
        raise ManifestError(f'a manifest has exactly: game = "{game}" and [[group]] tables')
    groups = tuple(_group(number, raw, components) for number, raw in enumerate(data["group"], start=1))
    seen: dict[str, str] = {}
    for group in groups:
        for ident in group.ids():
            if ident in seen:
                raise ManifestError(f"group {group.label!r}: id {ident!r} is also in group {seen[ident]!r}")
            seen[ident] = group.label
    for kind, total in components.totals.items():
        found = sum(g.count for g in groups if g.kind == kind)
        if found != total:
            raise ManifestError(f"the manifest lists {found} {kind} components; the game has {total}")
    return groups


def _group(number: int, raw: Any, components: Components) -> Group:
    where = f"group #{number}" + (f" ({raw.get('label')!r})" if isinstance(raw, dict) else "")
    if not isinstance(raw, dict) or set(raw) != set(KEYS):
        keys = sorted(raw) if isinstance(raw, dict) else raw
        raise ManifestError(f"{where}: needs exactly the keys {', '.join(KEYS)}, has {keys!r}")
    kind, count, known, ask = raw["kind"], raw["count"], raw["known"], raw["ask"]
    if kind not in components.fields:
        raise ManifestError(f"{where}: kind {kind!r} is not one of {', '.join(components.fields)}")
    if type(count) is not int or count < 1:
        raise ManifestError(f"{where}: count must be a positive integer, not {count!r}")
    if not isinstance(raw["id"], str) or (count > 1 and "{n}" not in raw["id"]):
        raise ManifestError(f"{where}: id must be a string with {{n}} when count > 1, not {raw['id']!r}")
    if not isinstance(known, dict) or not isinstance(ask, list):
        raise ManifestError(f"{where}: known is a table and ask a list")
    unknown = [key for key in [*known, *ask] if key not in components.fields[kind]]
    if unknown:
        raise ManifestError(f"{where}: {unknown[0]!r} is not a field of a {kind} ({', '.join(components.fields[kind])})")
    if set(known) & set(ask):
        raise ManifestError(f"{where}: a field is both known and asked: {sorted(set(known) & set(ask))}")
    missing = [key for key in components.required[kind] if key not in known and key not in ask]
    if missing:
        raise ManifestError(f"{where}: {missing[0]!r} is neither known nor asked, so enrolment cannot complete it")
    try:
        components.check(kind, known)
    except IllegalAction as refused:
        raise ManifestError(f"{where}: the engine refuses its known fields: {refused}") from None
    if ask and not components.choices(kind, known):
        raise ManifestError(f"{where}: asks {ask} but the game offers no choices for them")
    if raw["confidence"] not in CONFIDENCE:
        raise ManifestError(f"{where}: confidence {raw['confidence']!r} is not one of {', '.join(CONFIDENCE)}")
    for key in ("label", "source"):
        if not isinstance(raw[key], str) or not raw[key].strip():
            raise ManifestError(f"{where}: {key} must be a non-empty string")
    return Group(raw["label"], kind, raw["id"], count, dict(known), tuple(ask), raw["confidence"], raw["source"])


@lru_cache(maxsize=None)
def bundled_manifest(package: str, game: str, components: Components) -> tuple[Group, ...]:
    """The checked groups of `manifest.toml` in a game's package."""
    return parse_manifest(load_data(package, "manifest.toml"), game, components)


def no_choices(kind: str, known: dict) -> list[dict]:
    """For games whose manifest asks nothing: every field of every component is known."""
    return []
