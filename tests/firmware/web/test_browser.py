"""A real browser (headless Chromium) on the live page while games run through the firmware.

The page must follow the table by itself: the scores it shows match the engine's after each checked
step, without a reload. A screenshot per game is kept: in $TABLEMATE_SCREENSHOTS when set (the
README's pictures: `TABLEMATE_SCREENSHOTS=docs/screenshots`), else in the test's temporary folder.
"""

import base64
import os
from pathlib import Path

import pytest
from PIL import Image

import engines
from firmware.journal import Journal
from firmware.session import Session
from firmware.store import connect
from firmware.web import Background
from tests.browser import chromium
from tests.engines.bots import bot_module

from .conftest import TABLE, demo, play

pytest.importorskip("selenium.webdriver", reason="selenium is a test dependency: pip install -e '.[test]'")
from selenium.common.exceptions import WebDriverException  # noqa: E402
from selenium.webdriver.support.wait import WebDriverWait  # noqa: E402

#: a phone's screen in CSS pixels (an iPhone 12 to 15 is 390 wide)
PHONE = (390, 844)
NAMES = ["Ana", "Ben", "Cy", "Dee", "Eve"]
#: The browser is checked against the engine after every CHECK_EVERY actions and at the end.
CHECK_EVERY = 25
#: The screenshot is taken this far into the game, where routes, prompts and holdings show.
SHOT_AT = 0.6


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    driver = chromium(tmp_path_factory.mktemp("chromium"), phone=PHONE)
    yield driver
    driver.quit()


def shown_totals(driver) -> list[str]:
    return driver.execute_script("return [...document.querySelectorAll('#live td.total')].map(e => e.textContent)")


def wait_for_totals(driver, totals: list[int], what: str) -> None:
    wanted = [str(t) for t in totals]
    try:
        WebDriverWait(driver, 5, poll_frequency=0.02).until(lambda d: shown_totals(d) == wanted)
    except WebDriverException:
        raise AssertionError(f"{what}: the page shows {shown_totals(driver)}, the engine {wanted}") from None


def banner(driver) -> str | None:
    """The banner's text, None while it is hidden."""
    return driver.execute_script("const b = document.getElementById('banner'); return b.hidden ? null : b.textContent")


