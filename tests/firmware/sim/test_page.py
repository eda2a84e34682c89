"""The simulator's page without a browser: what it takes, from whom, and what it refuses."""

import time

import httpx
import pytest

from firmware.cli import main
from firmware.config import ProfileError, load_profile
from firmware.sim import simulated
from firmware.web import Background

from .conftest import ROOT_CONFIG


def post(sim, path, **headers):
    return httpx.post(sim.url + path, headers={"x-tablemate": "sim", **headers}, timeout=5)


def test_a_press_through_the_page_moves_the_table_and_the_state_says_so(sim):
    before = httpx.get(sim.url + "/sim/state").json()
    assert before["buttons"] == ["withdraw", "pass", "undo", "next", "ok"] and before["encoder"]
    assert [r["name"] for r in before["readers"]] == ["seat0", "seat1", "seat2", "seat3", "seat4", "shared"]
    assert post(sim, "/sim/button?role=next&down=1").status_code == 200
    assert post(sim, "/sim/button?role=next&down=0").json()["inputs"] == 1
    assert sim.app.loop.table.running.index == 1  # the game chooser moved on
    assert post(sim, "/sim/turn?steps=-1").status_code == 200
    assert sim.app.loop.table.running.index == 0
    after = httpx.get(sim.url + "/sim/state").json()
    assert after["frame"] != before["frame"] or after["frames"] > before["frames"]


def test_inputs_come_only_from_the_page_itself(sim):
    bare = httpx.post(sim.url + "/sim/button?role=ok&down=1", timeout=5)
    assert bare.status_code == 403 and "x-tablemate" in bare.text
    assert post(sim, "/sim/tap?reader=seat0&uid=04000001", host="evil.example").status_code == 403
    assert post(sim, "/sim/tap?reader=seat0&uid=04000001", origin="http://evil.example").status_code == 403
    assert httpx.put(sim.url + "/sim/tap?reader=seat0&uid=04000001", headers={"x-tablemate": "sim"}).status_code == 405
    with_body = httpx.post(sim.url + "/sim/tap?reader=seat0&uid=04000001", headers={"x-tablemate": "sim"}, content=b"x" * 10)
    assert with_body.status_code == 413
    assert sim.app.loop.table.refusals == 0 and sim.app.loop.frames == 1  # nothing reached the table


def test_every_request_must_name_the_simulators_own_host(sim):
    """DNS rebinding: a page of another site whose name points at 127.0.0.1 reads nothing either."""
    for path in ("/", "/sim/state", "/sim/events", "/api/state", "/events", "/games"):
        for host in ("evil.example", "evil.example:{port}", "evil.example@127.0.0.1:{port}", "127.0.0.1@evil.example",
                     "127.0.0.1:{port}/x", "127.0.0.1.nip.io:{port}", ""):
            answer = httpx.get(sim.url + path, headers={"host": host.format(port=sim.page.port)}, timeout=5)
            assert answer.status_code == 403 and "answers only at 127.0.0.1, localhost, ::1" in answer.text, (path, host)


def test_the_simulators_own_hosts_are_answered(sim):
    for host in ("127.0.0.1:{port}", "localhost:{port}", "LOCALHOST", "[::1]:{port}", "[0:0::1]"):
        assert httpx.get(sim.url + "/sim/state", headers={"host": host.format(port=sim.page.port)}, timeout=5).status_code == 200
    assert post(sim, "/sim/button?role=next&down=1", host="evil.example@127.0.0.1").status_code == 403


@pytest.mark.parametrize("path, message", [
    ("/sim/tap?reader=seat9&uid=04000001", "no reader 'seat9'"),
    ("/sim/tap?reader=seat0&uid=nonsense", "expected 8, 14 or 20 hex digits"),
    ("/sim/button?role=jump&down=1", "no button 'jump'"),
    ("/sim/turn?steps=5", "steps is 1 or -1"),
])
def test_an_input_the_hardware_cannot_make_is_explained(sim, path, message):
    answer = post(sim, path)
    assert answer.status_code == 400 and message in answer.json()["error"]


def test_the_page_lists_the_components_by_what_is_printed_on_them(sim):
    page = httpx.get(sim.url + "/").text
    assert 'class="oled"' in page and 'data-role="withdraw"' in page and "Seat 1" in page
    state = httpx.get(sim.url + "/sim/state").json()
    labels = {c["label"]: c["group"] for c in state["components"]}
    assert labels["Augsburg 1/3"] == "Thurn und Taxis: Cards"
    assert labels["Province tile 3 (two goods)"] == "Taj Mahal: Province tiles"
    assert not any(label.startswith("component-") for label in labels)
    assert state["now"] == [] and "A question is on screen (Which game?)" in state["why"]


