"""Scripts played in real time, as `tablemate run --script --realtime` and the console play them:
their order holds however late a busy machine lets the buttons' thread report a press."""

import threading
from pathlib import Path

import drivers.buttons
from firmware import tagfile
from firmware.app import App
from firmware.script import RealTime, parse
from tests.e2e.rig import mocked_profile

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
