"""Bad input through the whole appliance on mocked hardware (interaction.md, "One tap, one thing"): a
tap or press that makes no sense now shows a distinct error flash with the reason, changes nothing,
stores nothing, and the next valid input carries on. Contact bounce on a button is one press. A
corrupt journal entry halts the table at recovery with a message naming the entry and the command
that repairs it; nothing is accepted and the stored game stays whole until that command cuts it
back (keeping a backup), and the table plays on from there.
"""

import json

import pytest

from drivers.buttons import ButtonEvent
from firmware import cli
from firmware.journal import Journal
from firmware.store import connect
from firmware.table import HALT_RETRY_S
from firmware.views import ChooserView, FlashView, MessageView, ScoreView

from .appliance import write_profile
from .playing import OTHER_GAME_TAG, PLAYERS, Playing
from .rig import Rig

@pytest.fixture
def table(memory_url):
    table = Playing(memory_url)
    yield table
    table.close()


def is_play(action: dict) -> bool:
    return action["type"] == "play"


def test_an_unknown_tag_is_refused_and_the_game_goes_on(table):
    play = table.play_until(is_play)
    table.refused("Unknown tag 0badc0de", lambda: table.rig.tap("0badc0de", play["player"]))
    table.play_next()
    assert table.session.actions[-1]["type"] == "play"


def test_a_tag_of_another_game_is_refused(table):
    play = table.play_until(is_play)
    table.refused("Tag of Thurn und Taxis", lambda: table.rig.tap(OTHER_GAME_TAG, play["player"]))
    table.play_next()


def test_the_same_card_twice_is_refused(table):
    """A card already on the table (tapped again, by the next player) stays where it is."""
    table.play_until(lambda a: is_play(a) and any(table.session.state.table))
    state = table.session.state
    seat = next(s for s, laid in enumerate(state.table) if laid)
    player = table.actions[table.done]["player"]
    table.refused(f"Card on {state.short_name(seat)}'s table", lambda: table.rig.tap(table.uids[state.table[seat][0]], player))
    table.play_next()


def test_a_card_tapped_again_by_its_player_is_refused(table):
    """A second tap of the card just played (a double tap): the turn has passed."""
    play = table.play_until(lambda a: is_play(a) and len(a["cards"]) == 1)
    table.play_next()
    card = table.uids[play["cards"][0]["id"]]
    next_player = table.session.game.prompt(table.session.state).player
    table.rig.hands.passes(1.0)  # lifted long enough: this is a new tap, not the same one
    table.refused(f"{table.session.state.short_name(next_player)}'s turn", lambda: table.rig.tap(card, play["player"]))


def test_a_card_left_on_the_reader_is_one_tap(table):
    play = table.play_until(lambda a: is_play(a) and len(a["cards"]) == 1)
    entries = table.session.entries
    reader = table.rig.app.readers.readers[f"seat{play['player']}"]
    reader.place(table.uids[play["cards"][0]["id"]])
    table.rig.hands.passes(1.0)  # twenty polls see it resting there, well within an error flash's time
    view = table.rig.table.view()
    assert not (isinstance(view, FlashView) and view.error), view
    assert table.session.entries == entries + 1 and table.session.actions[-1]["player"] == play["player"]
    reader.lift()
    table.rig.hands.passes(1.0)
    assert table.session.entries == entries + 1


def test_a_card_on_the_wrong_players_reader_is_refused(table):
    play = table.play_until(is_play)
    player = play["player"]
    wrong = (player + 1) % PLAYERS
    card = table.uids[play["cards"][0]["id"]]
    table.refused(f"{table.session.state.short_name(player)}'s turn", lambda: table.rig.tap(card, wrong))
    table.play_next()


@pytest.mark.parametrize("role", ["pass", "next", "ok"])
def test_a_press_that_means_nothing_now_is_explained(table, role):
    table.play_until(is_play)
    assert table.rig.table.running is None
    table.refused(f"'{role}' does nothing here", lambda: table.rig.press(role))
    table.play_next()


def test_a_province_tile_out_of_its_time_is_refused(table):
    table.play_until(is_play)
    tile = next(a["tile"] for a in table.actions if a["type"] == "visit")
    table.refused("No province tile now", lambda: table.rig.tap(table.uids[tile["id"]], None))


# -- button bounce -------------------------------------------------------------------------------


def chatter(rig: Rig, role: str, pattern: list[tuple[bool, float]]) -> list:
    """Drive `role`'s pin through (pressed, milliseconds) levels on the virtual clock, 1 ms at a time,
    with the buttons updated as time passes; the button events the loop was given."""
    panel = rig.app.buttons
    pin = panel.factory.pin(panel.pin(role))
    for pressed, ms in pattern:
        if pressed:
            pin.drive_low()
        else:
            pin.drive_high()
        for _ in range(round(ms)):
            rig.clock.now += 0.001
            panel.update()
    return [event for event in list(rig.app.loop.events.queue) if isinstance(event, ButtonEvent)]


