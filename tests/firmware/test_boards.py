"""The owner's board files: looked up in the profile's directory first, then the bundled ones; installed
there by `tablemate board install`, never inside the package; a game set up on one replays without it."""

import logging
from pathlib import Path

import pytest
import tomli_w

import engines
import engines.taj_mahal.board as taj_board
from firmware.boards import Boards
from firmware.cli import main
from firmware.journal import Journal
from firmware.store import connect
from firmware.table import Table, TableSettings
from firmware.tagmap import TagMap
from firmware.views import ChooserView
from tests.engines.bots.taj_mahal import SYNTHETIC_BOARD
from tests.firmware.profiles import with_store

ROOT = Path(__file__).resolve().parents[2]
MAHARANI = (ROOT / "engines" / "maharani" / "board.toml").read_text()
#: the bundled Maharani board under another name: an owner's corrected copy
MAHARANI_FIXED = MAHARANI.replace('name = "', 'name = "Fixed: ', 1)


@pytest.fixture
def shelf(tmp_path):
    return Boards(tmp_path / "boards")


@pytest.fixture
def bundled_taj(tmp_path, monkeypatch):
    """A Taj Mahal board bundled with the engine (none ships: the real board is unknown)."""
    folder = tmp_path / "package"
    folder.mkdir()
    (folder / "manifest.toml").write_text('game = "taj_mahal"\n')
    (folder / "bundled.toml").write_text(tomli_w.dumps(SYNTHETIC_BOARD))
    monkeypatch.setattr(taj_board, "BOARD_DIR", folder)
    taj_board._bundled.cache_clear()
    yield folder
    taj_board._bundled.cache_clear()


def profile(tmp_path, boards: str | None) -> Path:
    text = with_store((ROOT / "config" / "desktop.toml").read_text(), f"memory://boards-{tmp_path.name}")
    text = text.replace('dir = "boards"', f'dir = "{boards}"') if boards else text[: text.index("[boards]")]
    path = tmp_path / "profile.toml"
    path.write_text(text)
    return path


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_the_owners_boards_come_first_and_replace_a_bundled_one_of_the_same_name(shelf, bundled_taj, caplog):
    assert [(o.name, o.option, o.owner) for o in Boards(None).offered("taj_mahal")] == [("bundled", "bundled", False)]
    write(shelf.directory / "taj_mahal" / "club.toml", tomli_w.dumps(SYNTHETIC_BOARD))
    write(shelf.directory / "taj_mahal" / "broken.toml", "name = 'x'\nprovinces = []\n")
    write(shelf.directory / "taj_mahal" / "notes.txt", "not a board")
    with caplog.at_level(logging.WARNING):
        offers = shelf.offered("taj_mahal")
    assert [(o.name, o.owner) for o in offers] == [("club", True), ("bundled", False)]
    assert offers[0].option == SYNTHETIC_BOARD  # inline: a game's log replays without the file
    assert "broken.toml is left out" in caplog.text
    write(shelf.directory / "maharani" / "board.toml", MAHARANI_FIXED)
    (maharani,) = shelf.offered("maharani")
    assert (maharani.name, maharani.owner) == ("board", True) and maharani.option["name"].startswith("Fixed: ")
    assert shelf.offered("mongols") == [] and shelf.offered("thurn_und_taxis") == []


def test_set_up_offers_the_owners_board_and_its_game_replays_without_the_file(memory_url, shelf):
    board_file = write(shelf.directory / "taj_mahal" / "club.toml", tomli_w.dumps(SYNTHETIC_BOARD))
    client = connect(memory_url)
    table = Table(Journal(client, "t1"), TagMap(client, "t1"), TableSettings(players=["Ana", "Ben", "Cy"], boards=shelf))
    table.boot()
    for answer in ("Taj Mahal", "3 players", "club", "Hints on"):
        view = table.view()
        assert isinstance(view, ChooserView), view
        while view.options[view.index] != answer:
            table.press("next")
            view = table.view()
        table.press("ok")
    assert table.session.options["board"] == SYNTHETIC_BOARD
    board_file.unlink()
    record = Journal(client, "t1").load(table.session.gid)
    state = engines.replay(record.game, record.players, record.options, record.actions)
    assert engines.get("taj_mahal").board(state).name == SYNTHETIC_BOARD["name"]


def test_maharani_uses_an_owners_replacement_of_its_board_without_asking(shelf):
    from firmware.adapters import adapter_for
    from tests.firmware.test_setup import answers

    assert answers(adapter_for("maharani", boards=shelf.offered("maharani")).setup(3)) == ([], {})
    write(shelf.directory / "maharani" / "board.toml", MAHARANI_FIXED)
    questions, options = answers(adapter_for("maharani", boards=shelf.offered("maharani")).setup(3))
    assert questions == [] and options["board"]["name"].startswith("Fixed: ")
    write(shelf.directory / "maharani" / "mine.toml", MAHARANI)
    offers = shelf.offered("maharani")
    assert [o.name for o in offers] == ["board", "mine"]
    questions, options = answers(adapter_for("maharani", boards=offers).setup(3), offers[1].option)
    assert questions == ["Which board?"] and options == {"board": offers[1].option}


