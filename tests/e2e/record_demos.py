"""Record the demos `tablemate demo` plays: a bot game per game, played by the autopilot through the
rig from the game-select screen, its inputs written to firmware/demos/<game>.script and its enrolled
components to <game>.tags.toml, with every other component of the game's manifest after them (the
demo's tag file is the whole game, named as enrolment names it). Run again after a change to the table's questions:

    .venv/bin/python -m tests.e2e.record_demos
"""

from pathlib import Path

import engines
from firmware import tagfile

from .autopilot import Autopilot
from .games import bot_game, complete, components, enrol
from .rig import Rig

DEMOS = Path(__file__).parents[2] / "firmware" / "demos"
#: game -> (players, options, seed): Taj Mahal for five without a board (the real board is the owner's)
SETUPS = {
    "taj_mahal": (5, {}, 7),
    "thurn_und_taxis": (3, {}, 0),
    "maharani": (3, {}, 3),
    "mongols": (4, {"dice": True}, 3),
}


def record(name: str) -> None:
    n_players, options, seed = SETUPS[name]
    actions = bot_game(name, n_players, options, seed)
    entries = components(name, actions)
    lines: list[str] = []
    rig = Rig(f"memory://record-{name}", record=lines)
    uids = enrol(rig.table.tags, entries)
    rig.choose(engines.get(name).title)
    rig.choose(f"{n_players} players")
    if name == "mongols":
        rig.choose("Yes")
    rig.choose("Hints on")
    Autopilot(rig.table, rig, lambda d: uids[d["id"]]).play(actions)
    rig.close()
    title = engines.get(name).title
    header = f"# {title}, {n_players} players: a whole recorded game ({len(actions)} actions). Recorded by tests/e2e/record_demos.py.\n"
    (DEMOS / f"{name}.script").write_text(header + "\n".join(lines) + "\n", encoding="utf-8")
    every = complete(name, entries)
    (DEMOS / f"{name}.tags.toml").write_text(tagfile.export_text(sorted(every.items()), "demo"), encoding="utf-8")
    print(f"{name}: {len(lines)} inputs, {len(entries)} tags played, {len(every)} in all")


if __name__ == "__main__":
    for game in SETUPS:
        record(game)
