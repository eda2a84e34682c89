"""Pulling the plug mid-game (interaction.md: "Nothing is lost"). The appliance, a real `tablemate run`
process playing a scripted Taj Mahal game on its mocked hardware against a real redis-server (AOF,
appendfsync always), is killed with SIGKILL at random moments and started again with the inputs that
remain; every third kill takes Redis down with it, as a power cut does. The finished game's log and
scores equal those of an uninterrupted run, and no journal entry ever disappears.

Where the inputs resume: the uninterrupted run notes, after each input, the journal's signature (the
number of standing actions and the last one). After a kill the journal's signature is looked up, and
the inputs resume right after the input that first produced it: the table re-opens by itself the
questions that follow an action (where a palace goes...), and a two-card play is a play, then its
replacement. A kill between the writes of one input's actions (a palace, then the chain the table
counted by itself) resumes after that input: the restarted table applies the rest by itself.
"""

import json
import random
import time
from dataclasses import dataclass

import pytest

from firmware import cli
from firmware.gamelog import GameLog
from firmware.journal import Journal
from firmware.session import Session
from firmware.store import connect, memory_server
from firmware.tagmap import TagEntry

from .appliance import Appliance, script_seconds
from .autopilot import Autopilot
from .games import bot_game, components, enrol
from .resume import NotingRig, Signature, journal_signature, resume_at, stored_entries
from .rig import Rig

#: Taj Mahal for three (173 actions: two-card plays, bonus tiles, crowns, chains, hands): 331 inputs
PLAYERS, SEED = 3, 1
KILLS = 12
POWER_CUT_EVERY = 3

@dataclass
class Reference:
    """The uninterrupted run: its inputs, the signature after each, its exported log and scores."""

    lines: list[str]
    marks: list[Signature]
    actions: tuple[dict, ...]
    tags: dict[str, TagEntry]
    log: dict
    scores: list

    def resume_at(self, now: Signature) -> int:
        """The index of the first input still to play when the journal's signature is `now`."""
        return resume_at(self.marks, self.actions, now)


def uninterrupted(url: str) -> Reference:
    actions = bot_game("taj_mahal", PLAYERS, {}, SEED)
    tags = components("taj_mahal", actions)
    rig = NotingRig(url)
    uids = enrol(rig.table.tags, tags)
    for label in ("Taj Mahal", f"{PLAYERS} players", "Hints on"):
        rig.choose(label)
    Autopilot(rig.table, rig, lambda d: uids[d["id"]]).play(actions)
    session = rig.table.session
    rig.close()
    record = Journal(connect(url), "t1").load(session.gid)
    log = GameLog(record.game, record.players, record.options, record.actions).to_json()
    return Reference(rig.lines, rig.marks, rig.actions, tags, log, session.game.scores(session.state))


def play_to_the_end(appliance: Appliance, journal: Journal, reference: Reference, resume: int) -> None:
    """Start the appliance on the inputs from `resume` on, wait until the journal holds the whole
    game, and stop it."""
    appliance.start(reference.lines[resume:])
    deadline = time.monotonic() + 3 * script_seconds(reference.lines[resume:]) + 20
    while journal_signature(journal) != reference.marks[-1]:
        if time.monotonic() > deadline:
            stored, played = journal.load(journal.current()).actions, reference.log["actions"]
            apart = next((n for n, (a, b) in enumerate(zip(stored, played)) if a != b), min(len(stored), len(played)))
            raise AssertionError(f"the game did not finish (resumed at input {resume}; the stored game leaves the "
                                 f"uninterrupted one at action {apart + 1}: {stored[apart:apart + 2]} instead of "
                                 f"{played[apart:apart + 2]}):\n{appliance.output()}")
        time.sleep(0.2)
    appliance.stop()


def exported(appliance: Appliance, capsys) -> dict:
    """`tablemate log export` of the appliance's current game."""
    capsys.readouterr()
    assert cli.main(["log", "export", "--config", str(appliance.profile)]) == 0
    return json.loads(capsys.readouterr().out)


