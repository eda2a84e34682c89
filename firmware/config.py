"""Configuration profiles: one TOML file per machine (config/pi.toml, config/desktop.toml), validated
whole at start, so a wrong key stops the program with a message naming the file and the key.

    profile = load_profile(find_profile(None))   # ProfileError if anything is wrong

`find_profile` says which profile a command uses: `--config`, else $TABLEMATE_CONFIG, else
/etc/tablemate/pi.toml when it exists (the installed table), else the desktop profile of the clone
this package runs from (config/desktop.toml beside firmware/, found from the package's own path, so
from any directory). A tablemate installed without its clone has no desktop profile: the command
then stops, naming every path it tried and how to give one.

Sections and keys (defaults in brackets; every other key is an error):

[table]          id            table id, the Redis key prefix (tablemate:{id}:...): a-z, 0-9, '-', '_'
                 players       default player names offered at setup (list of unique names); its length
                               is the number of seats
                 game          game selected at start [none]: a name from engines.names()
[store]          url           "memory://" (in-process fakeredis) or "redis://host:port/db" (or rediss://,
                               unix://), or a Redis Cluster: "redis+cluster://host:port[,host:port...]"
                               (rediss+cluster:// with TLS): required, so a Pi never silently keeps its
                               games in memory
                 require_aof   Redis must keep an append-only file synced at every write (appendonly
                               yes, appendfsync always) [false]: `tablemate doctor` fails and the
                               appliance warns at boot when it does not (the Pi profile sets it);
                               only for a real Redis (not memory://)
                 fallback      a memory:// store used when the url's server does not answer at start
                               [none]: the desktop's "a local redis-server if there is one"
                 local_dir     a directory on this machine's own disk for the journal's local copy,
                               <local_dir>/<table id>.jsonl (firmware/journal/local.py): every write
                               is synced there before it goes to Redis, so actions accepted while
                               Redis is down survive a pulled plug, and a game Redis lost or that was
                               changed under it is written again at the next start; the tag map and
                               enrolment's places too, <table id>.tags.json (journal/tagcopy.py),
                               given back to a Redis that lost them [none: off]; only
                               for a real Redis (not memory://); relative to this file. pi.toml:
                               /var/lib/tablemate, the service's StateDirectory
[display]        driver        ssd1306 | sh1106 | dummy | terminal | png
                 interface     i2c | spi [i2c]            (ssd1306, sh1106)
                 port, address I2C bus number [1] and address [0x3C]          (interface i2c)
                 bus, device   SPI bus [0] and chip select [0]; dc [24] and rst [25] GPIOs (interface spi)
                 rotate        0 | 180 [0]                (ssd1306, sh1106, dummy)
                 on_stop       paused | blank ["paused"]: what the panel shows once tablemate stops
                 OLED care (ssd1306, sh1106, dummy): an unchanging lit frame burns an OLED in
                 contrast      0-255, lit [the controller's own: ssd1306 207, sh1106 127]
                 dim_contrast  0-255, dimmed [16]; below contrast
                 dim_after_min minutes without a tap or press before the panel dims [10]; 0: never
                 off_after_min ... before it turns off [60], more than dim_after_min; 0: never.
                               Any tap or press lights it again (and counts as usual)
                 shift_every_min the frame moves by a pixel every this many minutes [5]; 0: never
                 stopped_off_after_min  after tablemate stops, the dimmed "paused" frame is turned
                               off this many minutes later [10] by the service's companion unit
                               tablemate-panel-off; 0: it stays (on_stop "paused" only)
                 png_dir       directory for numbered PNG frames (png; relative to this file)
                 png_scale     pixel size in the PNGs, 1-16 [1]            (png)
                 terminal_style braille | halfblock ["braille"]           (terminal)
[[readers]]      name          unique reader name
                 driver        mock | mfrc522
                 seat          seat number (0 .. players-1) or "shared"
                 bus, device   SPI0: bus 0, device 0-1 (CE0/CE1); SPI1: bus 1, device 0-2 (mfrc522)
                 rst           the reader's own reset GPIO (mfrc522, required)
                 spi_hz        SPI clock [1000000], 100000-10000000 (mfrc522)
                 gain_db       receiver gain 18 | 23 | 33 | 38 | 43 | 48 [43] (mfrc522): the chip's
                               own default, 33, often misses a small NTAG sticker read through a card
                               or a tile; 48 for thick tiles; lower it if a reader sees tags meant for
                               its neighbour
[reader_timing]  poll_ms       one round of reader polls every poll_ms [50], 5-1000
                 gap_ms        a card is removed once its reader has been empty for gap_ms [500];
                               at least 3 x poll_ms, so one missed poll never splits a tap in two
[buttons]        driver        gpio | mock | none ["none"]; mock = gpiozero's MockFactory (desktop)
                 bounce_ms     a level counts once stable this long [20], 0-200
                 hold_ms       a press this long is a "hold" [800], more than bounce_ms
                 pins          table: role -> GPIO, roles withdraw, pass, undo, next, ok
                 seat_withdraw table: seat -> GPIO ("0" = 12): a withdraw button per seat
[encoder]        a, b          rotary encoder GPIOs (needs buttons driver gpio or mock)
[web]            enabled [false], bind ["127.0.0.1"], port [8080]: the read-only live view
                 hosts         the host names or addresses it answers at (its Host header; e.g.
                               ["tablemate.local", "192.168.1.20"]) [any]: a page of another site
                               that a DNS name points at the table's address reads nothing
[sim]            bind ["127.0.0.1"], port [8080]: the page of `tablemate sim`, which takes inputs, so it
                 stays on loopback unless bind says otherwise (it needs mock readers and buttons)
[hints]          enabled [true]; games: table of game name -> bool, overriding enabled per game
[boards]         dir           the owner's board files, one folder per game (<dir>/<game>/<name>.toml),
                               offered at set-up before the bundled ones (relative to this file; pi.toml:
                               /etc/tablemate/boards, desktop.toml: config/boards) [none: bundled boards
                               only]; never inside the installed package, which an upgrade replaces
[club]           url           the club server's Redis (redis://, rediss://, unix:// or a cluster URL as in
                               [store]; not memory://): every game of this table is copied there
                               (firmware.club); without [club] the table keeps to itself
                 user          the table's own Redis ACL user on the club server [none: the default user]
                 password      its password [none]. Credentials go here, never in the url: the
                               profile is readable by root and the tablemate group only
                               (systemd/install.sh), and a backup holds it blanked out (REDACTED)
                 table         this table's name at the club [table.id]: the club's keys are
                               tablemate:{<name>}:..., one name per table of the club

GPIOs are BCM numbers 0-27, each used once across buttons, encoder, reader resets and the SPI display's
dc/rst lines, and never one of the pins a bus in use takes (SPI0 7-11, SPI1 16-21, I2C1 2-3).
Each reader's SPI bus/device (and the SPI display's) is used once.
"""

