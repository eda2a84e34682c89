"""The `tablemate` command: board checks, replays, the demo."""

import argparse
import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import tomli_w

from engines.core.data import MAX_DEPTH, MAX_FILE
from firmware.cli import main
from firmware.tagfile import load as load_tags
from firmware.config import DESKTOP as DESKTOP_PROFILE
from tests.firmware.profiles import with_store

ROOT = Path(__file__).parents[2]
DEMO_LOG = Path(__file__).parent / "thurn_und_taxis.log.json"


def test_board_check_accepts_a_good_board_and_names_a_bad_entry(tmp_path, capsys):
    from tests.engines.bots.taj_mahal import SYNTHETIC_BOARD

    good = tmp_path / "good.toml"
    good.write_text(tomli_w.dumps(SYNTHETIC_BOARD))
    assert main(["board", "check", "taj_mahal", str(good)]) == 0
    assert "12 provinces, 49 cities, 16 fortresses" in capsys.readouterr().out
    bad = dict(SYNTHETIC_BOARD, roads=SYNTHETIC_BOARD["roads"] + [["agra-1", "nowhere-9"]])
    (tmp_path / "bad.toml").write_text(tomli_w.dumps(bad))
    assert main(["board", "check", "taj_mahal", str(tmp_path / "bad.toml")]) == 2
    assert "names unknown city 'nowhere-9'" in capsys.readouterr().err


def test_board_check_of_the_maharani_default_and_of_a_game_without_boards(capsys):
    assert main(["board", "check", "maharani", str(ROOT / "engines" / "maharani" / "board.toml")]) == 0
    assert "56 spaces in 4 quarters" in capsys.readouterr().out
    assert main(["board", "check", "mongols", "x.toml"]) == 2
    assert "has no board files" in capsys.readouterr().err


def test_replay_prints_the_scores_of_a_log(capsys):
    assert main(["replay", str(DEMO_LOG), "--json"]) == 0
    scores = json.loads(capsys.readouterr().out)
    assert [s["player"] for s in scores] == ["Ana", "Ben", "Cy"]
    assert all(s["total"] == sum(s["breakdown"].values()) for s in scores)


def test_replay_names_the_winners(capsys):
    assert main(["replay", str(DEMO_LOG)]) == 0
    out = capsys.readouterr().out
    assert "Game over" in out and "\nWinner: " in out and "unplaced_houses" in out


def test_replay_of_a_bad_file_says_what_is_wrong(tmp_path, capsys):
    bad = tmp_path / "log.json"
    bad.write_text('{"game": "thurn_und_taxis", "players": ["Ana", "Ben"], "actions": [{"type": "lay", "player": 0, "card": {"id": "x", "city": "paris"}}]}')
    assert main(["replay", str(bad)]) == 2
    assert "action 1 of the log" in capsys.readouterr().err
    bad.write_text("{oops")
    assert main(["replay", str(bad)]) == 2
    assert "not JSON" in capsys.readouterr().err


