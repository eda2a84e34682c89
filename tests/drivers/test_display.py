"""Display back ends: golden frames, the bytes an SSD1306/SH1106 receives, and failure tolerance."""

import io
import logging
import re
from unittest.mock import Mock, call

import pytest
from PIL import Image, ImageDraw

from drivers.display import DisplaySpec, open_display, render_text
from drivers.display.fonts import FONTS, cell_size, font
from drivers.display.terminal import _BRAILLE_BITS as BRAILLE_BITS

from .support import assert_golden_image, assert_golden_text

SSD1306_COLUMNADDR, SSD1306_PAGEADDR, DISPLAYOFF = 0x21, 0x22, 0xAE

# luma.oled 3.16 still calls Image.getdata, which Pillow 13 deprecates: not ours to fix.
pytestmark = pytest.mark.filterwarnings("ignore:Image.Image.getdata is deprecated:DeprecationWarning")


def sample_frame() -> Image.Image:
    """A scoreboard-like frame using every bundled font, with Latin-1 letters."""
    image = Image.new("1", (128, 64))
    draw = ImageDraw.Draw(image)
    draw.text((0, 0), "Thurn und Taxis", font=font("medium"), fill=1)
    draw.text((0, 14), "München Nürnberg", font=font("small"), fill=1)
    draw.text((0, 25), "Zürich ÄÖÜ äöü ß é", font=font("tiny"), fill=1)
    draw.text((0, 34), "Ana 12", font=font("large"), fill=1)
    draw.rectangle((0, 56, 127, 63), outline=1)
    return image


def pixel_frame(*points: tuple[int, int]) -> Image.Image:
    image = Image.new("1", (128, 64))
    for point in points:
        image.putpixel(point, 1)
    return image


def page_bytes(image: Image.Image) -> list[int]:
    """The controller's memory layout: 8 pages of 128 columns, bit n of a byte = row 8*page + n."""
    out = [0] * (128 * 8)
    for y in range(64):
        for x in range(128):
            if image.getpixel((x, y)):
                out[(y // 8) * 128 + x] |= 1 << (y % 8)
    return out


# -- fonts --------------------------------------------------------------------------------------

def test_fonts_render_identically_to_the_golden_frame():
    assert_golden_image(sample_frame(), "fonts.png")


@pytest.mark.parametrize("name", sorted(FONTS))
def test_every_font_is_fixed_width_with_its_cell_size(name):
    width, height = cell_size(name)
    assert font(name).getbbox("M" * 10)[2] == 10 * width
    assert font(name).getbbox("ü" * 3)[2] == 3 * width
    assert font(name).getbbox("Äg")[3] <= height


def test_small_font_fits_21_characters_on_a_line():
    assert font("small").getbbox("x" * 21)[2] <= 128 < font("small").getbbox("x" * 22)[2]


def test_unknown_font_names_the_known_ones():
    with pytest.raises(ValueError, match="tiny, small, medium, large"):
        font("huge")


def test_latin1_letters_are_drawn_not_replaced():
    image = Image.new("1", (30, 12))
    ImageDraw.Draw(image).text((0, 0), "ü", font=font("small"), fill=1)
    plain = Image.new("1", (30, 12))
    ImageDraw.Draw(plain).text((0, 0), "u", font=font("small"), fill=1)
    assert image.tobytes() != plain.tobytes()


# -- terminal -----------------------------------------------------------------------------------

@pytest.mark.parametrize("style", ["braille", "halfblock"])
def test_terminal_frame_matches_the_golden_text(style):
    stream = io.StringIO()
    display = open_display(DisplaySpec(driver="terminal", terminal_style=style), stream=stream)
    display.show(sample_frame())
    assert_golden_text(display.last_text(), f"terminal_{style}.txt")
    assert stream.getvalue() == display.last_text() + "\n"


def test_braille_cell_maps_each_pixel_to_its_dot():
    # Top-left pixel is dot 1 (U+2801), bottom-right of the first cell is dot 8 (U+2880).
    assert render_text(pixel_frame((0, 0)), "braille").splitlines()[1][1] == "\u2801"
    assert render_text(pixel_frame((1, 3)), "braille").splitlines()[1][1] == "\u2880"
    assert render_text(pixel_frame((127, 63)), "braille").splitlines()[16][64] == "\u2880"


def test_halfblock_draws_upper_and_lower_pixels():
    lines = render_text(pixel_frame((0, 0), (1, 1), (2, 0), (2, 1)), "halfblock").splitlines()
    assert lines[1][1:4] == "▀▄█"
    assert len(lines) == 34 and all(len(line) == 130 for line in lines)


def inverted_frame() -> Image.Image:
    """A title drawn inverted (a lit bar, dark text) over a line of ordinary text, as the screens do."""
    image = Image.new("1", (128, 64))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 8, 127, 15), fill=1)
    draw.text((1, 8), "Thurn und Taxis", font=font("small"), fill=0)
    draw.text((1, 24), "Ana 12  Ben 7", font=font("small"), fill=1)
    return image


