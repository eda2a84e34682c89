"""The first round of each game played in a real browser (headless Chromium) on `tablemate sim`'s
page, by clicking its components, buttons, readers and encoder.

Each click goes through the page to the mock readers and MockFactory pins of a running table; the
same inputs are played on the test rig in virtual time, and after every input the page must show
the rig's frame (the real rendered image, scaled up with square pixels) and its scores. With
$TABLEMATE_SCREENSHOTS set, the README's picture of the page is written there (sim.png).
"""

import base64
import io
import os
from pathlib import Path

import pytest
from PIL import Image

import engines
from firmware import script
from firmware.flows import Choose
from firmware.sim import catalogue
from tests.browser import chromium
from tests.e2e.rig import Rig

from .conftest import DEMOS, RunningSim, demo_tags

pytest.importorskip("selenium.webdriver", reason="selenium is a test dependency: pip install -e '.[test]'")
from selenium.common.exceptions import WebDriverException  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.support.wait import WebDriverWait  # noqa: E402

WINDOW = (1280, 1400)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    driver = chromium(tmp_path_factory.mktemp("chromium"), window=WINDOW)
    yield driver
    driver.quit()


def first_round(game: str, rig: Rig) -> list[script.Step]:
    """The recorded demo's inputs from the game chooser to the end of the first round."""
    steps = script.load(DEMOS / f"{game}.script")
    probe = Rig(f"memory://first-round-{game}")
    probe.table.tags.set_many(demo_tags(game))
    try:
        first = None
        for count, step in enumerate(steps, start=1):
            probe.hands.do(step)
            session = probe.table.session
            phase = session.game.phase(session.state) if session else None
            first = first or phase
            if first and phase != first:
                return steps[:count]
    finally:
        probe.close()
    raise AssertionError(f"{game}: the demo never leaves its first round")


def shown(browser) -> tuple[int, str, list[str]]:
    return browser.execute_script(
        "return [Number(document.body.dataset.inputs), document.getElementById('oled').getAttribute('src'),"
        " [...document.querySelectorAll('#live td.total')].map(e => e.textContent)]")


def pixels(src: str) -> bytes:
    with Image.open(io.BytesIO(base64.b64decode(src.split(",", 1)[1]))) as image:
        assert image.size == (128, 64) and image.mode == "1"
        return image.tobytes()


def click(browser, selector: str) -> None:
    browser.find_element("css selector", selector).click()


class Controls:
    """The page's buttons and encoder, found once: they stay for the page's life (the readers and
    components are drawn again as the table changes, so they are looked up at each use)."""

    def __init__(self, browser):
        self.buttons = {b.get_attribute("data-role"): b for b in browser.find_elements("css selector", ".button")}
        self.turn_on = browser.find_element("css selector", '.turn[data-turn="1"]')


def act(browser, controls: Controls, step: script.Step, rig: Rig, previous: script.Step | None) -> int:
    """Make `step` with the mouse; returns how many inputs the page sends for it."""
    if step.verb == "tap":
        reader, uid = step.args
        target = browser.execute_script("const t = document.querySelector('.reader.target'); return t && t.dataset.reader")
        if target != reader:
            click(browser, f'.reader[data-reader="{reader}"]')
        click(browser, f'.component[data-uid="{uid}"]')
        return 1
    role = step.args[0]
    if step.verb == "hold":
        ActionChains(browser).click_and_hold(controls.buttons[role]).pause(int(step.args[1]) / 1000).release().perform()
        return 2
    chooser = rig.table.running is not None and isinstance(rig.table.running.request, Choose)
    if role == "next" and chooser and previous == step:
        controls.turn_on.click()  # a run of next presses: the encoder turns on instead
        return 1
    controls.buttons[role].click()
    return 2  # down and up


def wait_until(browser, condition, what: str, timeout: float = 5) -> None:
    try:
        WebDriverWait(browser, timeout, poll_frequency=0.01).until(lambda d: condition())
    except WebDriverException:
        raise AssertionError(what) from None


@pytest.mark.parametrize("game", engines.names())
def test_the_first_round_played_by_clicks_shows_the_table_s_frame_and_scores(browser, memory_url, tmp_path, game):
    tags = demo_tags(game)
    rig = Rig(memory_url + "-rig")
    rig.table.tags.set_many(tags)
    steps = first_round(game, rig)
    sim = RunningSim(memory_url, tags)
    try:
        browser.get(sim.url + "/")
        wait_until(browser, lambda: browser.find_elements("css selector", ".component"), "the components are listed")
        oled = browser.find_element("id", "oled")
        assert oled.value_of_css_property("image-rendering") == "pixelated"
        assert browser.execute_script("return [arguments[0].naturalWidth, arguments[0].clientWidth]", oled) == [128, 512]
        sent, previous, controls = 0, None, Controls(browser)
        for number, step in enumerate(steps, start=1):
            where = f"{game}, input {number} ({step.verb} {' '.join(step.args)})"
            sent += act(browser, controls, step, rig, previous)
            rig.hands.do(step)
            previous = step
            session = rig.table.session
            expected = (sent, rig.image.tobytes(), [str(s.total) for s in session.game.scores(session.state)] if session else [])

            def now() -> tuple:
                inputs, src, totals = shown(browser)
                return inputs, pixels(src), totals

            wait_until(browser, lambda: now() == expected,
                       f"{where}: the page shows {now()[0]} inputs answered and totals {now()[2]}, the rig {sent} and "
                       f"{expected[2]} (frames equal: {now()[1] == expected[1]})")
            table = sim.app.loop.table
            assert table.refusals == rig.table.refusals, f"{where}: {table.refusal}"
            assert sim.app.display.image.tobytes() == rig.image.tobytes(), f"{where}: the table's frame differs from the rig's"
        assert sim.app.loop.table.session.actions == rig.table.session.actions
        if game == "thurn_und_taxis" and os.environ.get("TABLEMATE_SCREENSHOTS"):
            folder = Path(os.environ["TABLEMATE_SCREENSHOTS"])
            folder.mkdir(parents=True, exist_ok=True)
            browser.save_screenshot(str(folder / "sim.png"))
    finally:
        browser.get("about:blank")
        sim.close()
        rig.close()


