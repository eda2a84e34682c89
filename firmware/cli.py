"""The `tablemate` command (argparse: in the standard library, and enough for these subcommands).

    tablemate run [--config FILE] [--script FILE] [--tags FILE]   the appliance
    tablemate sim [--tags FILE] [--port N]                        the whole table in a browser page
    tablemate demo [GAME]                                         a recorded game, mocked hardware
    tablemate status [--json]                                     the current game of the table
    tablemate log export [GID]                                    a game log as JSON (header + actions)
    tablemate log check [GID]                                     every damaged entry of a game (all games)
    tablemate log repair GID [--truncate-at ENTRY]                cut a damaged game back, or mend its header, keeping a backup
    tablemate replay FILE [--json]                                the scores of a game log file
    tablemate tags list | export FILE | import FILE | forget UID  the enrolled tag map
    tablemate players add NAME | list | rename NAME NEW | forget NAME   player cards
    tablemate club --url URL [--user U] [--password-file F] [--bind ADDR] [--port N]   the club server's read-only page
    tablemate club-acl [NAME...]                                  the club Redis's ACL line for each table
    tablemate manifest GAME [--json]                              a game's components: what to tag and enrol
    tablemate board check GAME FILE | install GAME FILE | list    the owner's board files
    tablemate backup FILE | --into DIR [--keep N]                 the games, tags, boards and profile in one file
    tablemate restore FILE                                        a backup checked whole, then brought back
    tablemate web [--bind ADDR] [--port N]                        the read-only live view
    tablemate wiring [-o FILE]                                    the profile's wiring diagram (SVG)
    tablemate doctor                                              is everything answering?
    tablemate panel-off                                           the stopped table's panel, off later

Every command finds its profile the same way (firmware.config.find_profile): --config, else
$TABLEMATE_CONFIG, else /etc/tablemate/pi.toml when it exists, else the clone's config/desktop.toml.
Exit status: 0 done; 1 `log check` found damage, or the port of `web` or `club` is taken; 2 bad
input (a file to read that is missing or unreadable too) or a damaged game (the message says which,
and the command that deals with it); 3 the store does not answer or refuses; 74 (EX_IOERR) a file
could not be written (the message names it and why); 78 (EX_CONFIG) a bad profile, which the
service unit does not restart on; 141 (128 + SIGPIPE, silently) the reader of the output went away.
"""

import argparse
import json
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path

import engines
import redis

from . import backup, demo, gamelog, report, script, tagfile
from .boards import BoardFileError, Boards
from .club.players import MAX_NAME, BadPlayer, Players
from .config import ProfileError, find_profile, load_profile
from .enrolment import Summary
from .journal import CorruptJournal, Journal, NoSuchGame, Refused, trouble
from .journal.check import RepairRefused, examine, repair
from .journal.local import Kept, LocalCopy
from .session import Session
from .store import KeyClash, choose, connect, migrate_keys, url_problem
from .tagmap import TagMap

EX_IOERR = 74
EX_CONFIG = 78
#: `tablemate club`'s port: its own, so the club page can run on a Pi that also serves its live view
CLUB_PORT = 8082


def _profile(args: argparse.Namespace):
    return load_profile(find_profile(args.config))


def _store(args: argparse.Namespace):
    """The profile, the store it leads to, its journal and tag map (keys stored before their Redis
    Cluster hash tag are moved under it first; the tag map keeps the profile's local copy too)."""
    profile = _profile(args)
    store = choose(profile.store.url, profile.store.fallback)
    client = connect(store.url)
    migrate_keys(client, profile.table.id)
    return profile, store, Journal(client, profile.table.id), TagMap(client, profile.table.id, profile.store.copy_dir(store.url))


def _kept_store(args: argparse.Namespace, then: str = "play, check, back up and restore there"):
    """`_store` for a command that must reach the table's own store (log check/repair, backup,
    restore, changes to the tags and player cards): when the profile's Redis does not answer, its
    fallback (a running table's memory) cannot be reached from another process, so the command is
    refused rather than run on nothing (a change would be lost as the command ends)."""
    profile, store, journal, tags = _store(args)
    if store.note:
        raise redis.ConnectionError(f"no Redis answers at {profile.store.url} ({profile.path} [store] url); "
                                    "a table on the in-memory fallback keeps nothing another command can reach: "
                                    f"start redis-server, then {then}")
    return profile, store, journal, tags


