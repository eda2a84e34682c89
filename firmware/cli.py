"""The `tablemate` command (argparse: in the standard library, and enough for a handful of subcommands)."""

import argparse
import importlib
import json
import sys
from importlib import resources

import engines

from . import gamelog


def _score_table(game: engines.Game, state: engines.State) -> str:
    scores = game.scores(state)
    keys = list(scores[0].breakdown)
    width = max(len(s.player) for s in scores)
    columns = [max(8, len(k)) for k in keys]
    lines = [f"{'':{width}}  {'total':>5}  " + "  ".join(f"{k:>{c}}" for k, c in zip(keys, columns))]
    for score in scores:
        lines.append(f"{score.player:{width}}  {score.total:>5}  " + "  ".join(f"{score.breakdown[k]:>{c}}" for k, c in zip(keys, columns)))
    return "\n".join(lines)


def _demo(args: argparse.Namespace) -> int:
    """Replay a recorded game through the engine, printing the scores after each scoring action."""
    name = args.game
    path = resources.files("firmware").joinpath("demos", f"{name}.json")
    if not path.is_file():
        print(f"no recorded demo for {name!r}", file=sys.stderr)
        return 2
    log = gamelog.parse(json.loads(path.read_text(encoding="utf-8")), f"demo {name}")
    game = engines.get(log.game)
    state = game.start(log.players, log.options)
    print(f"{game.title}: {', '.join(log.players)}")
    for action in log.actions:
        state = game.apply(state, action)
        if action["type"] == "close":
            print(f"\n{game.phase(state)} — {'; '.join(state.events)}")
            print(_score_table(game, state))
    winners = ", ".join(state.players[seat] for seat in game.winners(state))
    print(f"\nFinal scores ({len(log.actions)} actions):\n{_score_table(game, state)}\nWinner: {winners}")
    return 0


def _replay(args: argparse.Namespace) -> int:
    log = gamelog.load(args.file)
    game = engines.get(log.game)
    state = log.replay()
    if args.json:
        print(json.dumps([{"player": s.player, "total": s.total, "breakdown": s.breakdown} for s in game.scores(state)]))
    else:
        print(_score_table(game, state))
    return 0


def _board_check(args: argparse.Namespace) -> int:
    """Check a board file an owner wrote: its summary and how it departs from the physical board."""
    package = importlib.import_module(f"engines.{args.game}")
    if not hasattr(package, "load_board_file"):
        print(f"tablemate: {args.game} has no board files", file=sys.stderr)
        return 2
    board = package.load_board_file(args.file)
    print(f"ok: {board.summary}")
    differences = board.differences() if hasattr(board, "differences") else []
    for line in differences:
        print(f"warning: {line}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tablemate", description="A board game score companion.")
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="replay a recorded game and print the scores")
    demo.add_argument("game", nargs="?", default="thurn_und_taxis", choices=engines.names())
    demo.set_defaults(run=_demo)
    replay = commands.add_parser("replay", help="print the scores of a game log file")
    replay.add_argument("file")
    replay.add_argument("--json", action="store_true", help="print the scores as JSON")
    replay.set_defaults(run=_replay)
    board = commands.add_parser("board", help="board files").add_subparsers(dest="board_command", required=True)
    check = board.add_parser("check", help="check a board file (Taj Mahal, Maharani)")
    check.add_argument("game", choices=engines.names())
    check.add_argument("file")
    check.set_defaults(run=_board_check)
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except gamelog.BadLog as error:
        print(f"tablemate: {error}", file=sys.stderr)
        return 2
    except engines.IllegalAction as error:
        print(f"tablemate: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
