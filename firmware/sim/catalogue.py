"""The enrolled components of a game, named by what is printed on them, for people who tap them by
name: the simulator's list and the terminal console's typed taps.

A component's name comes from the game's manifest (engines/<game>/manifest.toml): the group its id
belongs to ("Augsburg 2/3", as enrolment names it), else the group whose known fields it shows (a
tag file written by hand), else its own fields ("Red tile"). Typed text finds components by the
words of their names ("augsburg", "province 3"); among identical components (three Augsburg cards)
the first one not yet in the game's log is taken, as a player takes any card of a pile.
"""

import difflib
import importlib
import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Iterable

from engines.core.manifest import Group

from ..flows import ANY_TAG, Choose, Tap
from ..tagmap import TagEntry, TagMap

#: how a kind of component is headed in lists
HEADINGS = {"card": "Cards", "special": "Special cards", "province": "Province tiles", "bonus": "Bonus tiles",
            "tile": "Tiles", "plan": "Plans", "parchment": "Parchment"}


@dataclass(frozen=True)
class Component:
    uid: str
    game: str
    kind: str
    id: str
    #: what is printed on it, unique within the game ("Augsburg 2/3")
    label: str
    #: the same for every identical component ("Augsburg")
    base: str

    @property
    def heading(self) -> str:
        return HEADINGS.get(self.kind, self.kind.capitalize() + "s")


def words(text: str) -> list[str]:
    """Lower-case words without accents: "Nürnberg 2/3" -> ["nurnberg", "2", "3"]."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.findall(r"[a-z0-9]+", plain.lower())


def catalogue(tags: TagMap, game: str) -> list[Component]:
    """Every component of `game` in the tag map, by kind then name."""
    return named(game, [(uid, entry) for uid, entry in tags.items() if entry.game == game])


def named(game: str, entries: list[tuple[str, TagEntry]]) -> list[Component]:
    """The components of `game` these tag entries are, each with a name of its own, by kind then name."""
    groups = _manifest(game)
    printed = [(uid, entry, *_printed(groups, entry)) for uid, entry in entries]
    counts: dict[str, int] = {}
    for _, _, base, numbered in printed:
        if not numbered:
            counts[base] = counts.get(base, 0) + 1
    seen: dict[str, int] = {}
    taken: set[str] = set()
    components = []
    for uid, entry, base, numbered in printed:
        label = numbered
        if not label:
            seen[base] = seen.get(base, 0) + 1
            label = f"{base} {seen[base]}/{counts[base]}" if counts[base] > 1 else base
        if label in taken:  # a hand-written tag file may name two tags alike: the UID tells them apart
            label = f"{label} ({uid})"
        taken.add(label)
        components.append(Component(uid, game, entry.kind, str(entry.descriptor.get("id", "")), label, base))
    return sorted(components, key=lambda c: (list(HEADINGS).index(c.kind) if c.kind in HEADINGS else 99, _order(c.label)))


def _order(label: str) -> list:
    """Natural order: "tile 2" before "tile 10"."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", label.lower())]


def _manifest(game: str) -> tuple[Group, ...]:
    package = importlib.import_module(f"engines.{game}")
    return package.manifest() if hasattr(package, "manifest") else ()


def _printed(groups: Iterable[Group], entry: TagEntry) -> tuple[str, str]:
    """(the name identical components share, the component's own numbered name or "" to number later)."""
    ident = entry.descriptor.get("id")
    for group in groups:
        ids = group.ids()
        if group.kind == entry.kind and ident in ids:
            number = ids.index(ident) + 1
            return group.label, group.label if group.count == 1 else f"{group.label} {number}/{group.count}"
    fitting = [g for g in groups if g.kind == entry.kind and all(entry.descriptor.get(k) == v for k, v in g.known.items())]
    if fitting:
        return max(fitting, key=lambda g: len(g.known)).label, ""
    return _described(entry), ""


def _described(entry: TagEntry) -> str:
    """A name from the descriptor's own fields: "Red tile", "Red card (elephant, monk)"."""
    names = [str(v) for k, v in entry.descriptor.items() if k != "id" and isinstance(v, (str, int)) and not isinstance(v, bool)]
    lists = [", ".join(map(str, v)) for v in entry.descriptor.values() if isinstance(v, list)]
    text = " ".join([*names, entry.kind]) + "".join(f" ({items})" for items in lists)
    return text[:1].upper() + text[1:]


# -- what a game has used, and what may be tapped now ------------------------------------------------


def played(actions: Iterable[dict]) -> set[str]:
    """The ids of every component a game's actions mention."""
    found: set[str] = set()

    def visit(value: Any) -> None:
        if isinstance(value, dict):
            if isinstance(value.get("id"), str):
                found.add(value["id"])
            for item in value.values():
                visit(item)
        elif isinstance(value, list):
            for item in value:
                visit(item)

    for action in actions:
        visit(action)
    return found


