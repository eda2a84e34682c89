"""The terminal table: keys as buttons, typed names as taps, drawn in place (checked through a
pseudo-terminal and pyte's terminal emulator)."""

import fcntl
import io
import os
import pty
import struct
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path

import pyte
import pytest

from firmware.config import DESKTOP
from firmware.console import ESC_WAIT_S, HELP, Console, Screen, keys
from firmware.script import BadScript, RealTime, Step
from firmware.sim.catalogue import NoMatch
from firmware.tagfile import load
from tests.e2e.rig import Rig
from tests.firmware.profiles import with_store

ROOT = Path(__file__).parents[2]
TAGS = ROOT / "firmware" / "demos" / "thurn_und_taxis.tags.toml"
ROWS, COLUMNS = 40, 100


def controlling_terminal() -> None:
    """In the child: a session of its own whose controlling terminal is the pty, so Ctrl-C is SIGINT."""
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


@pytest.fixture
def console(memory_url):
    rig = Rig(memory_url)
    rig.table.tags.set_many(load(TAGS))
    yield rig, Console(rig.app, RealTime(rig.app), Screen(io.StringIO()))
    rig.close()


def test_names_as_printed_are_taps_on_the_reader_of_the_seat_to_play(console):
    rig, keys = console
    rig.table.new_game("thurn_und_taxis", ["Ana", "Ben"], {})
    augsburg = rig.table.tags.find("thurn_und_taxis", "augsburg-1")
    assert keys.step("augsburg") == Step("tap", ("seat0", augsburg), 0)
    assert keys.step("Augsburg 2/3").args[1] == rig.table.tags.find("thurn_und_taxis", "augsburg-2")
    assert keys.step("1 nürnberg") == Step("tap", ("seat1", rig.table.tags.find("thurn_und_taxis", "nuernberg-1")), 0)
    assert keys.step("shared 04a1b2c3") == Step("tap", ("shared", "04a1b2c3"), 0)
    assert keys.step("tap seat2 04a1b2c3") == Step("tap", ("seat2", "04a1b2c3"), 1)
    rig.tap(augsburg, 0)  # once one Augsburg is in the game, "augsburg" is the next one of the pile
    assert keys.step("augsburg").args[1] == rig.table.tags.find("thurn_und_taxis", "augsburg-2")


@pytest.mark.parametrize("line, error, message", [
    ("9 augsburg", BadScript, "no reader '9'"),
    ("augsbrug", NoMatch, "did you mean 'Augsburg'"),
    ("b", NoMatch, "fits several: Basel, Budweis"),
    ("press jump", BadScript, "no button 'jump'"),
])
def test_what_means_nothing_is_explained_with_close_names(console, line, error, message):
    rig, keys = console
    rig.table.new_game("thurn_und_taxis", ["Ana", "Ben"], {})
    with pytest.raises(error, match=message):
        keys.step(line)


def test_a_misspelt_word_of_a_longer_name_is_suggested_word_by_word(memory_url):
    """Each typed word is matched against the closest word of a name, as names are found: "red vizer"
    is one letter off "Red: elephant + vizier", though the name has a word between them."""
    rig = Rig(memory_url)
    try:
        rig.table.tags.set_many(load(ROOT / "firmware" / "demos" / "taj_mahal.tags.toml"))
        rig.table.new_game("taj_mahal", ["Ana", "Ben", "Cy"], {})
        keys = Console(rig.app, RealTime(rig.app), Screen(io.StringIO()))
        for typed, meant in (("red vizer", "'Red: elephant + vizier'?"), ("provnce 2", "'Province tile 2 (two goods)'?")):
            with pytest.raises(NoMatch) as refused:
                keys.step(typed)
            assert str(refused.value).endswith(f"did you mean {meant}"), refused.value
    finally:
        rig.close()


def test_question_mark_lists_what_can_be_tapped_now(console):
    rig, keys = console
    assert "A question is on screen (Which game?)" in keys.tappable()[0]
    rig.table.new_game("thurn_und_taxis", ["Ana", "Ben"], {})
    listing = keys.tappable()
    assert listing[0] == "66 of 66 components not yet played:" and listing[1].startswith("Cards: Augsburg 1/3, ")
    assert "Zürich 3/3" in "".join(listing)