def test_a_bouncing_press_is_one_press(memory_url):
    rig = Rig(memory_url)
    bounce_ms = rig.app.profile.buttons.bounce_ms
    assert isinstance(rig.table.view(), ChooserView) and rig.table.view().index == 0
    down = [(True, 1), (False, 1), (True, 2), (False, 1)]
    up = [(False, 1), (True, 1), (False, 2), (True, 1)]
    events = chatter(rig, "next", down + [(True, 4 * bounce_ms)] + up + [(False, 2 * bounce_ms)])
    assert events == [ButtonEvent("next", "press")]
    rig.app.loop.drain()
    assert rig.table.view().index == 1
    rig.close()


def test_a_glitch_shorter_than_the_bounce_time_is_no_press(memory_url):
    rig = Rig(memory_url)
    bounce_ms = rig.app.profile.buttons.bounce_ms
    events = chatter(rig, "next", [(True, bounce_ms - 2), (False, 3 * bounce_ms)] * 3)
    assert events == []
    rig.app.loop.drain()
    assert rig.table.view().index == 0
    rig.close()


# -- a corrupt journal -----------------------------------------------------------------------------

#: how entry 5-0 is damaged, and what the table must say about it
CORRUPTIONS = {
    "unreadable": ({"kind": "action", "action": "{oops"}, "entry 5-0 holds no readable action: '{oops'"),
    "unknown kind": ({"kind": "mystery", "action": "{}"}, "entry 5-0 has unknown kind 'mystery'"),
    "refused by the rules": ({"kind": "action", "action": '{"type": "withdraw", "player": 9}'}, "entry 5-0 is refused by the rules"),
    "missing": (None, "entry 5-0 is missing (found 6-0 instead)"),
}


def damage(journal: Journal, gid: str, number: int, fields: dict | None) -> None:
    """Rewrite game `gid`'s stream with entry `number` replaced by `fields` (None: deleted)."""
    key = journal.log_key(gid)
    entries = journal.client.xrange(key)
    journal.client.delete(key)
    for entry_id, stored in entries:
        if entry_id != f"{number}-0":
            journal.client.xadd(key, stored, id=entry_id)
        elif fields is not None:
            journal.client.xadd(key, fields, id=entry_id)


@pytest.mark.parametrize("damaged", CORRUPTIONS)
def test_a_corrupt_entry_halts_the_table_until_the_command_it_names_repairs_the_game(redis_server, tmp_path, capsys, damaged):
    fields, message = CORRUPTIONS[damaged]
    table = Playing(redis_server.url)
    play = table.play_until(lambda a: is_play(a) and table.done >= 12)
    gid = table.session.gid
    table.close()
    journal = Journal(connect(redis_server.url), "t1")
    damage(journal, gid, 5, fields)
    stored = journal.client.xrange(journal.log_key(gid))

    rig = Rig(redis_server.url)
    view = rig.table.view()
    repair = f"tablemate log repair {gid} --truncate-at 5"
    assert isinstance(view, MessageView) and view.title == "Journal problem" and view.lines[0].startswith(message)
    assert view.lines[1:] == (f"Run: {repair}", "Hold undo: menu")
    assert rig.image.tobytes() == rig.app.loop.screen.render(view).tobytes()
    assert rig.app.loop.status().startswith(f"Halted: game {gid}: {message}") and rig.app.loop.status().endswith(f"; repair: {repair}")
    rig.tap(table.uids[play["cards"][0]["id"]], play["player"])
    assert rig.table.view() == FlashView(("No game in progress",), error=True)
    rig.press("withdraw")
    assert rig.table.view() == FlashView(("Hold undo: menu",), error=True)
    rig.hands.passes(HALT_RETRY_S + 0.1)  # tried again: still damaged
    assert rig.table.session is None and journal.current() == gid
    assert journal.client.xrange(journal.log_key(gid)) == stored  # not truncated, nothing added

    profile = str(write_profile(tmp_path / "profile.toml", redis_server.url))
    assert cli.main(["log", "check", "--config", profile]) == 1
    out = capsys.readouterr().out
    assert f"  entry 5-0: {message.removeprefix('entry 5-0 ')}" in out and f"  repair: {repair} (keeps entries 1-4)" in out
    assert cli.main(["log", "repair", gid, "--truncate-at", "5-0", "--backup-dir", str(tmp_path), "--config", profile]) == 0
    backup = json.loads(next(tmp_path.glob(f"tablemate-t1-{gid}-*.json")).read_text())
    assert backup["stream"] == [[entry_id, fields] for entry_id, fields in stored]
    assert journal.client.xrange(backup["key"]) == stored
    assert [entry_id for entry_id, _ in journal.client.xrange(journal.log_key(gid))] == ["0-1", "1-0", "2-0", "3-0", "4-0"]
    assert cli.main(["log", "check", gid, "--config", profile]) == 0
    capsys.readouterr()

    rig.hands.passes(HALT_RETRY_S + 0.1)  # the halted table finds the game readable again
    assert rig.table.view() == FlashView(("Game repaired", "Play on"))
    kept = journal.load(gid)
    assert rig.table.session.entries == 4 and list(rig.table.session.actions) == kept.actions
    rig.press("undo")  # play goes on from there: the next input is entry 5
    undone = rig.table.view()
    assert isinstance(undone, ScoreView) and undone.events[0].startswith("Undone: ")  # and what it undid
    assert journal.load(gid).entries == kept.entries + [("undo", None)]
    rig.close()


