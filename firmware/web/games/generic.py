"""The view of any engine's state, field by field: the fallback for games without their own module.

Fields holding one value per seat (a list as long as the players) go to the seats; the others to
the table. The engine's own bookkeeping (players, options, the log, the last events) is shown
elsewhere on the page and left out here.
"""

from typing import Any

from ..jsonify import to_json

#: State fields every engine has, which the page shows in its own places.
COMMON = frozenset({"players", "options", "actions", "events"})


def label(name: str) -> str:
    """A field or action name as a label: `turns_done` -> `Turns done`."""
    return name.replace("_", " ").strip().capitalize()


def show(value: Any) -> str:
    """Any JSON-able value as one short line of text."""
    value = to_json(value)
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(_inner(v) for v in value) if value else "none"
    if isinstance(value, dict):
        return "; ".join(f"{label(k)}: {_inner(v)}" for k, v in value.items()) if value else "none"
    return str(value)


def _inner(value: Any) -> str:
    if isinstance(value, list):
        return "(" + " ".join(_inner(v) for v in value) + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_inner(v)}" for k, v in value.items()) + "}"
    return show(value)


def view(game: Any, state: Any) -> dict:
    fields = {k: v for k, v in vars(state).items() if k not in COMMON and not k.startswith("_")}
    n = len(state.players)
    per_seat = {k for k, v in fields.items() if isinstance(v, (list, tuple)) and len(v) == n}
    return {
        "seats": [{label(k): show(fields[k][seat]) for k in fields if k in per_seat} for seat in range(n)],
        "table": {label(k): show(v) for k, v in fields.items() if k not in per_seat},
    }


def board(game: Any, state: Any) -> None:
    """No drawing: the page says so and shows the state as text."""
    return None


#: Action types every game words the same way.
PHRASES = {"end_turn": "ends the turn"}


def describe(game: Any, state: Any, action: dict) -> str:
    """`Ana: lay — card ulm-1 ulm, side right`, from the action's own fields."""
    who = player_name(state, action)
    if action.get("type") in PHRASES and who:
        return f"{who} {PHRASES[action['type']]}"
    details = ", ".join(f"{label(k).lower()} {show(v)}" for k, v in action.items() if k not in ("type", "player"))
    line = label(str(action.get("type", "?"))).lower()
    return f"{who + ': ' if who else ''}{line}{' — ' + details if details else ''}"


def player_name(state: Any, action: dict, key: str = "player") -> str:
    """The name of the seat in `action[key]`, or "" when the action names none (or a seat out of range)."""
    seat = action.get(key)
    if type(seat) is int and 0 <= seat < len(state.players):
        return state.players[seat]
    return ""


def hints(game: Any, state: Any) -> dict[int, str]:
    """No hints for a game that does not say what its moves would do."""
    return {}
