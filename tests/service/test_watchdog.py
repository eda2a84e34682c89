"""The watchdog is pinged by the loop itself: a stuck loop goes silent (so systemd kills it) although
the reader and button threads live on, and pings again once it moves. The kill systemd then sends
(SIGABRT) prints every thread's stack, so the journal says where the loop was stuck."""

import re
import resource
import signal
import threading

from firmware.app import App
from firmware.config import load_profile
from firmware.script import RealTime, parse
from firmware.sdnotify import Notifier
from firmware.table import Table

from .support import desktop_profile, unit_seconds

#: as systemd's WatchdogSec=0.2s would set it: a ping every 0.1 s, the loop's own tick
WATCHDOG_USEC = 200_000
PERIOD_S = WATCHDOG_USEC / 1e6


def test_no_watchdog_ping_while_the_loop_is_stuck_and_pings_again_once_it_moves(tmp_path, memory_url, notify_socket, monkeypatch):
    notify = notify_socket("path")
    profile = load_profile(desktop_profile(tmp_path, store=memory_url, display={"driver": "dummy"}))
    app = App.build(profile, notifier=Notifier(notify.address, str(WATCHDOG_USEC), ""))
    stuck, release = threading.Event(), threading.Event()
    press = Table.press

    def stuck_press(table, role, seat=None):
        stuck.set()
        release.wait(30)
        press(table, role, seat)

    monkeypatch.setattr(Table, "press", stuck_press)
    loop = threading.Thread(target=app.loop.run, name="tablemate-loop", daemon=True)
    try:
        loop.start()
        app.readers.start()  # as App.run: the readers' thread polls on while the loop is stuck
        notify.wait_for(lambda m: m.get("READY") == "1", 10, "READY=1")
        for _ in range(3):
            notify.wait_for(lambda m: m.get("WATCHDOG") == "1", 2 * PERIOD_S + 1, "a ping of the running loop")

        RealTime(app).play(parse("press ok"))  # through the mock button's pin, as a player would
        assert stuck.wait(10), "the press never reached the table"
        notify.drain()  # pings sent before the loop got stuck
        assert notify.receive(3 * PERIOD_S) is None, "a ping came from a stuck loop"
        alive = {thread.name for thread in threading.enumerate()}
        assert {"tablemate-loop", "tablemate-readers", "tablemate-buttons"} <= alive  # only the loop is stuck

        release.set()
        notify.wait_for(lambda m: m.get("WATCHDOG") == "1", 2 * PERIOD_S + 1, "a ping once the loop moved again")
    finally:
        release.set()
        app.loop.stop()
        loop.join(10)
        app.close()
    assert not loop.is_alive()


def test_the_watchdog_kill_prints_where_every_thread_was(tmp_path, notify_socket, tablemate):
    notify = notify_socket("path")
    profile = desktop_profile(tmp_path, store="memory://")
    soft, hard = resource.getrlimit(resource.RLIMIT_CORE)
    resource.setrlimit(resource.RLIMIT_CORE, (0, hard))  # the child inherits it: no core file
    try:
        process = tablemate(profile, tmp_path, notify=notify.address, watchdog_usec=WATCHDOG_USEC)
    finally:
        resource.setrlimit(resource.RLIMIT_CORE, (soft, hard))
    notify.wait_for(lambda m: m.get("READY") == "1", 30, "READY=1")
    process.signal(signal.SIGABRT)  # what systemd sends when WatchdogSec passes without a ping
    assert process.wait(unit_seconds("TimeoutStopSec")) == -signal.SIGABRT
    stderr = process.stderr()
    assert "Fatal Python error: Aborted" in stderr
    assert re.search(r'firmware/loop\.py", line \d+ in run\n', stderr), stderr  # the loop, in the main thread
    assert re.search(r'drivers/readers/group\.py", line \d+ in _run\n', stderr), stderr  # and every other thread
