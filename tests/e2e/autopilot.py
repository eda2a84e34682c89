"""Plays a game log through the table the way players would: taps, presses, chooser answers.

For each action of the log, the autopilot makes the input a player starts it with (tap the card,
press withdraw...), then answers every question on screen from the action itself (each question
names the action field it fills), until the table has accepted one more action. It can record the
inputs as a script (`tap <reader> <uid>`, `press <button>`), which is how the recorded demos are made.
"""

from typing import Any, Callable, Protocol

from firmware.flows import STEPWISE, Choose, Tap


def tap(field: str) -> Callable[[dict], list[tuple[str, Any]]]:
    return lambda action: [("tap", action[field])]


def press(button: str) -> Callable[[dict], list[tuple[str, Any]]]:
    return lambda action: [("press", button)]


def _taj_play(action: dict) -> list[tuple[str, Any]]:
    """Both cards of a play are tapped; the colour-change card first, since it makes the colour legal."""
    cards = action["cards"]
    if len(cards) == 2 and cards[1].get("special") == "color_change":
        cards = [cards[1], cards[0]]
    return [("tap", card) for card in cards]


#: per game, the inputs a player starts each action type with (questions are answered afterwards)
FIRST_INPUT: dict[str, dict[str, Callable[[dict], list[tuple[str, Any]]]]] = {
    "thurn_und_taxis": {
        "lay": tap("card"),
        "end_turn": press("pass"),
        "discard_route": press("withdraw"),
        "official": press("next"),
        "close": press("ok"),
    },
    "mongols": {
        "roll": press("ok"),
        "stop": press("withdraw"),
        "end_turn": press("pass"),
        "take": tap("card"),
        "steal": tap("card"),
        "discard_market": tap("card"),
        "parchment": tap("card"),
        "lower": lambda action: [],
    },
    "maharani": {
        "place": tap("tile"),
        "end_turn": press("pass"),
        "refresh": press("withdraw"),
        "end_game": press("next"),
    },
    "taj_mahal": {
        "play": _taj_play,
        "withdraw": press("withdraw"),
        "visit": lambda action: [],
        "palace": lambda action: [],
        "crown": lambda action: [],
        "chain": lambda action: [],
        "hand": lambda action: [],
    },
}

#: per game, the tag-map kind of a component descriptor
KIND_OF = {
    "thurn_und_taxis": lambda d: "card",
    "mongols": lambda d: "parchment" if d.get("parchment") else "plan",
    "maharani": lambda d: "tile",
    "taj_mahal": lambda d: "special" if "special" in d else "province" if "number" in d else "bonus" if "kind" in d else "card",
}

#: values a question's field has when the action leaves it out
DEFAULTS = {"adjust": 0, "coachman": False}


def target(action: dict, field: str | None) -> Any:
    """The answer `action` gives to a question about `field` ("a+b": several fields, "dice.0": an item)."""
    if field == "confirm":
        return True
    if field == "has_bonus":
        return action.get("bonus") is not None
    if field and "+" in field:
        return {key: action.get(key, DEFAULTS.get(key)) for key in field.split("+")}
    if field and "." in field:
        key, item = field.split(".")
        return len(action[key]) if item == "len" else action[key][int(item)]
    return action.get(field, DEFAULTS.get(field)) if field else None


class Inputs(Protocol):
    """Where the inputs go: the Table itself, or the mocked hardware in front of the whole loop."""

    def tap(self, uid: str, seat: int | None) -> None: ...
    def press(self, role: str) -> None: ...


def same(value: Any, target: Any) -> bool:
    if isinstance(value, list) and isinstance(target, list):
        return sorted(map(repr, value)) == sorted(map(repr, target))
    return value == target


class Autopilot:
    def __init__(self, table, inputs: Inputs, uid_of: Callable[[dict], str], record: list[str] | None = None,
                 reader_of: Callable[[int | None], str] = lambda seat: "shared" if seat is None else f"seat{seat}"):
        self.table = table
        self.inputs = inputs
        self.uid_of = uid_of
        self.record = record
        self.reader_of = reader_of

    def play(self, actions: list[dict]) -> None:
        """Play `actions`, the next ones of the game on the table (numbered from its actions so far)."""
        before = len(self.table.session.actions)
        for number, action in enumerate(actions, start=before + 1):
            self.perform(action, number)

    def perform(self, action: dict, number: int = 0) -> None:
        """Make the inputs of `action`, the game's action `number` (from 1; 0: whatever comes next)."""
        session = self.table.session
        if number and len(session.actions) >= number:
            return  # the table took it by itself: its only possible answer was never asked
        standing = len(session.actions) + 1
        if self.table.running is None:
            for how, what in FIRST_INPUT[session.name][action["type"]](action):
                if how == "tap":
                    self._tap(what, action.get("player"))
                else:
                    self._press(what)
        taps: dict[str, int] = {}
        for _ in range(200):
            if len(session.actions) >= standing:  # a question with one answer is not asked: it may add more
                return
            request = self.table.running.request if self.table.running else None
            if isinstance(request, Choose) and request.field and request.field.endswith("[]"):
                items, done = action[request.field[:-2]], taps.get(request.field, 0)
                taps[request.field] = done + 1
                self._choose(request, items[done] if done < len(items) else None)
            elif isinstance(request, Choose) and request.field == "quarter":  # Maharani: the space's quarter
                self._choose(request, session.game.board(session.state).quarter_of[action["space"]])
            elif isinstance(request, Choose):
                self._choose(request, target(action, request.field))
            elif isinstance(request, Tap):
                wanted = target(action, request.field)
                items = wanted if isinstance(wanted, list) else [wanted]
                done = taps.get(request.field, 0)
                if wanted is None or done >= len(items):
                    self._press("ok")
                else:
                    taps[request.field] = done + 1
                    self._tap(items[done], action.get("player"))
            else:
                raise AssertionError(f"action {number} {action!r} was not accepted; the table shows {self.table.view()!r}")
        raise AssertionError(f"action {number} {action!r}: the table keeps asking")

    def _choose(self, request: Choose, wanted: Any) -> None:
        """Pick the option of value `wanted`; none giving it, the one that builds it step by step."""
        matches = [i for i, option in enumerate(request.options) if same(option.value, wanted)]
        matches = matches or [i for i, option in enumerate(request.options) if option.value is STEPWISE]
        if not matches:
            raise AssertionError(f"no option of {request.question!r} gives {request.field}={wanted!r}: {request.options}")
        steps = (matches[0] - self.table.running.index) % len(request.options)
        for _ in range(steps):
            self._press("next")
        self._press("ok")

    def _tap(self, descriptor: dict, seat: int | None) -> None:
        uid = self.uid_of(descriptor)
        if self.record is not None:
            self.record.append(f"tap {self.reader_of(seat)} {uid}")
        self.inputs.tap(uid, seat)

    def _press(self, role: str) -> None:
        if self.record is not None:
            self.record.append(f"press {role}")
        self.inputs.press(role)