def _noted_store(args: argparse.Namespace):
    """`_store` for a command that reads: on the in-memory fallback it finds nothing of a running
    table, so it says why on stderr before it answers."""
    found = _store(args)
    if found[1].note:
        print(f"tablemate: {found[1].note}", file=sys.stderr)
    return found


# -- the appliance ---------------------------------------------------------------------------------


def _tag_files(args: argparse.Namespace) -> dict:
    """The entries of every --tags file, each checked whole, to enrol once the store answers."""
    return {uid: entry for path in args.tags for uid, entry in tagfile.load(path).items()}


def _run(args: argparse.Namespace) -> int:
    from .app import App

    profile, tags = _profile(args), _tag_files(args)
    if args.script:
        return script.run_file(profile, args.script, tags, realtime=args.realtime)
    if args.keyboard:
        from .console import run

        return run(profile, tags)
    return App.build(profile, tags=tags).run()


def _sim(args: argparse.Namespace) -> int:
    from .sim import run

    return run(_profile(args), _tag_files(args), port=args.port, browser=not args.no_browser)


def _demo(args: argparse.Namespace) -> int:
    return demo.run(args.game)


def _web(args: argparse.Namespace) -> int:
    from .web import serve

    profile = _profile(args)
    store = choose(profile.store.url, profile.store.fallback)
    if store.note:
        print(f"tablemate: {store.note}", file=sys.stderr)
    return _serving(lambda: serve(store.url, profile.table.id, args.bind or profile.web.bind, args.port or profile.web.port,
                                  profile.web.hosts))


def _serving(run: Callable[[], None]) -> int:
    """Run a page's server in the foreground (`web`, `club`): 1, saying why, when its port cannot be bound."""
    try:
        run()
    except RuntimeError as error:
        print(f"tablemate: {error}; --port N serves on another port", file=sys.stderr)
        return 1
    return 0


# -- games and logs --------------------------------------------------------------------------------


def _status(args: argparse.Namespace) -> int:
    """The game the table resumes at its start: `current`, else the newest game, or the local copy's
    when Redis lacks it or some of its entries (FLUSHALL, a new server, an outage); a note says so."""
    profile, store, journal, tags = _store(args)
    gid = journal.resumable()
    tags.load()
    summary: dict = {"table": profile.table.id, "store": store.url, "games": len(journal.games()), "tags": len(tags.items())}
    kept, held = _held_locally(profile, store, journal)
    notes = [store.note] if store.note else []
    if held:
        notes.append(("the store is empty, but " if summary["games"] == 0 else "") + held)
    if notes:
        summary["note"] = "; ".join(notes)
    session = None
    if kept is not None and gid in (None, kept.gid):  # the table resumes the local copy's: Redis lacks some of it
        gid, session = kept.gid, Session.from_record(journal, kept.record())
        summary["from"] = "local copy"
    elif gid is not None:
        session = Session.recover(journal, gid)
    if session is not None:
        game, state = session.game, session.state
        summary["game"] = {
            "gid": gid,
            "name": session.name,
            "players": session.players,
            "phase": game.phase(state),
            "over": game.is_over(state),
            "entries": session.entries,
            "scores": [{"player": s.player, "total": s.total, "breakdown": s.breakdown} for s in game.scores(state)],
            "winners": [session.players[seat] for seat in game.winners(state)] if game.is_over(state) else [],
        }
    if args.json:
        print(json.dumps(summary, ensure_ascii=False))
        return 0
    print(f"table {summary['table']} on {summary['store']}: {report.counted(summary['games'], 'game')}, {report.counted(summary['tags'], 'tag')} enrolled")
    for note in notes:
        print(f"note: {note}")
    if session is None:
        print("no game in progress")
    else:
        where = " in the local copy" if summary.get("from") else ""
        print(report.standing(game, state, f"{game.title} ({gid}), {report.counted(session.entries, 'journal entry', 'journal entries')}{where}"))
    return 0


