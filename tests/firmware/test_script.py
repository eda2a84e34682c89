"""Scripts played in real time, as `tablemate run --script --realtime` and the console play them:
their first step waits for the table to be ready, and each step reaches the table in order, as one
input, however late a busy machine (a loaded desktop, a VM in emulation) lets the buttons' thread
report a press or the readers' thread see a card lifted."""

import subprocess
import sys
import threading
import time
from pathlib import Path

import drivers.buttons
from drivers.readers import TagEvent
from drivers.readers.group import ReaderGroup
from firmware import tagfile
from firmware.app import App
from firmware.journal import Journal
from firmware.script import RealTime, parse
from firmware.store import connect
from tests.e2e.appliance import ROOT, write_profile
from tests.e2e.rig import mocked_profile
from tests.redis_server import RedisServer, free_port

TAGS = Path(__file__).parents[2] / "firmware" / "demos" / "thurn_und_taxis.tags.toml"


def test_a_press_is_taken_before_the_tap_after_it_however_late_the_buttons_report_it(memory_url, monkeypatch):
    """The buttons' thread reports a press once the release has settled: here 0.4 s late, as a loaded
    machine may run it. The tap after it is reported at once by the script's own thread, so the
    script waits for the press to be reported: Ben's card comes after Ana's end of turn, not before
    it (where it was refused, and the recovery test's game differed from its reference)."""
    monkeypatch.setattr(drivers.buttons, "TICK", 0.4)
    app = App.build(mocked_profile(memory_url), web=False)
    table = app.loop.table
    table.tags.set_many(tagfile.load(TAGS))
    loop = threading.Thread(target=app.loop.run, name="tablemate-loop", daemon=True)
    loop.start()
    app.readers.start()
    try:
        assert app.loop.wait_ready(10)
        app.loop.call(lambda: table.new_game("thurn_und_taxis", ["Ana", "Ben"], {}))
        ana, ben = (table.tags.find("thurn_und_taxis", card) for card in ("augsburg-1", "ulm-1"))
        RealTime(app).play(parse(f"tap seat0 {ana}\npress pass\ntap seat1 {ben}"))
        assert app.loop.sync()
        assert [action["type"] for action in table.session.actions] == ["lay", "end_turn", "lay"] and table.refusals == 0
    finally:
        app.loop.stop()
        loop.join(10)
        app.close()


def test_a_real_time_script_plays_once_the_table_is_ready_however_late_redis_answers(tmp_path):
    """`tablemate run --script --realtime` on a table whose Redis answers only after the table has said
    it cannot start yet: the table waits ("Store unreachable") and the script waits with it, instead of
    playing its first lines into the refusals (the soak's resumed scripts, on a machine too busy for
    Redis's 0.5 s)."""
    port = free_port()
    profile = write_profile(tmp_path / "profile.toml", f"redis://127.0.0.1:{port}/0")
    script = tmp_path / "round.script"
    script.write_text("\n".join((ROOT / "firmware" / "demos" / "thurn_und_taxis.script").read_text().splitlines()[:16]) + "\n")
    table = subprocess.Popen([sys.executable, "-m", "firmware.cli", "run", "--config", str(profile), "--script", str(script),
                              "--realtime", "--tags", str(TAGS)], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    said: list[str] = []
    reading = threading.Thread(target=lambda: said.extend(table.stderr), daemon=True)
    reading.start()
    server = None
    try:
        deadline = time.monotonic() + 60
        while not any("cannot start yet" in line for line in said):
            assert table.poll() is None and time.monotonic() < deadline, "".join(said)
            time.sleep(0.05)
        time.sleep(1.0)  # the script's first steps would be played meanwhile
        server = RedisServer(tmp_path / "redis", port=port).start()
        journal = Journal(connect(server.url, timeout=10.0), "t1")
        while journal.current() is None or len(journal.load(journal.current()).actions) < 6:
            assert table.poll() is None and time.monotonic() < deadline, "".join(said)
            time.sleep(0.2)
        table.terminate()
        assert table.wait(timeout=20) == 0
        reading.join(10)
        assert not any("refused" in line for line in said), "".join(said)
    finally:
        if table.poll() is None:
            table.kill()
        if server is not None:
            server.stop()


def test_the_same_card_tapped_twice_is_two_taps_however_late_the_readers_thread_polls(memory_url, monkeypatch):
    """The readers' thread sees the lifted card's empty field only after more than the gap and a half
    the tap waits: the second tap waits for that, instead of meeting the card still resting there."""
    poll_once = ReaderGroup.poll_once

    def late(group):
        time.sleep(1.2)
        poll_once(group)

    monkeypatch.setattr(ReaderGroup, "poll_once", late)
    app = App.build(mocked_profile(memory_url), web=False)
    app.readers.start()
    try:
        RealTime(app).play(parse("tap seat0 04000001\ntap seat0 04000001"))
        arrived = []
        while not app.loop.events.empty():
            event = app.loop.events.get_nowait()
            if isinstance(event, TagEvent) and event.kind == "arrived":
                arrived.append(event.uid)
        assert arrived == ["04000001", "04000001"]
    finally:
        app.close()
