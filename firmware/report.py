"""A game's standing as text for a terminal or a file: the score table with every breakdown, the
winners once it is over, and the summary `tablemate status`, `run --script`, `replay` and a piped
`demo` print."""

import engines


def score_table(game: engines.Game, state: engines.State) -> str:
    """One line a player: the total, then each part of the breakdown under its own heading."""
    scores = game.scores(state)
    keys = list(scores[0].breakdown)
    width = max(len(s.player) for s in scores)
    columns = [max(8, len(k)) for k in keys]
    lines = [f"{'':{width}}  {'total':>5}  " + "  ".join(f"{k:>{c}}" for k, c in zip(keys, columns))]
    for score in scores:
        lines.append(f"{score.player:{width}}  {score.total:>5}  " + "  ".join(f"{score.breakdown[k]:>{c}}" for k, c in zip(keys, columns)))
    return "\n".join(line.rstrip() for line in lines)


def counted(n: int, noun: str, plural: str = "") -> str:
    """"1 game", "3 games", "1 journal entry" (`plural` when adding "s" is wrong): a count said as a person would."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def winners_line(game: engines.Game, state: engines.State) -> str:
    """"Winner: Ana" / "Winners: Ana, Ben" once the game is over, else ""."""
    if not game.is_over(state):
        return ""
    names = [state.players[seat] for seat in game.winners(state)]
    return f"Winner{'s' if len(names) > 1 else ''}: {', '.join(names)}"


def standing(game: engines.Game, state: engines.State, heading: str) -> str:
    """`heading` and the phase, the score table, and the winners when the game is over."""
    lines = [f"{heading}, {game.phase(state)}", score_table(game, state)]
    winners = winners_line(game, state)
    if winners:
        lines.append(winners)
    return "\n".join(lines)