def _held_locally(profile, store, journal: Journal) -> tuple[Kept | None, str]:
    """The local copy's game in progress when Redis lacks it or some of its entries, and a sentence
    that says so (None, "": Redis holds it all, or there is no local copy)."""
    directory = profile.store.copy_dir(store.url)
    if directory is None:
        return None, ""
    copy = LocalCopy(directory, profile.table.id)
    try:
        found = copy.load(aside=False)
    except OSError as error:
        return None, f"the local copy {copy.path} cannot be read ({error.strerror or error})"
    damage = f"the local copy {copy.path} is damaged at {found.damage} (the table keeps it aside at its next start)" if found.damage else ""
    game = next((kept for kept in found.games if kept.gid == found.active), None)
    stored = journal.lengths([game.gid])[0] if game is not None and journal.client.exists(journal.log_key(game.gid)) else None
    if game is None or stored is not None and stored >= len(game.entries):
        return None, damage
    lacks = "which Redis lacks" if stored is None else f"of which Redis holds {stored}"
    return game, "; ".join(filter(None, (damage, (
        f"the local copy {copy.path} holds game {game.gid} with {len(game.entries)} entries, {lacks}: the table writes "
        "them to Redis at its next start (sudo systemctl restart tablemate), or as soon as Redis takes writes while it runs"))))


def _log_export(args: argparse.Namespace) -> int:
    _, _, journal, _ = _noted_store(args)
    gid = args.gid or journal.resumable()
    if gid is None:
        print("tablemate: no game to export", file=sys.stderr)
        return 2
    try:
        record = journal.load(gid)
    except NoSuchGame as missing:
        print(f"tablemate: {missing}; the games are: {', '.join(journal.games()) or 'none'}", file=sys.stderr)
        return 2
    log = gamelog.GameLog(record.game, record.players, record.options, record.actions)
    text = json.dumps(log.to_json(), indent=1, ensure_ascii=False)
    if args.output:
        _write_text(Path(args.output), text + "\n")
        print(f"{record.game} game {gid} ({report.counted(len(record.actions), 'action')}) written to {args.output}")
    else:
        print(text)
    return 0


def _log_check(args: argparse.Namespace) -> int:
    _, _, journal, _ = _kept_store(args)
    current = journal.current()
    gids = [args.gid] if args.gid else journal.games() + [current] * (current is not None and current not in journal.games())
    if not gids:
        print("no game is stored at this table")
    reports = [examine(journal, gid) for gid in gids]
    for report in reports:
        print("\n".join(report.lines()))
    return 1 if any(report.damages for report in reports) else 0


def _log_repair(args: argparse.Namespace) -> int:
    _, _, journal, _ = _kept_store(args)
    truncate_at = None if args.truncate_at is None else _entry_number(args.truncate_at)
    print("\n".join(repair(journal, args.gid, truncate_at, Path(args.backup_dir))))
    return 0


def _write_text(path: Path, text: str) -> None:
    """`text` into `path`; a disk error names the file (a full disk's has no name of its own)."""
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        error.filename = error.filename or str(path)
        raise


def _entry_number(text: str) -> int:
    """An entry's number from "12" or "12-0"."""
    number = text.removesuffix("-0")
    if not number.isdigit():
        raise RepairRefused(f"--truncate-at {text!r}: give an entry number, as 12 or 12-0")
    return int(number)


def _replay(args: argparse.Namespace) -> int:
    log = gamelog.load(args.file)
    game = engines.get(log.game)
    state = log.replay()
    if args.json:
        print(json.dumps([{"player": s.player, "total": s.total, "breakdown": s.breakdown} for s in game.scores(state)]))
    else:
        print(report.standing(game, state, f"{game.title}, {report.counted(len(log.actions), 'action')}"))
    return 0


def _manifest(args: argparse.Namespace) -> int:
    summary = Summary.of(args.game)
    print(json.dumps(summary.to_json(), ensure_ascii=False) if args.json else "\n".join(summary.lines()))
    return 0


# -- the owner's board files -----------------------------------------------------------------------


def _board_check(args: argparse.Namespace) -> int:
    """Check a board file an owner wrote: its summary, how it departs from the physical board, where it goes."""
    from . import boards

    checked = boards.check(args.game, args.file)
    print(f"ok: {checked.summary}")
    for line in checked.differences:
        print(f"warning: {line}")
    profile = _profile(args)
    shelf = Boards(profile.boards.dir)
    if shelf.directory is None:
        print(f"to offer it at set-up, name a directory for your boards in {profile.path} ([boards] dir)")
    else:
        print(f"to offer it at set-up: tablemate board install {args.game} {args.file} "
              f"(copies it to {shelf.folder(args.game) / (checked.name + '.toml')})")
    return 0