#: what is done to a stored game's header, and what `status` and `log export` say (None: they show it)
HEADER_DAMAGE = {
    "hash deleted": (lambda r, gid: r.delete(f"tablemate:{{t1}}:game:{gid}"), None),
    "hash and entry 0-1 deleted": (lambda r, gid: (r.delete(f"tablemate:{{t1}}:game:{gid}"), r.xdel(f"tablemate:{{t1}}:game:{gid}:log", "0-1")),
                                   "its header is missing (no header hash and no entry 0-1)"),
    "hash unreadable, no entry 0-1": (lambda r, gid: (r.hset(f"tablemate:{{t1}}:game:{gid}", "players", "{oops"),
                                                      r.xdel(f"tablemate:{{t1}}:game:{gid}:log", "0-1")), "unreadable header ("),
    "everything deleted": (lambda r, gid: r.delete(f"tablemate:{{t1}}:game:{gid}", f"tablemate:{{t1}}:game:{gid}:log"),
                           "no game '{gid}' is stored at table 't1'"),
}


def test_the_command_line_refuses_to_show_or_export_a_damaged_game(redis_server, tmp_path, capsys):
    table = Playing(redis_server.url)
    table.play_until(lambda a: table.done >= 12)
    gid = table.session.gid
    table.close()
    damage(Journal(connect(redis_server.url), "t1"), gid, 5, None)
    profile = str(write_profile(tmp_path / "profile.toml", redis_server.url))
    for command in (["log", "export", "--config", profile], ["status", "--config", profile]):
        capsys.readouterr()
        assert cli.main(command) == 2
        out, err = capsys.readouterr()
        assert out == "" and err == (f"tablemate: game {gid}: entry 5-0 is missing (found 6-0 instead)\n"
                                     f"tablemate: see tablemate log repair {gid} --truncate-at 5\n")


@pytest.mark.parametrize("damaged", HEADER_DAMAGE)
def test_status_and_export_never_crash_on_a_missing_or_damaged_header(redis_server, tmp_path, capsys, damaged):
    table = Playing(redis_server.url)
    table.play_until(lambda a: table.done >= 6)
    gid, actions = table.session.gid, list(table.session.actions)
    table.close()
    tamper, message = HEADER_DAMAGE[damaged]
    tamper(connect(redis_server.url), gid)
    profile = str(write_profile(tmp_path / "profile.toml", redis_server.url))
    for command in (["log", "export", "--config", profile], ["status", "--config", profile]):
        capsys.readouterr()
        if message is None:  # the stream alone holds the game
            assert cli.main(command) == 0
            assert command[0] == "status" or json.loads(capsys.readouterr().out)["actions"] == actions
        else:
            assert cli.main(command) == 2
            out, err = capsys.readouterr()
            assert out == "" and message.format(gid=gid) in err and "Traceback" not in err


def test_a_halted_table_can_start_a_new_game_and_the_damaged_one_stays_whole(redis_server):
    table = Playing(redis_server.url)
    table.play_until(lambda a: table.done >= 12)
    gid = table.session.gid
    table.close()
    journal = Journal(connect(redis_server.url), "t1")
    damage(journal, gid, 5, CORRUPTIONS["unreadable"][0])
    stored = journal.client.xrange(journal.log_key(gid))

    rig = Rig(redis_server.url)
    rig.step("hold", "undo", "1000")
    rig.choose("New game")
    for label in ("Taj Mahal", f"{PLAYERS} players", "Hints on"):
        rig.choose(label)
    assert rig.table.session is not None and rig.table.session.gid != gid and journal.current() == rig.table.session.gid
    assert journal.client.xrange(journal.log_key(gid)) == stored and journal.games() == [gid, rig.table.session.gid]
    rig.close()
