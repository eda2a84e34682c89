"""The owner's board files: looked up in the owner's directory first, then the ones bundled with the engine.

    shelf = Boards(profile.boards.dir)       # the profile's [boards] dir (None: bundled boards only)
    shelf.offered("taj_mahal")               # what set-up offers: the owner's boards, then the bundled ones
    shelf.install("taj_mahal", "club.toml")  # check a file and copy it to <dir>/taj_mahal/club.toml

An owner's board lives in `<dir>/<game>/<name>.toml` (/etc/tablemate/boards on the Pi), never inside
the installed package, which an upgrade replaces. An owner's board of the same name as a bundled one
takes its place. A game set up on an owner's board carries the board itself in its options (the
engines accept a board inline), so its log replays anywhere, with or without the file.

The engines only parse boards (`load_board_file`) and list the ones they bundle (`bundled_boards`):
where an owner keeps files is decided here, and the firmware passes the directory in.
"""

import importlib
import logging
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import engines
from engines.core import read_toml_file
from engines.core.data import read_text

log = logging.getLogger(__name__)

#: What an owner's board may be called: it names the file and the choice at set-up.
NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")


class BoardFileError(ValueError):
    """A board file that cannot be installed here; the message says why and what to do."""


@dataclass(frozen=True)
class Offer:
    """A board set-up offers: its name, and the game's `board` option that chooses it."""

    name: str
    #: a bundled board's name, or an owner's board inline (the engines accept both)
    option: str | dict
    owner: bool


@dataclass(frozen=True)
class Checked:
    """A board file that passed its game's checks: what `board check` reports."""

    name: str
    summary: str
    #: how it departs from the physical board (Taj Mahal); an owner's real board has none
    differences: tuple[str, ...]
    data: dict


def games() -> list[str]:
    """The games that play on a board described by a file."""
    return [name for name in engines.names() if hasattr(_package(name), "load_board_file")]


def check(game: str, path: str | Path, name: str | None = None) -> Checked:
    """The board in the file at `path`, checked by its game (IllegalAction names the bad entry)."""
    package = _package(game)
    if not hasattr(package, "load_board_file"):
        raise BoardFileError(f"{game} has no board files (the games with boards: {', '.join(games())})")
    board = package.load_board_file(path)
    data = read_toml_file(path)
    differences = tuple(board.differences()) if hasattr(board, "differences") else ()
    return Checked(name or Path(path).stem, board.summary, differences, data)


def check_text(game: str, name: str, text: str) -> Checked:
    """A board file's text (from a backup), checked as `check` checks a file."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"{name}.toml"
        path.write_text(text, encoding="utf-8")
        return check(game, path, name)


class Boards:
    """The boards of one table: the owner's directory (may be None), then the bundled ones."""

    def __init__(self, directory: Path | None = None):
        self.directory = directory

    def folder(self, game: str) -> Path:
        """Where the owner's boards of `game` go."""
        if self.directory is None:
            raise BoardFileError("the profile names no directory for your boards: add [boards] dir = \"...\" "
                                 "(the Pi's profile has /etc/tablemate/boards)")
        return self.directory / game

    def owner_files(self, game: str) -> list[Path]:
        """The owner's board files of `game`, by name."""
        if self.directory is None or not (self.directory / game).is_dir():
            return []
        return sorted(path for path in (self.directory / game).iterdir() if path.suffix == ".toml" and NAME.fullmatch(path.stem))

    def offered(self, game: str) -> list[Offer]:
        """What set-up offers for `game`: the owner's boards that pass the checks, then the bundled ones
        no owner's board replaces. A bad owner's file (one hand-copied too: unreadable, too large, nested
        too deep) is left out and logged: set-up goes on."""
        if game not in games():
            return []
        offers = []
        for path in self.owner_files(game):
            try:
                offers.append(Offer(path.stem, check(game, path).data, owner=True))
            except engines.IllegalAction as error:
                log.warning("board file %s is left out: %s", path, error)
        owned = {offer.name for offer in offers}
        return offers + [Offer(name, name, owner=False) for name in _package(game).bundled_boards() if name not in owned]

    def install(self, game: str, path: str | Path, name: str | None = None, replace: bool = False) -> tuple[Path, str]:
        """Check the board file at `path` and copy it among the owner's boards of `game`; its place and
        what happened ("installed", "replaced", "unchanged"). Refused, nothing is written."""
        checked = check(game, path, name)
        return self.write(game, checked.name, read_text(path), replace)

    def write(self, game: str, name: str, text: str, replace: bool = False) -> tuple[Path, str]:
        """Write a checked board's text as the owner's board `name` of `game` (atomically, readable by
        the service); refuses to replace a different file unless told to."""
        if not NAME.fullmatch(name):
            raise BoardFileError(f"{name!r} cannot name a board: use 1-32 of a-z, 0-9, '-', '_' (--name NAME)")
        target = self.folder(game) / f"{name}.toml"
        outcome = "installed"
        if target.exists():
            if target.read_text(encoding="utf-8") == text:
                return target, "unchanged"
            if not replace:
                raise BoardFileError(f"{target} already holds a different board: add --replace to replace it, "
                                     f"or --name to install this one under another name")
            outcome = "replaced"
        try:
            write_file(target, text, 0o644)
        except PermissionError as error:
            raise BoardFileError(f"cannot write {target}: {error.strerror} (on the Pi: run it with sudo)") from None
        return target, outcome

    def files(self) -> list[tuple[str, str, str]]:
        """Every owner's board file as (game, name, text): what a backup keeps."""
        return [(game, path.stem, path.read_text(encoding="utf-8")) for game in games() for path in self.owner_files(game)]


def write_file(target: Path, text: str, mode: int) -> None:
    """Write `text` to `target` whole or not at all: a temporary file beside it, synced, then renamed."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _package(game: str) -> Any:
    if game not in engines.names():
        raise engines.UnknownGame(game, engines.names())
    return importlib.import_module(f"engines.{game}")