import ipaddress
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import drivers
import engines
from drivers.buttons import ROLES, ButtonSpec
from drivers.buttons import DRIVERS as BUTTON_DRIVERS
from drivers.display import DRIVERS as DISPLAY_DRIVERS
from drivers.display import CARED, INTERFACES, ON_STOP, ROTATIONS, STYLES, DisplaySpec
from drivers.display.panel import DEFAULT_CONTRAST
from drivers.pins import BUS_PINS
from drivers.readers import DEFAULT_GAIN_DB, GAINS_DB, SPI_HZ_MAX, SPI_HZ_MIN, ReaderSpec, ReaderTiming
from drivers.readers import DRIVERS as READER_DRIVERS
from engines.core.data import FileRefused, parsed, read_text

from .store import scheme_of, url_problem

PANELS = ("ssd1306", "sh1106")
SPI_DEVICES = {0: (0, 1), 1: (0, 1, 2)}
#: where systemd/install.sh puts the table's profile on a Pi
INSTALLED = Path("/etc/tablemate/pi.toml")
#: the desktop profile (every part mocked) of the clone this package runs from: an editable install or
#: a checkout has it beside firmware/; an installed wheel has none (it is the owner's file, not package data)
DESKTOP = Path(__file__).resolve().parents[1] / "config" / "desktop.toml"
ENVIRONMENT = "TABLEMATE_CONFIG"
_TABLE_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")
_GAME_NAME = re.compile(r"[a-z][a-z0-9_]*")
_REQUIRED = object()
#: The installed packages: an upgrade replaces them, so nothing an owner makes may live inside.
_PACKAGES = (*(Path(module.__file__).resolve().parent for module in (drivers, engines)), Path(__file__).resolve().parent)


