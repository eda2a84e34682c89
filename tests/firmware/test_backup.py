"""Backups: a table written to one file and restored on a fresh Redis is the same table; a damaged
file is refused whole, naming the part; a restore never overwrites a game."""

import json
import hashlib
from pathlib import Path

import pytest
import tomli_w

from firmware import backup, tagfile
from firmware.boards import Boards
from firmware.cli import main
from firmware.config import load_profile
from firmware.enrolment import Progress
from firmware.journal import Journal
from firmware.session import Session
from firmware.store import connect, table_key
from firmware.tagmap import TagMap
from firmware.web.reader import Reader
from tests.e2e.games import bot_game
from tests.engines.bots.taj_mahal import SYNTHETIC_BOARD
from tests.firmware.profiles import with_store
from tests.redis_server import RedisServer

ROOT = Path(__file__).resolve().parents[2]
TABLE = "desktop"
TAG_FILES = sorted((ROOT / "firmware" / "demos").glob("*.tags.toml"))
TAGS = sum(len(tagfile.load(path)) for path in TAG_FILES)


def make_profile(tmp_path: Path, name: str, url: str) -> Path:
    """The desktop profile on store `url`, with a board directory of its own."""
    text = with_store((ROOT / "config" / "desktop.toml").read_text(), url)
    text = text.replace('dir = "boards"', f'dir = "{tmp_path / name}-boards"')
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    return path


def play(journal: Journal, name: str, n: int, options: dict, seed: int, upto: int | None = None, gid: str | None = None) -> Session:
    """A bot game of `name` journaled as the table would, with an undo and a replay of the undone move."""
    session = Session.start(journal, name, ["Ana", "Ben", "Cy", "Dee", "Eve"][:n], options, gid=gid)
    actions = bot_game(name, n, options, seed)[:upto]
    for number, action in enumerate(actions):
        session.apply(action)
        if number == 5:
            session.undo()
            session.apply(action)
    return session


def fill(profile_path: Path) -> list[str]:
    """A table with history: a finished game, an abandoned one, a game on an owner's board, the game
    in progress; the demo tag maps; enrolment under way; the owner's board file."""
    profile = load_profile(profile_path)
    client = connect(profile.store.url)
    journal = Journal(client, TABLE)
    over = play(journal, "thurn_und_taxis", 3, {}, seed=1)
    abandoned = play(journal, "mongols", 3, {}, seed=2, upto=20)
    journal.set_status(abandoned.gid, "abandoned")
    on_board = play(journal, "taj_mahal", 4, {"board": SYNTHETIC_BOARD}, seed=3, upto=60)
    current = play(journal, "maharani", 2, {}, seed=4, upto=30)
    tags = TagMap(client, TABLE)
    for path in TAG_FILES:
        tags.set_many(tagfile.load(path))
    Progress(tags, TABLE).set("taj_mahal", 17)
    board = profile_path.parent / "club.toml"
    board.write_text(tomli_w.dumps(SYNTHETIC_BOARD))
    Boards(profile.boards.dir).install("taj_mahal", board)
    assert journal.games() == [over.gid, abandoned.gid, on_board.gid, current.gid] and journal.current() == current.gid
    return journal.games()


