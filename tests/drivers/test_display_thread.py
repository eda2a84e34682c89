"""The display's thread (latest frame wins, watched, flushed at close) and OLED care (idle dim and
off, wake on input, a pixel shift that loses nothing), with an injected clock."""

import threading

import pytest
from PIL import Image, ImageDraw

from drivers.display import Care, Display, DisplayThread, shifted
from drivers.display.sender import STALL_S

WAIT_S = 10.0


def frame(text: str) -> Image.Image:
    image = Image.new("1", (128, 64))
    ImageDraw.Draw(image).text((10, 20), text, fill=255)
    return image


class Recording(Display):
    """A display that records what reaches it; `gate` (when set up) holds each frame until released."""

    def __init__(self, **options):
        super().__init__("recording", **options)
        self.frames: list[bytes] = []
        self.levels: list[str] = []
        self.gate: threading.Semaphore | None = None
        self.entered = threading.Event()

    def _show(self, image: Image.Image) -> None:
        self.entered.set()
        if self.gate is not None:
            assert self.gate.acquire(timeout=WAIT_S), "the test never released the frame"
        self.frames.append(image.tobytes())

    def _level(self, level: str) -> None:
        self.levels.append(level)


def started(display: Display, **options) -> DisplayThread:
    thread = DisplayThread(display, **options)
    thread.start()
    return thread


def test_a_frame_superseded_before_it_was_sent_is_dropped_and_the_last_one_is_shown():
    inner = Recording()
    inner.open()
    inner.gate = threading.Semaphore(0)
    screen = started(inner)
    screen.show(frame("A"))
    assert inner.entered.wait(WAIT_S)  # A is on the wire, held there
    for text in "BCD":
        screen.show(frame(text))  # returns at once although the wire is busy
    assert screen.image.tobytes() == frame("D").tobytes() and screen.dropped == 2
    inner.gate.release(2)
    assert screen.wait(WAIT_S)
    assert inner.frames == [frame("A").tobytes(), frame("D").tobytes()]  # B and C never shown late
    screen.close()


def test_the_watchdog_sees_a_transfer_stuck_on_the_wire_and_a_dead_thread(clock):
    inner = Recording()
    inner.open()
    inner.gate = threading.Semaphore(0)
    screen = started(inner, clock=clock)
    assert screen.alive()
    screen.show(frame("A"))
    assert inner.entered.wait(WAIT_S)
    clock.advance(STALL_S - 1)
    assert screen.alive()  # slow, not stuck
    clock.advance(2)
    assert not screen.alive()
    inner.gate.release()
    assert screen.wait(WAIT_S) and screen.alive()
    screen.close()
    assert not screen.alive()


def test_close_sends_what_is_pending_then_releases_the_display():
    inner = Recording()
    inner.open()
    screen = started(inner)
    screen.show(frame("last"))
    screen.set_level("dim")
    screen.close(blank=False)
    assert inner.frames[-1] == frame("last").tobytes() and inner.level == "dim"
    never_started = DisplayThread(Recording())
    never_started.show(frame("x"))
    never_started.close()
    assert never_started.display.frames == [frame("x").tobytes()]


def test_a_wrong_frame_or_level_fails_in_the_caller_not_in_the_thread():
    screen = started(Recording())
    with pytest.raises(ValueError, match="128x64 mode '1'"):
        screen.show(Image.new("L", (128, 64)))
    with pytest.raises(ValueError, match="choose one of on, dim, off"):
        screen.set_level("bright")
    assert screen.alive()
    screen.close()


def test_an_idle_panel_dims_then_goes_dark_and_any_input_lights_it_again(clock):
    inner = Recording()
    inner.open()
    screen = started(inner, care=Care(dim_after_s=600, off_after_s=3600, shift_every_s=0, clock=clock), clock=clock)
    screen.show(frame("score"))

    def after(seconds: float) -> str:
        clock.advance(seconds)
        screen.tick()
        assert screen.wait(WAIT_S)
        return inner.level

    assert after(599) == "on"
    assert after(1) == "dim"
    assert after(2999) == "dim"
    assert after(1) == "off"
    screen.touch()  # a tap: lit at once, and its idle time starts again
    assert screen.wait(WAIT_S) and inner.level == "on"
    assert after(599) == "on" and after(1) == "dim"
    assert inner.frames == [frame("score").tobytes()]  # no frame was needed to dim, darken or wake
    screen.close()


def test_zero_turns_a_care_step_off(clock):
    care = Care(dim_after_s=0, off_after_s=120, shift_every_s=0, clock=clock)
    clock.advance(119)
    assert care.level() == "on"
    clock.advance(1)
    assert care.level() == "off"
    assert Care(dim_after_s=60, off_after_s=0, shift_every_s=0, clock=clock).level() == "on"


def test_the_frame_shifts_a_pixel_at_a_time_and_the_drawn_frame_stays_as_it_was(clock):
    inner = Recording()
    inner.open()
    screen = started(inner, care=Care(dim_after_s=0, off_after_s=0, shift_every_s=300, clock=clock), clock=clock)
    board = frame("score")
    screen.show(board)
    assert screen.wait(WAIT_S)
    offsets = []
    for _ in range(5):
        clock.advance(300)
        screen.tick()
        assert screen.wait(WAIT_S)
        offsets.append(screen.offset)
        assert inner.frames[-1] == shifted(board, screen.offset).tobytes()
        assert screen.image.tobytes() == board.tobytes()
    assert offsets == [(1, 0), (1, 1), (0, 1), (0, 0), (1, 0)]
    assert len(inner.frames) == 6  # each move sends the frame once
    screen.close()


def test_a_shift_never_pushes_a_lit_pixel_off_the_panel():
    bar = Image.new("1", (128, 64))
    ImageDraw.Draw(bar).rectangle((0, 0, 127, 7), fill=255)  # an inverted header to both edges
    moved = shifted(bar, (1, 1))
    assert moved.getbbox() == (1, 1, 128, 9)  # one pixel shorter on the left, nothing lost
    framed = Image.new("1", (128, 64))
    draw = ImageDraw.Draw(framed)
    draw.rectangle((0, 0, 127, 63), outline=255)
    draw.rectangle((2, 2, 125, 61), outline=255)  # the error flash's double frame
    assert shifted(framed, (1, 1)).tobytes() == framed.tobytes()
    right_edge = Image.new("1", (128, 64))
    right_edge.putpixel((127, 30), 255)  # a lone pixel on the right edge: only a vertical move
    assert shifted(right_edge, (1, 1)).getbbox() == (127, 31, 128, 32)