def test_once_a_game_is_chosen_its_components_alone_are_listed_what_it_takes_first_and_the_screen_stays_in_view(browser, memory_url):
    """Issue 31.5: the list narrows to the chosen game as soon as it is chosen; at its start the one
    component the table takes (province tile 1) heads the list; a click on a component low on a
    short window leaves the screen in view (the device column is sticky)."""
    tags = {**demo_tags("taj_mahal"), **demo_tags("thurn_und_taxis"), **demo_tags("maharani")}
    sim = RunningSim(memory_url, tags)
    table = sim.app.loop.table
    try:
        browser.set_window_size(1280, 700)
        browser.get(sim.url + "/")

        def groups() -> set[str]:
            return set(browser.execute_script("return [...document.querySelectorAll('#components h3')].map(h => h.textContent)"))

        wait_until(browser, lambda: len(groups()) > 4, "every game's components are listed before one is chosen")
        controls, sent = Controls(browser), [0]

        def press(role: str) -> None:
            controls.buttons[role].click()
            sent[0] += 2  # down and up, each answered once the table has taken it
            wait_until(browser, lambda: shown(browser)[0] == sent[0], f"{role} is answered")

        while sim.app.loop.call(lambda: table.chosen) != "taj_mahal":
            press("next" if sim.app.loop.call(lambda: table.running.chosen()) != "taj_mahal" else "ok")
        wait_until(browser, lambda: groups() == {"Cards", "Special cards", "Province tiles", "Bonus tiles"},
                   f"only Taj Mahal's components are listed once it is chosen: {groups()}")
        while sim.app.loop.call(lambda: table.session) is None:
            press("ok")

        def first() -> list:
            return browser.execute_script(
                "const b = document.querySelector('#components .component');"
                " return [b.textContent, b.classList.contains('later'), document.querySelectorAll('#components .component:not(.later)').length]")

        wait_until(browser, lambda: first() == ["Province tile 1 (one good)", False, 1], f"province tile 1 heads the list: {first()}")
        last = browser.find_elements("css selector", "#components .component")[-1]
        browser.execute_script("arguments[0].scrollIntoView({block: 'nearest'})", last)  # the list scrolls in its box
        last.click()
        wait_until(browser, lambda: sim.app.loop.call(lambda: table.refusals) == 1, "the bonus tile is refused")
        top, bottom, height, scrolled = browser.execute_script(
            "const r = document.getElementById('oled').getBoundingClientRect();"
            " return [r.top, r.bottom, window.innerHeight, document.querySelector('.catalogue').scrollTop]")
        assert scrolled > 300 and 0 <= top and bottom <= height, (top, bottom, height, scrolled)
        top, bottom, live = browser.execute_script(  # the page scrolled down to the live panels: the screen stays
            "document.getElementById('live').scrollIntoView(); const r = document.getElementById('oled').getBoundingClientRect();"
            " return [r.top, r.bottom, window.scrollY]")
        assert live > 300 and 0 <= top and bottom <= height, (top, bottom, height, live)
    finally:
        browser.set_window_size(*WINDOW)
        browser.get("about:blank")
        sim.close()


def components_shown(browser) -> tuple[list[str], list[str], str]:
    """The page's components, not greyed and greyed (labels, in the page's order), and its why line."""
    return browser.execute_script(
        "const all = [...document.querySelectorAll('#components .component')];"
        " return [all.filter(b => !b.classList.contains('later')).map(b => b.textContent),"
        "         all.filter(b => b.classList.contains('later')).map(b => b.textContent),"
        "         document.getElementById('why').textContent]")


