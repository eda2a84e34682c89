"""Value types the engines return: a seat's score and what the engine waits for."""

from dataclasses import dataclass, field
from typing import Any, Mapping


@dataclass(frozen=True)
class Score:
    """One seat's score; `total` is always the sum of `breakdown`."""

    player: str
    total: int
    breakdown: dict[str, int]


@dataclass(frozen=True)
class Prompt:
    """Who must act next and which action types the engine accepts.

    `options` maps an action field (or a named choice) to its finite list of legal values, in the
    order a chooser should offer them, most likely first. `text` is a short question for the screen.
    """

    player: int | None
    expects: tuple[str, ...]
    options: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    text: str = ""


@dataclass(frozen=True)
class Preview:
    """What an action would do, computed by applying it to a copy: never different from `apply`.

    `totals[seat]` and `changes[seat]` (breakdown key -> change, non-zero only) are the score changes;
    `events` what the table would announce; `refused` the short message when the rules refuse it.
    """

    action: dict
    totals: tuple[int, ...] = ()
    changes: tuple[dict[str, int], ...] = ()
    events: tuple[str, ...] = ()
    refused: str | None = None

    @property
    def legal(self) -> bool:
        return self.refused is None
