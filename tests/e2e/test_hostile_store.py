"""A hostile store (firmware/journal/__init__.py has the rules). The whole appliance on mocked hardware
(tests/e2e/rig.py) plays Taj Mahal against a real redis-server while the store is tampered with:
keys deleted, FLUSHALL, an entry another writer puts at the next id, an entry changed, a full,
read-only or failing server, a second table with the same id, the newest entries deleted while the
appliance was stopped. In every case nothing raises, the screen and the STATUS= line say what
happened, and the stored game equals the game played, under its own gid or under the new gid the
journal documents (forked_from / forked_to), or the table halts saying what was lost until
`tablemate log repair` accepts the loss.
"""

import json
import logging
import textwrap
import time

import pytest

from firmware import cli
from firmware.journal import CHECK_S, Journal
from firmware.journal.core import AUDIT_S
from firmware.journal.lease import Holder, this_process
from firmware.store import connect
from firmware.table import BOOT_RETRY_S, HALT_RETRY_S
from firmware.views import FlashView, MessageView, ScoreView
from tests.redis_server import free_port
from tests.status_log import StatusLog

from .appliance import Appliance, write_profile
from .autopilot import Autopilot
from .games import bot_game, components, enrol
from .playing import PLAYERS, SEED, Playing
from .rig import Rig

OTHER_PI = Holder("other-pi", "5d1e", 4321, "99")


def canonical(actions) -> list[str]:
    return [json.dumps(action, sort_keys=True) for action in actions]


def playing(url: str, until: int) -> tuple[Playing, StatusLog]:
    """A game played up to the first play from action `until` on (no question open after a play)."""
    table = Playing(url)
    table.play_until(lambda a: table.done >= until and table.actions[table.done - 1]["type"] == "play")
    table.rig.app.loop.notifier = statuses = StatusLog()
    return table, statuses


def stored_game(url: str) -> tuple[str, list[dict]]:
    """The table's current game as stored: its gid and its standing actions."""
    journal = Journal(connect(url), "t1")
    gid = journal.current()
    return gid, journal.load(gid).actions


def assert_kept(table: Playing, url: str) -> str:
    """The stored game is the game played; a restarted table recovers it. Its gid."""
    gid, actions = stored_game(url)
    assert canonical(actions) == canonical(table.session.actions) == canonical(table.actions[: table.done])
    state = table.session.state
    table.close()
    again = Rig(url)
    assert again.table.session.state == state and again.table.session.gid == gid
    again.close()
    return gid


TAMPER = {
    "stream deleted": lambda r, gid: r.delete(f"tablemate:{{t1}}:game:{gid}:log"),
    "header deleted": lambda r, gid: r.delete(f"tablemate:{{t1}}:game:{gid}"),
    "current deleted": lambda r, gid: r.delete("tablemate:{t1}:current"),
    "an entry deleted": lambda r, gid: r.xdel(f"tablemate:{{t1}}:game:{gid}:log", "3-0"),
    "FLUSHALL": lambda r, gid: r.flushall(),
}
SAID = {"stream deleted": "Game gone from Redis", "header deleted": "Game header gone", "current deleted": "Current game lost",
        "an entry deleted": "Game changed in Redis", "FLUSHALL": "Game gone from Redis"}


@pytest.mark.parametrize("tamper, noticed", [("stream deleted", "while idle"), ("stream deleted", "at the next action"),
                                             ("header deleted", "at the next action"), ("current deleted", "while idle"),
                                             ("an entry deleted", "at the next action"), ("FLUSHALL", "at the next action")])
def test_what_vanishes_from_the_store_is_written_again_from_memory_under_the_same_gid(redis_server, tamper, noticed):
    table, statuses = playing(redis_server.url, 12)
    gid, client = table.session.gid, connect(redis_server.url)
    tags = client.hgetall("tablemate:{t1}:tags")
    TAMPER[tamper](client, gid)
    if noticed == "while idle":
        table.rig.hands.passes(CHECK_S + 0.1)
        assert table.rig.table.view() == FlashView((SAID[tamper], "Game saved again"))
    else:
        table.play_next()
    assert f"; {SAID[tamper]}: game {gid} saved again" in " | ".join(statuses.lines)
    for _ in range(5):
        table.play_next()
    assert client.hgetall("tablemate:{t1}:tags") == tags  # FLUSHALL took the tag map too: it was written again
    assert assert_kept(table, redis_server.url) == gid