def test_the_list_fits_80_columns_and_narrows_as_a_name_is_typed_until_the_next_input(console):
    """`?`: its sentence goes on the message line, the names fill the width of an 80-column
    terminal, typing narrows them, and the next input clears the list, which it makes out of date."""
    rig, keys = console
    rig.table.new_game("thurn_und_taxis", ["Ana", "Ben"], {})
    assert len(HELP) <= 80 and all(len(line) <= 80 for line in keys.tappable(width=80))
    keys.key("?")
    assert keys.screen.message == "66 of 66 components not yet played:" and len(keys.screen.listing) > 2
    for key in "/nürn":
        keys.key(key)
    assert keys.screen.listing == ["Cards: Nürnberg 1/3, Nürnberg 2/3, Nürnberg 3/3"]
    keys.key("x")
    assert keys.screen.listing == ["  none of them is called 'nürnx'"]
    keys.key("\x7f")
    keys.key("\r")
    assert keys.screen.listing == [] and keys.screen.message == "tapped Nürnberg 1/3 on seat0"


class Terminal:
    """`tablemate run --keyboard` in a pseudo-terminal of `rows` x `columns`, read through pyte."""

    def __init__(self, tmp_path: Path, rows: int, columns: int, text: str = "", tags: Path = TAGS):
        text = text or with_store(DESKTOP.read_text(), "memory://").replace("[web]\nenabled = true", "[web]\nenabled = false")
        text = text.replace("poll_ms = 50", "poll_ms = 20").replace("gap_ms = 500", "gap_ms = 60")
        profile = tmp_path / "profile.toml"
        profile.write_text(text)
        self.master, self.slave = pty.openpty()
        fcntl.ioctl(self.slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        self.screen = pyte.HistoryScreen(columns, rows, history=1000)
        stream = pyte.ByteStream(self.screen)
        self.lock = threading.Lock()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "firmware.cli", "run", "--keyboard", "--config", str(profile), "--tags", str(tags)],
            stdin=self.slave, stdout=self.slave, stderr=self.slave, cwd=ROOT, env={**os.environ, "TERM": "xterm"},
            preexec_fn=controlling_terminal)

        def pump() -> None:
            while True:
                try:
                    data = os.read(self.master, 65536)
                except OSError:
                    return
                if not data:
                    return
                with self.lock:
                    stream.feed(data)

        threading.Thread(target=pump, daemon=True).start()

    def rows(self) -> list[str]:
        with self.lock:
            return list(self.screen.display)

    def wait_for(self, what, timeout=10.0) -> list[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            shown = self.rows()
            if what(shown):
                return shown
            time.sleep(0.02)
        raise AssertionError("\n".join(self.rows()))

    def send(self, keys: str, message: str | None = None) -> None:
        os.write(self.master, keys.encode())
        if message is not None:
            self.wait_for(lambda shown: shown[18].startswith(message))

    def reversed_cells(self, row: int) -> str:
        with self.lock:
            return "".join("#" if self.screen.buffer[row][x].reverse else "." for x in range(66))

    def stop(self) -> None:
        """Ctrl-C stops the table, which restores the terminal."""
        os.write(self.master, b"\x03")
        assert self.process.wait(timeout=15) == 0
        assert termios.tcgetattr(self.slave)[3] & termios.ICANON, "the terminal was not restored"

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        os.close(self.slave)
        os.close(self.master)


def test_fifty_inputs_leave_the_frame_at_the_top_and_messages_on_their_line(tmp_path):
    terminal = Terminal(tmp_path, ROWS, COLUMNS)
    try:
        terminal.wait_for(lambda shown: shown[0].startswith("┌") and shown[19].startswith(HELP[:40]))
        # the game chooser: its inverted title line is drawn in reverse video, the options below are not
        terminal.wait_for(lambda shown: terminal.reversed_cells(1) == terminal.reversed_cells(2) == "." + "#" * 64 + ".")
        assert terminal.reversed_cells(16) == "." * 66
        inputs = 0
        for keys, message in [("n", "pressed next")] * 3 + [("o", "pressed ok")] * 3:  # Thurn und Taxis, 4, hints on
            terminal.send(keys, message)
            inputs += 1
        for name in ["augsburg", "ulm", "nürnberg", "zzz", "b", "regensburg"] * 5 + ["?"] * 2:
            if name == "?":
                terminal.send("?", "")
                terminal.wait_for(lambda shown: "components not yet played" in shown[18])
            else:
                terminal.send(f"/{name}\r", {"zzz": "no component is called 'zzz'", "b": "'b' fits several"}.get(name, "tapped "))
            inputs += 1
        for keys in "nuuppwu\x1b[C\x1b[D":
            terminal.send(keys)
            inputs += 1
        terminal.wait_for(lambda shown: shown[18].startswith("turned back"))
        assert inputs >= 50
        shown = terminal.rows()
        assert shown[0].startswith("┌") and shown[0].rstrip().endswith("┐"), shown[0]
        assert all(line.startswith("│") and line.rstrip().endswith("│") for line in shown[1:17]), "\n".join(shown)
        assert shown[17].startswith("└") and shown[19].startswith(HELP[:40])
        assert not terminal.screen.history.top, "the terminal scrolled"
        terminal.stop()
    finally:
        terminal.close()


def test_at_80x24_a_long_message_wraps_whole_and_the_list_pages_over_the_frame(tmp_path):
    """The live view's port taken: its whole sentence on the lines under the frame, the help and the
    typed line below it; `?` shows the list a page at a time in the frame's rows, every name on some
    page, and Esc brings the screen back. Nothing scrolls."""
    import socket

    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen()
    port = holder.getsockname()[1]
    text = with_store(DESKTOP.read_text(), "memory://").replace("port = 8081", f"port = {port}")
    terminal = Terminal(tmp_path, 24, 80, text, ROOT / "firmware" / "demos" / "taj_mahal.tags.toml")
    try:
        said = f"web view: cannot serve on 127.0.0.1:{port}: the port is in use (another program, or another tablemate)"
        shown = terminal.wait_for(lambda shown: said in " ".join(line.strip() for line in shown[18:22]))
        assert max(len(line.rstrip()) for line in shown) <= 80
        help_row = next(row for row, line in enumerate(shown) if line.startswith(HELP[:40]))
        assert help_row > 19  # under the message's two or more lines
        for keys, message in [("n", "pressed next")] * 2 + [("o", "pressed ok")] * 3:  # Taj Mahal, 5 players, hints on
            terminal.send(keys, message)
        terminal.send("/province 1\r", "tapped Province tile 1")
        terminal.send("?")
        first = terminal.wait_for(lambda shown: "page 1/" in shown[17])
        pages = int(first[17].split("page 1/")[1].split(":")[0])
        names = [line.rstrip() for line in first[:17]]
        for page in range(2, pages + 1):
            terminal.send("?")
            shown = terminal.wait_for(lambda shown: any(f"page {page}/{pages}" in line for line in shown[:18]))
            names += [line.rstrip() for line in shown[:17] if line.strip() and "page " not in line]
        listed = " ".join(names)
        for card in ("Red: double elephant 1/2", "Yellow: the 21st card", "White: vizier", "Special: colour change"):
            assert card in listed, listed
        terminal.send("\x1b")
        terminal.wait_for(lambda shown: shown[0].startswith("┌") and shown[17].startswith("└"))
        assert not terminal.screen.history.top, "the terminal scrolled"
        terminal.stop()
    finally:
        terminal.close()
        holder.close()


def test_an_arrow_split_across_reads_is_one_key_and_a_lone_esc_is_its_own():
    """Over SSH or on a busy machine an arrow's bytes can come in separate reads: an Esc ending a read
    waits ESC_WAIT_S for the rest; with nothing following, it is the Esc key."""
    read_end, write_end = os.pipe()
    try:
        def typing() -> None:
            for chunk, pause in [(b"\x1b", ESC_WAIT_S / 5), (b"[C", 0.0), (b"\x1b", 3 * ESC_WAIT_S), (b"n", 0.0)]:
                os.write(write_end, chunk)
                time.sleep(pause)
            os.close(write_end)

        threading.Thread(target=typing, daemon=True).start()
        assert list(keys(read_end)) == ["\x1b[C", "\x1b", "n"]
    finally:
        os.close(read_end)