def _board_install(args: argparse.Namespace) -> int:
    shelf = Boards(_profile(args).boards.dir)
    target, outcome = shelf.install(args.game, args.file, args.name, args.replace)
    print(f"{outcome}: {target}; set-up offers it as {target.stem!r}")
    return 0


def _board_list(args: argparse.Namespace) -> int:
    from . import boards

    shelf = Boards(_profile(args).boards.dir)
    for game in boards.games():
        offers = shelf.offered(game)
        print(f"{game}: " + (", ".join(f"{o.name} ({'yours' if o.owner else 'bundled'})" for o in offers) or "none"))
    print(f"your boards: {shelf.directory or 'no directory in the profile ([boards] dir)'}")
    return 0


# -- backups ---------------------------------------------------------------------------------------


def _report(report: backup.Report) -> int:
    for line in report.lines:
        print(line)
    for problem in report.problems:
        print(f"tablemate: {problem}", file=sys.stderr)
    return 1 if report.problems else 0


def _backup(args: argparse.Namespace) -> int:
    profile = _kept_store(args)[0]
    if args.into:
        return _report(backup.take_nightly(profile, args.into, args.keep))
    return _report(backup.take(profile, args.file))


def _restore(args: argparse.Namespace) -> int:
    return _report(backup.restore(_kept_store(args)[0], args.file))


# -- the tag map -----------------------------------------------------------------------------------


def _tags_list(args: argparse.Namespace) -> int:
    _, _, _, tags = _noted_store(args)
    for problem in tags.load():
        print(f"warning: {problem}", file=sys.stderr)
    for uid, entry in tags.items():
        print(f"{uid}  {entry.game:16} {entry.kind:10} {entry.label or entry.descriptor.get('id', '')}")
    return 0


def _tags_export(args: argparse.Namespace) -> int:
    profile, _, _, tags = _noted_store(args)
    tags.load()
    _write_text(Path(args.file), tagfile.export_text(tags.items(), profile.table.id))
    print(f"{report.counted(len(tags.items()), 'tag')} written to {args.file}")
    return 0


def _tags_import(args: argparse.Namespace) -> int:
    _, _, _, tags = _kept_store(args, "run this again")
    entries = tagfile.load(args.file)
    tags.set_many(entries)
    print(f"{report.counted(len(entries), 'tag')} imported from {args.file}")
    return 0


def _tags_forget(args: argparse.Namespace) -> int:
    _, _, _, tags = _kept_store(args, "run this again")
    if not tags.forget(args.uid):
        print(f"tablemate: tag {args.uid} is not enrolled", file=sys.stderr)
        return 2
    print(f"tag {args.uid} forgotten")
    return 0


# -- the club --------------------------------------------------------------------------------------


def _club(args: argparse.Namespace) -> int:
    from .club import serve

    password = os.environ.get("TABLEMATE_CLUB_PASSWORD")
    if args.password_file:
        password = Path(args.password_file).read_text(encoding="utf-8").strip()
    problem = url_problem(args.url)
    if problem:
        print(f"tablemate: --url {problem}", file=sys.stderr)
        return 2
    return _serving(lambda: serve(args.url, args.user, password, args.bind, args.port, tuple(args.allow_host)))


def _club_acl(args: argparse.Namespace) -> int:
    from .club import acl

    if not args.names:
        profile = _profile(args)
        club = profile.club
        if club is None:
            print(f"tablemate: {profile.path} has no [club] section: name the tables instead (tablemate club-acl NAME...)", file=sys.stderr)
            return 2
        print(acl.table_line(club.table, club.password or "PASSWORD", club.user))
        return 0
    admin = acl.new_password()
    print(f"# on the club server (redis-cli), once: your admin user (keep its password: later, redis-cli --user {acl.ADMIN} "
          "--askpass), then the default user off, which would let anyone on the LAN in with every right")
    print("\n".join(acl.admin_lines(admin)) + "\n")
    for name in args.names:
        password = acl.new_password()
        print(f"# table {name}: on the club server (redis-cli)\n{acl.table_line(name, password)}")
        print(f"# and in that table's profile:\n[club]\nurl = \"redis://CLUB-SERVER:6379/0\"\ntable = \"{name}\"\n"
              f"user = \"{acl.table_user(name)}\"\npassword = \"{password}\"\n")
    password = acl.new_password()
    print(f"# the club page's read-only user (tablemate club --user club-page, TABLEMATE_CLUB_PASSWORD={password})\n"
          f"{acl.page_line(password)}\n")
    print("# and the users kept over a restart (or use an aclfile and ACL SAVE)\nCONFIG REWRITE")
    return 0


