"""The simulator running in this process: the desktop profile on a test's memory store, its loop in a
thread, its page on a free loopback port."""

import dataclasses
import threading
from pathlib import Path

import pytest

from drivers.readers import ReaderTiming
from firmware import tagfile
from firmware.app import App
from firmware.config import DESKTOP, StoreConfig, load_profile
from firmware.sim import serve, simulated

DEMOS = Path(__file__).parents[3] / "firmware" / "demos"
ROOT_CONFIG = Path(__file__).parents[3] / "config"


def sim_profile(url: str):
    """The desktop profile on store `url`, its readers polled quickly (a lifted card is gone sooner)
    and its buttons settling quickly (a click is answered sooner)."""
    profile = load_profile(DESKTOP)
    return dataclasses.replace(profile, store=StoreConfig(url), reader_timing=ReaderTiming(poll_ms=10, gap_ms=30),
                               buttons=dataclasses.replace(profile.buttons, bounce_ms=5))


def demo_tags(game: str) -> dict:
    return tagfile.load(DEMOS / f"{game}.tags.toml")


class RunningSim:
    def __init__(self, url: str, tags: dict):
        self.app = App.build(simulated(sim_profile(url)), web=False, tags=tags)
        self.page = serve(self.app, port=0)
        self.app.readers.start()
        self.thread = threading.Thread(target=self.app.loop.run, name="test-loop", daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return self.page.url

    def close(self) -> None:
        self.app.loop.stop()
        self.thread.join(timeout=10)
        self.page.stop()
        self.app.close()


@pytest.fixture
def sim(memory_url):
    running = RunningSim(memory_url, {**demo_tags("thurn_und_taxis"), **demo_tags("taj_mahal")})
    yield running
    running.close()