def test_killed_at_random_moments_the_game_ends_as_if_never_interrupted(redis_server, tmp_path, memory_url, capsys):
    reference = uninterrupted(memory_url)
    # the test's own reads wait longer than the appliance's 0.5 s: a busy machine must not fail them
    journal = Journal(connect(redis_server.url, timeout=10.0), "t1")
    appliance = Appliance(tmp_path, redis_server.url, reference.tags)
    rng = random.Random(SEED)
    spacing = script_seconds(reference.lines) / (KILLS + 1)
    resume, kept, resumed_at = 0, [], []
    try:
        while len(resumed_at) < KILLS:
            rest = reference.lines[resume:]
            appliance.start(rest)
            time.sleep(rng.uniform(0.0, min(2 * spacing, 0.8 * script_seconds(rest))))
            appliance.kill()
            entries = stored_entries(journal)
            assert entries[: len(kept)] == kept, f"entries lost after restart {len(resumed_at)}"
            if len(resumed_at) % POWER_CUT_EVERY == POWER_CUT_EVERY - 1:
                redis_server.kill()
                redis_server.start()
                assert stored_entries(journal) == entries, "Redis lost acknowledged entries in a power cut"
            kept = entries
            resume = reference.resume_at(journal_signature(journal))
            resumed_at.append(resume)
            assert resume < len(reference.lines), "the game ended before every kill was made: kill sooner"

        play_to_the_end(appliance, journal, reference, resume)
    finally:
        appliance.close()

    assert len(set(resumed_at)) >= KILLS * 2 // 3, f"the kills landed at too few points: {resumed_at}"
    assert stored_entries(journal)[: len(kept)] == kept
    assert exported(appliance, capsys) == reference.log
    session = Session.recover(journal)
    assert session.game.is_over(session.state)
    assert session.game.scores(session.state) == reference.scores


@pytest.mark.parametrize("writes", [0, 1, 2])
def test_power_lost_inside_a_two_card_play_keeps_a_play(memory_url, writes):
    """The coloured card is played (stored, shown), then the second card joins it; the power goes
    after `writes` more transactions reach Redis (every change is one). Recovered, the player's play
    stands: the one-card play or the two-card play, never neither."""
    actions = bot_game("taj_mahal", PLAYERS, {}, SEED)
    number = next(n for n, a in enumerate(actions) if a["type"] == "play" and len(a["cards"]) == 2
                  and a["cards"][1].get("special") != "color_change")
    rig = Rig(memory_url)
    uids = enrol(rig.table.tags, components("taj_mahal", actions))
    for label in ("Taj Mahal", f"{PLAYERS} players", "Hints on"):
        rig.choose(label)
    pilot = Autopilot(rig.table, rig, lambda d: uids[d["id"]])
    pilot.play(actions[:number])
    coloured, second = actions[number]["cards"]
    pilot.perform({**actions[number], "cards": [coloured]}, number + 1)
    client, pipeline = rig.table.journal.client, rig.table.journal.client.pipeline
    allowed = [writes]

    def pipeline_cut_after_its_transaction(*args, **kwargs):
        pipe = pipeline(*args, **kwargs)
        execute = pipe.execute

        def execute_then_maybe_power_cut(*args, **kwargs):
            transaction = pipe.explicit_transaction  # execute() resets it
            results = execute(*args, **kwargs)
            if transaction:
                allowed[0] -= 1
                if allowed[0] == 0:
                    memory_server(memory_url).connected = False
            return results

        pipe.execute = execute_then_maybe_power_cut
        return pipe

    client.pipeline = pipeline_cut_after_its_transaction
    if writes == 0:
        memory_server(memory_url).connected = False
    rig.tap(uids[second["id"]], actions[number]["player"])
    assert rig.table.session.actions[-1]["cards"] == [coloured, second]
    assert writes == 0 or allowed[0] < writes, "no transaction went through the power-cut hook"
    rig.close()  # the power is cut: what waits in memory is gone
    memory_server(memory_url).connected = True

    again = Rig(memory_url)
    recovered = again.table.session.actions
    again.close()
    assert len(recovered) == number + 1, "the play shown as stored was lost"
    assert recovered[-1]["cards"][0] == coloured
