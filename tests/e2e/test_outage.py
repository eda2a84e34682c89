"""Redis goes away mid-game (architecture.md: "If Redis is unreachable, play goes on"). The whole
appliance on mocked hardware (tests/e2e/rig.py) plays Taj Mahal against a real redis-server with AOF;
the server is stopped and started again on the same port and directory.

While Redis is down, accepted actions wait in memory in order and every screen carries the store
badge; when it answers again the loop's next tick writes them, each exactly once, and the game goes
on to the scores of an uninterrupted replay. What the table does about games and Redis:
- at boot it cannot know the current game without Redis, so it waits for it ("Store unreachable")
  and refuses inputs with that reason, rather than start a game that might fork the one in progress;
  once Redis answers, it recovers the game in progress;
- a game started from the menu while Redis is down (the table knew the current one) is played
  offline like any other: its start, its actions and the old game's "abandoned" wait in order.
"""

import dataclasses
import json


import engines
from firmware.journal import Journal
from firmware.session import Session
from firmware.store import connect
from firmware.table import BOOT_RETRY_S
from firmware.views import FlashView, MessageView, ScoreView

from .autopilot import Autopilot
from .games import NAMES, bot_game, components, enrol
from .rig import Rig

PLAYERS, SEED = 5, 7


def canonical(actions) -> list[str]:
    return [json.dumps(action, sort_keys=True) for action in actions]


def start_game(rig: Rig, name: str, players: int, seed: int) -> tuple[list[dict], Autopilot]:
    """Enrol the components of a bot game of `name`, start it from the home screen (or the menu's
    "New game"); the game's actions and an autopilot to play them."""
    actions = bot_game(name, players, {}, seed)
    uids = enrol(rig.table.tags, components(name, actions))
    for label in (engines.get(name).title, f"{players} players", "Hints on"):
        rig.choose(label)
    return actions, pilot(rig, uids)


def pilot(rig: Rig, uids: dict[str, str]) -> Autopilot:
    return Autopilot(rig.table, rig, lambda d: uids[d["id"]])


def after_a_play(actions: list[dict], at_least: int) -> int:
    """The number of actions up to the first one-card play from `at_least` on: after it no question is
    open, and undo takes the whole play back (of a two-card play, only the second card)."""
    return next(n for n in range(at_least, len(actions)) if actions[n - 1]["type"] == "play" and len(actions[n - 1]["cards"]) == 1)


def assert_badge_shown(rig: Rig) -> None:
    """The view carries the store badge and the display shows exactly that frame, not the plain one."""
    view = rig.table.view()
    assert view.offline, view
    screen = rig.app.loop.screen
    assert rig.image.tobytes() == screen.render(view).tobytes()
    assert rig.image.tobytes() != screen.render(dataclasses.replace(view, offline=False)).tobytes()


def test_redis_stopped_mid_game_nothing_is_lost_or_duplicated(redis_server):
    rig = Rig(redis_server.url)
    actions, autopilot = start_game(rig, "taj_mahal", PLAYERS, SEED)
    down, up = after_a_play(actions, 80), after_a_play(actions, 140)
    for number in range(down):
        autopilot.perform(actions[number], number + 1)
    session = rig.table.session
    stored_before = session.entries
    assert len(Journal(connect(redis_server.url), "t1").load(session.gid).entries) == stored_before

    redis_server.stop()
    for number in range(down, up):
        autopilot.perform(actions[number], number + 1)
        assert_badge_shown(rig)
    rig.press("undo")  # an undo marker waits in line too, then the play is made again
    view = rig.table.view()
    assert isinstance(view, ScoreView) and view.offline and view.events[0].startswith("Undone: ") and " plays " in view.events[0]
    autopilot.perform(actions[up - 1], up)
    assert rig.table.journal.offline and rig.table.journal.pending and session.entries > stored_before

    redis_server.start()
    rig.hands.passes(0.2)  # the loop ticks: the waiting writes go out
    assert not rig.table.journal.offline and rig.table.journal.pending == 0
    assert not rig.table.view().offline and rig.image.tobytes() == rig.app.loop.screen.render(rig.table.view()).tobytes()
    journal = Journal(connect(redis_server.url), "t1")
    record = journal.load(session.gid)  # refuses a gap in the entry numbers
    assert len(record.entries) == session.entries
    assert [kind for kind, _ in record.entries[-2:]] == ["undo", "action"]
    assert canonical([record.entries[-1][1]]) == canonical([actions[up - 1]])
    assert canonical(record.actions) == canonical(session.actions) == canonical(actions[:up])

    for number in range(up, len(actions)):
        autopilot.perform(actions[number], number + 1)
    game = session.game
    replayed = engines.replay("taj_mahal", NAMES[:PLAYERS], {}, actions)
    assert game.is_over(session.state) and game.scores(session.state) == game.scores(replayed)
    record = journal.load(session.gid)
    assert canonical(record.actions) == canonical(actions) and record.status == "over"
    assert json.loads(journal.client.hget(journal.key("game", session.gid), "scores")) == [
        {"player": s.player, "total": s.total, "breakdown": s.breakdown} for s in game.scores(replayed)
    ]
    rig.close()