def host_problem(host: object) -> str | None:
    """What is wrong with a host name or address a page is to answer at (None: nothing)."""
    from .web.guard import host_key, host_named

    try:
        fine = isinstance(host, str) and host_named(f"[{host}]" if ":" in host else host) == host_key(host)
    except ValueError:
        fine = False
    return None if fine else f"{host!r} is not a host name or an IP address (like tablemate.local or 192.168.1.20)"


#: what a backup holds in place of the club password (firmware.backup); the loader refuses it, saying why
REDACTED = "(left out of the backup)"


def redacted(profile: "Profile", text: str) -> str | None:
    """The text of `profile`'s file with its club password replaced by REDACTED, comments and all
    else kept; None when the password cannot be taken out of the text whole (written in an unusual
    way, or as another value too), so that text must not leave this machine."""
    secret = profile.club.password if profile.club else None
    if not secret:
        return text
    quoted = (f'"{secret}"', f"'{secret}'")
    out = text
    for token in quoted:
        out = out.replace(token, f'"{REDACTED}"')
    try:
        data = tomllib.loads(out)
    except tomllib.TOMLDecodeError:
        return None
    fine = data.get("club", {}).get("password") == REDACTED and secret not in _texts(data) and not any(t in out for t in quoted)
    return out if fine else None


def _texts(value: Any) -> set[str]:
    """Every string a profile's data holds (its tables and lists are shallow: MAX_DEPTH at most)."""
    if isinstance(value, dict):
        return set().union(*map(_texts, value.values()))
    if isinstance(value, list):
        return set().union(*map(_texts, value))
    return {value} if isinstance(value, str) else set()


class ProfileError(ValueError):
    """A profile that cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class TableConfig:
    id: str
    players: tuple[str, ...]
    game: str | None = None


@dataclass(frozen=True)
class StoreConfig:
    url: str
    require_aof: bool = False
    fallback: str | None = None
    #: where the journal keeps its local copy; None: it keeps none
    local_dir: Path | None = None

    def copy_dir(self, url: str) -> Path | None:
        """Where the local copy is kept when the store chosen is `url` (None: none, and none for an
        in-memory store, which is empty at every start: the fallback a desktop may choose)."""
        return self.local_dir if scheme_of(url) != "memory" else None


@dataclass(frozen=True)
class WebConfig:
    enabled: bool = False
    bind: str = "127.0.0.1"
    port: int = 8080
    #: the Host names it answers at (empty: any)
    hosts: tuple[str, ...] = ()


@dataclass(frozen=True)
class SimConfig:
    bind: str = "127.0.0.1"
    port: int = 8080


@dataclass(frozen=True)
class HintsConfig:
    enabled: bool = True
    games: Mapping[str, bool] = field(default_factory=dict)

    def enabled_for(self, game: str) -> bool:
        """Whether hints are on for this game (its own setting, else the general one)."""
        return self.games.get(game, self.enabled)


@dataclass(frozen=True)
class BoardsConfig:
    #: the owner's board files, <dir>/<game>/<name>.toml; None: the bundled boards only
    dir: Path | None = None


@dataclass(frozen=True)
class ClubConfig:
    """Where this table's games are copied (firmware.club): the club's Redis and this table's name there."""

    url: str
    table: str
    user: str | None = None
    password: str | None = None