# -- player cards ----------------------------------------------------------------------------------


def _players(args: argparse.Namespace, change: bool = True) -> Players:
    """The player cards; a change needs the table's own store, a listing says when it has none."""
    profile, _, _, tags = _kept_store(args, "run this again") if change else _noted_store(args)
    tags.load()
    return Players(tags, profile.table.id)


def _players_add(args: argparse.Namespace) -> int:
    _players(args).add(args.name)
    print(f"{args.name} waits for a card: the table's screen asks for it; tap it on any reader")
    return 0


def _players_list(args: argparse.Namespace) -> int:
    players = _players(args, change=False)
    for uid, entry in players.cards():
        print(f"{entry.label:{MAX_NAME}}  card {uid}  id {entry.descriptor['id']}")
    for name in players.pending():
        print(f"{name:{MAX_NAME}}  waits for a card to be tapped at the table")
    return 0


def _players_rename(args: argparse.Namespace) -> int:
    _players(args).rename(args.name, args.new)
    print(f"{args.name} is now {args.new} (the same player: games already played keep the name they had)")
    return 0


def _players_forget(args: argparse.Namespace) -> int:
    players = _players(args)
    if args.name in players.pending():
        players.cancel(args.name)
        print(f"{args.name} no longer waits for a card")
    else:
        print(f"card {players.forget(args.name)} of {args.name} forgotten (their games stay as they were)")
    return 0


def _wiring(args: argparse.Namespace) -> int:
    from . import wiring

    profile = _profile(args)
    drawing = wiring.svg(profile, args.source or "") + "\n"
    if args.output:
        _write_text(Path(args.output), drawing)
        print(f"the wiring of {profile.path} written to {args.output}")
    else:
        print(drawing, end="")
    return 0


def _doctor(args: argparse.Namespace) -> int:
    from .doctor import run_checks

    return run_checks(_profile(args))


def _panel_off(args: argparse.Namespace) -> int:
    from drivers.display.panel import off_after_stop

    try:
        print(off_after_stop(_profile(args).display))
    except OSError as error:
        print(f"tablemate: the display does not answer: {error}", file=sys.stderr)
        return 1
    return 0


def _host(text: str) -> str:
    from .config import host_problem

    problem = host_problem(text)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return text


