"""`tablemate demo [GAME]`: a complete recorded game played through the mocked hardware, no input needed.

The recorded inputs (firmware/demos/<game>.script) tap enrolled tags (<game>.tags.toml) on the
mock readers and press the mock buttons, in virtual time; on a terminal every screen is drawn in
place, into a file or a pipe the score table is printed once per round instead. The final scores are
then checked against a replay of the game's journal. Ctrl-C stops the demo cleanly (status 130).
"""

import dataclasses
import sys
import uuid
from importlib import resources
from typing import TextIO

import engines

from drivers.display import DisplaySpec

from . import report, script, tagfile
from .app import App
from .config import StoreConfig, load_profile
from .script import VirtualClock, VirtualTime

DEMOS = resources.files("firmware").joinpath("demos")


def demo_games() -> list[str]:
    return sorted(entry.name[: -len(".script")] for entry in DEMOS.iterdir() if entry.name.endswith(".script"))


def run(game: str, stream: TextIO = sys.stdout) -> int:
    """Play the recorded game; 0 when it ends with the scores its journal replays to."""
    with resources.as_file(DEMOS.joinpath("profile.toml")) as path:
        profile = load_profile(path)
    # a store of this run's own: an in-process memory:// store outlives a run inside one process
    profile = dataclasses.replace(profile, store=StoreConfig(f"{profile.store.url}-{uuid.uuid4().hex}"))
    screens = stream.isatty()
    if not screens:
        profile = dataclasses.replace(profile, display=DisplaySpec(driver="dummy"))
    clock = VirtualClock()
    app = App.build(profile, clock=clock, stream=stream, web=False)
    try:
        table = app.loop.table
        table.tags.set_many(tagfile.parse(DEMOS.joinpath(f"{game}.tags.toml").read_text(encoding="utf-8"), f"{game}.tags.toml"))
        steps = script.parse(DEMOS.joinpath(f"{game}.script").read_text(encoding="utf-8"), f"{game}.script")
        app.loop.start()
        hands = VirtualTime(app, clock)
        hands.check(steps)
        phase = None
        for step in steps:
            hands.do(step)
            session = table.session
            if not screens and session is not None and session.game.phase(session.state) != phase:
                if phase is not None:
                    print(f"\nAfter {phase}:\n{report.score_table(session.game, session.state)}", file=stream)
                phase = session.game.phase(session.state)
        session = table.session
        game_engine = session.game
        replayed = engines.replay(session.name, session.players, session.options, list(table.journal.load(session.gid).actions))
        print(f"\n{game_engine.title}: {report.counted(len(session.actions), 'action')} from {report.counted(len(steps), 'input')}", file=stream)
        for score in game_engine.scores(session.state):
            print(f"  {score.player:6} {score.total:4}  {score.breakdown}", file=stream)
        winners = ", ".join(session.players[seat] for seat in game_engine.winners(session.state))
        print(f"Winner: {winners}", file=stream)
        if not game_engine.is_over(session.state) or game_engine.scores(replayed) != game_engine.scores(session.state):
            print("the demo did not end as recorded", file=sys.stderr)
            return 1
        return 0
    except KeyboardInterrupt:
        print("\ndemo stopped", file=sys.stderr)
        return 130
    finally:
        app.close()