@dataclass(frozen=True)
class Profile:
    path: Path
    table: TableConfig
    store: StoreConfig
    display: DisplaySpec
    readers: tuple[ReaderSpec, ...]
    reader_timing: ReaderTiming
    buttons: ButtonSpec
    web: WebConfig
    hints: HintsConfig
    boards: BoardsConfig = BoardsConfig()
    sim: SimConfig = SimConfig()
    club: ClubConfig | None = None


def find_profile(given: str | Path | None = None, installed: Path | None = None, desktop: Path | None = None) -> Path:
    """The profile a command uses: `given` (--config), else $TABLEMATE_CONFIG, else the installed
    table's profile (`installed`, /etc/tablemate/pi.toml) when it exists, else the clone's desktop
    profile (`desktop`, config/desktop.toml); ProfileError naming each path tried when there is none."""
    installed = INSTALLED if installed is None else installed
    desktop = DESKTOP if desktop is None else desktop
    if given:
        return Path(given)
    if os.environ.get(ENVIRONMENT):
        return Path(os.environ[ENVIRONMENT])
    if installed.exists():
        return installed
    if desktop.exists():
        return desktop
    raise ProfileError(
        f"no profile found: no --config given, ${ENVIRONMENT} is not set, there is no {installed} (the "
        f"installed table's) and no {desktop} (the desktop profile of a clone of tablemate); give one with "
        f"--config FILE or {ENVIRONMENT}=FILE (a clone's config/desktop.toml is a good start)")