def decoded(text: str) -> tuple[Image.Image, list[list[bool]]]:
    """The pixels a braille text shows (a reversed cell's dots are its dark pixels), and which cells
    are reversed."""
    image, reversed_cells = Image.new("1", (128, 64)), []
    for top, line in enumerate(text.splitlines()[1:-1]):
        inside, cells, column = False, [], 0
        for part in re.split(r"(\x1b\[\d+m)", line[1:-1]):
            if part.startswith("\x1b["):
                inside = part == "\x1b[7m"
                continue
            for char in part:
                bits = ord(char) - 0x2800
                for (dx, dy), bit in BRAILLE_BITS.items():
                    image.putpixel((2 * column + dx, 4 * top + dy), bool(bits & bit) != inside)
                cells.append(inside)
                column += 1
        reversed_cells.append(cells)
    return image, reversed_cells


def test_on_a_terminal_braille_draws_an_inverted_line_in_reverse_video_pixel_for_pixel():
    frame = inverted_frame()
    plain = render_text(frame, "braille")
    assert "\x1b" not in plain  # into a file or a pipe: no escape codes
    text = render_text(frame, "braille", reverse=True)
    image, reversed_cells = decoded(text)
    assert image.tobytes() == frame.tobytes()  # every pixel where it was
    assert all(reversed_cells[2]) and all(reversed_cells[3])  # the bar: rows 8-15
    assert not any(any(row) for number, row in enumerate(reversed_cells) if number not in (2, 3))
    bar = "".join(re.sub(r"\x1b\[\d+m", "", line)[1:-1] for line in text.splitlines()[3:5])
    dots = sum(bin(ord(char) - 0x2800).count("1") for char in bar)
    assert len(bar) == 128 and dots < 8 * 128 / 3  # the bar's dark text is drawn as dots, not the lit bar


def test_the_terminal_display_uses_reverse_video_on_a_terminal_only():
    for stream, reverse in ((io.StringIO(), False), (TtyStream(), True)):
        display = open_display(DisplaySpec(driver="terminal"), stream=stream)
        display.show(inverted_frame())
        assert ("\x1b[7m" in stream.getvalue()) == reverse