def test_tags_import_list_export_and_forget(tmp_path, capsys):
    profile = tmp_path / "profile.toml"
    desktop = DESKTOP_PROFILE.read_text()
    profile.write_text(with_store(desktop, f'memory://cli-{tmp_path.name}'))
    tags = ROOT / "firmware" / "demos" / "maharani.tags.toml"
    assert main(["tags", "import", str(tags), "--config", str(profile)]) == 0
    assert "60 tags imported" in capsys.readouterr().out
    assert main(["tags", "list", "--config", str(profile)]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert len(listed) == 60 and all(" maharani " in line for line in listed)
    exported = tmp_path / "out.toml"
    assert main(["tags", "export", str(exported), "--config", str(profile)]) == 0
    from firmware import tagfile

    assert tagfile.load(exported) == tagfile.load(tags)
    uid = listed[0].split()[0]
    assert main(["tags", "forget", uid, "--config", str(profile)]) == 0
    assert main(["tags", "forget", uid, "--config", str(profile)]) == 2
    capsys.readouterr()
    bad = tmp_path / "bad.toml"
    bad.write_text("[tags.zz]\ngame = 'maharani'\n")
    assert main(["tags", "import", str(bad), "--config", str(profile)]) == 2
    assert "bad.toml, line 1" in capsys.readouterr().err


def test_a_bad_profile_exits_with_ex_config(tmp_path, capsys):
    profile = tmp_path / "profile.toml"
    profile.write_text("[table]\nid = 'x'\nplayers = ['Ana']\n[store]\nurl = 'memory://'\n[bogus]\n")
    assert main(["status", "--config", str(profile)]) == 78
    assert "bogus: unknown section" in capsys.readouterr().err


def _huge(path: Path, size: int) -> Path:
    """A sparse file of `size` bytes: refused by its size alone, before a byte of it is read."""
    with path.open("wb") as file:
        file.truncate(size)
    return path


#: nested far past any parser's recursion, and just past the depth allowed while still parsable
ABYSS, DEEP = 100_000, MAX_DEPTH + 8


@pytest.mark.parametrize("command, text, expected", [
    (["tags", "import", "{file}"], "a = " + "[" * ABYSS + "]" * ABYSS + "\n", "nested too deeply to be read"),
    (["tags", "import", "{file}"], "a = " + "[" * DEEP + "]" * DEEP + "\n", f"nested more than {MAX_DEPTH} levels"),
    (["tags", "import", "{file}"], None, "more than the 16 MB such a file may have: refused before reading it"),
    (["board", "check", "taj_mahal", "{file}"], "a = " + "{b = " * ABYSS + "1" + "}" * ABYSS + "\n", "nested too deeply"),
    (["board", "install", "taj_mahal", "{file}"], "a = " + "[" * DEEP + "]" * DEEP + "\n", f"nested more than {MAX_DEPTH} levels"),
    (["board", "check", "maharani", "{file}"], None, "more than the 16 MB"),
    (["replay", "{file}"], "[" * ABYSS + "]" * ABYSS, "nested too deeply to be read"),
    (["replay", "{file}"], None, "more than the 16 MB"),
    (["run", "--script", "{file}"], None, "more than the 16 MB"),
])
def test_an_oversized_or_deeply_nested_file_is_refused_in_one_sentence(tmp_path, capsys, command, text, expected):
    file = tmp_path / "file"
    if text is None:
        _huge(file, MAX_FILE + 1)
    else:
        file.write_text(text)
    config = ["--config", str(_desktop(tmp_path))] if command[0] in ("tags", "board", "run") else []
    assert main([arg.format(file=file) for arg in command] + config) == 2
    err = capsys.readouterr().err
    assert expected in err and err.count("\n") == 1 and str(file) in err and "Traceback" not in err


@pytest.mark.parametrize("text", [None, "[store]\nurl = " + "[" * ABYSS + "]" * ABYSS + "\n"])
def test_an_oversized_or_deeply_nested_profile_is_a_bad_profile_in_one_sentence(tmp_path, capsys, text):
    profile = tmp_path / "profile.toml"
    _huge(profile, MAX_FILE + 1) if text is None else profile.write_text(text)
    assert main(["status", "--config", str(profile)]) == 78
    err = capsys.readouterr().err
    assert ("more than the 16 MB" in err or "nested too deeply" in err) and err.count("\n") == 1


def _desktop(tmp_path: Path) -> Path:
    profile = tmp_path / "desktop.toml"
    profile.write_text(with_store(DESKTOP_PROFILE.read_text().replace('dir = "boards"', f'dir = "{tmp_path / "boards"}"'),
                                  f"memory://files-{tmp_path.name}"))
    return profile


def test_manifest_prints_each_games_components_as_its_rules_count_them(capsys):
    import importlib

    import engines

    for name in engines.names():
        assert main(["manifest", name, "--json"]) == 0
        summary = json.loads(capsys.readouterr().out)
        totals = importlib.import_module(f"engines.{name}").COMPONENTS.totals
        assert summary["kinds"] == totals and summary["components"] == sum(totals.values())
        assert sum(g["count"] for g in summary["groups"]) == summary["components"]
        assert summary["questions"] == sum(g["count"] for g in summary["groups"] if g["ask"])
        assert summary["labelled"] == sum(g["count"] for g in summary["groups"] if g["confidence"] == "unknown" and not g["ask"])
    assert main(["manifest", "maharani"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert "all of them are known" not in first and "40 of them carry a label" in first  # colour-3 to colour-6
    assert main(["manifest", "thurn_und_taxis"]) == 0
    assert capsys.readouterr().out.splitlines()[0].endswith("all of them are known")
    assert main(["manifest", "taj_mahal"]) == 0
    text = capsys.readouterr().out.splitlines()
    assert text[0] == "Taj Mahal: 128 components, one tag each; enrolment asks what 47 of them show"
    assert "province      12  goods (12 of them)" in text and "bonus         16  kind, goods (15 of them)" in text
    assert any(line.startswith("Red: the 21st card") and " symbols " in line and "unknown" in line for line in text)


def test_the_owners_guide_counts_agree_with_the_manifests(capsys):
    """docs/owner.md's table of tags per game is `tablemate manifest`'s figures, not prose."""
    import engines

    rows = {}
    for line in (ROOT / "docs" / "owner.md").read_text().splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("| **") and len(cells) == 5:
            rows[cells[0].strip("*")] = cells[1:]
    assert len(rows) == len(engines.names())
    for name in engines.names():
        assert main(["manifest", name, "--json"]) == 0
        summary = json.loads(capsys.readouterr().out)
        kinds = ", ".join(f"{count} {kind}" for kind, count in summary["kinds"].items())
        asked = ", ".join(f"{a['components']} {kind} ({', '.join(a['fields'])})" for kind, a in summary["asked"].items()) or "none"
        assert rows[summary["title"]] == [str(summary["components"]), kinds, asked, f"~{summary['minutes']} min"], name


# -- one store for every command ------------------------------------------------------------------


def test_the_profile_is_the_option_then_the_environment_then_the_installed_one_then_the_clones_desktop(tmp_path, monkeypatch):
    from firmware.config import DESKTOP, ENVIRONMENT, ProfileError, find_profile

    assert DESKTOP == ROOT.resolve() / "config" / "desktop.toml" and DESKTOP.is_file()
    installed, desktop = tmp_path / "etc" / "pi.toml", tmp_path / "clone" / "config" / "desktop.toml"
    monkeypatch.delenv(ENVIRONMENT, raising=False)
    with pytest.raises(ProfileError) as refused:
        find_profile(None, installed, desktop)
    assert str(installed) in str(refused.value) and str(desktop) in str(refused.value)
    assert "--config FILE" in str(refused.value) and f"{ENVIRONMENT}=FILE" in str(refused.value)
    assert find_profile(None, installed) == DESKTOP
    desktop.parent.mkdir(parents=True)
    desktop.write_text("")
    assert find_profile(None, installed, desktop) == desktop
    installed.parent.mkdir()
    installed.write_text("")
    assert find_profile(None, installed, desktop) == installed
    monkeypatch.setenv(ENVIRONMENT, str(tmp_path / "env.toml"))
    assert find_profile(None, installed, desktop) == tmp_path / "env.toml"
    assert find_profile("given.toml", installed, desktop) == Path("given.toml")


def test_status_from_any_directory_uses_the_clones_desktop_profile_and_says_the_store_is_memory(tmp_path, monkeypatch, capsys):
    from firmware.config import ENVIRONMENT

    monkeypatch.delenv(ENVIRONMENT, raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("firmware.config.INSTALLED", tmp_path / "no-such-pi.toml")
    monkeypatch.setattr("firmware.store.connect", _refusing_connect(__import__("firmware.store").store.connect))
    assert main(["status"]) == 0
    out = capsys.readouterr().out
    assert "table desktop on memory://" in out and "only the running table sees them" in out
    assert "0 games, 0 tags enrolled" in out


def test_without_redis_tag_and_player_changes_are_refused_and_reads_say_why_they_find_nothing(tmp_path, capsys):
    """On the desktop's in-memory fallback a change would end with the command: it is refused (3),
    not reported done; a listing or an export answers and says the running table is out of reach."""
    profile = tmp_path / "desktop.toml"
    profile.write_text(with_store(DESKTOP_PROFILE.read_text(), "redis://127.0.0.1:1/0").replace(
        'url = "redis://127.0.0.1:1/0"', 'url = "redis://127.0.0.1:1/0"\nfallback = "memory://"'))
    config = ["--config", str(profile)]
    tags = str(ROOT / "firmware" / "demos" / "mongols.tags.toml")
    for change in (["tags", "import", tags], ["tags", "forget", "04a1b2c3"], ["players", "add", "Zoé"],
                   ["players", "rename", "Zoé", "Zoe"], ["players", "forget", "Zoé"]):
        assert main([*change, *config]) == 3, change
        out, err = capsys.readouterr()
        assert out == "" and "in-memory fallback keeps nothing another command can reach" in err, change
    for read in (["tags", "list"], ["tags", "export", str(tmp_path / "tags.toml")], ["players", "list"], ["log", "export"]):
        main([*read, *config])
        assert "so the games are in the table's own memory" in capsys.readouterr().err, read


def test_installed_without_the_clone_a_command_names_the_paths_it_tried(tmp_path):
    """The packages alone (as a wheel installs them, no config/ beside them): even run from inside a
    clone, the desktop profile is not taken from the current directory, and the command says which
    paths it tried and how to give a profile (exit status 78)."""
    import shutil
    import subprocess
    import sys

    from firmware.config import ENVIRONMENT, INSTALLED

    if INSTALLED.exists():
        pytest.skip(f"{INSTALLED} exists on this machine: it is the profile every command takes")
    for package in ("engines", "drivers", "firmware"):
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "tablemate.py").write_text("import sys\nfrom firmware.cli import main\nsys.exit(main(sys.argv[1:]))\n")
    env = {key: value for key, value in __import__("os").environ.items() if key != ENVIRONMENT}
    done = subprocess.run([sys.executable, str(tmp_path / "tablemate.py"), "status"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 78, done.stderr
    assert str(tmp_path / "config" / "desktop.toml") in done.stderr and str(INSTALLED) in done.stderr
    assert "--config FILE" in done.stderr and "Traceback" not in done.stderr


def _refusing_connect(connect):
    """connect() as if no redis-server ran on this machine (one may: the test must not use it)."""
    def refusing(url):
        return connect("redis://127.0.0.1:1/0" if url.startswith("redis://127.0.0.1:6379") else url)
    return refusing


def test_status_on_a_desktop_sees_the_game_of_a_running_table(redis_server, tmp_path, monkeypatch, capsys):
    """What `make run` plays (the desktop profile, a local redis-server) is what status and log
    export report from another process."""
    import subprocess
    import sys

    from firmware.config import ENVIRONMENT

    text = DESKTOP_PROFILE.read_text().replace("redis://127.0.0.1:6379/0", redis_server.url)
    text = text.replace("[web]\nenabled = true", "[web]\nenabled = false")
    profile = tmp_path / "desktop.toml"
    profile.write_text(text)
    script = tmp_path / "round.script"
    script.write_text("\n".join((ROOT / "firmware" / "demos" / "thurn_und_taxis.script").read_text().splitlines()[:20]) + "\n")
    table = subprocess.Popen([sys.executable, "-m", "firmware.cli", "run", "--script", str(script), "--realtime",
                              "--tags", str(ROOT / "firmware" / "demos" / "thurn_und_taxis.tags.toml")],
                             env={**__import__("os").environ, ENVIRONMENT: str(profile)}, cwd=tmp_path,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        monkeypatch.setenv(ENVIRONMENT, str(profile))
        deadline = __import__("time").monotonic() + 30
        while True:
            assert main(["status", "--json"]) == 0
            summary = json.loads(capsys.readouterr().out)
            if summary.get("game", {}).get("entries", 0) >= 3 or __import__("time").monotonic() > deadline:
                break
        assert summary["store"] == redis_server.url and "note" not in summary
        assert summary["game"]["name"] == "thurn_und_taxis" and summary["game"]["entries"] >= 3
        assert main(["log", "export", "-o", str(tmp_path / "log.json")]) == 0
        assert f"written to {tmp_path / 'log.json'}" in capsys.readouterr().out
    finally:
        table.terminate()
        assert table.wait(timeout=20) == 0, table.stderr.read()


def test_the_table_starts_and_plays_with_the_live_view_s_port_taken(tmp_path, capsys):
    """The desktop profile serves the live view on its [web] port: when another program holds it, the
    table says so on its status line and plays the whole script."""
    import socket

    from firmware import script as scripts
    from firmware.app import App
    from firmware.config import load_profile

    port = load_profile(DESKTOP_PROFILE).web.port
    holder = socket.socket()
    try:
        holder.bind(("127.0.0.1", port))
        holder.listen()
    except OSError:
        pass  # someone else holds it already: taken all the same
    try:
        profile = tmp_path / "desktop.toml"
        profile.write_text(with_store(DESKTOP_PROFILE.read_text(), "memory://port-taken").replace("gap_ms = 500", "gap_ms = 150"))
        app = App.build(load_profile(profile))
        app.loop.table.tags.set_many(load_tags(ROOT / "firmware" / "demos" / "thurn_und_taxis.tags.toml"))
        steps = scripts.load(ROOT / "firmware" / "demos" / "thurn_und_taxis.script")[:12]
        hands = scripts.RealTime(app)
        statuses = []
        app.loop.notifier.status = statuses.append

        def play():
            hands.play(steps)
            app.loop.sync()
            app.loop.stop()

        __import__("threading").Thread(target=play, daemon=True).start()
        assert app.run() == 0
        session = app.loop.table.session
        assert session is not None and session.entries >= 3
        assert any(f"web view: cannot serve on 127.0.0.1:{port}: the port is in use" in s for s in statuses), statuses
    finally:
        holder.close()


def test_web_on_a_taken_port_says_so_and_how_to_serve_elsewhere(tmp_path, memory_url, capsys):
    """`tablemate web` beside a program on its port: a sentence naming the address and --port, exit
    status 1; not uvicorn's log line and its status 3, which the CLI means for Redis."""
    import socket

    profile = tmp_path / "desktop.toml"
    profile.write_text(with_store(DESKTOP_PROFILE.read_text(), memory_url))
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen()
    port = holder.getsockname()[1]
    try:
        assert main(["web", "--config", str(profile), "--port", str(port)]) == 1
    finally:
        holder.close()
    assert capsys.readouterr().err == (f"tablemate: cannot serve on 127.0.0.1:{port}: the port is in use (another program, "
                                       f"or another tablemate); --port N serves on another port\n")


def test_the_desktop_live_view_and_the_simulator_s_page_take_different_ports():
    """`make run` serves the page on [sim] port, and `tablemate web` beside it the live view on [web] port."""
    from firmware.config import load_profile

    profile = load_profile(DESKTOP_PROFILE)
    assert profile.web.port != profile.sim.port


def test_the_club_page_has_a_port_of_its_own(capsys):
    """Not the simulator's, nor the live view's of the desktop or of a Pi (a club server may be a table too)."""
    from firmware.cli import parser
    from firmware.config import load_profile

    port = parser().parse_args(["club", "--url", "redis://localhost:6379/0"]).port
    taken = {load_profile(DESKTOP_PROFILE).sim.port, load_profile(DESKTOP_PROFILE).web.port, load_profile(ROOT / "config" / "pi.toml").web.port}
    assert port not in taken
    for doc in (ROOT / "docs" / "club.md", ROOT / "systemd" / "tablemate-club.service"):
        assert f"--port {port}" in doc.read_text()


def test_every_argument_and_option_says_what_it_is(capsys):
    """`tablemate X --help` explains each positional argument and option (gid, file, status --json...)."""
    from firmware.cli import parser

    def parsers(top):
        for action in top._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    yield sub
                    yield from parsers(sub)

    bare = [f"{sub.prog} {action.dest}" for sub in parsers(parser()) for action in sub._actions
            if not isinstance(action, (argparse._SubParsersAction, argparse._HelpAction)) and not action.help]
    assert bare == []


def test_output_to_a_reader_that_went_away_ends_quietly_as_with_sigpipe():
    """`tablemate manifest taj_mahal | head -1`: no "Broken pipe" message, the status of a tool stopped by SIGPIPE."""
    child = subprocess.Popen([sys.executable, "-m", "firmware.cli", "manifest", "taj_mahal"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, cwd=ROOT)
    child.stdout.close()  # the reader is gone before the first line is written
    err = child.stderr.read().decode()
    assert child.wait(timeout=60) == 128 + signal.SIGPIPE and err == ""


# -- run --script ----------------------------------------------------------------------------------


def test_run_script_plays_in_virtual_time_names_each_refused_step_and_ends_with_the_final_status(tmp_path, memory_url, capsys):
    """A whole recorded game with two bad inputs slipped in: it plays in moments, exits 0, names
    each refused input by file and line, and the game still ends as recorded (a refusal changes
    nothing); `status --json` then names the same winners the rules give."""
    import engines

    profile = tmp_path / "desktop.toml"
    profile.write_text(with_store(DESKTOP_PROFILE.read_text(), memory_url))
    lines = (ROOT / "firmware" / "demos" / "thurn_und_taxis.script").read_text().splitlines()
    lines[12:12] = ["tap seat1 0badc0de   # not enrolled"]
    assert lines[40] == "tap seat0 0400000a"
    lines[40:40] = ["tap seat2 0400000a   # the card Ana lays next, on Cy's reader"]
    script = tmp_path / "bug-report.script"
    script.write_text("\n".join(lines) + "\n")
    tags = str(ROOT / "firmware" / "demos" / "thurn_und_taxis.tags.toml")
    assert main(["run", "--config", str(profile), "--script", str(script), "--tags", tags]) == 0
    out, err = capsys.readouterr()
    assert err.splitlines() == [f"{script}, line 13: refused: Unknown tag 0badc0de",
                                f"{script}, line 41: refused: Ana's turn"], err

    assert main(["status", "--json", "--config", str(profile)]) == 0
    game = json.loads(capsys.readouterr().out)["game"]
    game_rules = engines.get("thurn_und_taxis")
    assert main(["log", "export", "--config", str(profile), "-o", str(tmp_path / "log.json")]) == 0
    capsys.readouterr()
    final = __import__("firmware.gamelog").gamelog.load(tmp_path / "log.json").replay()
    winners = [game["players"][seat] for seat in game_rules.winners(final)]
    assert game["over"] and game["phase"] == game_rules.phase(final) and game["winners"] == winners
    assert [s["total"] for s in game["scores"]] == [s.total for s in game_rules.scores(final)]
    assert out.startswith(f"{script}: played {len(lines) - 1} steps. Thurn und Taxis ({game['gid']}), {game['phase']}\n")
    assert out.rstrip().endswith(f"Winner{'s' * (len(winners) > 1)}: {', '.join(winners)}")


def test_players_add_list_rename_forget_and_club_acl(tmp_path, capsys):
    from firmware.club.players import Players, player_id
    from firmware.store import connect
    from firmware.tagmap import TagMap

    url = f"memory://cli-players-{tmp_path.name}"
    profile = tmp_path / "profile.toml"
    profile.write_text(with_store((ROOT / "config" / "desktop.toml").read_text(), url))
    config = ["--config", str(profile)]
    assert main(["players", "add", "Zoé", *config]) == 0
    assert main(["players", "add", "Zoé", *config]) == 2 and "already waits" in capsys.readouterr().err
    Players(TagMap(connect(url), "desktop"), "desktop").enrol("0a0b0c0d", "Zoé")  # the table, when the card is tapped
    assert main(["players", "list", *config]) == 0
    assert capsys.readouterr().out.split() == ["Zoé", "card", "0a0b0c0d", "id", player_id("0a0b0c0d")]
    assert main(["players", "rename", "zoé", "Zoe", *config]) == 0
    assert main(["players", "forget", "Zoé", *config]) == 2 and "no player card for 'Zoé'; the players are: Zoe" in capsys.readouterr().err
    assert main(["players", "forget", "Zoe", *config]) == 0 and "card 0a0b0c0d of Zoe forgotten" in capsys.readouterr().out
    assert main(["club-acl", *config]) == 2 and "has no [club] section" in capsys.readouterr().err
    with profile.open("a") as out:
        out.write('\n[club]\nurl = "redis://club:6379/0"\ntable = "back-room"\nuser = "table-back-room"\npassword = "s3cret"\n')
    assert main(["club-acl", *config]) == 0
    assert capsys.readouterr().out.startswith("ACL SETUSER table-back-room on resetpass >s3cret resetkeys ~tablemate:{back-room}:* ")


# -- a hostile store and disk ----------------------------------------------------------------------

LAYS = [{"type": "lay", "player": 0, "card": {"id": "ulm-1", "city": "ulm"}}, {"type": "end_turn", "player": 0}]


def played(url: str, local_dir: Path | None = None):
    """Game g1 of table desktop with two entries, as the appliance writes it (with its local copy)."""
    from firmware.journal import Journal
    from firmware.journal.local import LocalCopy
    from firmware.session import Session
    from firmware.store import connect

    journal = Journal(connect(url), "desktop", local=LocalCopy(local_dir, "desktop") if local_dir else None)
    journal.claim()
    journal.reconcile()
    session = Session.start(journal, "thurn_und_taxis", ["Ana", "Ben"], gid="g1")
    for action in LAYS:
        session.apply(action)
    journal.release()
    journal.close()
    return journal


def test_status_and_export_find_the_game_the_table_resumes_when_the_current_pointer_is_gone(tmp_path, memory_url, capsys, caplog):
    profile = tmp_path / "profile.toml"
    profile.write_text(with_store(DESKTOP_PROFILE.read_text(), memory_url))
    journal = played(memory_url)
    journal.client.delete(journal.key("current"))
    assert main(["status", "--json", "--config", str(profile)]) == 0
    out = capsys.readouterr().out
    assert json.loads(out)["game"]["gid"] == "g1" and json.loads(out)["game"]["entries"] == 2
    assert "tablemate:{desktop}:current is gone: the newest game, g1, is resumed" in caplog.text  # on stderr, outside pytest
    assert main(["log", "export", "--config", str(profile)]) == 0
    assert json.loads(capsys.readouterr().out)["actions"] == LAYS


def test_a_file_that_cannot_be_written_is_named_with_why_not_as_the_store(tmp_path, memory_url, capsys, monkeypatch):
    import errno

    profile = tmp_path / "profile.toml"
    profile.write_text(with_store(DESKTOP_PROFILE.read_text(), memory_url))
    played(memory_url)
    nowhere = tmp_path / "no" / "such" / "dir" / "x.json"
    assert main(["log", "export", "--config", str(profile), "-o", str(nowhere)]) == 74
    assert capsys.readouterr().err == f"tablemate: {nowhere}: No such file or directory\n"

    def full(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Path, "write_text", full)
    assert main(["log", "export", "--config", str(profile), "-o", str(tmp_path / "x.json")]) == 74
    assert capsys.readouterr().err == f"tablemate: {tmp_path / 'x.json'}: No space left on device\n"
    assert main(["tags", "export", str(tmp_path / "tags.toml"), "--config", str(profile)]) == 74
    assert capsys.readouterr().err == f"tablemate: {tmp_path / 'tags.toml'}: No space left on device\n"


def test_log_repair_makes_its_backup_directory_and_a_disk_error_repairs_nothing(tmp_path, memory_url, capsys, monkeypatch):
    import errno

    profile = tmp_path / "profile.toml"
    profile.write_text(with_store(DESKTOP_PROFILE.read_text(), memory_url))
    journal = played(memory_url)
    journal.client.hset(journal.header_key("g1"), "players", "{oops")  # the header hash alone is damaged
    stored = journal.client.hgetall(journal.header_key("g1"))
    (tmp_path / "a-file").write_text("")
    config = ["--config", str(profile)]

    assert main(["log", "repair", "g1", "--backup-dir", str(tmp_path / "a-file" / "dir"), *config]) == 74
    err = capsys.readouterr().err
    assert err.startswith(f"tablemate: {tmp_path / 'a-file' / 'dir'}/tablemate-desktop-g1-") and err.endswith(
        ".json: the backup could not be written, so nothing was repaired: Not a directory\n")

    def full(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    with monkeypatch.context() as patched:
        patched.setattr(Path, "write_text", full)
        assert main(["log", "repair", "g1", "--backup-dir", str(tmp_path / "backups"), *config]) == 74
    assert "nothing was repaired: No space left on device" in capsys.readouterr().err
    assert journal.client.hgetall(journal.header_key("g1")) == stored  # nothing was repaired

    assert main(["log", "check", "g1", *config]) == 1
    assert "  repair: tablemate log repair g1 (rebuilds the header, keeps every entry)" in capsys.readouterr().out
    assert main(["log", "repair", "g1", "--backup-dir", str(tmp_path / "new" / "backups"), *config]) == 0
    assert capsys.readouterr().out.startswith("game g1: header rebuilt, every entry kept (2)\n  header: unreadable header hash (")
    assert len(list((tmp_path / "new" / "backups").glob("tablemate-desktop-g1-*.json"))) == 1
    assert main(["log", "check", "g1", *config]) == 0
    capsys.readouterr()
    assert main(["log", "export", "g1", *config]) == 0 and json.loads(capsys.readouterr().out)["actions"] == LAYS


def test_status_after_flushall_shows_the_game_the_local_copy_holds_and_says_the_table_restores_it(redis_server, tmp_path, capsys):
    from tests.firmware.profiles import with_local_dir

    state = tmp_path / "state"
    profile = tmp_path / "profile.toml"
    profile.write_text(with_local_dir(DESKTOP_PROFILE.read_text(), redis_server.url, state))
    journal = played(redis_server.url, state)
    journal.client.flushall()
    assert main(["status", "--config", str(profile)]) == 0
    out = capsys.readouterr().out
    assert f"note: the store is empty, but the local copy {state / 'desktop.jsonl'} holds game g1 with 2 entries, which Redis " \
        "lacks: the table writes them to Redis at its next start (sudo systemctl restart tablemate)" in out
    assert "Thurn und Taxis (g1), 2 journal entries in the local copy" in out
    assert main(["status", "--json", "--config", str(profile)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["from"] == "local copy" and summary["game"]["entries"] == 2 and summary["games"] == 0

    journal.client.flushall()
    journal = played(redis_server.url, tmp_path / "state-2")  # another table, then only its stream is lost
    profile.write_text(profile.read_text().replace(str(state), str(tmp_path / "state-2")))
    state = tmp_path / "state-2"
    journal.client.delete(journal.log_key("g1"))
    assert main(["status", "--config", str(profile)]) == 0
    assert "holds game g1 with 2 entries, which Redis lacks" in capsys.readouterr().out
    (state / "desktop.jsonl").unlink()  # and without the local copy: the loss is said, never an empty game
    assert main(["status", "--config", str(profile)]) == 2
    assert capsys.readouterr().err == ("tablemate: game g1: its entries are gone: Redis holds its header (status playing) but no "
                                       "stream (deleted?)\ntablemate: see tablemate log check g1\n")
