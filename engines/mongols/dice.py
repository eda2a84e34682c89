"""The dice board of Mongols: which gem sits on which number, and which lowerings a throw allows.

Rules: rules/004 ("Shut The Box" with coloured gems). A throw's total (dice plus the advisors'
adjust) lowers either the one number equal to it, or two different numbers adding up to it; only
numbers whose gem is still up can be chosen. These functions are pure and take the numbers still up,
so the engine checks throws with them and a hint screen can count, over the 36 outcomes of two dice,
the throws that would bust (`can_lower` false).
"""

from fractions import Fraction
from itertools import product
from typing import Collection

#: The gem above each number of the board (rules/004, "Mise en place").
GEM_OF = {1: "red", 2: "blue", 3: "white", 4: "pink", 5: "pink", 6: "white", 7: "blue", 8: "red", 9: "red"}
NUMBERS = tuple(GEM_OF)
#: Gem colours in board order; the first three have a pair of market cards each, red is the steal.
GEMS = ("blue", "white", "pink", "red")
MARKET_GEMS = GEMS[:3]
STEAL_GEM = "red"
NUMBERS_OF = {gem: tuple(n for n in NUMBERS if GEM_OF[n] == gem) for gem in GEMS}
#: Once these numbers are down the thrower may roll a single die.
ONE_DIE_AFTER = frozenset({7, 8, 9})
DIE_FACES = range(1, 7)


def lowerings(total: int, up: Collection[int]) -> list[tuple[int, ...]]:
    """The ways to lower numbers for `total`: the number itself, then pairs of different numbers (1+6 before 2+5)."""
    found: list[tuple[int, ...]] = [(total,)] if total in up else []
    for low in range(1, (total + 1) // 2):
        if low in up and total - low in up:
            found.append((low, total - low))
    return found


def adjusts(advisors: int) -> list[int]:
    """The adjusts `advisors` unused advisors allow (each one ±1), smallest change first."""
    return [0] + [k for size in range(1, advisors + 1) for k in (size, -size)]


def legal_lowerings(dice_total: int, up: Collection[int], advisors: int) -> list[tuple[tuple[int, ...], int]]:
    """Every (numbers, adjust) a throw of `dice_total` allows with `advisors` unused advisors."""
    return [(numbers, k) for k in adjusts(advisors) for numbers in lowerings(dice_total + k, up)]


def can_lower(dice_total: int, up: Collection[int], advisors: int) -> bool:
    """False when the throw busts: no lowering at all, even with every unused advisor."""
    return any(lowerings(dice_total + k, up) for k in adjusts(advisors))


def completed(down: Collection[int]) -> list[str]:
    """The gem colours whose numbers are all down, in board order."""
    return [gem for gem in GEMS if all(n in down for n in NUMBERS_OF[gem])]


def one_die_allowed(down: Collection[int]) -> bool:
    return ONE_DIE_AFTER.issubset(down)


def bust_chance(up: Collection[int], advisors: int, dice: int = 2) -> Fraction:
    """The exact chance that the next throw of `dice` dice busts, over its 36 (or 6) equally likely outcomes."""
    outcomes = list(product(DIE_FACES, repeat=dice))
    busts = sum(not can_lower(sum(faces), up, advisors) for faces in outcomes)
    return Fraction(busts, len(outcomes))