class TtyStream(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_terminal_redraws_in_place_on_a_tty():
    stream = TtyStream()
    display = open_display(DisplaySpec(driver="terminal"), stream=stream)
    display.show(pixel_frame((0, 0)))
    display.show(pixel_frame((5, 5)))
    first, second = stream.getvalue().split("\x1b[18F")
    assert first == render_text(pixel_frame((0, 0))) + "\n"
    assert second == render_text(pixel_frame((5, 5))) + "\n"


def test_terminal_write_failure_does_not_raise():
    stream = Mock()
    stream.write.side_effect = BrokenPipeError(32, "Broken pipe")
    display = open_display(DisplaySpec(driver="terminal"), stream=stream, sleep=lambda s: None)
    display.show(sample_frame())
    assert display.failed and "Broken pipe" in display.error
    assert display.image is not None


# -- dummy and png ------------------------------------------------------------------------------

def test_dummy_keeps_the_last_frame_and_rotates_like_the_panel():
    display = open_display(DisplaySpec(driver="dummy", rotate=180))
    display.show(sample_frame())
    assert display.image.tobytes() == sample_frame().tobytes()
    assert display.device.image.tobytes() == sample_frame().rotate(180).tobytes()


def test_show_refuses_a_frame_of_the_wrong_size_or_mode():
    display = open_display(DisplaySpec(driver="dummy"))
    with pytest.raises(ValueError, match="128x64 mode '1'"):
        display.show(Image.new("L", (128, 64)))
    with pytest.raises(ValueError, match="128x64"):
        display.show(Image.new("1", (64, 128)))
    assert display.image is None


def test_png_capture_writes_new_frames_only_and_never_overwrites(tmp_path):
    display = open_display(DisplaySpec(driver="png", png_dir=str(tmp_path / "frames"), png_scale=3))
    display.show(sample_frame())
    display.show(sample_frame())
    display.show(pixel_frame((1, 1)))
    assert [p.name for p in display.paths] == ["frame-00001.png", "frame-00002.png"]
    with Image.open(display.paths[0]) as written:
        assert written.size == (384, 192)
        assert_golden_image(written.convert("1").resize((128, 64), Image.Resampling.NEAREST), "fonts.png")
    again = open_display(DisplaySpec(driver="png", png_dir=str(tmp_path / "frames")))
    again.show(sample_frame())
    assert [p.name for p in again.paths] == ["frame-00003.png"]
    assert sorted(p.name for p in (tmp_path / "frames").iterdir()) == [
        "frame-00001.png", "frame-00002.png", "frame-00003.png"]  # written whole, no partial file left behind


def test_png_capture_into_an_unwritable_place_is_tolerated(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    display = open_display(DisplaySpec(driver="png", png_dir=str(blocker / "frames")), sleep=lambda s: None)
    display.show(sample_frame())
    assert display.failed
    assert display.error.startswith(("FileExistsError", "NotADirectoryError"))


def test_unknown_driver_and_rotation_are_refused():
    with pytest.raises(ValueError, match="ssd1306, sh1106, dummy, terminal, png"):
        open_display(DisplaySpec(driver="st7735"))
    with pytest.raises(ValueError, match="0 or 180"):
        open_display(DisplaySpec(driver="dummy", rotate=90))


# -- SSD1306 / SH1106 through a mocked serial interface (as luma.oled's own tests do) -----------

def test_ssd1306_initialises_and_sends_the_frame_in_page_order():
    serial = Mock(unsafe=True)
    display = open_display(DisplaySpec(driver="ssd1306"), serial_interface=serial)
    assert serial.command.call_args_list[0].args[0] == DISPLAYOFF
    serial.reset_mock()
    frame = pixel_frame((0, 0), (127, 0), (5, 9), (127, 63))
    display.show(frame)
    serial.command.assert_called_once_with(SSD1306_COLUMNADDR, 0, 127, SSD1306_PAGEADDR, 0, 7)
    sent = serial.data.call_args.args[0]
    assert sent == page_bytes(frame)
    assert sent[0] == 0x01 and sent[127] == 0x01 and sent[128 + 5] == 0x02 and sent[7 * 128 + 127] == 0x80


def test_ssd1306_rotated_180_sends_the_mirrored_frame():
    serial = Mock(unsafe=True)
    display = open_display(DisplaySpec(driver="ssd1306", rotate=180), serial_interface=serial)
    serial.reset_mock()
    display.show(pixel_frame((0, 0), (5, 9)))
    assert serial.data.call_args.args[0] == page_bytes(pixel_frame((127, 63), (122, 54)))


def test_sh1106_sends_each_page_with_its_column_offset():
    serial = Mock(unsafe=True)
    display = open_display(DisplaySpec(driver="sh1106"), serial_interface=serial)
    serial.reset_mock()
    frame = sample_frame()
    display.show(frame)
    assert serial.command.call_args_list == [call(0xB0 + page, 0x02, 0x10) for page in range(8)]
    expected = page_bytes(frame)
    assert [c.args[0] for c in serial.data.call_args_list] == [expected[p * 128:(p + 1) * 128] for p in range(8)]


@pytest.mark.parametrize("blank", [False, True])
def test_close_blanks_the_panel_only_when_asked(blank):
    serial = Mock(unsafe=True)
    display = open_display(DisplaySpec(driver="ssd1306"), serial_interface=serial)
    serial.reset_mock()
    display.close(blank=blank)
    display.close(blank=blank)
    assert (call(DISPLAYOFF) in serial.command.call_args_list) is blank
    serial.cleanup.assert_called_once_with()
    serial.reset_mock()
    display.show(sample_frame())
    serial.data.assert_not_called()


# -- failures: retried, then tolerated, then retried later ---------------------------------------

def test_i2c_errors_are_retried_then_the_display_is_disabled_and_tried_again_later(clock, caplog):
    serial = Mock(unsafe=True)
    display = open_display(DisplaySpec(driver="ssd1306"), serial_interface=serial, clock=clock, sleep=clock.sleep,
                           attempts=3, retry_after=30.0)
    serial.reset_mock()
    serial.data.side_effect = OSError(121, "Remote I/O error")
    with caplog.at_level(logging.WARNING, logger="drivers.display"):
        display.show(sample_frame())
    assert display.failed and "Remote I/O error" in display.error
    assert serial.data.call_count == 3  # the frame, then twice the re-initialisation (its clear fails)
    assert serial.cleanup.call_count == 3  # every failed device is released before re-opening
    assert [r.getMessage() for r in caplog.records if "carrying on without it" in r.getMessage()]

    serial.reset_mock()
    clock.advance(10)
    display.show(sample_frame())
    serial.data.assert_not_called()  # disabled: no time is lost on a dead display

    clock.advance(25)
    serial.data.side_effect = None
    with caplog.at_level(logging.WARNING, logger="drivers.display"):
        display.show(pixel_frame((0, 0)))
    assert not display.failed and display.error is None
    assert serial.data.call_args.args[0] == page_bytes(pixel_frame((0, 0)))
    assert any("works again" in r.getMessage() for r in caplog.records)


def test_a_display_that_fails_at_start_does_not_stop_the_program(clock):
    serial = Mock(unsafe=True)
    serial.command.side_effect = OSError(121, "Remote I/O error")
    display = open_display(DisplaySpec(driver="sh1106"), serial_interface=serial, clock=clock, sleep=clock.sleep)
    assert display.failed
    display.show(sample_frame())
    assert display.image is not None
    display.close(blank=True)


@pytest.mark.parametrize("code, said", [(1, "device policy, not by the file's mode: the unit needs DeviceAllow=char-i2c rw"),
                                         (13, "sudo usermod -aG")])
def test_an_i2c_bus_refused_says_whether_the_units_device_policy_or_a_group_refused_it(clock, monkeypatch, code, said):
    def refused(port):
        raise PermissionError(code, "Permission denied", f"/dev/i2c-{port}")

    monkeypatch.setattr("smbus2.SMBus", refused)
    display = open_display(DisplaySpec(driver="ssd1306", port=97), clock=clock, sleep=clock.sleep)
    assert display.failed and "permission denied on /dev/i2c-97" in display.error and said in display.error


def test_a_missing_i2c_bus_is_reported_not_raised(clock):
    display = open_display(DisplaySpec(driver="ssd1306", port=97), clock=clock, sleep=clock.sleep)
    assert display.failed and "i2c-97" in display.error
    display.show(sample_frame())