def screenshot(driver, name: str, tmp_path: Path) -> Path:
    folder = Path(os.environ.get("TABLEMATE_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    height = min(2600, driver.execute_script("return document.documentElement.scrollHeight"))
    shot = driver.execute_cdp_cmd(
        "Page.captureScreenshot",
        {"format": "png", "captureBeyondViewport": True, "clip": {"x": 0, "y": 0, "width": PHONE[0], "height": height, "scale": 1}},
    )
    path = folder / f"{name}.png"
    path.write_bytes(base64.b64decode(shot["data"]))
    return path


def bot_game(name: str, n_players: int, options: dict) -> list[dict]:
    """A whole game of the random bots, as the actions a table would send."""
    game, bot = engines.get(name), bot_module(name).Bot(n_players, options, seed=7)
    state, actions = game.start(NAMES[:n_players], options), []
    while not game.is_over(state):
        actions.append(bot.choose(state))
        state = game.apply(state, actions[-1])
    return actions


@pytest.fixture
def served(browser, memory_url):
    server = Background(memory_url, TABLE, port=0).start()
    yield server
    browser.get("about:blank")  # the page's live stream ends, so the server stops at once
    server.stop()


@pytest.mark.parametrize("name", engines.names())
def test_the_page_follows_a_game_played_through_the_firmware(browser, served, memory_url, tmp_path, name):
    game = engines.get(name)
    bots = bot_module(name)
    # three players where the bots play three, with the most options on (a board, the dice)
    n_players, options = max(bots.SETUPS, key=lambda setup: (-abs(setup[0] - 3), sum(map(bool, setup[1].values()))))
    actions = bot_game(name, n_players, options)
    browser.get(served.url + "/")
    assert "No game yet" in browser.find_element("id", "live").text
    browser.execute_script("window.kept = 'the page was never reloaded'")

    session = Session.start(Journal(connect(memory_url), TABLE), name, NAMES[:n_players], options, gid=f"{name}-1")
    wait_for_totals(browser, [s.total for s in game.scores(session.state)], "at the start")
    assert game.title in browser.find_element("tag name", "h1").text
    picture = None
    for done, action in enumerate(actions, start=1):
        session.apply(action)
        if done % CHECK_EVERY == 0 or done == int(len(actions) * SHOT_AT):
            wait_for_totals(browser, [s.total for s in game.scores(session.state)], f"after {done} actions")
        if done == int(len(actions) * SHOT_AT):
            picture = screenshot(browser, name, tmp_path)
    assert game.is_over(session.state)
    wait_for_totals(browser, [s.total for s in game.scores(session.state)], "at the end")
    winners = ", ".join(session.state.players[seat] for seat in game.winners(session.state))
    WebDriverWait(browser, 5).until(lambda d: "Winner" in d.find_element("id", "live").text)
    assert winners in browser.find_element("css selector", "#live .winner").text
    assert browser.execute_script("return window.kept") == "the page was never reloaded"
    assert banner(browser) is None

    with Image.open(picture) as image:
        assert image.width == PHONE[0] and image.height > PHONE[1]
        colours = image.convert("RGB").getcolors(maxcolors=1 << 16)
        assert colours is None or len(colours) > 50  # a drawn page, not a blank one


@pytest.mark.parametrize("name", engines.names())
def test_on_a_phone_the_score_table_shows_every_column_whole(browser, served, memory_url, name):
    """The most seats the game takes, long names, a finished game: every column of the score table,
    its heading too, lies inside the phone's width, and the page never scrolls sideways."""
    game = engines.get(name)
    bots = bot_module(name)
    n_players, options = max(bots.SETUPS, key=lambda setup: setup[0])
    names = ["Alexandra", "Benedikt", "Cyprien", "Dorothea", "Evangeline"][:n_players]
    session = Session.start(Journal(connect(memory_url), TABLE), name, names, options, gid=f"{name}-phone")
    bot = bots.Bot(n_players, options, seed=7)
    while not game.is_over(session.state):
        session.apply(bot.choose(session.state))
    browser.get(served.url + "/")
    WebDriverWait(browser, 5).until(lambda d: "Winner" in d.find_element("id", "live").text)
    sizes = browser.execute_script("""
        const table = document.querySelector('#live table.scores');
        const cells = [...table.querySelectorAll('th, td')].map(c => c.getBoundingClientRect());
        return {right: Math.max(...cells.map(r => r.right)), room: table.parentElement.getBoundingClientRect().right,
                scroll: table.parentElement.scrollWidth - table.parentElement.clientWidth,
                page: document.documentElement.scrollWidth, width: window.innerWidth}""")
    assert sizes["right"] <= sizes["room"] and sizes["scroll"] == 0, sizes
    assert sizes["page"] <= sizes["width"] == PHONE[0], sizes


def test_the_board_shows_every_house_and_route(browser, served, journal):
    session = play(journal, demo()["actions"][:200])
    browser.get(served.url + "/")
    state = session.state
    houses = browser.execute_script("return document.querySelectorAll('#live svg.board rect.house').length")
    routes = browser.execute_script("return document.querySelectorAll('#live svg.board polyline.route').length")
    assert houses == sum(len(h) for h in state.houses)
    assert routes == sum(len(r) > 1 for r in state.routes)
    fills = browser.execute_script("return [...document.querySelectorAll('#live circle.city')].map(c => getComputedStyle(c).fill)")
    assert len(fills) == 22 and len(set(fills)) == 9  # each region in its own colour, as drawn


def test_the_page_says_when_the_store_is_down_and_recovers(browser, redis_server):
    journal = Journal(connect(redis_server.url), TABLE)
    actions = demo()["actions"]
    session = play(journal, actions[:30])
    server = Background(redis_server.url, TABLE, port=0).start()
    try:
        browser.get(server.url + "/")
        game = engines.get("thurn_und_taxis")
        wait_for_totals(browser, [s.total for s in game.scores(session.state)], "before the outage")
        browser.execute_script("window.kept = 'the page was never reloaded'")
        redis_server.stop()
        WebDriverWait(browser, 5, poll_frequency=0.02).until(lambda d: banner(d) and "not answering" in banner(d))
        redis_server.start()
        WebDriverWait(browser, 5, poll_frequency=0.02).until(lambda d: banner(d) is None)
        for action in actions[30:60]:
            session.apply(action)
        wait_for_totals(browser, [s.total for s in game.scores(session.state)], "after the outage")
        assert browser.execute_script("return window.kept") == "the page was never reloaded"
    finally:
        browser.get("about:blank")
        server.stop()
