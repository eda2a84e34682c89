"""Fixtures of the web view's tests: a journal to write games with, and the view served on loopback."""

import json
from pathlib import Path

import httpx
import pytest

from firmware.journal import Journal
from firmware.session import Session
from firmware.store import connect
from firmware.web import Background

DEMO = Path(__file__).parents[1] / "thurn_und_taxis.log.json"
TABLE = "t1"


def demo() -> dict:
    """The recorded Thurn und Taxis game: {game, players, options, actions}."""
    return json.loads(DEMO.read_text(encoding="utf-8"))


def play(journal: Journal, actions: list[dict], gid: str = "g1", log: dict | None = None) -> Session:
    """A game started through the firmware's session and played up to the given actions."""
    log = log or demo()
    session = Session.start(journal, log["game"], log["players"], log["options"], gid=gid)
    for action in actions:
        session.apply(action)
    return session


@pytest.fixture
def journal(memory_url):
    return Journal(connect(memory_url), TABLE)


@pytest.fixture
def served(memory_url):
    """The view of table t1 of the test's memory store, on a free loopback port."""
    server = Background(memory_url, TABLE, port=0).start()
    yield server
    server.stop()


@pytest.fixture
def http(served):
    with httpx.Client(base_url=served.url, timeout=5) as client:
        yield client
