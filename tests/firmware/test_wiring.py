"""The wiring diagram: drawn from the profile's pin table, and the committed one agrees with config/pi.toml."""

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from drivers.pins import HEADER
from firmware import wiring
from firmware.cli import main
from firmware.config import load_profile

ROOT = Path(__file__).parents[2]
PI = ROOT / "config" / "pi.toml"
COMMITTED = ROOT / "docs" / "wiring.svg"
SVG = "{http://www.w3.org/2000/svg}"


def labels(drawing: str) -> dict[str, float]:
    """Each text of the drawing -> its baseline."""
    return {t.text: float(t.get("y")) for t in ET.fromstring(drawing).iter(f"{SVG}text")}


def row_of(gpio: int) -> float:
    """The baseline of the label of the header pin that carries `gpio`."""
    return wiring.TOP + (HEADER[gpio] - 1) // 2 * wiring.ROW + 4


def test_the_committed_diagram_is_the_one_config_pi_toml_draws(tmp_path, capsys):
    """Regenerate it with `tablemate wiring --config config/pi.toml --source config/pi.toml -o docs/wiring.svg`."""
    out = tmp_path / "wiring.svg"
    assert main(["wiring", "--config", str(PI), "--source", "config/pi.toml", "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == COMMITTED.read_text(encoding="utf-8"), "docs/wiring.svg is out of date"


def test_every_pin_of_the_pi_profile_is_labelled_on_its_own_header_pin():
    profile = load_profile(PI)
    drawing = labels(COMMITTED.read_text(encoding="utf-8"))

    def at(gpio: int, to: str) -> None:
        found = [y for text, y in drawing.items() if re.search(rf"\bGPIO{gpio}\b", text) and to in text]
        assert found == [row_of(gpio)], (gpio, to, found)

    readers = [r for r in profile.readers if r.driver == "mfrc522"]
    assert len(readers) == 5
    selects = {(0, 0): 8, (0, 1): 7, (1, 0): 18, (1, 1): 17, (1, 2): 16}  # the kernel's chip selects (README, Wiring)
    for n, reader in enumerate(readers, start=1):
        at(reader.rst, f"reader {n} RST")
        at(selects[reader.bus, reader.device], f"reader {n} SDA")
    for gpio, line in ((11, "readers 1, 2 SCK"), (10, "readers 1, 2 MOSI"), (9, "readers 1, 2 MISO"),
                       (21, "readers 3, 4, 5 SCK"), (20, "readers 3, 4, 5 MOSI"), (19, "readers 3, 4, 5 MISO")):
        at(gpio, line)
    for role, gpio in profile.buttons.pins.items():
        at(gpio, f"{role} button")
    at(2, "display SDA")
    at(3, "display SCL")
    assert any(text.startswith("5 V → regulator IN") for text in drawing)  # five readers: their own 3.3 V supply
    assert any("10 uF capacitor" in text for text in drawing)


def test_fewer_readers_take_the_pis_own_3v3_and_a_moved_button_moves_its_label(tmp_path):
    text = PI.read_text(encoding="utf-8")
    for name in ("seat2", "seat3", "seat4"):  # two readers left
        text = re.sub(rf'\[\[readers\]\]\nname = "{name}"\n(.+\n)+?gain_db = 43\n', "", text)
    profile = tmp_path / "two.toml"
    profile.write_text(text.replace("withdraw = 5", "withdraw = 4"))
    loaded = load_profile(profile)
    used = wiring.connections(loaded)
    assert used[HEADER[4]].to == "withdraw button" and HEADER[5] not in used
    assert used[17].to == "readers' 3.3 V rail" and 2 not in used
    assert wiring.wires(loaded) == {"readers": 3 * 3 + 2 * 2, "reader power": 2 + 2 * 2, "buttons": 11, "display": 4}


def test_the_owners_guide_counts_the_wires_the_diagram_counts():
    count = wiring.wires(load_profile(PI))
    guide = (ROOT / "docs" / "owner.md").read_text(encoding="utf-8")
    assert f"{sum(count.values())} female-female jumper wires" in guide
    assert (f"{count['readers']} for the readers' signals, {count['reader power']} for their power" in guide
            and f"{count['buttons']} for the buttons" in guide and f"{count['display']} for the screen" in guide)


def test_an_spi_display_is_drawn_on_its_own_lines():
    import dataclasses

    from drivers.display import DisplaySpec

    pi = load_profile(PI)
    profile = dataclasses.replace(pi, readers=pi.readers[2:],  # SPI0 left to the display
                                  display=DisplaySpec(driver="sh1106", interface="spi", bus=0, device=0, dc=24, rst=25))
    used = {pin: c.to for pin, c in wiring.connections(profile).items()}
    assert [used[HEADER[g]] for g in (8, 24, 25, 11, 10)] == ["display CS", "display DC", "display RES", "display CLK", "display DIN"]
    assert wiring.wires(profile)["display"] == 7