def test_board_install_checks_the_file_and_copies_it_to_the_owners_directory(tmp_path, capsys):
    config = str(profile(tmp_path, str(tmp_path / "mine")))
    source = write(tmp_path / "Club board.toml", tomli_w.dumps(SYNTHETIC_BOARD))
    assert main(["board", "check", "taj_mahal", str(source), "--config", config]) == 0
    out = capsys.readouterr().out
    assert "12 provinces, 49 cities" in out and f"tablemate board install taj_mahal {source}" in out
    assert main(["board", "install", "taj_mahal", str(source), "--config", config]) == 2
    assert "'Club board' cannot name a board" in capsys.readouterr().err
    assert main(["board", "install", "taj_mahal", str(source), "--name", "club", "--config", config]) == 0
    target = tmp_path / "mine" / "taj_mahal" / "club.toml"
    assert target.read_text() == source.read_text() and target.stat().st_mode & 0o777 == 0o644
    assert f"installed: {target}" in capsys.readouterr().out
    assert main(["board", "install", "taj_mahal", str(source), "--name", "club", "--config", config]) == 0
    assert "unchanged" in capsys.readouterr().out
    other = write(tmp_path / "club.toml", tomli_w.dumps(dict(SYNTHETIC_BOARD, name="Another")))
    assert main(["board", "install", "taj_mahal", str(other), "--config", config]) == 2
    assert "already holds a different board: add --replace" in capsys.readouterr().err
    assert main(["board", "install", "taj_mahal", str(other), "--replace", "--config", config]) == 0
    assert target.read_text() == other.read_text()
    assert main(["board", "list", "--config", config]) == 0
    assert "taj_mahal: club (yours)" in capsys.readouterr().out


def test_a_bad_board_or_a_profile_without_a_directory_installs_nothing(tmp_path, capsys):
    config = str(profile(tmp_path, str(tmp_path / "mine")))
    bad = write(tmp_path / "bad.toml", tomli_w.dumps(dict(SYNTHETIC_BOARD, roads=[["agra-1", "nowhere"]])))
    assert main(["board", "install", "taj_mahal", str(bad), "--config", config]) == 2
    assert "names unknown city 'nowhere'" in capsys.readouterr().err
    good = write(tmp_path / "good.toml", MAHARANI)
    assert main(["board", "install", "mongols", str(good), "--config", config]) == 2
    assert "mongols has no board files" in capsys.readouterr().err
    assert not (tmp_path / "mine").exists()
    bare = str(profile(tmp_path, None))
    assert main(["board", "install", "maharani", str(good), "--config", bare]) == 2
    assert "names no directory for your boards" in capsys.readouterr().err
    assert main(["board", "check", "maharani", str(good), "--config", bare]) == 0
    assert "name a directory for your boards" in capsys.readouterr().out


def test_the_profile_refuses_a_board_directory_inside_the_installed_package(tmp_path, capsys):
    for inside in (ROOT / "engines" / "taj_mahal", ROOT / "firmware" / "boards"):
        assert main(["board", "list", "--config", str(profile(tmp_path, str(inside)))]) == 78
        assert "is inside the installed package" in capsys.readouterr().err
    write(tmp_path / "a-file", "")
    assert main(["board", "list", "--config", str(profile(tmp_path, str(tmp_path / "a-file")))]) == 78
    assert "is a file, not a directory" in capsys.readouterr().err


def test_a_hand_copied_board_too_large_or_too_deep_is_left_out_and_set_up_goes_on(memory_url, shelf, caplog):
    write(shelf.directory / "taj_mahal" / "club.toml", tomli_w.dumps(SYNTHETIC_BOARD))
    write(shelf.directory / "taj_mahal" / "abyss.toml", "a = " + "[" * 100_000 + "]" * 100_000 + "\n")
    with (shelf.directory / "taj_mahal" / "huge.toml").open("wb") as file:
        file.truncate(16 * 1024 * 1024 + 1)
    client = connect(memory_url)
    table = Table(Journal(client, "t1"), TagMap(client, "t1"), TableSettings(players=["Ana", "Ben", "Cy"], boards=shelf))
    table.boot()
    for answer in ("Taj Mahal", "3 players"):
        view = table.view()
        while view.options[view.index] != answer:
            table.press("next")
            view = table.view()
        table.press("ok")
    assert "club" in table.view().options and not {"abyss", "huge"} & set(table.view().options)
    assert "abyss.toml is left out: " in caplog.text and "nested too deeply" in caplog.text
    assert "huge.toml is left out: " in caplog.text and "more than the 16 MB" in caplog.text