def test_booting_while_redis_is_down_waits_for_it_then_recovers_the_game(redis_server):
    rig = Rig(redis_server.url)
    actions, autopilot = start_game(rig, "taj_mahal", PLAYERS, SEED)
    uids = {entry.descriptor["id"]: uid for uid, entry in rig.table.tags.items()}
    cut = after_a_play(actions, 30)
    for number in range(cut):
        autopilot.perform(actions[number], number + 1)
    state, entries = rig.table.session.state, rig.table.session.entries
    rig.close()
    redis_server.stop()

    rig = Rig(redis_server.url)
    assert rig.table.view() == MessageView("Store unreachable", ("Waiting for Redis.", "The game is kept there."), True)
    assert rig.image.tobytes() == rig.app.loop.screen.render(rig.table.view()).tobytes()
    rig.press("withdraw")
    assert rig.table.view() == FlashView(("Store unreachable",), error=True)
    rig.hands.passes(2 * BOOT_RETRY_S)
    assert rig.table.session is None and rig.app.loop.status() == "Waiting for Redis"

    redis_server.start()
    rig.hands.passes(BOOT_RETRY_S + 0.1)
    assert rig.table.session is not None and rig.table.session.state == state
    assert isinstance(rig.table.view(), ScoreView) and rig.table.session.entries == entries
    pilot(rig, uids).perform(actions[cut], cut + 1)  # play goes on where it stopped
    stored = Journal(connect(redis_server.url), "t1").load(rig.table.session.gid).actions
    assert canonical(stored) == canonical(actions[:cut + 1])
    rig.close()


def test_a_game_started_while_redis_is_down_is_stored_when_it_answers(redis_server):
    rig = Rig(redis_server.url)
    actions, autopilot = start_game(rig, "taj_mahal", PLAYERS, SEED)
    cut = after_a_play(actions, 20)
    for number in range(cut):
        autopilot.perform(actions[number], number + 1)
    old, old_entries = rig.table.session.gid, rig.table.session.entries
    second = bot_game("maharani", 2, {}, 4)
    uids = enrol(rig.table.tags, components("maharani", second))  # the tag map is written at once

    redis_server.stop()
    rig.step("hold", "undo", "1000")
    rig.choose("New game")
    for label in ("Maharani", "2 players", "Hints on"):
        rig.choose(label)
    new = rig.table.session.gid
    assert new != old and rig.table.journal.offline
    for number in range(12):
        pilot(rig, uids).perform(second[number], number + 1)
    assert_badge_shown(rig)

    redis_server.start()
    rig.hands.passes(0.2)
    assert rig.table.journal.pending == 0 and not rig.table.journal.offline
    journal = Journal(connect(redis_server.url), "t1")
    assert journal.current() == new and journal.games() == [old, new]
    assert journal.load(old).status == "abandoned" and len(journal.load(old).entries) == old_entries
    assert canonical(journal.load(new).actions) == canonical(second[:12])
    assert Session.recover(journal).state == rig.table.session.state
    rig.close()


def test_an_error_flash_while_waiting_for_redis_gives_way_to_the_waiting_message(redis_server):
    redis_server.stop()
    rig = Rig(redis_server.url)
    rig.press("ok")
    assert rig.table.view() == FlashView(("Store unreachable",), error=True)
    rig.hands.passes(rig.table.settings.error_s + 0.1)
    assert isinstance(rig.table.view(), MessageView)
    assert rig.image.tobytes() == rig.app.loop.screen.render(rig.table.view()).tobytes()
    rig.close()
