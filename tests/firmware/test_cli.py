"""The `tablemate` command: board checks, replays, the demo."""

import json
from pathlib import Path

import tomli_w

from firmware.cli import main

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
    desktop = (ROOT / "config" / "desktop.toml").read_text()
    profile.write_text(desktop.replace('url = "memory://"', f'url = "memory://cli-{tmp_path.name}"'))
    tags = ROOT / "firmware" / "demos" / "maharani.tags.toml"
    assert main(["tags", "import", str(tags), "--config", str(profile)]) == 0
    assert "56 tags imported" in capsys.readouterr().out
    assert main(["tags", "list", "--config", str(profile)]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert len(listed) == 56 and all(" maharani " in line for line in listed)
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


def test_players_add_list_rename_forget_and_club_acl(tmp_path, capsys):
    from firmware.club.players import Players, player_id
    from firmware.store import connect
    from firmware.tagmap import TagMap

    url = f"memory://cli-players-{tmp_path.name}"
    profile = tmp_path / "profile.toml"
    profile.write_text((ROOT / "config" / "desktop.toml").read_text().replace('url = "memory://"', f'url = "{url}"'))
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
