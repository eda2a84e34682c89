"""Profile loading: the shipped profiles work with the drivers, and every kind of bad profile is
refused with a message naming the file and the key."""

import re
import sys
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory
from PIL import Image

import engines
from drivers.buttons import ButtonEvent, open_buttons
from drivers.display import open_display
from drivers.readers import ReaderSpec, TagEvent, open_readers
from firmware.config import DESKTOP, ProfileError, StoreConfig, load_profile
from firmware.store import table_key
from tests.drivers.fake_rc522 import FakeBus
from tests.drivers.support import FakeClock

CONFIG = Path(__file__).resolve().parents[2] / "config"

BASE = """
[table]
id = "t1"
players = ["Ana", "Ben", "Cy"]

[store]
url = "memory://"

[display]
driver = "dummy"

[[readers]]
name = "a"
driver = "mfrc522"
seat = 0
bus = 0
device = 0
rst = 25

[[readers]]
name = "b"
driver = "mock"
seat = "shared"

[buttons]
driver = "gpio"

[buttons.pins]
withdraw = 5
ok = 26
"""


def write(tmp_path, text, name="profile.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def refused(tmp_path, text, *fragments):
    """Load `text`; it must be refused with a message naming the file and containing every fragment."""
    path = write(tmp_path, text)
    with pytest.raises(ProfileError) as caught:
        load_profile(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: "), message
    for fragment in fragments:
        assert fragment in message, message
    return message


def replace(old, new, text=BASE):
    assert old in text
    return text.replace(old, new, 1)


# -- the shipped profiles -------------------------------------------------------------------------

@pytest.mark.parametrize("path", sorted(CONFIG.glob("*.toml")), ids=lambda path: path.name)
def test_every_shipped_profile_loads(path):
    assert load_profile(path).path == path


def test_the_desktop_profile_has_a_mock_reader_per_seat_and_a_shared_one():
    profile = load_profile(DESKTOP)
    assert profile.store == StoreConfig("redis://127.0.0.1:6379/0", fallback="memory://")
    assert profile.sim.bind == "127.0.0.1" and profile.buttons.encoder is not None
    assert profile.boards.dir == CONFIG.resolve() / "boards"  # the clone's config/boards, never the package
    assert profile.display.driver == "terminal"
    assert [(r.name, r.driver, r.seat) for r in profile.readers] == [
        ("seat0", "mock", 0), ("seat1", "mock", 1), ("seat2", "mock", 2), ("seat3", "mock", 3),
        ("seat4", "mock", 4), ("shared", "mock", None)]
    assert profile.buttons.driver == "mock" and set(profile.buttons.pins) == {"withdraw", "pass", "undo", "next", "ok"}


def test_the_shipped_profiles_comments_say_what_they_do():
    """The desktop's button pins are the Pi's ("the same pin numbers as the Pi"); the key prefix is the real one."""
    desktop, pi = load_profile(DESKTOP), load_profile(CONFIG / "pi.toml")
    assert desktop.buttons.pins == pi.buttons.pins
    for profile in (desktop, pi):
        assert f"in every Redis key: {table_key(profile.table.id, '...')}" in profile.path.read_text()


def test_the_pi_profile_uses_both_spi_buses_redis_and_an_i2c_ssd1306():
    profile = load_profile(CONFIG / "pi.toml")
    assert profile.store.url == "redis://localhost:6379/0" and profile.store.require_aof
    assert profile.store.local_dir == Path("/var/lib/tablemate")  # the service's StateDirectory
    assert (profile.display.driver, profile.display.interface, profile.display.port, profile.display.address) == (
        "ssd1306", "i2c", 1, 0x3C)
    assert [(r.driver, r.bus, r.device) for r in profile.readers] == [
        ("mfrc522", 0, 0), ("mfrc522", 0, 1), ("mfrc522", 1, 0), ("mfrc522", 1, 1), ("mfrc522", 1, 2)]
    assert len({r.rst for r in profile.readers}) == 5
    assert profile.buttons.driver == "gpio"


def test_the_desktop_profile_opens_every_driver(capsys):
    profile = load_profile(DESKTOP)
    clock = FakeClock()
    events = []
    readers = open_readers(profile.readers, events.append, timing=profile.reader_timing, clock=clock)
    buttons = open_buttons(profile.buttons, events.append, clock=clock)
    display = open_display(profile.display)
    try:
        readers.readers["seat2"].place("04A1B2C3D4E5F6")
        buttons.factory.pin(buttons.pin("undo")).drive_low()
        clock.advance(1.0)
        buttons.update()
        display.show(Image.new("1", (128, 64), 1))
    finally:
        readers.close()
        buttons.close()
        display.close()
    assert events == [TagEvent("seat2", "04a1b2c3d4e5f6", "arrived", 2), ButtonEvent("undo", "hold", None)]
    assert "⣿" * 64 in capsys.readouterr().out


def test_the_pi_profile_wiring_matches_the_reader_back_end(monkeypatch):
    profile = load_profile(CONFIG / "pi.toml")
    clock = FakeClock()
    bus = FakeBus(clock)
    factory = MockFactory()
    for spec in profile.readers:
        bus.add_chip(spec.bus, spec.device).wire_reset(factory, spec.rst)
    monkeypatch.setitem(sys.modules, "spidev", bus.module())
    group = open_readers(profile.readers, print, timing=profile.reader_timing, clock=clock, sleep=clock.sleep,
                         pin_factory=factory)
    try:
        group.settle(1.0, clock.sleep)
        assert group.problems() == {}
        assert all(reader.version == "NXP MFRC522 v2.0 (0x92)" for reader in group.readers.values())
        assert [chip.gain_db for chip in bus.chips.values()] == [reader.gain_db for reader in profile.readers]
    finally:
        group.close()
        factory.close()


def test_relative_png_dir_is_relative_to_the_profile(tmp_path):
    path = write(tmp_path, replace('driver = "dummy"', 'driver = "png"\npng_dir = "frames"\npng_scale = 4'))
    profile = load_profile(path)
    assert Path(profile.display.png_dir) == tmp_path / "frames" and profile.display.png_scale == 4


def test_the_local_copy_is_off_unless_configured_and_its_directory_is_relative_to_the_profile(tmp_path):
    assert load_profile(write(tmp_path, BASE)).store.local_dir is None
    path = write(tmp_path, replace('url = "memory://"', 'url = "redis://localhost/0"\nlocal_dir = "state"'))
    assert load_profile(path).store.local_dir == tmp_path / "state"


def test_oled_care_keys_are_read_and_0_turns_a_step_off(tmp_path):
    keys = 'driver = "sh1106"\ncontrast = 200\ndim_contrast = 0\ndim_after_min = 0\noff_after_min = 30\nshift_every_min = 0\nstopped_off_after_min = 0'
    display = load_profile(write(tmp_path, replace('driver = "dummy"', keys))).display
    assert (display.contrast, display.dim_contrast, display.dim_after_min, display.off_after_min,
            display.shift_every_min, display.stopped_off_after_min) == (200, 0, 0, 30, 0, 0)


def test_club_defaults_to_the_table_id_and_takes_a_cluster(tmp_path):
    club = load_profile(write(tmp_path, BASE + '\n[club]\nurl = "redis+cluster://10.0.0.5:7000,10.0.0.6:7000"\nuser = "table-t1"\n'
                                                 'password = "s3cret"\n')).club
    assert (club.url, club.table, club.user, club.password) == ("redis+cluster://10.0.0.5:7000,10.0.0.6:7000", "t1", "table-t1", "s3cret")
    assert load_profile(write(tmp_path, BASE)).club is None


def test_defaults_and_hints_per_game(tmp_path):
    profile = load_profile(write(tmp_path, BASE + '\n[hints]\nenabled = false\n[hints.games]\ntaj_mahal = true\n'))
    assert profile.reader_timing.poll_ms == 50 and profile.reader_timing.gap_ms == 500
    assert profile.buttons.bounce_ms == 20 and profile.buttons.hold_ms == 800
    assert profile.web.enabled is False and profile.display.on_stop == "paused"
    display = profile.display
    assert (display.contrast, display.dim_contrast, display.dim_after_min, display.off_after_min,
            display.shift_every_min, display.stopped_off_after_min) == (None, 16, 10, 60, 5, 10)
    assert profile.hints.enabled_for("taj_mahal") is True and profile.hints.enabled_for("mongols") is False
    assert profile.readers[0] == ReaderSpec("a", "mfrc522", 0, 0, 0, 25, 1_000_000, gain_db=43)


def test_the_receiver_gain_is_set_per_reader(tmp_path):
    profile = load_profile(write(tmp_path, replace("rst = 25", "rst = 25\ngain_db = 48")))
    assert profile.readers[0].gain_db == 48


# -- files ----------------------------------------------------------------------------------------

def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(ProfileError, match=re.escape(f"{tmp_path / 'nope.toml'}: no such profile file")):
        load_profile(tmp_path / "nope.toml")


def test_a_toml_syntax_error_gives_the_line(tmp_path):
    refused(tmp_path, BASE + "\n[web]\nport = 80 80\n", "not valid TOML", "line 33")


# -- unknown keys and wrong types -----------------------------------------------------------------

@pytest.mark.parametrize("text, fragments", [
    (BASE + "\n[colours]\nfg = 1\n", ("colours: unknown section",)),
    (replace('driver = "dummy"', 'driver = "dummy"\nbrightness = 3'), ("display.brightness: unknown key",)),
    (replace('id = "t1"', 'id = "t1"\nname = "x"'), ("table.name: unknown key",)),
    (replace("ok = 26", "ok = 26\nmenu = 4"), ("buttons.pins.menu: unknown key",)),
    (replace('seat = "shared"', 'seat = "shared"\ncolour = "red"'), ("readers[1].colour: unknown key",)),
    (BASE + "\n[hints]\nenabled = true\nlevel = 2\n", ("hints.level: unknown key",)),
])
def test_unknown_keys_are_refused(tmp_path, text, fragments):
    refused(tmp_path, text, *fragments)


@pytest.mark.parametrize("text, fragments", [
    (replace('players = ["Ana", "Ben", "Cy"]', 'players = "Ana"'), ("table.players: must be a list, not a string",)),
    (replace("rst = 25", "rst = true"), ("readers[0].rst: must be an integer, not true or false",)),
    (replace("rst = 25", 'rst = "25"'), ("readers[0].rst: must be an integer, not a string",)),
    (replace("ok = 26", "ok = 2.5"), ("buttons.pins.ok: must be an integer, not a number",)),
    (replace('[buttons]\ndriver = "gpio"', '[buttons]\ndriver = "gpio"\nhold_ms = "long"'),
     ("buttons.hold_ms: must be an integer, not a string",)),
    (BASE + "\n[web]\nenabled = 1\n", ("web.enabled: must be true or false, not an integer",)),
    (BASE + '\n[hints.games]\ntaj_mahal = "yes"\n', ("hints.games.taj_mahal: must be true or false",)),
    (BASE + '\n[hints.games]\n"Taj Mahal" = true\n', ("hints.games.Taj Mahal: is not a game name",)),
    (replace("[[readers]]\nname = \"b\"", "[[readers]]\nname = 7"), ("readers[1].name: must be a string",)),
    (replace('url = "memory://"', 'url = ["memory://"]'), ("store.url: must be a string, not a list",)),
    (replace('url = "memory://"', 'url = "redis://localhost/0"\nrequire_aof = "yes"'), ("store.require_aof: must be true or false",)),
    (replace('[display]\ndriver = "dummy"', '[display]\ndriver = "dummy"\n[display.extra]\nx = 1'),
     ("display.extra: unknown key",)),
])
def test_wrong_types_are_refused(tmp_path, text, fragments):
    refused(tmp_path, text, *fragments)


@pytest.mark.parametrize("text, fragments", [
    (replace('url = "memory://"\n', ""), ("store.url: is required",)),
    (replace('[table]\nid = "t1"\n', "[table]\n"), ("table.id: is required",)),
    (replace("rst = 25\n", ""), ("readers[0].rst: is required",)),
    (replace('driver = "dummy"', 'driver = "png"'), ("display.png_dir: is required",)),
    (replace('[display]\ndriver = "dummy"\n', ""), ("display.driver: is required",)),
])
def test_missing_required_keys_are_named(tmp_path, text, fragments):
    refused(tmp_path, text, *fragments)


# -- values ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, fragments", [
    (replace('id = "t1"', 'id = "home:1"'), ("table.id: 'home:1' must be",)),
    (replace('"Ana", "Ben", "Cy"', '"Ana", "Ben", "Ana"'), ("table.players: names must be different",)),
    (replace('"Ana", "Ben", "Cy"', '"Ana", " Ben"'), ("table.players: entry 2",)),
    (replace('players = ["Ana", "Ben", "Cy"]', "players = []"), ("table.players: must name at least one",)),
    (replace('players = ["Ana", "Ben", "Cy"]', 'players = ["Ana"]\ngame = "chess"'),
     (f"table.game: 'chess' is not one of {', '.join(engines.names())}",)),
    (replace('url = "memory://"', 'url = "http://localhost:6379"'), ("store.url: 'http://localhost:6379' must",)),
    (replace('url = "memory://"', 'url = "memory://"\nrequire_aof = true'), ("store.require_aof: an in-memory store",)),
    (replace('url = "memory://"', 'url = "memory://"\nlocal_dir = "state"'), ("store.local_dir: an in-memory store",)),
    (replace('url = "memory://"', 'url = "redis://localhost/0"\nlocal_dir = ""'), ("store.local_dir: must name a directory",)),
    (replace('driver = "dummy"', 'driver = "st7735"'), ("display.driver: 'st7735' is not one of",)),
    (replace('driver = "dummy"', 'driver = "dummy"\nrotate = 90'), ("display.rotate: 90 is not one of 0, 180",)),
    (replace('driver = "dummy"', 'driver = "terminal"\naddress = 0x3C'),
     ("display.address: does not apply to the terminal display",)),
    (replace('driver = "dummy"', 'driver = "ssd1306"\ninterface = "spi"\naddress = 0x3C'),
     ("display.address: does not apply to an SPI display",)),
    (replace('driver = "dummy"', 'driver = "ssd1306"\naddress = 0x99'), ("display.address: 153 is outside 3..119",)),
    (replace('driver = "dummy"', 'driver = "sh1106"\ninterface = "spi"\nbus = 1\ndevice = 3'),
     ("display.device: 3 is not one of 0, 1, 2",)),
    (replace('driver = "dummy"', 'driver = "terminal"\ndim_after_min = 5'),
     ("display.dim_after_min: does not apply to the terminal display (no OLED to care for)",)),
    (replace('driver = "dummy"', 'driver = "ssd1306"\ncontrast = 256'), ("display.contrast: 256 is outside 0..255",)),
    (replace('driver = "dummy"', 'driver = "sh1106"\ndim_contrast = 127'),
     ("display.dim_contrast: 127 must be below the lit contrast (127)",)),
    (replace('driver = "dummy"', 'driver = "ssd1306"\ncontrast = 40\ndim_contrast = 40'),
     ("display.dim_contrast: 40 must be below the lit contrast (40)",)),
    (replace('driver = "dummy"', 'driver = "ssd1306"\ndim_after_min = 30\noff_after_min = 30'),
     ("display.off_after_min: 30 must be more than dim_after_min (30), or 0 for never",)),
    (replace('driver = "dummy"', 'driver = "ssd1306"\noff_after_min = -1'), ("display.off_after_min: -1 is outside 0..1440",)),
    (replace('driver = "dummy"', 'driver = "ssd1306"\nshift_every_min = "often"'),
     ("display.shift_every_min: must be an integer, not a string",)),
    (replace('driver = "dummy"', 'driver = "ssd1306"\non_stop = "blank"\nstopped_off_after_min = 5'),
     ("display.stopped_off_after_min: does not apply with on_stop = \"blank\"",)),
    (replace('driver = "mock"\nseat = "shared"', 'driver = "pn532"\nseat = "shared"'),
     ("readers[1].driver: 'pn532' is not one of mock, mfrc522",)),
    (replace('driver = "mock"\nseat = "shared"', 'driver = "mock"\nseat = "shared"\nrst = 4'),
     ("readers[1].rst: does not apply to a mock reader",)),
    (replace("rst = 25", "rst = 25\ngain_db = 40"), ("readers[0].gain_db: 40 is not one of 18, 23, 33, 38, 43, 48",)),
    (replace("rst = 25", 'rst = 25\ngain_db = "max"'), ("readers[0].gain_db: must be an integer, not a string",)),
    (replace('driver = "mock"\nseat = "shared"', 'driver = "mock"\nseat = "shared"\ngain_db = 48'),
     ("readers[1].gain_db: does not apply to a mock reader",)),
    (replace("device = 0\nrst = 25", "device = 2\nrst = 25"), ("readers[0].device: 2 is not one of 0, 1",)),
    (replace("bus = 0\ndevice = 0", "bus = 2\ndevice = 0"), ("readers[0].bus: 2 is outside 0..1",)),
    (replace('name = "b"', 'name = "a"'), ("readers[1].name: 'a' must be a unique",)),
    (replace("[[readers]]\nname = \"a\"", "[readers]\nname = \"a\"").split("[[readers]]")[0],
     ("readers: must be an array of tables",)),
    (BASE + "\n[reader_timing]\npoll_ms = 100\ngap_ms = 250\n", ("reader_timing.gap_ms: 250 must be at least 3 x",)),
    (BASE + '\n[web]\nbind = "pi.local"\n', ("web.bind: 'pi.local' must be an IP address",)),
    (BASE + "\n[web]\nport = 0\n", ("web.port: 0 is outside 1..65535",)),
    (BASE + '\n[web]\nhosts = ["evil.example@127.0.0.1"]\n', ("web.hosts: 'evil.example@127.0.0.1' is not a host name or an IP",)),
    (BASE + '\n[web]\nhosts = ["pi.local:8080"]\n', ("web.hosts: 'pi.local:8080' is not a host name",)),
    (BASE + '\n[web]\nhosts = "pi.local"\n', ("web.hosts: must be a list",)),
    (replace('url = "memory://"', 'url = "redis+cluster://node1:7000/0"'), ("store.url: ", "a cluster has no database number")),
    (BASE + '\n[club]\nurl = "memory://club"\n', ("club.url: must be the club server's Redis, not memory://",)),
    (BASE + '\n[club]\nurl = "redis://t1:secret@club:6379/0"\n', ("club.url: must not carry credentials",)),
    (BASE + '\n[club]\nurl = "redis://club:6379/0"\ntable = "Back Room"\n', ("club.table: 'Back Room' must be 1-32 of",)),
    (BASE + '\n[club]\nurl = "redis://club:6379/0"\npassword = ""\n', ("club.password: must be non-empty",)),
    (BASE + '\n[club]\ntable = "t1"\n', ("club.url: is required",)),
    (BASE + '\n[club]\nurl = "redis://club:6379/0"\nuser = "t1"\npasswd = "x"\n', ("club.passwd: unknown key",)),
    (BASE + "\n[web]\nenable = true\n", ("web.enable: unknown key",)),
    (replace('[buttons]\ndriver = "gpio"', '[buttons]\ndriver = "gpio"\nbounce_ms = 50\nhold_ms = 40'),
     ("buttons.hold_ms: 40 is outside 51..10000",)),
    (replace('[buttons]\ndriver = "gpio"', '[buttons]\ndriver = "none"'),
     ("buttons.pins: does not apply with driver = \"none\"",)),
    (replace('[buttons]\ndriver = "gpio"\n\n[buttons.pins]\nwithdraw = 5\nok = 26\n', '[encoder]\na = 4\nb = 14\n'),
     ("encoder: needs [buttons] driver",)),
    (replace("ok = 26", "ok = 28"), ("buttons.pins.ok: 28 is outside 0..27",)),
])
def test_bad_values_are_refused(tmp_path, text, fragments):
    refused(tmp_path, text, *fragments)


