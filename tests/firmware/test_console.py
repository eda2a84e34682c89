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
    assert listing[0] == "66 of 66 components can be tapped now:" and listing[1].startswith("Cards: Augsburg 1/3, ")
    assert "Zürich 3/3" in "".join(listing)


def test_the_list_fits_80_columns_and_narrows_as_a_name_is_typed_until_the_next_input(console):
    """An 80x24 terminal leaves two lines under the frame for `?`: its sentence goes on the message
    line, the names fill the width, typing narrows them (as the "more lines" line says), and the next
    input clears the list, which it makes out of date."""
    rig, keys = console
    rig.table.new_game("thurn_und_taxis", ["Ana", "Ben"], {})
    assert len(HELP) <= 80 and all(len(line) <= 80 for line in keys.tappable(width=80))
    keys.key("?")
    assert keys.screen.message == "66 of 66 components can be tapped now:" and len(keys.screen.listing) > 2
    for key in "/nürn":
        keys.key(key)
    assert keys.screen.listing == ["Cards: Nürnberg 1/3, Nürnberg 2/3, Nürnberg 3/3"]
    keys.key("x")
    assert keys.screen.listing == ["  none of them is called 'nürnx'"]
    keys.key("\x7f")
    keys.key("\r")
    assert keys.screen.listing == [] and keys.screen.message == "tapped Nürnberg 1/3 on seat0"


def test_fifty_inputs_leave_the_frame_at_the_top_and_messages_on_their_line(tmp_path):
    text = with_store(DESKTOP.read_text(), "memory://").replace("[web]\nenabled = true", "[web]\nenabled = false")
    text = text.replace("poll_ms = 50", "poll_ms = 20").replace("gap_ms = 500", "gap_ms = 60")
    profile = tmp_path / "profile.toml"
    profile.write_text(text)
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
    screen = pyte.HistoryScreen(COLUMNS, ROWS, history=1000)
    stream = pyte.ByteStream(screen)
    lock = threading.Lock()
    process = subprocess.Popen(
        [sys.executable, "-m", "firmware.cli", "run", "--keyboard", "--config", str(profile), "--tags", str(TAGS)],
        stdin=slave, stdout=slave, stderr=slave, cwd=ROOT, env={**os.environ, "TERM": "xterm"},
        preexec_fn=controlling_terminal)

    def pump() -> None:
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:
                return
            if not data:
                return
            with lock:
                stream.feed(data)

    threading.Thread(target=pump, daemon=True).start()

    def rows() -> list[str]:
        with lock:
            return list(screen.display)

    def wait_for(what, timeout=10.0) -> list[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            shown = rows()
            if what(shown):
                return shown
            time.sleep(0.02)
        raise AssertionError("\n".join(rows()))

    def send(keys: str, message: str | None = None) -> None:
        os.write(master, keys.encode())
        if message is not None:
            wait_for(lambda shown: shown[18].startswith(message))

    try:
        wait_for(lambda shown: shown[0].startswith("┌") and shown[19].startswith(HELP[:40]))

        def reversed_cells(row: int) -> str:
            with lock:
                return "".join("#" if screen.buffer[row][x].reverse else "." for x in range(66))

        # the game chooser: its inverted title line is drawn in reverse video, the options below are not
        wait_for(lambda shown: reversed_cells(1) == reversed_cells(2) == "." + "#" * 64 + ".")
        assert reversed_cells(16) == "." * 66
        inputs = 0
        for keys, message in [("n", "pressed next")] * 3 + [("o", "pressed ok")] * 3:  # Thurn und Taxis, 4, hints on
            send(keys, message)
            inputs += 1
        for name in ["augsburg", "ulm", "nürnberg", "zzz", "b", "regensburg"] * 5 + ["?"] * 2:
            if name == "?":
                send("?", "")
                wait_for(lambda shown: "components can be tapped now" in shown[18])
            else:
                send(f"/{name}\r", {"zzz": "no component is called 'zzz'", "b": "'b' fits several"}.get(name, "tapped "))
            inputs += 1
        for keys in "nuuppwu\x1b[C\x1b[D":
            send(keys)
            inputs += 1
        wait_for(lambda shown: shown[18].startswith("turned back"))
        assert inputs >= 50
        shown = rows()
        assert shown[0].startswith("┌") and shown[0].rstrip().endswith("┐"), shown[0]
        assert all(line.startswith("│") and line.rstrip().endswith("│") for line in shown[1:17]), "\n".join(shown)
        assert shown[17].startswith("└") and shown[19].startswith(HELP[:40])
        assert not screen.history.top, "the terminal scrolled"
        os.write(master, b"\x03")  # Ctrl-C stops the table
        assert process.wait(timeout=15) == 0
        assert termios.tcgetattr(slave)[3] & termios.ICANON, "the terminal was not restored"
    finally:
        if process.poll() is None:
            process.kill()
        os.close(slave)
        os.close(master)


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