def _at_least_one(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a count of at least 1")
    return int(text)


# -- the parser ------------------------------------------------------------------------------------


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="tablemate", description="A board game score companion.")
    commands = top.add_subparsers(dest="command", required=True)

    def command(name: str, run, help: str, profile: bool = True) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help)
        if profile:
            _config_option(sub)
        sub.set_defaults(run=run)
        return sub

    run = command("run", _run, "the appliance: drivers, loop, screen")
    run.add_argument("--script", help="play this script of inputs (tap/press/hold/wait) on the mocked hardware, "
                                      "in virtual time, then print the final status")
    run.add_argument("--realtime", action="store_true", help="run the appliance as a service does, the script played "
                                                             "at its pace, and serve on until stopped")
    run.add_argument("--tags", action="append", default=[], help="import this tag file first (repeatable)")
    run.add_argument("--keyboard", action="store_true", help="keys as buttons, typed names as taps (a terminal, SSH)")
    sim = command("sim", _sim, "the whole table in a browser page: screen, readers, buttons, components")
    sim.add_argument("--tags", action="append", default=[], help="import this tag file first (repeatable)")
    sim.add_argument("--port", type=int, help="the page's port (default: the profile's [sim] port)")
    sim.add_argument("--no-browser", action="store_true", help="do not open a browser, just print the address")
    demo_command = command("demo", _demo, "a complete recorded game through the mocked hardware", profile=False)
    demo_command.add_argument("game", nargs="?", default="taj_mahal", choices=demo.demo_games(),
                              help="the game (default: taj_mahal)")
    command("status", _status, "the current game of the table").add_argument(
        "--json", action="store_true", help="print it as JSON (table, store, games, tags, the game and its scores)")
    log = commands.add_parser("log", help="game logs").add_subparsers(dest="log_command", required=True)
    export = log.add_parser("export", help="a game log as JSON (default: the current game)")
    _config_option(export)
    export.add_argument("gid", nargs="?", help="the game's id, as `status` and `log check` print it (default: the current game)")
    export.add_argument("--output", "-o", help="write to this file instead of standard output")
    export.set_defaults(run=_log_export)
    log_check = log.add_parser("check", help="list every damaged entry of a game (default: every game of the table)")
    _config_option(log_check)
    log_check.add_argument("gid", nargs="?", help="the game's id (default: every game of the table)")
    log_check.set_defaults(run=_log_check)
    mend = log.add_parser("repair", help="cut a damaged game back to before an entry, after keeping a backup")
    _config_option(mend)
    mend.add_argument("gid", help="the damaged game's id, as `log check` prints it")
    mend.add_argument("--truncate-at", metavar="ENTRY", help="the first entry to remove (as `log check` says); without it "
                                                           "every entry is kept and only a damaged header is mended")
    mend.add_argument("--backup-dir", default=".", help="where the JSON backup file goes, made when missing (default: this directory)")
    mend.set_defaults(run=_log_repair)
    replay = command("replay", _replay, "print the scores of a game log file", profile=False)
    replay.add_argument("file", help="a game log as JSON (`log export` writes one)")
    replay.add_argument("--json", action="store_true", help="print the scores as JSON")
    tags = commands.add_parser("tags", help="the enrolled tag map").add_subparsers(dest="tags_command", required=True)
    for name, handler, argument, help in (
        ("list", _tags_list, None, "list every enrolled tag"),
        ("export", _tags_export, ("file", "the TOML file to write"), "write the tag map to a TOML file"),
        ("import", _tags_import, ("file", "the TOML tag file to read"), "import a TOML tag file (checked whole first)"),
        ("forget", _tags_forget, ("uid", "the tag's UID, as `tags list` prints it"), "forget one tag"),
    ):
        sub = tags.add_parser(name, help=help)
        _config_option(sub)
        if argument:
            sub.add_argument(argument[0], help=argument[1])
        sub.set_defaults(run=handler)
    club = command("club", _club, "serve the club's read-only page: every table, games, players, tournaments", profile=False)
    club.add_argument("--url", required=True, help="the club's Redis (redis://host:port/db or redis+cluster://host:port,...)")
    club.add_argument("--user", help="its read-only ACL user (tablemate club-acl prints it)")
    club.add_argument("--password-file", help="a file holding its password (else $TABLEMATE_CLUB_PASSWORD)")
    club.add_argument("--bind", default="127.0.0.1", help="the address to serve on (default 127.0.0.1)")
    club.add_argument("--allow-host", action="append", default=[], type=_host, metavar="NAME",
                      help="answer only requests to this host name or address (repeatable; default: any)")
    club.add_argument("--port", type=int, default=CLUB_PORT, help=f"the port (default {CLUB_PORT}, not a table's live "
                                                                  "view's or the simulator's 8080 and 8081)")
    club_acl = command("club-acl", _club_acl, "print the club Redis's ACL lines: one user per table, and the page's")
    club_acl.add_argument("names", nargs="*", help="table names (new passwords are made); none: the profile's [club]")
    players = commands.add_parser("players", help="player cards").add_subparsers(dest="players_command", required=True)
    for name, handler, arguments, help in (
        ("add", _players_add, (("name", "the player's name"),), "give a player a card: the table then asks for it to be tapped"),
        ("list", _players_list, (), "every player card, and the names waiting for theirs"),
        ("rename", _players_rename, (("name", "the player's name now"), ("new", "the new name")),
         "rename a player (the same card, the same record)"),
        ("forget", _players_forget, (("name", "the player's name"),), "forget a player's card"),
    ):
        sub = players.add_parser(name, help=help)
        _config_option(sub)
        for argument, said in arguments:
            sub.add_argument(argument, help=said)
        sub.set_defaults(run=handler)
    manifest = command("manifest", _manifest, "a game's components: kinds, counts, what enrolment asks", profile=False)
    manifest.add_argument("game", choices=engines.names(), help="the game")
    manifest.add_argument("--json", action="store_true", help="print it as JSON")
    board = commands.add_parser("board", help="the owner's board files").add_subparsers(dest="board_command", required=True)
    check = board.add_parser("check", help="check a board file (Taj Mahal, Maharani) and say where it goes")
    install = board.add_parser("install", help="check a board file and copy it among your boards")
    for sub, handler in ((check, _board_check), (install, _board_install)):
        _config_option(sub)
        sub.add_argument("game", choices=engines.names(), help="the game the board is for")
        sub.add_argument("file", help="the board file (TOML)")
        sub.set_defaults(run=handler)
    install.add_argument("--name", help="the name set-up offers it by (default: the file's name)")
    install.add_argument("--replace", action="store_true", help="replace your board of that name")
    listing = board.add_parser("list", help="the boards set-up offers, yours first")
    _config_option(listing)
    listing.set_defaults(run=_board_list)
    take = command("backup", _backup, "write the games, the tag map, your boards and the profile to one file")
    into = take.add_mutually_exclusive_group(required=True)
    into.add_argument("file", nargs="?", help="the backup file to write")
    into.add_argument("--into", metavar="DIR", help="write a dated backup into DIR (the nightly timer)")
    take.add_argument("--keep", type=_at_least_one, default=14, help="with --into: how many dated backups to keep (default 14)")
    command("restore", _restore, "check a backup file whole, then restore it (never overwrites a game)").add_argument(
        "file", help="the backup file (`tablemate backup` writes one)")
    web = command("web", _web, "serve the read-only live view")
    web.add_argument("--bind", help="the address to serve on (default: the profile's [web] bind)")
    web.add_argument("--port", type=int, help="the port (default: the profile's [web] port)")
    wiring = command("wiring", _wiring, "draw the profile's wiring: the Pi's header, what each pin connects to (SVG)")
    wiring.add_argument("--output", "-o", help="write to this file instead of standard output")
    wiring.add_argument("--source", help="the profile's name in the drawing's title (default: its path)")
    command("doctor", _doctor, "check that Redis, the readers, the display and the GPIO answer")
    command("panel-off", _panel_off, "after tablemate stopped: wait [display] stopped_off_after_min, then "
                                     "turn the panel off (systemd/tablemate-panel-off.service runs it)")
    return top


