"""Engine states as JSON for the API: any state dataclass, without knowing the game.

Engine states hold plain lists, dicts, sets and tuples of primitives (the engine contract), so one
converter serves every game: dataclasses become objects, sets become sorted lists (a stable order for
clients and tests), tuples become lists, and mapping keys become strings as JSON requires.
"""

import dataclasses
from typing import Any

#: State fields the API leaves out of `state`: the log is the timeline's job.
OMITTED = frozenset({"actions"})


def to_json(value: Any) -> Any:
    """`value` as JSON-ready data (dicts, lists, strings, numbers, booleans, None)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {_key(k): to_json(v) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return [to_json(v) for v in sorted(value, key=_order)]
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise TypeError(f"cannot show a {type(value).__name__} as JSON: {value!r}")


def state_json(state: Any) -> dict:
    """A state's fields as JSON, without the action log."""
    return {f.name: to_json(getattr(state, f.name)) for f in dataclasses.fields(state) if f.name not in OMITTED}


def _key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, (int, float, bool)) or key is None:
        return str(key)
    raise TypeError(f"cannot use a {type(key).__name__} as a JSON key: {key!r}")


def _order(value: Any) -> tuple:
    """Sort key for set members, which may differ in type (None and a string): by type, then value."""
    if isinstance(value, tuple):
        return ("tuple", tuple(_order(v) for v in value))
    if isinstance(value, (int, float, str)) and not isinstance(value, bool):
        return (type(value).__name__, value)
    return (type(value).__name__, repr(value))
