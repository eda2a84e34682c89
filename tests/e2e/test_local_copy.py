"""The journal's local copy against SIGKILL (firmware/journal/__init__.py, "The local copy"). The
appliance, a real `tablemate run` process with [store] local_dir, plays Taj Mahal from a script on
its mocked hardware against a real redis-server (AOF), and is killed with SIGKILL:
- while Redis is down, after it accepted actions that Redis never got: started again once Redis is
  back, it writes them, each exactly once, and the game goes on;
- just after the store was tampered with (the stream deleted, FLUSHALL, another writer's entry at
  the next id), frozen (SIGSTOP) so it cannot notice first: started again, the table's game is whole
  under its gid, or under a new gid forked from the old one, which keeps the other writer's entry.
"""

import json
import time
from dataclasses import dataclass, field

from firmware.cli import main
from firmware.journal import Journal
from firmware.journal.local import LocalCopy
from firmware.store import connect, table_key
from firmware.tagmap import TagEntry
from firmware.views import FlashView

from .appliance import Appliance
from .autopilot import Autopilot
from .games import bot_game, components, enrol
from .rig import Rig
from .test_outage import after_a_play, canonical, start_game

PLAYERS, SEED = 5, 7


@dataclass
class Script:
    """A game's inputs as script lines, and after some of its actions (cuts, at a play: no question
    is open) how many lines played it and how many journal entries the table had written."""

    game: list[dict]
    tags: dict[str, TagEntry]
    lines: list[str] = field(default_factory=list)
    marks: dict[int, tuple[int, int]] = field(default_factory=dict)

    def lines_to(self, cut: int, since: int = 0) -> list[str]:
        return self.lines[self.marks[since][0] if since else 0: self.marks[cut][0]]

    def entries(self, cut: int) -> int:
        return self.marks[cut][1]


def scripted(url: str, *at_least: int) -> tuple[Script, list[int]]:
    game = bot_game("taj_mahal", PLAYERS, {}, SEED)
    script = Script(game, components("taj_mahal", game))
    cuts = [after_a_play(game, n) for n in at_least]
    rig = Rig(url, record=script.lines)
    uids = enrol(rig.table.tags, script.tags)
    for label in ("Taj Mahal", f"{PLAYERS} players", "Hints on"):
        rig.choose(label)
    pilot = Autopilot(rig.table, rig, lambda d: uids[d["id"]])
    for number in range(cuts[-1]):
        pilot.perform(game[number], number + 1)
        if number + 1 in cuts:
            script.marks[number + 1] = (len(script.lines), rig.table.session.entries)
    rig.close()
    return script, cuts


def stored(journal: Journal) -> tuple[str | None, int]:
    """The table's current game as stored and its number of entries (0 when unreadable for now)."""
    try:
        gid = journal.current()
        return gid, len(journal.load(gid).entries) if gid else 0
    except (KeyError, ValueError):  # no such game yet, or its stream gone for a moment
        return None, 0