def _config_option(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--config", help="the profile (default: $TABLEMATE_CONFIG, else /etc/tablemate/pi.toml when it "
                                      "exists, else this clone's config/desktop.toml)")


def main(argv: list[str] | None = None) -> int:
    try:
        args = parser().parse_args(argv)
        status = args.run(args)
        sys.stdout.flush()  # here, where a reader gone away is handled below, not at the interpreter's exit
        return status
    except BrokenPipeError:
        # the reader of the output has gone (`tablemate tags list | head`): stop quietly, as a Unix
        # tool killed by SIGPIPE does, and keep the interpreter from flushing into the closed pipe
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE
    except ProfileError as error:
        print(f"tablemate: {error}", file=sys.stderr)
        return EX_CONFIG
    except CorruptJournal as error:
        print(f"tablemate: {error}\ntablemate: see {error.repair}", file=sys.stderr)
        return 2
    except (gamelog.BadLog, engines.IllegalAction, script.BadScript, tagfile.BadTagFile, NoSuchGame, RepairRefused, BoardFileError,
            backup.BadBackup, backup.RestoreFailed, BadPlayer, KeyClash) as error:
        print(f"tablemate: {error}", file=sys.stderr)
        return 2
    except (Refused, redis.RedisError) as error:
        detail = trouble(error).detail
        print(f"tablemate: the store does not answer or refuses: {detail}{'' if str(error) in detail else f' ({error})'}", file=sys.stderr)
        return 3
    except OSError as error:  # redis-py raises its own errors for the store's connection: this is a file's (or a socket's)
        print(f"tablemate: {f'{error.filename}: ' if error.filename else ''}{error.strerror or error}", file=sys.stderr)
        return EX_IOERR


if __name__ == "__main__":
    sys.exit(main())
