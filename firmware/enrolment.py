"""Guided enrolment: teaching the table a physical copy of a game, one component after another.

The game's manifest lists every component; the screen says what to tap next ("Tap: Nürnberg 2/3",
"15 of 66"), and a tap records that tag as that component. Where the manifest asks (a card's
symbols, a tile's goods), the chooser offers what the component may show. A tag already enrolled
says what it is and offers to keep it or replace it; ok skips a component, undo steps back one, and
the position is kept in Redis so enrolment can stop (hold undo) and resume later, even after a restart.
"""

import importlib
import math
from collections import Counter
from dataclasses import dataclass

import engines
from engines.core.manifest import Components, Group

from .flows import ANY_TAG, BACK, Choose, Flow, Tap
from .store import table_key
from .tagmap import TagEntry, TagMap


@dataclass(frozen=True)
class Slot:
    """One physical component to enrol."""

    group: Group
    number: int
    id: str

    @property
    def label(self) -> str:
        return self.group.label if self.group.count == 1 else f"{self.group.label} {self.number}/{self.group.count}"


def slots(game: str) -> list[Slot]:
    package = importlib.import_module(f"engines.{game}")
    return [Slot(group, n, ident) for group in package.manifest() for n, ident in enumerate(group.ids(), start=1)]


def components(game: str) -> Components:
    return importlib.import_module(f"engines.{game}").COMPONENTS


def choice_label(choice: dict) -> str:
    """What the owner sees for a way to complete a component: its values, briefly."""
    parts = []
    for value in choice.values():
        parts.append("+".join(map(str, value)) if isinstance(value, list) else str(value))
    return " ".join(parts)


#: Rough seconds an owner spends per component at enrolment (a tap) and per question on the chooser:
#: an estimate for planning (docs/owner.md), not a measurement.
TAP_S, QUESTION_S = 3, 6


@dataclass(frozen=True)
class Summary:
    """What enrolling a game takes, from its manifest: `tablemate manifest GAME` and docs/owner.md."""

    game: str
    groups: tuple[Group, ...]

    @classmethod
    def of(cls, game: str) -> "Summary":
        return cls(game, tuple(importlib.import_module(f"engines.{game}").manifest()))

    @property
    def title(self) -> str:
        return engines.get(self.game).title

    @property
    def components(self) -> int:
        """Components to tag: one sticker each."""
        return sum(group.count for group in self.groups)

    @property
    def kinds(self) -> dict[str, int]:
        """Components per kind, in the manifest's order."""
        return dict(Counter(group.kind for group in self.groups for _ in range(group.count)))

    @property
    def asked(self) -> dict[str, tuple[int, tuple[str, ...]]]:
        """Per kind: how many of its components enrolment asks about, and the fields it asks."""
        found: dict[str, tuple[int, tuple[str, ...]]] = {}
        for group in self.groups:
            if group.ask:
                count, fields = found.get(group.kind, (0, ()))
                found[group.kind] = (count + group.count, fields + tuple(f for f in group.ask if f not in fields))
        return found

    @property
    def labelled(self) -> int:
        """Components the rule text leaves unknown and enrolment does not ask about: their manifest
        label ("colour-3") stands for what is printed, which the owner names (docs/owner.md)."""
        return sum(group.count for group in self.groups if group.confidence == "unknown" and not group.ask)

    @property
    def questions(self) -> int:
        return sum(count for count, _ in self.asked.values())

    @property
    def minutes(self) -> int:
        """The rough time enrolment takes (TAP_S a component, QUESTION_S a question), in whole minutes."""
        return math.ceil((self.components * TAP_S + self.questions * QUESTION_S) / 60)

    def to_json(self) -> dict:
        return {
            "game": self.game,
            "title": self.title,
            "components": self.components,
            "kinds": self.kinds,
            "questions": self.questions,
            "labelled": self.labelled,
            "asked": {kind: {"components": count, "fields": list(fields)} for kind, (count, fields) in self.asked.items()},
            "minutes": self.minutes,
            "groups": [
                {"label": g.label, "kind": g.kind, "count": g.count, "ids": g.id, "known": g.known, "ask": list(g.ask),
                 "confidence": g.confidence, "source": g.source}
                for g in self.groups
            ],
        }

    def lines(self) -> list[str]:
        """The summary as text: totals, then per kind, then every group in the order enrolment asks."""
        asks = f"enrolment asks what {self.questions} of them show" if self.questions else "enrolment asks nothing"
        if self.labelled:
            asks += (f"; {self.labelled} of them carry a label, not a name from the rule text (confidence unknown): "
                     "rename it as your copy shows (docs/owner.md, section 7)")
        elif not self.questions:
            asks = "all of them are known"
        lines = [
            f"{self.title}: {self.components} components, one tag each; {asks}",
            f"about {self.minutes} minutes of enrolment ({TAP_S} s a tap, {QUESTION_S} s a question)",
            "",
            f"{'kind':10} {'count':>5}  asked at enrolment",
        ]
        for kind, count in self.kinds.items():
            asked = self.asked.get(kind)
            lines.append(f"{kind:10} {count:>5}  " + (f"{', '.join(asked[1])} ({asked[0]} of them)" if asked else "-"))
        heading = "group, in enrolment order"
        width = max(len(heading), *(len(g.label) for g in self.groups))
        lines += ["", f"{heading:{width}}  {'kind':9} {'count':>5}  {'asked':12} {'confidence':10} known"]
        for g in self.groups:
            known = ", ".join(f"{k}={'+'.join(map(str, v)) if isinstance(v, list) else v}" for k, v in g.known.items())
            lines.append(f"{g.label:{width}}  {g.kind:9} {g.count:>5}  {', '.join(g.ask) or '-':12} {g.confidence:10} {known}".rstrip())
        return lines


