"""The whole appliance on mocked hardware, in virtual time: mock readers, gpiozero's MockFactory
buttons, luma's dummy display, a real loop. Inputs go through the drivers exactly as a script's do."""

import dataclasses
from pathlib import Path

from drivers.display import DisplaySpec
from firmware.app import App
from firmware.config import Profile, StoreConfig, load_profile
from firmware.flows import Choose
from firmware.script import Step, VirtualClock, VirtualTime
from firmware.sdnotify import Notifier

PROFILE = Path(__file__).parents[2] / "firmware" / "demos" / "profile.toml"


def mocked_profile(url: str, table: str = "t1", display: DisplaySpec = DisplaySpec(driver="dummy"),
                   local_dir: Path | None = None) -> Profile:
    """The demos' profile (five seat readers and a shared one, mock buttons) on store `url` (the
    journal's local copy in `local_dir`), table `table`, with luma's dummy display, which keeps the
    last frame (or `display`)."""
    profile = load_profile(PROFILE)
    return dataclasses.replace(
        profile,
        store=StoreConfig(url, local_dir=local_dir),
        table=dataclasses.replace(profile.table, id=table),
        display=display,
    )


class Rig:
    def __init__(self, url: str, table: str = "t1", record: list[str] | None = None,
                 display: DisplaySpec = DisplaySpec(driver="dummy"), local_dir: Path | None = None, notifier: Notifier | None = None):
        profile = mocked_profile(url, table, display, local_dir)
        self.clock = VirtualClock()
        self.app = App.build(profile, clock=self.clock, web=False, notifier=notifier)
        self.hands = VirtualTime(self.app, self.clock)
        self.record = record
        self.app.loop.start()

    @property
    def table(self):
        return self.app.loop.table

    @property
    def image(self):
        return self.app.display.image

    def step(self, verb: str, *args: str) -> None:
        if self.record is not None:
            self.record.append(" ".join((verb, *args)))
        self.hands.do(Step(verb, args, 0))

    def tap(self, uid: str, seat: int | None) -> None:
        self.step("tap", "shared" if seat is None else f"seat{seat}", uid)

    def press(self, role: str) -> None:
        self.step("press", role)

    def choose(self, label: str) -> None:
        """Answer the chooser on screen with the option labelled `label` (next..., ok)."""
        request = self.table.running.request
        assert isinstance(request, Choose), self.table.view()
        labels = [o.label for o in request.options]
        for _ in range((labels.index(label) - self.table.running.index) % len(labels)):
            self.press("next")
        self.press("ok")

    def close(self) -> None:
        self.app.close()
