"""Helpers shared by the driver tests: a fake clock and golden-file checks."""

import os
from pathlib import Path

from PIL import Image, ImageChops

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("TABLEMATE_UPDATE_GOLDEN") == "1"


class FakeClock:
    """A monotonic clock that moves only when told to; `sleep` advances it."""

    def __init__(self, start: float = 1000.0):
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds

    sleep = advance


def assert_golden_image(image: Image.Image, name: str) -> None:
    """The image equals tests/drivers/golden/<name>; TABLEMATE_UPDATE_GOLDEN=1 rewrites the file instead."""
    path = GOLDEN / name
    if UPDATE:
        image.save(path)
    with Image.open(path) as golden:
        golden.load()
        assert (golden.size, golden.mode) == (image.size, image.mode), f"{name}: {golden.size} {golden.mode}"
        # Compared as "L": ImageChops.difference misreads mode "1" images loaded from PNG.
        difference = ImageChops.difference(golden.convert("L"), image.convert("L")).getbbox()
        assert difference is None, f"{name} differs from the golden image in {difference}"


def assert_golden_text(text: str, name: str) -> None:
    """The text equals tests/drivers/golden/<name>; TABLEMATE_UPDATE_GOLDEN=1 rewrites the file instead."""
    path = GOLDEN / name
    if UPDATE:
        path.write_text(text + "\n", encoding="utf-8")
    assert text + "\n" == path.read_text(encoding="utf-8"), f"{name} differs from the golden text"


def simulate(polls, clock, poll_s: float, until: float, actions=()) -> None:
    """Run `polls` (one callable a reader) as the group's thread does, a round every `poll_s` start to
    start, in fake time until `until`; each (time, action) runs just before the first poll at or after
    its time, with that time as its argument (a card put down then)."""
    pending = sorted(actions, key=lambda action: action[0])
    while clock.now < until:
        started = clock.now
        for poll in polls:
            while pending and pending[0][0] <= clock.now:
                at, action = pending.pop(0)
                action(at)
            poll()
        clock.advance(max(0.0, started + poll_s - clock.now))
