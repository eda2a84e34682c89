"""What the virtual Pi's panel must show at each step of a recorded game: the game played on this
machine in virtual time, through mock readers and buttons, with config/pi.toml otherwise (its
readers' names and seats, its buttons' pins and times, its players), and each step's screen turned
into the panel's RAM as the SSD1306 holds it, at each of the four places OLED care's pixel shift may
put it (drivers/display/care.py: the frame moves by a pixel every few minutes of real time).

A step ends on its screen; when a flash (2 s) is on it, the screen after the flash too, since on
the VM the flash may be gone before the panel is looked at. The game's last screen, once every flash
is gone, is the golden frame (tests/virtualpi/golden/GAME.png), which the panel must show at the end.
"""

import dataclasses
import uuid
from pathlib import Path

from PIL import Image

from drivers.display import DisplaySpec
from drivers.display.care import SHIFTS, shifted
from firmware import script, tagfile
from firmware.app import App
from firmware.config import StoreConfig, load_profile
from tests.platform import REPO

PROFILE = REPO / "config" / "pi.toml"
DEMOS = REPO / "firmware" / "demos"
GOLDEN = Path(__file__).parent / "golden"
#: a press is held this long on the VM: well above the debounce time (20 ms), well below a hold
PRESS_MS = 100


def golden_path(game: str) -> Path:
    return GOLDEN / f"{game}.png"


def ram(image: Image.Image) -> bytes:
    """A 128x64 frame as the SSD1306's RAM holds it: page by page (8 rows each), column by column,
    the top row of the page in bit 0."""
    pixels = image.convert("1").load()
    return bytes(sum(1 << bit for bit in range(8) if pixels[x, page * 8 + bit]) for page in range(8) for x in range(128))


def frame(ram: bytes) -> Image.Image:
    """The 128x64 frame a panel's RAM (as `ram` lays it out) shows."""
    image = Image.new("1", (128, 64))
    pixels = image.load()
    for page in range(8):
        for x in range(128):
            for bit in range(8):
                pixels[x, page * 8 + bit] = 255 if ram[page * 128 + x] >> bit & 1 else 0
    return image


def candidates(frame: Image.Image) -> set[bytes]:
    return {ram(shifted(frame, offset)) for offset in SHIFTS}


def profile_here():
    """config/pi.toml with its readers and buttons mocked, the dummy display and a store in memory."""
    profile = load_profile(PROFILE)
    readers = [dataclasses.replace(r, driver="mock") for r in profile.readers]
    return dataclasses.replace(profile, readers=readers, buttons=dataclasses.replace(profile.buttons, driver="mock"),
                               display=DisplaySpec(driver="dummy"),
                               store=StoreConfig(f"memory://virtual-pi-{uuid.uuid4().hex}"))


@dataclasses.dataclass
class Game:
    steps: list            #: the script's steps
    screens: list          #: per step, the screens it may end on (1 or 2)
    last: Image.Image      #: the screen the game ends on, flashes gone
    start: Image.Image     #: the screen before the first step
    entries: int
    scores: list


def play_here(game: str) -> Game:
    """The recorded game `game` played here in virtual time; what the screen showed."""
    profile = profile_here()
    clock = script.VirtualClock()
    app = App.build(profile, clock=clock, web=False, tags=tagfile.load(DEMOS / f"{game}.tags.toml"))
    try:
        steps = script.load(DEMOS / f"{game}.script")
        hands = script.VirtualTime(app, clock)
        hands.check(steps)
        app.loop.start()
        table, render = app.loop.table, app.loop.screen.render
        start = render(table.view())
        screens = []
        for step in steps:
            hands.do(step)
            shown = [render(table.view())]
            if table.flash is not None:
                hands.passes(table.flash.until - clock.now)
                shown.append(render(table.view()))
            screens.append(shown)
        app.loop.finish()
        session = table.session
        scores = [{"player": s.player, "total": s.total} for s in session.game.scores(session.state)]
        return Game(steps, screens, render(table.view()), start, session.entries, scores)
    finally:
        app.close()


def make(game: str) -> tuple[dict, Game]:
    """The plan the VM's hands play (tests/virtualpi/hands.py): the steps with the readers and
    GPIOs they act on, and the frames each may end on, as panel RAM; and the game played here."""
    played = play_here(game)
    pins = load_profile(PROFILE).buttons.pins
    frames: dict[bytes, int] = {}

    def indices(images) -> list[int]:
        found = set().union(*(candidates(image) for image in images))
        return sorted(frames.setdefault(frame, len(frames)) for frame in found)

    steps = []
    for step, screens in zip(played.steps, played.screens):
        if step.verb == "tap":
            acts = {"tap": list(step.args)}
        elif step.verb == "press":
            acts = {"press": pins[step.args[0]]}
        else:
            raise ValueError(f"line {step.line}: the virtual Pi's hands tap and press only, not {step.verb!r}")
        steps.append({"line": step.line, **acts, "want": indices(screens)})
    plan = {"game": game, "gap": profile_here().reader_timing.gap_ms / 1000, "press_ms": PRESS_MS,
            "start": indices([played.start]), "steps": steps, "end": indices([played.last]),
            "frames": [frame.hex() for frame, _ in sorted(frames.items(), key=lambda item: item[1])]}
    return plan, played