def test_a_component_is_greyed_exactly_when_the_table_would_refuse_it_and_a_click_on_it_is_refused_with_those_words(browser, memory_url):
    """Issue 28.4 in the page: in round 1 of Taj Mahal province tile 1 alone is offered (tile 2 was
    clickable and refused 'No province tile now'); once it is tapped, Ana's cards and not the tiles;
    in Thurn und Taxis, after Ana's first card no card at all (the other Ulm cards were offered and
    refused 'Empty hand: one card only'). At each moment the page offers exactly what the table
    says it takes on the target reader, and a click on a greyed component is refused with the words
    the table gave for it."""
    sim = RunningSim(memory_url, {**demo_tags("taj_mahal"), **demo_tags("thurn_und_taxis")})
    loop = sim.app.loop
    table = loop.table
    seats = {name: reader.seat for name, reader in sim.app.readers.readers.items()}

    def table_takes() -> tuple[list[str], dict[str, str]]:
        """What the table takes on the target reader now, and why it refuses each of the others."""
        def ask():
            seat = seats[catalogue.target(table, seats)]
            said = {c.label: table.refuses(c.uid, seat) for c in catalogue.present(table)}
            return sorted(label for label, why in said.items() if why is None), {l: w for l, w in said.items() if w}
        return loop.call(ask)

    def page_offers(expected: list[str]) -> list[str]:
        wait_until(browser, lambda: sorted(components_shown(browser)[0]) == expected,
                   f"the page offers {sorted(components_shown(browser)[0])}, the table takes {expected}")
        return components_shown(browser)[1]

    def click(label: str) -> str | None:
        """Click the component `label`: the words the table refused it with (None: taken)."""
        refusals, inputs = loop.call(lambda: table.refusals), shown(browser)[0]
        browser.execute_script(  # found and clicked at once: the list is drawn again as the table changes
            "[...document.querySelectorAll('#components .component')].find(b => b.textContent === arguments[0]).click()", label)
        wait_until(browser, lambda: shown(browser)[0] == inputs + 1, f"the click on {label} is answered")
        return loop.call(lambda: table.refusal if table.refusals > refusals else None)

    try:
        browser.get(sim.url + "/")
        loop.call(lambda: table.new_game("taj_mahal", ["Ana", "Ben", "Cy"], {}))
        greyed = page_offers(["Province tile 1 (one good)"])
        takes, why = table_takes()
        assert takes == ["Province tile 1 (one good)"]
        tile_2 = next(label for label in greyed if label.startswith("Province tile 2 "))
        assert click(tile_2) == why[tile_2] == "Tap: Round 1: tap province tile 1"
        assert loop.call(lambda: table.session.actions) == ()
        assert click(takes[0]) is None
        takes, why = table_takes()
        assert "Red: elephant + general 1/3" in takes and not any(label.startswith("Province tile") for label in takes)
        page_offers(takes)

        loop.call(lambda: table.new_game("thurn_und_taxis", ["Ana", "Ben"], {}))
        takes, _ = table_takes()
        assert len(takes) == 66
        page_offers(takes)
        assert click("Ulm 1/3") is None
        greyed = page_offers([])
        assert "Ulm 2/3" in greyed and components_shown(browser)[2] == "0 of 66 components can be tapped now:"
        takes, why = table_takes()
        assert takes == [] and why["Ulm 2/3"] == "Empty hand: one card only"
        assert click("Ulm 2/3") == "Empty hand: one card only"
        assert len(loop.call(lambda: table.session.actions)) == 1
    finally:
        browser.get("about:blank")
        sim.close()


def test_a_second_table_waiting_for_the_first_says_on_its_component_panel_what_its_screen_says(browser, redis_server):
    """Issue 31.4: a table started while another writes as `desktop` (its writer lease held) shows
    "Another table writes as desktop" on its screen; its component panel says the same, where it said
    'No game yet' and 'No component of this game is enrolled' with 293 tags enrolled. Once the other
    table stops, the panel lists the enrolled components."""
    from firmware.journal.lease import TTL_S, Holder
    from firmware.store import connect, table_key
    from firmware.tagmap import TagMap

    tags = {**demo_tags("taj_mahal"), **demo_tags("thurn_und_taxis")}
    client = connect(redis_server.url)
    TagMap(client, "desktop").set_many(tags)  # enrolled by the first table
    writer = table_key("desktop", "writer")
    client.set(writer, Holder("other-laptop", "5d1e", 4321, "99").text, px=int(TTL_S * 1000))
    sim = RunningSim(redis_server.url, {})
    table = sim.app.loop.table
    try:
        browser.get(sim.url + "/")

        def panel() -> tuple[str, str]:
            return browser.execute_script("return [document.getElementById('why').textContent,"
                                          " document.getElementById('components').textContent]")

        wait_until(browser, lambda: panel()[0].startswith("Waiting for Redis"), f"the panel says the table waits: {panel()}")
        screen = sim.app.loop.call(table.view)
        said = f"{screen.title}: {'. '.join(line.rstrip('.') for line in screen.lines)}."
        assert screen.title == "Waiting for Redis" and "Another table writes as desktop" in said
        assert panel() == [said, said]
        client.delete(writer)  # the first table stops
        wait_until(browser, lambda: len(browser.find_elements("css selector", "#components .component")) == len(tags),
                   f"the enrolled components are listed once the table starts: {panel()[0]}", timeout=15)
        assert panel()[0].startswith("A question is on screen (Which game?)")
    finally:
        browser.get("about:blank")
        sim.close()