def change_entry(client, gid: str, number: int) -> None:
    """Entry `number` of the game's stream rewritten with another action (the stream rebuilt)."""
    key = f"tablemate:{{t1}}:game:{gid}:log"
    entries = client.xrange(key)
    client.delete(key)
    for entry_id, fields in entries:
        changed = {**fields, "action": json.dumps({"type": "withdraw", "player": 9})}
        client.xadd(key, changed if entry_id == f"{number}-0" else fields, id=entry_id)


@pytest.mark.parametrize("tamper", ["another writer's entry at the next id", "an entry changed"])
def test_data_the_table_did_not_write_is_left_alone_and_the_game_moves_to_a_new_gid(redis_server, tamper):
    table, statuses = playing(redis_server.url, 12)
    old, client = table.session.gid, connect(redis_server.url)
    if tamper == "an entry changed":
        change_entry(client, old, 4)
        table.rig.hands.passes(AUDIT_S + 0.1)  # the full audit compares every entry
        said = "Game changed in Redis"
    else:
        foreign = {"kind": "action", "at": "1.0", "action": json.dumps({"type": "withdraw", "player": 1})}
        client.xadd(f"tablemate:{{t1}}:game:{old}:log", foreign, id=f"{table.session.entries + 1}-0")
        table.play_next()
        said = "Another table writes as t1"
    new = table.session.gid
    assert new != old and f"; {said}: game {old} saved again as game {new}" in " | ".join(statuses.lines)
    stored_old = client.xrange(f"tablemate:{{t1}}:game:{old}:log")
    for _ in range(4):
        table.play_next()
    assert client.xrange(f"tablemate:{{t1}}:game:{old}:log") == stored_old  # what is not ours stays as it was
    journal = Journal(client, "t1")
    assert journal.load(old).notes == {"forked_to": new} and journal.load(new).notes["forked_from"] == old
    assert assert_kept(table, redis_server.url) == new


def misconf(server):
    """RDB snapshots cannot be written (dump.rdb is a directory, as on a full or broken disk)."""
    client = connect(server.url)
    client.config_set("save", "3600 1")
    (server.directory / "dump.rdb").mkdir()
    client.bgsave()
    wait_for(lambda: client.info("persistence")["rdb_last_bgsave_status"] == "err")


def disk_mended(server):
    client = connect(server.url)
    (server.directory / "dump.rdb").rmdir()
    client.bgsave()
    wait_for(lambda: client.info("persistence")["rdb_last_bgsave_status"] == "ok")
    client.config_set("save", "")