def target(table, seats: dict[str, int | None]) -> str | None:
    """The reader (of `seats`: reader name -> its seat, None for a shared one) a component named or
    clicked goes to: the shared reader when the table asks for a component by itself (a province
    tile), else the seat to act's, else the shared one (else the first)."""
    request = table.running.request if table.running else None
    shared = next((name for name, seat in seats.items() if seat is None), None)
    if isinstance(request, Tap) and not request.with_seat and shared:
        return shared
    session = table.session
    prompt = session.game.prompt(session.state) if session else None
    seat = prompt.player if prompt else None
    mine = next((name for name, s in seats.items() if s == seat and seat is not None), None)
    return mine or shared or next(iter(seats), None)


def game_of(table) -> str | None:
    """The game whose components matter now: the one chosen while a game is set up, else the one
    played (None: none yet, every game's matter)."""
    if table.setting_up:
        return table.chosen
    return table.session.name if table.session else None


def present(table) -> list[Component]:
    """The components that matter now (`game_of`), every enrolled one of that game or of every game."""
    game = game_of(table)
    games = [game] if game else sorted({entry.game for _, entry in table.tags.items()})
    return [c for name in games for c in catalogue(table.tags, name)]


def tappable(table, components: list[Component], seat: int | None) -> tuple[list[Component], str]:
    """What the table would take now from the reader of `seat` (each asked to the table:
    Table.refuses, the checks a tap goes through), and a sentence saying why the list is what it is:
    what the screen says when the table takes no tap at all (waiting for Redis, a journal problem)."""
    now = [c for c in components if table.refuses(c.uid, seat) is None]
    request = table.running.request if table.running else None
    blocked = table.blocked() if request is None else None
    if blocked is not None:
        return now, f"{blocked.title}: {'. '.join(line.rstrip('.') for line in blocked.lines)}."
    if isinstance(request, Choose) and request.tap is None:
        return now, f"A question is on screen ({request.question}): answer it first (next, ok; undo goes back)."
    if isinstance(request, Tap) and request.kinds == ANY_TAG:
        return now, f"{request.question}: any tag."
    if table.session is None:
        return now, "No game yet: choose one with next and ok."
    if request is not None:
        return now, f"{request.question}:"
    return now, f"{len(now)} of {len(components)} components can be tapped now:"


# -- typed names -------------------------------------------------------------------------------------


class NoMatch(ValueError):
    """Typed text that names no component, or several different ones; the message says which."""


def find(components: list[Component], text: str, used: set[str] = frozenset()) -> Component:
    """The component `text` names: its UID, id or name, or words of its name in any order ("province
    3", "augsburg"); among identical ones the first not in `used`. NoMatch says why none is."""
    typed = words(text)
    if not typed:
        raise NoMatch("type a component's name")
    for component in components:
        if text.strip().lower() in (component.uid, component.id.lower()) or typed == words(component.label):
            return component
    fitting = [c for c in components if fits(typed, words(c.label))]
    if fitting and len({c.base for c in fitting}) == 1:
        return next((c for c in fitting if c.id not in used), fitting[0])
    if fitting:
        names = sorted({c.base for c in fitting}, key=_order)
        shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
        raise NoMatch(f"{text!r} fits several: {shown}")
    raise NoMatch(f"no component is called {text!r}{_suggestion(components, typed)}")


def _suggestion(components: list[Component], typed: list[str]) -> str:
    """"; did you mean 'Augsburg'?" for the names whose words come closest to the typed ones: each
    typed word against the closest word of the name, in any order, as names are matched ("red vizer"
    is closest to "Red: elephant + vizier")."""
    def closeness(base: str) -> float:
        name = words(base) or [""]
        return sum(max(difflib.SequenceMatcher(None, word, part).ratio() for part in name) for word in typed) / len(typed)

    scored = sorted(((closeness(base), base) for base in {c.base for c in components}), key=lambda p: (-p[0], _order(p[1])))
    close = [base for score, base in scored[:3] if score >= max(0.6, scored[0][0] - 0.1)]  # near the best only
    if not close:
        return "; ? lists what can be tapped"
    return f"; did you mean {' or '.join(map(repr, close))}?"


def fits(typed: list[str], label: list[str]) -> bool:
    """Every typed word starts a different word of the name (numbers must be whole)."""
    free = list(label)
    for word in typed:
        match = next((w for w in free if (w == word if word.isdigit() else w.startswith(word))), None)
        if match is None:
            return False
        free.remove(match)
    return True
