"""Server-sent events: the live panel on connecting, after every change, through an outage."""

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

import engines
from firmware.journal import Journal
from firmware.store import connect
from firmware.web import Background
from firmware.web.live import KEEPALIVE_S, PER_ADDRESS, Hub, Snapshot, frame

from .conftest import TABLE, demo, play
from tests.redis_server import free_port

from .sse import EventReader

GAME = engines.get("thurn_und_taxis")


@pytest.fixture
def events(served):
    reader = EventReader(served.url + "/events")
    yield reader
    reader.close()


def test_a_viewer_gets_the_panel_then_every_change(events, journal):
    assert events.status == 200 and events.headers["content-type"].startswith("text/event-stream")
    first = events.next()
    assert (first.event, first.id) == ("state", "none") and "No game yet" in first.data
    log = demo()
    session = play(journal, [])
    assert events.until(lambda m: m.id == "g1:0").event == "state"
    for n, action in enumerate(log["actions"][:40], start=1):
        session.apply(action)
        message = events.until(lambda m: m.id == f"g1:{n}")
        totals = [s.total for s in GAME.scores(session.state)]
        for seat, total in enumerate(totals):
            row = message.data.split(f'id="score-{seat}"')[1].split("</tr>")[0]
            assert f'<td class="total">{total}</td>' in row
    session.undo()
    assert "undo: takes back #40" in events.until(lambda m: m.id == "g1:41").data


def test_a_burst_of_changes_ends_on_the_latest_state(events, journal):
    session = play(journal, [])
    for action in demo()["actions"][:100]:
        session.apply(action)
    last = events.until(lambda m: m.id == "g1:100")
    assert "Whole timeline</a> (100 entries)" in last.data


def test_a_late_viewer_gets_the_current_state_at_once(served, journal):
    play(journal, demo()["actions"][:12])
    first = EventReader(served.url + "/events")
    try:
        assert first.until(lambda m: m.id == "g1:12").event == "state"
        late = EventReader(served.url + "/events")
        try:
            assert late.next().id == "g1:12"
        finally:
            late.close()
    finally:
        first.close()


def test_viewers_are_told_of_an_outage_and_get_the_state_when_it_ends(redis_server):
    journal = Journal(connect(redis_server.url), TABLE)
    session = play(journal, demo()["actions"][:20])
    server = Background(redis_server.url, TABLE, port=0).start()
    events = EventReader(server.url + "/events")
    try:
        assert events.until(lambda m: m.id == "g1:20").event == "state"
        redis_server.stop()
        outage = events.until(lambda m: m.event == "outage")
        assert "not answering" in outage.data
        redis_server.start()
        back = events.until(lambda m: m.event == "state")
        assert back.id == "g1:20"
        session.apply(demo()["actions"][20])  # the table writes again: the viewer follows
        assert events.until(lambda m: m.id == "g1:21").event == "state"
    finally:
        events.close()
        server.stop()


def test_the_number_of_viewers_is_bounded(memory_url):
    app_server = Background(memory_url, TABLE, port=0, max_viewers=2).start()
    readers = [EventReader(app_server.url + "/events") for _ in range(2)]
    try:
        for reader in readers:
            reader.next()
        third = EventReader(app_server.url + "/events")
        assert third.status == 503
        third.close()
        readers.pop().close()  # a viewer leaves: its place is free again
        deadline = time.monotonic() + 5
        while True:
            readers.append(EventReader(app_server.url + "/events"))
            if readers[-1].status == 200 or time.monotonic() > deadline:
                break
            readers.pop().close()
            time.sleep(0.02)
        assert readers[-1].status == 200
    finally:
        for reader in readers:
            reader.close()
        app_server.stop()


def test_one_address_cannot_take_every_place(memory_url):
    app_server = Background(memory_url, TABLE, port=0, max_viewers=10).start()
    readers = []
    try:
        for _ in range(PER_ADDRESS):
            readers.append(EventReader(app_server.url + "/events"))
            assert readers[-1].status == 200
        one_more = httpx.get(app_server.url + "/events", timeout=5)
        assert one_more.status_code == 503 and f"at most {PER_ADDRESS} from one address" in one_more.text
        readers.append(EventReader(app_server.url + "/events", source="127.0.0.2"))  # another host on the LAN
        assert readers[-1].status == 200
    finally:
        for reader in readers:
            reader.close()
        app_server.stop()


def test_an_idle_stream_sends_a_keep_alive_within_keepalive_s(memory_url):
    """A viewer that left without a word is found at the next write: within KEEPALIVE_S, not 15 s."""
    async def scenario() -> float:
        hub = Hub(memory_url, "tablemate:t1:updates", lambda: Snapshot("state", "g:1", "x"))
        await hub.start()
        try:
            follow = hub.follow()
            assert (await asyncio.wait_for(follow.__anext__(), 5)).id == "g:1"
            started = time.monotonic()
            assert await asyncio.wait_for(follow.__anext__(), 6.0) is None
            return time.monotonic() - started
        finally:
            hub.release()
            await hub.stop()

    assert asyncio.run(scenario()) <= KEEPALIVE_S + 0.5


def test_a_frame_keeps_every_line_of_the_data():
    assert frame(Snapshot("state", "g1:3", "a\nb\r\nc\rd")) == "event: state\nid: g1:3\ndata: a\ndata: b\ndata: c\ndata: d\n\n"
    assert frame(None) == ": keep-alive\n\n"


def test_a_panel_that_fails_to_compute_leaves_the_viewers_on_the_last_one(memory_url, caplog):
    answers = iter([RuntimeError("a bug"), Snapshot("state", "g:1", "fine")])

    def compute() -> Snapshot:
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        return answer

    async def scenario() -> Snapshot | None:
        hub = Hub(memory_url, "tablemate:t1:updates", compute)
        await hub.start()  # the subscription computes once: the failure
        try:
            follow = hub.follow()
            await asyncio.sleep(0.3)
            assert hub.latest is None and "could not be computed" in caplog.text
            connect(memory_url).publish("tablemate:t1:updates", "{}")  # the next change computes again
            return await asyncio.wait_for(follow.__anext__(), 5)
        finally:
            await hub.stop()

    assert asyncio.run(scenario()) == Snapshot("state", "g:1", "fine")


def test_serve_stops_on_sigterm_even_with_a_viewer_following(tmp_path):
    port = free_port()
    code = f"from firmware.web import serve; serve('memory://served', 't1', '127.0.0.1', {port})"
    root = Path(__file__).parents[3]
    process = subprocess.Popen([sys.executable, "-c", code], cwd=root, env={**os.environ, "PYTHONPATH": str(root)})
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                viewer = EventReader(f"http://127.0.0.1:{port}/events")
                break
            except OSError:
                assert process.poll() is None and time.monotonic() < deadline, "the view did not start"
                time.sleep(0.05)
        assert viewer.next().id == "none"
        stopping = time.monotonic()
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=10) in (0, -signal.SIGTERM)  # uvicorn ends by its signal once stopped cleanly
        assert time.monotonic() - stopping < 1.5  # the stream was ended, not waited out (2 s)
        assert viewer.messages.empty()
        viewer.close()
    finally:
        if process.poll() is None:
            process.kill()
