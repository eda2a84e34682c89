"""The virtual Pi's plan: the recorded game ends here on its golden frame, and a frame's panel RAM is
what the SSD1306 model holds once luma has sent the frame. The golden frame is made again, after a
change to the screens, with:

    .venv/bin/python -c "from tests.virtualpi.plan import play_here, golden_path; play_here('maharani').last.save(golden_path('maharani'))"
"""

import pytest
from PIL import Image, ImageChops, ImageDraw

from tests.drivers.i2c_oled import CountingBus, panel_on, wired

from .plan import candidates, golden_path, play_here, ram


def test_the_recorded_game_played_here_with_pi_toml_ends_on_its_golden_frame():
    game = play_here("maharani")
    golden = Image.open(golden_path("maharani")).convert("1")
    assert ImageChops.difference(game.last.convert("1"), golden).getbbox() is None
    assert len(game.steps) == len(game.screens) and all(len(shown) in (1, 2) for shown in game.screens)


# luma.oled 3.16 still calls Image.getdata (at set-up, clearing the panel), which Pillow 13 deprecates.
@pytest.mark.filterwarnings("ignore:Image.Image.getdata is deprecated:DeprecationWarning")
def test_a_frames_ram_is_what_the_panel_holds_after_luma_sent_it():
    from luma.oled.device import ssd1306
    from luma.core.interface.serial import i2c

    frame = Image.new("1", (128, 64))
    ImageDraw.Draw(frame).text((3, 5), "Ana 41", fill=1)
    ImageDraw.Draw(frame).line((0, 63, 127, 0), fill=1)
    bus = CountingBus()
    model = panel_on(bus, "ssd1306")
    with wired(bus):
        device = ssd1306(i2c(port=1, address=0x3C))
        device.display(frame)
    held = b"".join(bytes(page) for page in model.ram)
    assert held == ram(frame) and held in candidates(frame)