# -- seats ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("seat", ["3", "-1", '"Shared"', "true"])
def test_a_reader_seat_out_of_range_is_refused(tmp_path, seat):
    text = replace('seat = "shared"', f"seat = {seat}")
    if seat == "true":
        refused(tmp_path, text, "readers[1].seat: must be an integer or a string")
    else:
        refused(tmp_path, text, "readers[1].seat:", "must be \"shared\" or a seat 0..2 (table.players names 3 players)")


@pytest.mark.parametrize("seat", ["3", "x"])
def test_a_seat_withdraw_button_out_of_range_is_refused(tmp_path, seat):
    refused(tmp_path, BASE + f"\n[buttons.seat_withdraw]\n{seat} = 16\n", f"buttons.seat_withdraw.{seat}: must be a seat 0..2")


# -- GPIO and SPI used twice ----------------------------------------------------------------------

@pytest.mark.parametrize("text, fragments", [
    (replace("ok = 26", "ok = 5"), ("buttons.pins.ok: GPIO 5 is already used by buttons.pins.withdraw",)),
    (replace("ok = 26", "ok = 25"), ("buttons.pins.ok: GPIO 25 is already used by readers[0].rst",)),
    (BASE + "\n[buttons.seat_withdraw]\n0 = 26\n", ("buttons.seat_withdraw.0: GPIO 26 is already used by buttons.pins.ok",)),
    (BASE + "\n[encoder]\na = 4\nb = 5\n", ("encoder.b: GPIO 5 is already used by buttons.pins.withdraw",)),
    (replace('driver = "dummy"', 'driver = "ssd1306"\ninterface = "spi"\ndevice = 1\ndc = 25\nrst = 4'),
     ("readers[0].rst: GPIO 25 is already used by display.dc",)),
    (replace('driver = "mock"\nseat = "shared"', 'driver = "mfrc522"\nseat = "shared"\nbus = 0\ndevice = 1\nrst = 25'),
     ("readers[1].rst: GPIO 25 is already used by readers[0].rst",)),
])
def test_a_gpio_used_twice_is_refused(tmp_path, text, fragments):
    refused(tmp_path, text, *fragments)