def wait_for(condition, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "waited in vain"
        time.sleep(0.05)


REFUSALS = {
    "full (maxmemory, noeviction)": (lambda s: connect(s.url).config_set("maxmemory", "1"),
                                     lambda s: connect(s.url).config_set("maxmemory", "0"), "Redis full", "OOM"),
    "a replica (REPLICAOF)": (lambda s: connect(s.url).replicaof("127.0.0.1", free_port()),
                              lambda s: connect(s.url).replicaof("NO", "ONE"), "Redis read-only", "READONLY"),
    "its disk failing (MISCONF)": (misconf, disk_mended, "Redis disk error", "MISCONF"),
}


@pytest.mark.parametrize("refusal", REFUSALS)
def test_a_store_that_refuses_writes_is_an_outage_with_its_reason_not_a_crash(redis_server, refusal):
    refuse, accept, short, code = REFUSALS[refusal]
    table, statuses = playing(redis_server.url, 12)
    gid = table.session.gid
    before = stored_game(redis_server.url)
    refuse(redis_server)
    try:
        for _ in range(3):
            table.play_next()
            view = table.rig.table.view()
            assert view.offline and table.rig.image.tobytes() == table.rig.app.loop.screen.render(view).tobytes()
        table.rig.hands.passes(table.rig.table.settings.flash_s + 0.1)  # the event flash gives way to the scores
        view = table.rig.table.view()
        assert isinstance(view, ScoreView) and view.hint == f"! {short}"
        pending = table.rig.table.journal.pending
        assert pending and f"; {short}: {code}" in statuses.lines[-1] and statuses.lines[-1].endswith(f", {pending} waiting")
        assert stored_game(redis_server.url) == before
    finally:
        accept(redis_server)
    table.rig.hands.passes(0.2)
    assert table.rig.table.journal.pending == 0 and not table.rig.table.view().offline
    table.play_next()
    assert assert_kept(table, redis_server.url) == gid


def scripted(url: str, actions: int) -> tuple[list[str], dict, list[dict]]:
    """The inputs of a game's first `actions` actions as script lines, its components, and the game."""
    game = bot_game("taj_mahal", PLAYERS, {}, SEED)
    lines: list[str] = []
    rig = Rig(url, record=lines)
    tags = components("taj_mahal", game)
    uids = enrol(rig.table.tags, tags)
    for label in ("Taj Mahal", f"{PLAYERS} players", "Hints on"):
        rig.choose(label)
    pilot = Autopilot(rig.table, rig, lambda d: uids[d["id"]])
    for number in range(actions):
        pilot.perform(game[number], number + 1)
    rig.close()
    return lines, tags, game


def test_a_second_table_with_the_same_id_writes_nothing_until_the_first_is_gone_or_its_lease_expires(redis_server, memory_url, tmp_path):
    lines, tags, game = scripted(memory_url, 8)
    actions = game[:8]
    first = Appliance(tmp_path, redis_server.url, tags)
    try:
        first.start(lines)
        journal = Journal(connect(redis_server.url), "t1")
        wait_for(lambda: journal.current() is not None and len(journal.load(journal.current()).actions) == len(actions))
        stored = stored_game(redis_server.url)

        second = Rig(redis_server.url)  # another process: this test's
        said = "Another table writes as t1"
        assert second.table.view() == MessageView("Waiting for Redis", (said, "Trying again; the game is kept there."), True)
        status = second.app.loop.status()
        assert status.startswith(f"Waiting for Redis: another table writes as t1: {this_process().host} (pid {first.process.pid}) holds")
        second.press("ok")
        assert second.table.view() == FlashView((said,), error=True)
        second.hands.passes(2 * BOOT_RETRY_S)
        assert second.table.session is None and stored_game(redis_server.url) == stored

        first.kill()  # its lease names a process of this machine that is gone: taken over at once
        second.hands.passes(BOOT_RETRY_S + 0.1)
        assert canonical(second.table.session.actions) == canonical(actions)
    finally:
        first.close()

    client = connect(redis_server.url)
    client.set("tablemate:{t1}:writer", OTHER_PI.text, px=1500)  # another Pi took the lease while this one was cut off
    uids = {entry.descriptor["id"]: uid for uid, entry in tags.items()}
    pilot = Autopilot(second.table, second, lambda d: uids[d["id"]])
    second.app.loop.notifier = statuses = StatusLog()
    pilot.perform(game[len(actions)], len(actions) + 1)
    assert second.table.view().offline and second.table.journal.pending
    assert f"; another table writes as t1: other-pi (pid 4321) holds its writer lease, {second.table.journal.pending} waiting" in statuses.lines[-1]
    assert stored_game(redis_server.url) == stored
    wait_for(lambda: client.get("tablemate:{t1}:writer") is None)  # its lease expired: it stopped
    second.hands.passes(0.2)
    assert second.table.journal.pending == 0 and canonical(stored_game(redis_server.url)[1]) == canonical(game[: len(actions) + 1])
    second.close()


def test_a_redis_set_up_to_lose_games_is_warned_about_once_at_boot(redis_server, caplog):
    client = connect(redis_server.url)
    client.config_set("maxmemory-policy", "allkeys-lru")
    rig = Rig(redis_server.url)
    assert rig.table.view() == FlashView(("Redis may evict games", "Run tablemate doctor"), error=True)
    assert f"fix: redis-cli -p {redis_server.port} CONFIG SET maxmemory-policy noeviction" in caplog.text
    rig.hands.passes(rig.table.settings.error_s + 0.1)
    assert rig.table.running is not None and not isinstance(rig.table.view(), FlashView)  # choosing a game, warned once
    rig.close()


def delete_newest(url: str, gid: str, count: int, entries: int) -> None:
    """XDEL of the newest `count` of the game's `entries` entries, as someone would while the appliance is stopped."""
    connect(url).xdel(f"tablemate:{{t1}}:game:{gid}:log", *(f"{n}-0" for n in range(entries - count + 1, entries + 1)))


def test_entries_deleted_from_the_end_while_stopped_halt_the_table_until_a_repair_accepts_the_loss(redis_server, tmp_path,
                                                                                                 capsys, caplog):
    table, _ = playing(redis_server.url, 12)
    gid, entries = table.session.gid, table.session.entries
    table.close()
    delete_newest(redis_server.url, gid, 3, entries)
    first = entries - 2
    message = f"entry {first}-0 is missing, and {first + 1}-0 to {entries}-0 (deleted from the end)"
    repair = f"tablemate log repair {gid} --truncate-at {first}"
    journal = Journal(connect(redis_server.url), "t1")
    stored = journal.client.xrange(journal.log_key(gid))

    caplog.set_level(logging.INFO)
    rig = Rig(redis_server.url, notifier=(statuses := StatusLog()))
    view = rig.table.view()
    assert view == MessageView("Journal problem", (message, f"Run: {repair}", "Hold undo: menu"), view.offline, view.notice)
    screen = rig.app.loop.screen
    assert sum(len(textwrap.wrap(line, screen.columns)) for line in view.lines) <= screen.rows - 1  # all below the title
    assert rig.image.tobytes() == screen.render(view).tobytes()
    assert statuses.lines == [f"Halted: game {gid}: {message}; repair: {repair}"]
    assert f"journal problem: game {gid}: {message}; repair it with: {repair}" in caplog.text
    rig.hands.passes(HALT_RETRY_S + 0.1)  # tried again: still damaged, nothing written
    assert rig.table.session is None and journal.client.xrange(journal.log_key(gid)) == stored

    profile = str(write_profile(tmp_path / "profile.toml", redis_server.url))
    capsys.readouterr()
    assert cli.main(["log", "check", gid, "--config", profile]) == 1
    out = capsys.readouterr().out
    assert f"  entry {first}-0: {message.removeprefix(f'entry {first}-0 ')}" in out
    assert f"  repair: {repair} (keeps entries 1-{first - 1})" in out
    assert cli.main(["status", "--config", profile]) == 2
    assert capsys.readouterr() == ("", f"tablemate: game {gid}: {message}\ntablemate: see {repair}\n")
    assert cli.main(["log", "repair", gid, "--truncate-at", str(first), "--backup-dir", str(tmp_path), "--config", profile]) == 0
    assert f"  {message}: accepted as lost" in capsys.readouterr().out

    rig.hands.passes(HALT_RETRY_S + 0.1)  # the halted table finds the game readable again
    assert rig.table.view() == FlashView(("Game repaired", "Play on"))
    kept = journal.load(gid)
    assert kept.raw[: first - 1] == [fields for entry_id, fields in stored if entry_id != "0-1"]
    assert rig.table.session.entries == len(kept.entries) >= first - 1  # (an automatic action may be written at once)
    rig.press("undo")  # play goes on from there
    after = journal.load(gid).entries
    assert after[: len(kept.entries) + 1] == kept.entries + [("undo", None)] and rig.table.session.entries == len(after)
    rig.close()


def test_entries_deleted_from_the_end_while_stopped_come_back_from_the_local_copy(redis_server, tmp_path):
    table = Playing(redis_server.url, local_dir=tmp_path / "state")
    table.play_until(lambda a: table.done >= 12 and a["type"] == "play")
    gid, entries, actions = table.session.gid, table.session.entries, list(table.session.actions)
    stored = table.stored()
    table.close()
    delete_newest(redis_server.url, gid, 3, entries)

    rig = Rig(redis_server.url, local_dir=tmp_path / "state", notifier=(statuses := StatusLog()))
    rig.hands.passes(0.1)
    assert rig.table.view() == FlashView(("Redis lacked 3 entries", "Saved from local copy"))
    assert f"; Redis lacked 3 entries of game {gid}: written from the local copy" in " | ".join(statuses.lines)
    journal = Journal(connect(redis_server.url), "t1")
    assert journal.client.xrange(journal.log_key(gid)) == stored and journal.load(gid).actions == actions
    info = journal.client.xinfo_stream(journal.log_key(gid))
    assert (info["last-generated-id"], info["entries-added"]) == (f"{entries}-0", entries + 1)
    assert rig.table.session.gid == gid and list(rig.table.session.actions) == actions
    rig.press("undo")  # and the game goes on
    assert len(journal.load(gid).entries) == entries + 1
    rig.close()


def test_a_tag_map_of_another_type_found_at_start_without_a_local_copy_is_said_on_the_screen(redis_server):
    """No copy to write it again from: the game goes on, and the screen says why taps are unknown."""
    table, _ = playing(redis_server.url, 12)
    actions = canonical(table.session.actions)
    table.close()
    client = connect(redis_server.url)
    client.delete("tablemate:{t1}:tags")
    client.rpush("tablemate:{t1}:tags", "not a hash")

    rig = Rig(redis_server.url, notifier=(statuses := StatusLog()))
    rig.hands.passes(0.1)
    assert rig.table.view() == FlashView(("Tag map unreadable", "Import tags again"))
    assert "; tablemate:{t1}:tags holds a list, not the tag map: no tag is known" in " | ".join(statuses.lines)
    assert canonical(rig.table.session.actions) == actions
    rig.close()