def load_profile(path: str | Path) -> Profile:
    """Read and validate a profile; any problem raises ProfileError naming the file and the key."""
    path = Path(path)
    try:
        data = parsed(tomllib.loads, read_text(path), str(path))
    except FileNotFoundError:
        raise ProfileError(f"{path}: no such profile file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ProfileError(f"{path}: cannot be read: {error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ProfileError(f"{path}: not valid TOML: {error}") from None
    except FileRefused as error:
        raise ProfileError(str(error)) from None
    return _Loader(path, data).profile()


class _Section:
    """A TOML table being read: typed getters that name the key on error, and a check for leftovers."""

    def __init__(self, file: Path, prefix: str, data: Any):
        self.file = file
        self.prefix = prefix
        if not isinstance(data, dict):
            self.fail("", f"must be a table, not {_kind(data)}")
        self.data = data
        self.used: set[str] = set()

    def fail(self, key: str, message: str) -> None:
        name = f"{self.prefix}.{key}" if self.prefix and key else self.prefix or key
        raise ProfileError(f"{self.file}: {name}: {message}")

    def has(self, key: str) -> bool:
        return key in self.data

    def get(self, key: str, kind: type | tuple[type, ...], default: Any = _REQUIRED) -> Any:
        self.used.add(key)
        if key not in self.data:
            if default is _REQUIRED:
                self.fail(key, "is required")
            return default
        value = self.data[key]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
            self.fail(key, f"must be {' or '.join(_KIND_NAMES[k] for k in kinds)}, not {_kind(value)}")
        return value

    def integer(self, key: str, default: Any = _REQUIRED, *, low: int, high: int) -> int:
        value = self.get(key, int, default)
        if value is not None and not low <= value <= high:
            self.fail(key, f"{value} is outside {low}..{high}")
        return value

    def choice(self, key: str, choices: tuple, default: Any = _REQUIRED) -> Any:
        value = self.get(key, int if all(isinstance(c, int) for c in choices) else str, default)
        if value not in choices:
            self.fail(key, f"{value!r} is not one of {', '.join(map(str, choices))}")
        return value

    def directory(self, key: str, example: str) -> Path | None:
        """A directory of the owner's (None when the key is absent): relative to the profile, never
        inside the installed package (an upgrade replaces it), not a file."""
        text = self.get(key, str, None)
        if text is None:
            return None
        if not text.strip():
            self.fail(key, "must name a directory")
        folder = Path(text).expanduser()
        folder = (folder if folder.is_absolute() else self.file.parent / folder).resolve()
        inside = next((package for package in _PACKAGES if folder.is_relative_to(package)), None)
        if inside is not None:
            self.fail(key, f"{folder} is inside the installed package ({inside}), which an upgrade replaces: "
                           f"use a directory of your own, like {example}")
        if folder.exists() and not folder.is_dir():
            self.fail(key, f"{folder} is a file, not a directory")
        return folder

    def table(self, key: str) -> "_Section":
        self.used.add(key)
        return _Section(self.file, f"{self.prefix}.{key}" if self.prefix else key, self.data.get(key, {}))

    def refuse(self, keys: tuple[str, ...], reason: str) -> None:
        """These keys make no sense here (they would be silently ignored): refuse them."""
        for key in keys:
            if key in self.data:
                self.fail(key, f"does not apply {reason}")

    def done(self) -> None:
        unknown = sorted(set(self.data) - self.used)
        if unknown:
            self.fail(unknown[0], f"unknown key (known here: {', '.join(sorted(self.used))})")


_KIND_NAMES = {str: "a string", int: "an integer", bool: "true or false", list: "a list", dict: "a table"}


def _kind(value: Any) -> str:
    for kind in (bool, str, int, float, list, dict):
        if isinstance(value, kind):
            return _KIND_NAMES.get(kind, "a number")
    return type(value).__name__


class _Loader:
    """Builds the Profile section by section, collecting GPIO and SPI uses to check them together."""

    SECTIONS = ("table", "store", "display", "readers", "reader_timing", "buttons", "encoder", "web", "sim", "hints",
                "boards", "club")

    def __init__(self, file: Path, data: dict):
        self.file = file
        self.root = _Section(file, "", data)
        self.pins: dict[int, str] = {}  # GPIO -> the key that uses it
        self.spi: dict[tuple[int, int], str] = {}  # (bus, device) -> the key that uses it
        self.buses: dict[str, str] = {}  # bus name -> what uses it

    def profile(self) -> Profile:
        for key in self.root.data:
            if key not in self.SECTIONS:
                self.root.fail(key, f"unknown section (known: {', '.join(self.SECTIONS)})")
        table = self.table()
        store = self.store()
        display = self.display()
        readers = self.readers(len(table.players))
        timing = self.timing()
        buttons = self.buttons(len(table.players))
        profile = Profile(self.file, table, store, display, readers, timing, buttons, self.web(), self.hints(),
                          self.boards(), self.sim(), self.club(table.id))
        self.check_bus_pins()
        return profile

    # -- sections --------------------------------------------------------------------------------
    def table(self) -> TableConfig:
        section = self.root.table("table")
        table_id = section.get("id", str)
        if not _TABLE_ID.fullmatch(table_id):
            section.fail("id", f"{table_id!r} must be 1-32 of a-z, 0-9, '-', '_' (it prefixes the Redis keys)")
        players = section.get("players", list)
        if not players:
            section.fail("players", "must name at least one player")
        for index, name in enumerate(players):
            if not isinstance(name, str) or not name.strip() or name != name.strip():
                section.fail("players", f"entry {index + 1} ({name!r}) must be a name without surrounding spaces")
        if len(set(players)) != len(players):
            section.fail("players", "names must be different")
        game = section.get("game", str, None)
        if game is not None and game not in engines.names():
            section.fail("game", f"{game!r} is not one of {', '.join(engines.names())}")
        section.done()
        return TableConfig(table_id, tuple(players), game)

    def store(self) -> StoreConfig:
        section = self.root.table("store")
        url = section.get("url", str)
        problem = url_problem(url)
        if problem:
            section.fail("url", problem)
        require_aof = section.get("require_aof", bool, False)
        if require_aof and scheme_of(url) == "memory":
            section.fail("require_aof", "an in-memory store (memory://) keeps no append-only file: use a redis:// url or remove the key")
        fallback = section.get("fallback", str, None)
        if fallback is not None and not fallback.startswith("memory://"):
            section.fail("fallback", f"{fallback!r} must be a memory:// store (used when the url's server does not answer)")
        if fallback is not None and scheme_of(url) == "memory":
            section.fail("fallback", "does not apply to a memory:// store, which always answers")
        local_dir = section.directory("local_dir", "/var/lib/tablemate")
        if local_dir is not None and scheme_of(url) == "memory":
            section.fail("local_dir", "an in-memory store (memory://) is empty at every start: a local copy would write its games into "
                                      "it again each time; use a redis:// url or remove the key")
        section.done()
        return StoreConfig(url, require_aof, fallback, local_dir)

    def display(self) -> DisplaySpec:
        section = self.root.table("display")
        driver = section.choice("driver", DISPLAY_DRIVERS)
        values: dict[str, Any] = {"driver": driver,
                                  "on_stop": section.choice("on_stop", ON_STOP, "paused")}
        panel = driver in PANELS
        if panel:
            values["interface"] = section.choice("interface", INTERFACES, "i2c")
        else:
            section.refuse(("interface",), f"to the {driver} display")
        if driver in PANELS + ("dummy",):
            values["rotate"] = section.choice("rotate", ROTATIONS, 0)
        else:
            section.refuse(("rotate",), f"to the {driver} display")
        i2c_keys, spi_keys = ("port", "address"), ("bus", "device", "dc", "rst")
        if panel and values["interface"] == "i2c":
            section.refuse(spi_keys, "to an I2C display")
            values["port"] = section.integer("port", 1, low=0, high=22)
            values["address"] = section.integer("address", 0x3C, low=0x03, high=0x77)
            if values["port"] == 1:
                self.buses["I2C1"] = "the display"
        elif panel:
            section.refuse(i2c_keys, "to an SPI display")
            values["bus"] = section.integer("bus", 0, low=0, high=1)
            values["device"] = section.choice("device", SPI_DEVICES[values["bus"]], 0)
            self.use_spi(section, values["bus"], values["device"], "the display")
            values["dc"] = self.use_pin(section, "dc", section.integer("dc", 24, low=0, high=27))
            values["rst"] = self.use_pin(section, "rst", section.integer("rst", 25, low=0, high=27))
        else:
            section.refuse(i2c_keys + spi_keys, f"to the {driver} display")
        if driver == "png":
            png_dir = Path(section.get("png_dir", str))
            values["png_dir"] = str(png_dir if png_dir.is_absolute() else self.file.parent / png_dir)
            values["png_scale"] = section.integer("png_scale", 1, low=1, high=16)
        else:
            section.refuse(("png_dir", "png_scale"), f"to the {driver} display")
        if driver == "terminal":
            values["terminal_style"] = section.choice("terminal_style", STYLES, "braille")
        else:
            section.refuse(("terminal_style",), f"to the {driver} display")
        self.care(section, driver, values)
        section.done()
        return DisplaySpec(**values)

    def care(self, section: _Section, driver: str, values: dict[str, Any]) -> None:
        """The OLED care keys of [display] (a panel, or the dummy standing in for one)."""
        keys = ("contrast", "dim_contrast", "dim_after_min", "off_after_min", "shift_every_min", "stopped_off_after_min")
        if driver not in CARED:
            section.refuse(keys, f"to the {driver} display (no OLED to care for)")
            return
        contrast = values["contrast"] = section.integer("contrast", None, low=0, high=255)
        lit = DEFAULT_CONTRAST.get(driver, 255) if contrast is None else contrast
        values["dim_contrast"] = section.integer("dim_contrast", min(16, lit - 1), low=0, high=255)
        if values["dim_contrast"] >= lit:
            section.fail("dim_contrast", f"{values['dim_contrast']} must be below the lit contrast ({lit})")
        for key, default in (("dim_after_min", 10), ("off_after_min", 60)):
            values[key] = section.integer(key, default, low=0, high=24 * 60)
        if values["dim_after_min"] and values["off_after_min"] and values["off_after_min"] <= values["dim_after_min"]:
            section.fail("off_after_min", f"{values['off_after_min']} must be more than dim_after_min "
                                          f"({values['dim_after_min']}), or 0 for never")
        values["shift_every_min"] = section.integer("shift_every_min", 5, low=0, high=24 * 60)
        if values["on_stop"] == "paused":
            values["stopped_off_after_min"] = section.integer("stopped_off_after_min", 10, low=0, high=7 * 24 * 60)
        else:
            section.refuse(("stopped_off_after_min",), 'with on_stop = "blank" (the panel is blanked at once)')

    def readers(self, seats: int) -> tuple[ReaderSpec, ...]:
        self.root.used.add("readers")
        entries = self.root.data.get("readers", [])
        if not isinstance(entries, list):
            self.root.fail("readers", "must be an array of tables: [[readers]]")
        specs, names = [], set()
        for index, entry in enumerate(entries):
            section = _Section(self.file, f"readers[{index}]", entry)
            name = section.get("name", str)
            if not name.strip() or name in names:
                section.fail("name", f"{name!r} must be a unique, non-empty name")
            names.add(name)
            driver = section.choice("driver", READER_DRIVERS)
            seat = section.get("seat", (int, str))
            if seat == "shared":
                seat = None
            elif isinstance(seat, str) or not 0 <= seat < seats:
                section.fail("seat", f"{seat!r} must be \"shared\" or a seat 0..{seats - 1} "
                                     f"(table.players names {seats} players)")
            values: dict[str, Any] = {"name": name, "driver": driver, "seat": seat}
            if driver == "mfrc522":
                bus = values["bus"] = section.integer("bus", low=0, high=1)
                values["device"] = section.choice("device", SPI_DEVICES[bus])
                self.use_spi(section, bus, values["device"], f"reader {name!r}")
                values["rst"] = self.use_pin(section, "rst", section.integer("rst", low=0, high=27))
                values["spi_hz"] = section.integer("spi_hz", 1_000_000, low=SPI_HZ_MIN, high=SPI_HZ_MAX)
                values["gain_db"] = section.choice("gain_db", tuple(GAINS_DB), DEFAULT_GAIN_DB)
            else:
                section.refuse(("bus", "device", "rst", "spi_hz", "gain_db"), "to a mock reader")
            section.done()
            specs.append(ReaderSpec(**values))
        return tuple(specs)

    def timing(self) -> ReaderTiming:
        section = self.root.table("reader_timing")
        poll_ms = section.integer("poll_ms", 50, low=5, high=1000)
        gap_ms = section.integer("gap_ms", 500, low=15, high=10_000)
        if gap_ms < 3 * poll_ms:
            section.fail("gap_ms", f"{gap_ms} must be at least 3 x poll_ms ({3 * poll_ms})")
        section.done()
        return ReaderTiming(poll_ms, gap_ms)

    def buttons(self, seats: int) -> ButtonSpec:
        section = self.root.table("buttons")
        driver = section.choice("driver", BUTTON_DRIVERS, "none")
        encoder_section = self.root.table("encoder")
        if driver == "none":
            section.refuse(("pins", "seat_withdraw", "bounce_ms", "hold_ms"), 'with driver = "none"')
            if encoder_section.data:
                self.root.fail("encoder", 'needs [buttons] driver = "gpio" or "mock"')
            section.done()
            return ButtonSpec(driver="none")
        bounce_ms = section.integer("bounce_ms", 20, low=0, high=200)
        hold_ms = section.integer("hold_ms", 800, low=bounce_ms + 1, high=10_000)
        pins_section = section.table("pins")
        pins = {}
        for role in ROLES:
            if pins_section.has(role):
                pins[role] = self.use_pin(pins_section, role, pins_section.integer(role, low=0, high=27))
        pins_section.done()
        seat_section = section.table("seat_withdraw")
        seat_withdraw = {}
        for key in seat_section.data:
            if not key.isdigit() or not int(key) < seats:
                seat_section.fail(key, f"must be a seat 0..{seats - 1} (table.players names {seats} players)")
            seat_withdraw[int(key)] = self.use_pin(seat_section, key, seat_section.integer(key, low=0, high=27))
        section.done()
        encoder = None
        if encoder_section.data:
            encoder = tuple(self.use_pin(encoder_section, key, encoder_section.integer(key, low=0, high=27))
                            for key in ("a", "b"))
            encoder_section.done()
        return ButtonSpec(driver=driver, pins=pins, seat_withdraw=seat_withdraw, encoder=encoder,
                          bounce_ms=bounce_ms, hold_ms=hold_ms)

    def web(self) -> WebConfig:
        section = self.root.table("web")
        bind = self.address(section)
        hosts = section.get("hosts", list, [])
        for host in hosts:
            problem = host_problem(host)
            if problem:
                section.fail("hosts", problem)
        config = WebConfig(section.get("enabled", bool, False), bind, section.integer("port", 8080, low=1, high=65535), tuple(hosts))
        section.done()
        return config

    def sim(self) -> SimConfig:
        section = self.root.table("sim")
        config = SimConfig(self.address(section), section.integer("port", 8080, low=1, high=65535))
        section.done()
        return config

    @staticmethod
    def address(section: _Section) -> str:
        bind = section.get("bind", str, "127.0.0.1")
        try:
            ipaddress.ip_address(bind)
        except ValueError:
            section.fail("bind", f"{bind!r} must be an IP address of this machine (like 192.168.1.20)")
        return bind

    def hints(self) -> HintsConfig:
        section = self.root.table("hints")
        enabled = section.get("enabled", bool, True)
        games_section = section.table("games")
        games = {}
        for game in games_section.data:
            if not _GAME_NAME.fullmatch(game):
                games_section.fail(game, "is not a game name (lower-case letters, digits, '_')")
            games[game] = games_section.get(game, bool)
        games_section.done()
        section.done()
        return HintsConfig(enabled, games)

    def club(self, table_id: str) -> ClubConfig | None:
        if "club" not in self.root.data:
            return None
        section = self.root.table("club")
        url = section.get("url", str)
        problem = url_problem(url)
        if problem is None and scheme_of(url) == "memory":
            problem = "must be the club server's Redis, not memory:// (this process alone sees that)"
        if problem is None and "@" in url.split("://", 1)[1]:
            problem = "must not carry credentials: put them in user and password"
        if problem:
            section.fail("url", problem)
        name = section.get("table", str, table_id)
        if not _TABLE_ID.fullmatch(name):
            section.fail("table", f"{name!r} must be 1-32 of a-z, 0-9, '-', '_' (it names the club's keys)")
        user, password = section.get("user", str, None), section.get("password", str, None)
        if password == REDACTED:
            section.fail("password", "was left out of the backup this profile comes from: write this table's club password "
                                     "here again (tablemate club-acl prints a new one, with its line for the club's Redis)")
        for key, value in (("user", user), ("password", password)):
            if value is not None and (not value or any(c.isspace() for c in value)):
                section.fail(key, "must be non-empty, without spaces")
        section.done()
        return ClubConfig(url, name, user, password)

    def boards(self) -> BoardsConfig:
        section = self.root.table("boards")
        folder = section.directory("dir", "/etc/tablemate/boards")
        section.done()
        return BoardsConfig(folder)

    # -- shared resources ------------------------------------------------------------------------
    def use_pin(self, section: _Section, key: str, pin: int) -> int:
        where = f"{section.prefix}.{key}"
        if pin in self.pins:
            section.fail(key, f"GPIO {pin} is already used by {self.pins[pin]}")
        self.pins[pin] = where
        return pin

    def use_spi(self, section: _Section, bus: int, device: int, user: str) -> None:
        if (bus, device) in self.spi:
            section.fail("device", f"SPI{bus} device {device} (/dev/spidev{bus}.{device}) is already used by "
                                   f"{self.spi[bus, device]}")
        self.spi[bus, device] = user
        self.buses.setdefault(f"SPI{bus}", user)

    def check_bus_pins(self) -> None:
        for bus, user in self.buses.items():
            for pin, role in BUS_PINS[bus].items():
                if pin in self.pins:
                    raise ProfileError(f"{self.file}: {self.pins[pin]}: GPIO {pin} is {bus} {role}, "
                                       f"taken by the kernel because {user} uses {bus}")
