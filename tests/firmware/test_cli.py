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
