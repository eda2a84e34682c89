"""Rules several games share: clockwise seating and strict majorities."""

from typing import Mapping


def next_seat(seat: int, n_players: int) -> int:
    """The seat to the left (clockwise) of `seat`."""
    return (seat + 1) % n_players


def clockwise_from(start: int, n_players: int) -> list[int]:
    """All seats in clockwise order, starting with `start`."""
    return [(start + i) % n_players for i in range(n_players)]


def strict_majority(counts: Mapping[int, int]) -> int | None:
    """The seat with at least one and strictly more than every other seat, or None on a tie."""
    best = max(counts.values(), default=0)
    if best <= 0:
        return None
    leaders = [seat for seat, count in counts.items() if count == best]
    return leaders[0] if len(leaders) == 1 else None


def leaders(values: Mapping[int, int]) -> list[int]:
    """Seats sharing the highest value, in seat order."""
    best = max(values.values())
    return sorted(seat for seat, value in values.items() if value == best)