class Progress:
    """Where each game's guided enrolment stands (`tablemate:{table}:enrol`, game -> next position)."""

    def __init__(self, tags: TagMap, table: str):
        self.tags = tags
        self.key = table_key(table, "enrol")

    def get(self, game: str) -> int:
        value = self.tags.client.hget(self.key, game)
        return int(value) if value and value.isdigit() else 0

    def set(self, game: str, position: int) -> None:
        """Written by the tag map, with its local copy."""
        self.tags.place(game, position)

    def clear(self, game: str) -> None:
        self.tags.place(game, None)


def guided(tags: TagMap, progress: Progress, game: str, start: int = 0) -> Flow:
    """Enrol `game`'s components from position `start`; returns the closing message."""
    todo = slots(game)
    spec = components(game)
    position = start
    while position < len(todo):
        slot = todo[position]
        answer = yield Tap(f"Tap: {slot.label}", ANY_TAG, done="skip", note=f"{position + 1} of {len(todo)}", back=True,
                           title=f"Enrol {engines.get(game).title}")
        if answer is BACK:
            position = max(0, position - 1)
        elif answer is None:
            position += 1
        else:
            uid, existing = answer
            if not (yield from _record(tags, spec, game, slot, uid, existing)):
                continue
            position += 1
        progress.set(game, position)
    progress.clear(game)
    return f"{engines.get(game).title}: all {len(todo)} enrolled"


def _record(tags: TagMap, spec: Components, game: str, slot: Slot, uid: str, existing: TagEntry | None) -> Flow:
    """Record `uid` as `slot`'s component; False when the owner keeps what the tag already was."""
    if existing is not None and not (existing.game == game and existing.descriptor.get("id") == slot.id):
        keep = yield Choose.of(f"Already: {existing.label or existing.kind}", [("Keep it", True), (f"Make it {slot.label}", False)])
        if keep:
            return False
    descriptor = {"id": slot.id, **slot.group.known}
    if slot.group.ask:
        options = spec.choices(slot.group.kind, slot.group.known)
        descriptor.update((yield Choose.of(f"{slot.label}: it shows?", [(choice_label(c), c) for c in options])))
    previous = tags.find(game, slot.id)
    if previous is not None and previous != uid:
        tags.forget(previous)
    tags.set(uid, TagEntry(game, slot.group.kind, descriptor, slot.label))
    return True