@pytest.mark.parametrize("text, fragments", [
    (replace("ok = 26", "ok = 8"), ("buttons.pins.ok: GPIO 8 is SPI0 CE0, taken by the kernel because reader 'a'",)),
    (replace('driver = "mock"\nseat = "shared"', 'driver = "mfrc522"\nseat = "shared"\nbus = 1\ndevice = 0\nrst = 4')
     .replace("ok = 26", "ok = 19"), ("buttons.pins.ok: GPIO 19 is SPI1 MISO",)),
    (replace('driver = "dummy"', 'driver = "ssd1306"').replace("ok = 26", "ok = 3"),
     ("buttons.pins.ok: GPIO 3 is I2C1 SCL, taken by the kernel because the display uses I2C1",)),
])
def test_a_gpio_that_belongs_to_a_bus_in_use_is_refused(tmp_path, text, fragments):
    refused(tmp_path, text, *fragments)


def test_a_gpio_of_an_unused_bus_is_free(tmp_path):
    profile = load_profile(write(tmp_path, replace("ok = 26", "ok = 19")))  # nothing uses SPI1 here
    assert profile.buttons.pins["ok"] == 19


@pytest.mark.parametrize("text, fragments", [
    (replace('driver = "mock"\nseat = "shared"', 'driver = "mfrc522"\nseat = "shared"\nbus = 0\ndevice = 0\nrst = 4'),
     ("readers[1].device: SPI0 device 0 (/dev/spidev0.0) is already used by reader 'a'",)),
    (replace('driver = "dummy"', 'driver = "sh1106"\ninterface = "spi"'),
     ("readers[0].device: SPI0 device 0 (/dev/spidev0.0) is already used by the display",)),
])
def test_an_spi_device_used_twice_is_refused(tmp_path, text, fragments):
    refused(tmp_path, text, *fragments)


def test_the_wiring_table_in_the_docs_matches_the_pi_profile():
    """The README's Raspberry Pi section tells the owner where to solder; config/pi.toml is what the program reads."""
    text = (Path(__file__).parents[2] / "README.md").read_text()
    profile = load_profile(CONFIG / "pi.toml")
    buttons = {role: int(gpio) for role, gpio in re.findall(r"^\| (withdraw|pass|undo|next|ok) \| GPIO(\d+)", text, re.M)}
    assert buttons == dict(profile.buttons.pins)
    resets = [int(gpio) for gpio in re.findall(r"^\| \d \| `/dev/spidev\d\.\d` \| GPIO\d+ \(pin \d+\) \| GPIO(\d+)", text, re.M)]
    assert resets == [reader.rst for reader in profile.readers]