def cli(capsys, *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def views(capsys, profile: Path, gids: list[str]) -> dict:
    """What `status`, `log export`, `tags export` and the live view show of a table."""
    config = str(profile)
    found = {"status": json.loads(cli(capsys, "status", "--json", "--config", config)[1])}
    found["status"].pop("store")
    for gid in gids:
        found[gid] = cli(capsys, "log", "export", gid, "--config", config)[1]
    export = profile.parent / f"{profile.stem}-tags.toml"
    cli(capsys, "tags", "export", str(export), "--config", config)
    found["tags"] = export.read_text()
    url = load_profile(profile).store.url
    found["history"] = Reader(connect(url), TABLE).history()
    found["enrolment"] = Progress(TagMap(connect(url), TABLE), TABLE).get("taj_mahal")
    return found


def test_a_backup_restored_on_a_fresh_redis_is_the_same_table(tmp_path, capsys):
    first, fresh = RedisServer(tmp_path / "first").start(), RedisServer(tmp_path / "fresh").start()
    try:
        old, new = make_profile(tmp_path, "old", first.url), make_profile(tmp_path, "new", fresh.url)
        gids = fill(old)
        status, out, err = cli(capsys, "backup", str(tmp_path / "table.backup.jsonl"), "--config", str(old))
        assert status == 0 and f"4 games, {TAGS} tags, 1 board file," in out, err
        first.stop()  # the SD card dies

        status, out, err = cli(capsys, "restore", str(tmp_path / "table.backup.jsonl"), "--config", str(new))
        assert status == 0, err
        assert out.count(": restored\n") == 4 and f"tags: {TAGS} in the backup, 0 already here, {TAGS} written" in out
        first.start()
        before, after = views(capsys, old, gids), views(capsys, new, gids)
        assert after == before
        assert after["status"]["game"]["gid"] == gids[-1] and after["status"]["games"] == 4
        assert [Journal(connect(fresh.url), TABLE).load(gid).status for gid in gids] == ["over", "abandoned", "playing", "playing"]
        assert (tmp_path / "new-boards" / "taj_mahal" / "club.toml").read_text() == (tmp_path / "old-boards" / "taj_mahal" / "club.toml").read_text()
        assert (tmp_path / "old.toml.restored").read_text() == old.read_text() and "to compare" in out

        status, out, _ = cli(capsys, "restore", str(tmp_path / "table.backup.jsonl"), "--config", str(new))
        assert status == 0 and out.count(": already here\n") == 4 and f"{TAGS} already here, 0 written" in out
        assert views(capsys, new, gids) == before
    finally:
        first.stop()
        fresh.stop()


def reseal(lines: list[dict]) -> str:
    """A backup's text from its records, with a correct end record: a file written wrong, not damaged."""
    body = "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in lines)
    end = {"record": "end", "records": len(lines), "sha256": hashlib.sha256(body.encode()).hexdigest()}
    return body + json.dumps(end) + "\n"


def records(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines()[:-1]]


def refuse_game(lines: list[dict]) -> str:
    game = next(r for r in lines if r["record"] == "game" and r["game"] == "thurn_und_taxis")
    game["entries"][10]["action"]["player"] = 7
    return reseal(lines)


def unknown_tag_game(lines: list[dict]) -> str:
    next(r for r in lines if r["record"] == "tag")["game"] = "chess"
    return reseal(lines)


def bad_board(lines: list[dict]) -> str:
    board = next(r for r in lines if r["record"] == "board")
    board["text"] = board["text"].replace("agra", "agro", 1)
    return reseal(lines)


def nested(text: str, levels: int) -> str:
    """The backup with a tag's descriptor nested `levels` lists deep, sealed again (a file written to
    exhaust the reader, not a damaged one)."""
    lines = text.splitlines()[:-1]
    at = next(n for n, line in enumerate(lines) if '"record": "tag"' in line)
    lines[at] = '{"record": "tag", "uid": "04a1b2c3", "game": "mongols", "kind": "card", "label": "", "descriptor": ' \
                + "[" * levels + "]" * levels + "}"
    body = "".join(line + "\n" for line in lines)
    return body + json.dumps({"record": "end", "records": len(lines), "sha256": hashlib.sha256(body.encode()).hexdigest()}) + "\n"


@pytest.mark.parametrize("damage, message", [
    (lambda text: text[: len(text) * 2 // 3], "truncated: it stops at line"),
    (lambda text: "\n".join(text.splitlines()[:-1]) + "\n", "truncated: it stops at line"),
    (lambda text: text.replace('"version": 1', '"version": 2', 1), "format version 2; this tablemate reads version 1: the backup was written by a newer tablemate"),
    (lambda text: text.replace('"label": "', '"label": "X', 1), "damaged: its lines do not match the checksum"),
    (lambda text: refuse_game(records(text)), "(game {gid}): entry 11-0 is refused by the rules: seat 7 is out of range"),
    (lambda text: unknown_tag_game(records(text)), "unknown game 'chess'"),
    (lambda text: bad_board(records(text)), "(board taj_mahal/club): refused by taj_mahal"),
    (lambda text: "hello\n" + text, "not a tablemate backup"),
    (lambda text: nested(text, 100_000), "nested too deeply to be read"),
    (lambda text: nested(text, 40), "nested more than 32 levels"),
], ids=["cut", "no-end", "version", "checksum", "refused-game", "bad-tag", "bad-board", "not-a-backup", "abyss", "deep"])
def test_a_damaged_backup_is_refused_whole_naming_the_part(tmp_path, capsys, memory_url, damage, message):
    old = make_profile(tmp_path, "old", memory_url)
    gids = fill(old)
    good = tmp_path / "good.backup.jsonl"
    assert cli(capsys, "backup", str(good), "--config", str(old))[0] == 0
    bad = tmp_path / "bad.backup.jsonl"
    bad.write_text(damage(good.read_text()))
    new = make_profile(tmp_path, "new", f"{memory_url}-new")
    status, out, err = cli(capsys, "restore", str(bad), "--config", str(new))
    assert status == 2 and message.format(gid=gids[0]) in err and str(bad) in err and err.count("\n") == 1, err
    assert connect(f"{memory_url}-new").keys("*") == [] and not (tmp_path / "new-boards").exists()
    assert not (tmp_path / "old.toml.restored").exists()


def test_a_backup_over_its_size_is_refused_before_a_byte_is_read(tmp_path, capsys, memory_url):
    from firmware.backup.fileformat import MAX_BACKUP

    huge = tmp_path / "huge.backup.jsonl"
    with huge.open("wb") as file:
        file.truncate(MAX_BACKUP + 1)
    status, out, err = cli(capsys, "restore", str(huge), "--config", str(make_profile(tmp_path, "new", memory_url)))
    assert status == 2 and "more than the 1 GB a backup may have: refused before reading it" in err and err.count("\n") == 1


def test_a_backup_changed_while_it_is_restored_stops_saying_so(tmp_path, capsys, memory_url):
    """Its games are read again from the file one at a time: a line changed since it was checked is
    refused, not restored."""
    old = make_profile(tmp_path, "old", memory_url)
    fill(old)
    good = tmp_path / "good.backup.jsonl"
    assert cli(capsys, "backup", str(good), "--config", str(old))[0] == 0
    contents = backup.load(good)
    good.write_text(good.read_text().replace('"player": 0', '"player": 1', 1))
    with pytest.raises(backup.BadBackup, match="changed since it was checked"):
        list(contents.games)


def test_restore_next_to_a_different_game_with_the_same_gid_keeps_both(tmp_path, capsys, memory_url):
    old, new = make_profile(tmp_path, "old", memory_url), make_profile(tmp_path, "new", f"{memory_url}-new")
    gids = fill(old)
    assert cli(capsys, "backup", str(tmp_path / "b.jsonl"), "--config", str(old))[0] == 0
    theirs = Journal(connect(f"{memory_url}-new"), TABLE)
    mine = play(theirs, "thurn_und_taxis", 2, {}, seed=9, upto=12, gid=gids[0])
    mine_export = cli(capsys, "log", "export", gids[0], "--config", str(new))[1]

    status, out, _ = cli(capsys, "restore", str(tmp_path / "b.jsonl"), "--config", str(new))
    assert status == 0
    assert f"this table holds a different game {gids[0]}: both kept, the backup's as {gids[0]}-restored" in out
    assert cli(capsys, "log", "export", gids[0], "--config", str(new))[1] == mine_export
    assert cli(capsys, "log", "export", f"{gids[0]}-restored", "--config", str(old))[0] == 2  # not in the old table
    assert cli(capsys, "log", "export", f"{gids[0]}-restored", "--config", str(new))[1] == cli(capsys, "log", "export", gids[0], "--config", str(old))[1]
    assert theirs.current() == mine.gid  # the game in progress here stays the current one
    assert len(theirs.games()) == 5


def test_a_game_the_backup_holds_further_gets_its_missing_entries(tmp_path, capsys, memory_url):
    old, new = make_profile(tmp_path, "old", memory_url), make_profile(tmp_path, "new", f"{memory_url}-new")
    gids = fill(old)
    assert cli(capsys, "backup", str(tmp_path / "monday.jsonl"), "--config", str(old))[0] == 0
    assert cli(capsys, "restore", str(tmp_path / "monday.jsonl"), "--config", str(new))[0] == 0
    session = Session.recover(Journal(connect(memory_url), TABLE))
    for action in bot_game("maharani", 2, {}, 4)[30:45]:
        session.apply(action)
    assert cli(capsys, "backup", str(tmp_path / "tuesday.jsonl"), "--config", str(old))[0] == 0
    status, out, _ = cli(capsys, "restore", str(tmp_path / "tuesday.jsonl"), "--config", str(new))
    assert status == 0 and "15 entries added to the copy here" in out
    assert cli(capsys, "log", "export", gids[-1], "--config", str(new))[1] == cli(capsys, "log", "export", gids[-1], "--config", str(old))[1]
    assert len(Journal(connect(f"{memory_url}-new"), TABLE).games()) == 4


def test_a_game_the_store_cannot_give_whole_is_named_and_the_rest_backed_up(tmp_path, capsys, memory_url):
    old = make_profile(tmp_path, "old", memory_url)
    gids = fill(old)
    journal = Journal(connect(memory_url), TABLE)
    journal.client.xdel(journal.log_key(gids[1]), "3-0")
    status, out, err = cli(capsys, "backup", str(tmp_path / "b.jsonl"), "--config", str(old))
    assert status == 1 and f"game {gids[1]} is not in the backup: game {gids[1]}: entry 3-0 is missing" in err
    contents = backup.load(tmp_path / "b.jsonl")
    assert [g.gid for g in contents.games] == [gids[0], gids[2], gids[3]] and contents.skipped[0][0] == gids[1]


def test_a_game_whose_last_entries_were_deleted_is_named_and_restored_whole_beside_it(tmp_path, capsys, redis_server):
    old = make_profile(tmp_path, "old", redis_server.url)
    gids = fill(old)
    assert cli(capsys, "backup", str(tmp_path / "monday.jsonl"), "--config", str(old))[0] == 0
    journal = Journal(connect(redis_server.url), TABLE)
    whole = journal.load(gids[1])
    top = len(whole.entries)
    journal.client.xdel(journal.log_key(gids[1]), f"{top - 1}-0", f"{top}-0")
    damaged = journal.client.xrange(journal.log_key(gids[1]))
    status, out, err = cli(capsys, "backup", str(tmp_path / "tuesday.jsonl"), "--config", str(old))
    assert status == 1 and (f"game {gids[1]} is not in the backup: game {gids[1]}: entry {top - 1}-0 is missing, and {top}-0 "
                            "(deleted from the end)") in err

    status, out, _ = cli(capsys, "restore", str(tmp_path / "monday.jsonl"), "--config", str(old))
    assert status == 0 and f"both kept, the backup's as {gids[1]}-restored" in out and out.count(": already here\n") == 3
    assert journal.client.xrange(journal.log_key(gids[1])) == damaged  # never overwritten
    assert journal.load(f"{gids[1]}-restored").entries == whole.entries  # written anew: no sign of a deleted end


def test_the_nightly_backup_keeps_the_newest_of_this_table(tmp_path, memory_url):
    profile = load_profile(make_profile(tmp_path, "old", memory_url))
    folder = tmp_path / "backups"
    folder.mkdir()
    old = [folder / f"tablemate-{TABLE}-2026010{day}-033000.backup.jsonl" for day in range(1, 5)]
    others = [folder / "tablemate-kitchen-20260101-033000.backup.jsonl", folder / "notes.txt"]
    for path in old + others:
        path.write_text("x")
    report = backup.take_nightly(profile, folder, keep=2)
    kept = sorted(p.name for p in folder.iterdir())
    assert kept == sorted([old[-1].name, report.lines[0].split("/")[-1], *(p.name for p in others)])
    assert sum("removed" in line for line in report.lines) == 3
    backup.load(folder / report.lines[0].split("/")[-1])


def test_the_desktop_profile_without_its_redis_refuses_to_back_up_or_restore_its_memory_fallback(tmp_path, capsys, memory_url):
    """The desktop profile falls back to a running table's memory when no Redis answers; another
    process cannot reach that memory, so backup and restore say so rather than work on nothing."""
    from tests.redis_server import free_port

    good = tmp_path / "good.backup.jsonl"
    fill(make_profile(tmp_path, "old", memory_url))
    assert cli(capsys, "backup", str(good), "--config", str(tmp_path / "old.toml"))[0] == 0
    url = f"redis://127.0.0.1:{free_port()}/0"
    text = (ROOT / "config" / "desktop.toml").read_text().replace("redis://127.0.0.1:6379/0", url)
    desktop = tmp_path / "desktop.toml"
    desktop.write_text(text.replace('dir = "boards"', f'dir = "{tmp_path / "desktop-boards"}"'))
    assert load_profile(desktop).store.fallback == "memory://"
    for command in (["backup", str(tmp_path / "new.backup.jsonl")], ["restore", str(good)]):
        status, out, err = cli(capsys, *command, "--config", str(desktop))
        assert status == 3 and f"no Redis answers at {url}" in err and "start redis-server" in err, err
    assert not (tmp_path / "new.backup.jsonl").exists() and not (tmp_path / "desktop-boards").exists()
    assert connect("memory://").keys(table_key("desktop", "*")) == []


def test_a_backup_is_for_its_owner_only_and_never_holds_the_club_password(tmp_path, capsys, memory_url):
    import stat

    from firmware.config import REDACTED, ProfileError

    old = make_profile(tmp_path, "old", memory_url)
    with old.open("a") as out:
        out.write('\n[club]\nurl = "redis://club.local:6379/0"  # the club\nuser = "table-home"\npassword = "s3cret-Pw"\n')
    fill(old)
    folder = tmp_path / "backups"
    folder.mkdir()
    assert cli(capsys, "backup", "--into", str(folder), "--config", str(old))[0] == 0
    nightly = next(folder.iterdir())
    assert stat.S_IMODE(nightly.stat().st_mode) == 0o640 and "s3cret-Pw" not in nightly.read_text()
    profile = backup.load(nightly).profile[1]
    assert profile == old.read_text().replace('"s3cret-Pw"', f'"{REDACTED}"')  # the rest as written, comments too
    status, out, _ = cli(capsys, "restore", str(nightly), "--config", str(old))
    assert status == 0 and f"profile: the same as {old}" in out
    new = make_profile(tmp_path, "new", f"{memory_url}-new")
    assert cli(capsys, "restore", str(nightly), "--config", str(new))[0] == 0
    restored = tmp_path / "old.toml.restored"
    assert stat.S_IMODE(restored.stat().st_mode) == 0o640 and restored.read_text() == profile
    with pytest.raises(ProfileError, match="club.password: was left out of the backup this profile comes from"):
        load_profile(restored)


def test_a_profile_whose_club_password_cannot_be_blanked_out_is_left_out_and_said(tmp_path, capsys, memory_url):
    old = make_profile(tmp_path, "old", memory_url)
    with old.open("a") as out:
        out.write('\n[club]\nurl = "redis://club.local:6379/0"\npassword = "s3cret\\u002dPw"\n')  # s3cret-Pw, escaped
    fill(old)
    status, out, err = cli(capsys, "backup", str(tmp_path / "b.jsonl"), "--config", str(old))
    assert status == 1 and "is not in the backup: its [club] password could not be blanked out" in err
    text = (tmp_path / "b.jsonl").read_text()
    assert "s3cret" not in text and backup.load(tmp_path / "b.jsonl").profile is None


def test_a_short_club_password_found_in_other_words_is_still_blanked_out(tmp_path, memory_url):
    """Only the password's value is compared: "club" is also the section's name and a comment's word."""
    from firmware.config import REDACTED, redacted

    path = make_profile(tmp_path, "old", memory_url)
    with path.open("a") as out:
        out.write('\n[club]  # the club\nurl = "redis://club.local:6379/0"\npassword = \'club\'\n')
    text = redacted(load_profile(path), path.read_text())
    assert text is not None and f'password = "{REDACTED}"' in text and "[club]  # the club" in text
