"""Reading fields out of untrusted actions: anything malformed becomes an IllegalAction.

Actions arrive as JSON from the table, from files and from the journal, so every engine reads them
through these helpers and never indexes them directly.
"""

from typing import Any, Iterable

from .errors import IllegalAction

_TYPE_NAMES = {int: "an integer", str: "a string", bool: "true or false", list: "a list", dict: "an object"}


def _is(value: Any, kind: type) -> bool:
    # bool is a subclass of int in Python, but true/false is never a seat or a count.
    if kind is int:
        return type(value) is int
    return isinstance(value, kind)


def field(action: dict, key: str, kind: type, *, optional: bool = False, default: Any = None, what: str | None = None) -> Any:
    """`action[key]`, which must be of `kind` (or null/absent when optional).

    `what` names the object when it is not the action itself (a card inside it: "card"), so the
    messages say "Card: no 'id'" rather than speak of the action.
    """
    value = action.get(key)
    subject = f"{what} {action!r}" if what else f"action {action.get('type')!r}"
    if value is None:
        if optional:
            return default
        short = f"{what.capitalize()}: no '{key}'" if what else f"Missing '{key}'"
        raise IllegalAction(short, f"{subject} needs the field {key!r}")
    if not _is(value, kind):
        short = f"{what.capitalize()}: bad '{key}'" if what else f"Bad '{key}'"
        raise IllegalAction(short, f"field {key!r} of {subject} must be {_TYPE_NAMES.get(kind, kind.__name__)}, not {value!r}")
    return value


def one_of(value: Any, choices: Iterable[Any], what: str) -> Any:
    """`value`, which must be one of `choices` (hashable values)."""
    choices = tuple(choices)
    if value not in choices:
        raise IllegalAction(
            f"Unknown {what}",
            f"{what} {value!r} is not one of: {', '.join(map(str, choices))}",
        )
    return value


def list_of(action: dict, key: str, kind: type, *, optional: bool = False) -> list:
    """`action[key]` as a list whose items are all of `kind`."""
    items = field(action, key, list, optional=optional, default=[])
    for item in items:
        if not _is(item, kind):
            raise IllegalAction(
                f"Bad '{key}'",
                f"every item of {key!r} must be {_TYPE_NAMES.get(kind, kind.__name__)}, not {item!r}",
            )
    return items


def seat(action: dict, n_players: int, key: str = "player") -> int:
    """The seat index in `action[key]`, within 0..n_players-1."""
    p = field(action, key, int)
    if not 0 <= p < n_players:
        raise IllegalAction("No such seat", f"seat {p} is out of range: this game has seats 0..{n_players - 1}")
    return p


def no_extra_keys(action: dict, allowed: Iterable[str]) -> None:
    """Refuse keys an action type does not define, so a typo is never silently ignored."""
    extra = sorted(set(action) - set(allowed) - {"type"})
    if extra:
        raise IllegalAction(
            f"Unknown field '{extra[0]}'",
            f"action {action.get('type')!r} has unknown field(s) {', '.join(map(repr, extra))}",
        )