def wait_for(condition, appliance: Appliance, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"waited in vain:\n{appliance.output()}"
        time.sleep(0.05)


def test_actions_accepted_while_redis_was_down_are_stored_once_after_a_kill(redis_server, memory_url, tmp_path):
    script, (down, killed, end) = scripted(memory_url, 18, 20, 26)
    local_dir = tmp_path / "state"
    appliance = Appliance(tmp_path, redis_server.url, script.tags, local_dir=local_dir)
    journal = Journal(connect(redis_server.url), "t1")
    try:
        appliance.start(script.lines_to(down) + ["wait 2000"] + script.lines_to(killed, since=down))
        wait_for(lambda: stored(journal)[1] == script.entries(down), appliance)
        gid = journal.current()
        redis_server.kill()  # the actions that follow are accepted with the "!" badge
        wait_for(lambda: [len(g.entries) for g in LocalCopy(local_dir, "t1").load().games] == [script.entries(killed)], appliance)
        appliance.kill()
        redis_server.start()
        assert stored(journal) == (gid, script.entries(down))  # Redis never got them

        appliance.start(script.lines_to(end, since=killed))  # the game goes on where it was killed
        wait_for(lambda: stored(journal)[1] == script.entries(end), appliance)
        appliance.stop()
    finally:
        appliance.close()
    record = journal.load(gid)
    assert len(record.entries) == script.entries(end) and canonical(record.actions) == canonical(script.game[:end])


FOREIGN = {"kind": "action", "at": "1.0", "action": json.dumps({"type": "withdraw", "player": 1})}


def test_the_store_tampered_with_then_the_appliance_killed_before_it_noticed(redis_server, memory_url, tmp_path):
    script, cuts = scripted(memory_url, 6, 18, 22, 26)
    client = connect(redis_server.url)
    journal = Journal(client, "t1")
    appliance = Appliance(tmp_path, redis_server.url, script.tags, local_dir=tmp_path / "state")
    tampers = [lambda gid: client.delete(table_key("t1", "game", gid, "log")), lambda gid: client.flushall(),
               lambda gid: client.xadd(table_key("t1", "game", gid, "log"), FOREIGN, id=f"{stored(journal)[1] + 1}-0")]
    since, gid = 0, None
    try:
        for cut, tamper in zip(cuts, tampers):
            appliance.start(script.lines_to(cut, since))
            wait_for(lambda: stored(journal)[1] == script.entries(cut), appliance)
            assert gid in (None, journal.current()), "a game Redis lost is written again under its own gid"
            gid = journal.current()
            appliance.freeze()
            tamper(gid)
            appliance.kill()
            since = cut
        appliance.start(script.lines_to(cuts[-1], since))
        wait_for(lambda: stored(journal)[1] == script.entries(cuts[-1]), appliance)
        appliance.stop()
    finally:
        appliance.close()
    new = journal.current()
    assert new != gid and journal.load(new).notes["forked_from"] == gid and journal.load(gid).notes == {"forked_to": new}
    assert client.xrange(table_key("t1", "game", gid, "log"))[-1] == (f"{script.entries(cuts[-2]) + 1}-0", FOREIGN)
    assert sorted(journal.games()) == sorted([gid, new])
    record = journal.load(new)
    assert len(record.entries) == script.entries(cuts[-1]) and canonical(record.actions) == canonical(script.game[: cuts[-1]])


def test_a_redis_that_lost_everything_gets_the_game_and_the_tag_map_back_without_enrolling_again(redis_server, memory_url, tmp_path):
    script, (first, end) = scripted(memory_url, 6, 12)
    client = connect(redis_server.url)
    journal = Journal(client, "t1")
    appliance = Appliance(tmp_path, redis_server.url, script.tags, local_dir=tmp_path / "state")
    unused = next(uid for uid in script.tags if not any(uid in line for line in script.lines))
    try:
        appliance.start(script.lines_to(first))
        wait_for(lambda: stored(journal)[1] == script.entries(first), appliance)
        gid = journal.current()
        appliance.stop()
        assert main(["tags", "forget", unused, "--config", str(appliance.profile)]) == 0  # the CLI keeps the copy too
        tags = client.hgetall(table_key("t1", "tags"))
        client.flushall()  # a new SD card for Redis

        appliance.start(script.lines_to(end, since=first), tags=False)  # every tap must be known again
        wait_for(lambda: stored(journal)[1] == script.entries(end), appliance)
        appliance.stop()
    finally:
        appliance.close()
    assert unused not in tags and client.hgetall(table_key("t1", "tags")) == tags
    record = journal.load(gid)
    assert len(record.entries) == script.entries(end) and canonical(record.actions) == canonical(script.game[:end])


def test_an_unwritable_local_directory_is_said_once_and_play_goes_on_with_redis_alone(redis_server, tmp_path):
    (tmp_path / "a-file").write_text("")
    rig = Rig(redis_server.url, local_dir=tmp_path / "a-file" / "state")  # its directory cannot be made
    rig.hands.passes(0.2)
    assert rig.table.view() == FlashView(("Local copy failed", "Play goes on"))
    assert "the local copy" in rig.app.loop.status() and "a-file/state" in rig.app.loop.status()
    actions, autopilot = start_game(rig, "taj_mahal", PLAYERS, SEED)
    for number in range(6):
        autopilot.perform(actions[number], number + 1)
    assert not rig.table.journal.notices and "Local copy failed" not in str(rig.table.view())  # said once
    journal = Journal(connect(redis_server.url), "t1")
    assert canonical(journal.load(rig.table.session.gid).actions) == canonical(actions[:6])
    rig.close()