def test_the_pi_profile_serves_no_input_endpoint(capsys):
    pi = load_profile(ROOT_CONFIG / "pi.toml")
    with pytest.raises(ProfileError, match="mocked hardware only"):
        simulated(pi)
    assert main(["sim", "--config", str(ROOT_CONFIG / "pi.toml"), "--no-browser"]) == 78
    assert "tablemate web" in capsys.readouterr().err
    # what the Pi serves ([web] enabled): the read-only live view, which takes no input
    view = Background("memory://pi-view", pi.table.id, port=0).start()
    try:
        for path in ("/sim/tap?reader=seat0&uid=04000001", "/sim/button?role=ok&down=1", "/sim/turn?steps=1"):
            answer = httpx.post(view.url + path, headers={"x-tablemate": "sim"})
            assert answer.status_code == 405, path
        assert httpx.get(view.url + "/sim/state").status_code == 404
    finally:
        view.stop()


def test_a_second_make_run_on_the_same_redis_says_another_table_writes_and_starts_once_it_stops(tmp_path, redis_server):
    """`make run` twice on one local redis-server: the second table writes nothing while the first
    holds the table's writer lease, and says so in its terminal with what to do; it starts once the
    first has stopped."""
    import os
    import subprocess
    import sys
    import threading
    import time

    from firmware.journal.lease import TTL_S, Holder
    from firmware.store import connect, table_key
    from tests.redis_server import free_port

    first = Holder("other-laptop", "5d1e", 4321, "99")
    client = connect(redis_server.url)
    writer = table_key("desktop", "writer")
    client.set(writer, first.text, px=int(TTL_S * 1000))
    profile = tmp_path / "desktop.toml"
    text = (ROOT_CONFIG / "desktop.toml").read_text().replace("redis://127.0.0.1:6379/0", redis_server.url)
    profile.write_text(text.replace('dir = "boards"', f'dir = "{tmp_path / "boards"}"'))
    second = subprocess.Popen([sys.executable, "-m", "firmware.cli", "sim", "--no-browser", "--port", str(free_port())],
                              env={**os.environ, "TABLEMATE_CONFIG": str(profile)}, cwd=tmp_path,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    threading.Thread(target=lambda: lines.extend(second.stderr), daemon=True).start()

    def said(text: str) -> bool:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if any(text in line for line in lines):
                return True
            time.sleep(0.05)
        return False

    try:
        told = ("cannot start yet: another table writes as desktop: other-laptop (pid 4321) holds its writer lease; "
                "this table writes nothing until that one stops: stop it, or give this table an id of its own")
        assert said(told), lines
        assert client.get(writer) == first.text and client.keys(table_key("desktop", "game", "*")) == []
        client.delete(writer)  # the first one stops
        assert said("no more: the table starts"), lines
        assert client.get(writer) not in (None, first.text)
    finally:
        second.terminate()
        assert second.wait(timeout=20) == 0, lines


def test_make_run_without_redis_says_once_that_the_games_stay_in_its_memory(tmp_path):
    """No redis-server: the terminal says the store is the table's own memory once (the log line),
    then the page's address."""
    import os
    import subprocess
    import sys

    from tests.redis_server import free_port

    profile = tmp_path / "desktop.toml"
    text = (ROOT_CONFIG / "desktop.toml").read_text().replace("redis://127.0.0.1:6379/0", "redis://127.0.0.1:1/0")
    profile.write_text(text.replace('dir = "boards"', f'dir = "{tmp_path / "boards"}"'))
    sim = subprocess.Popen([sys.executable, "-m", "firmware.cli", "sim", "--no-browser", "--port", str(free_port())],
                           env={**os.environ, "TABLEMATE_CONFIG": str(profile)}, cwd=tmp_path,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        lines = []
        for line in sim.stdout:
            lines.append(line)
            if "the table is at" in line:
                break
    finally:
        sim.terminate()
        rest = sim.stdout.read()  # what the pipe's buffer holds too (communicate() would skip it)
        sim.wait(timeout=20)
    said = "".join(lines) + rest
    assert said.count("so the games are in the table's own memory") == 1, said
    assert sim.returncode == 0, said


def test_the_pages_following_the_table_are_capped(sim):
    """Each stream polls the table every 20 ms: without a cap, 93 of them doubled the press latency."""
    from firmware.sim.page import MAX_PAGES
    from tests.firmware.web.sse import EventReader

    streams = [EventReader(sim.url + "/sim/events") for _ in range(MAX_PAGES)]
    try:
        assert [s.status for s in streams] == [200] * MAX_PAGES and streams[0].next().event == "table"
        one_more = httpx.get(sim.url + "/sim/events", timeout=5)
        assert one_more.status_code == 503 and f"at most {MAX_PAGES}" in one_more.json()["error"]
        streams.pop().close()  # a page closed: its place is free again
        deadline = time.monotonic() + 5
        while (again := EventReader(sim.url + "/sim/events")).status != 200 and time.monotonic() < deadline:
            again.close()
            time.sleep(0.02)
        streams.append(again)
        assert again.status == 200
    finally:
        for stream in streams:
            stream.close()
