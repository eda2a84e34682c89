"""The loop: its stop (what waits for Redis is retried for a while, the paused frame tells the truth),
the watchdog pings and READY=1 once the first frame is on the panel."""

import threading
import time

from drivers.display import Display, DisplaySpec, DisplayThread, open_display
from firmware.journal import Journal
from firmware.journal.local import LocalCopy
from firmware.loop import Loop
from firmware.screens import Screen
from firmware.sdnotify import Notifier
from firmware.store import connect, memory_server
from firmware.table import Table
from firmware.tagmap import TagMap
from firmware.views import MessageView

LAY = {"type": "lay", "player": 0, "card": {"id": "ulm-1", "city": "ulm"}}


def loop_with_a_game(url, local: LocalCopy | None = None):
    client = connect(url)
    table = Table(Journal(client, "t1", local=local), TagMap(client, "t1"))
    loop = Loop(table, open_display(DisplaySpec(driver="dummy")))
    loop.start()
    table.new_game("thurn_und_taxis", ["Ana", "Ben"], {})
    return loop


def test_unsaved_actions_are_said_on_the_paused_frame(memory_url):
    loop = loop_with_a_game(memory_url)
    memory_server(memory_url).connected = False
    loop.table.session.apply(LAY)
    loop.finish(wait_s=0.3)
    expected = Screen().render(MessageView("Paused", ("1 action(s) NOT saved", "Redis did not answer")))
    assert loop.display.image.tobytes() == expected.tobytes()


def test_actions_the_local_copy_keeps_are_said_to_be_saved_at_the_next_start(memory_url, tmp_path, caplog):
    loop = loop_with_a_game(memory_url, LocalCopy(tmp_path, "t1"))
    memory_server(memory_url).connected = False
    loop.table.session.apply(LAY)
    loop.finish(wait_s=0.3)
    expected = Screen().render(MessageView("Paused", ("1 action(s) kept here", "Saved at next start")))
    assert loop.display.image.tobytes() == expected.tobytes()
    assert f"not yet in Redis: kept in {tmp_path / 't1.jsonl'}, written at the next start" in caplog.text


def test_a_store_back_during_the_stop_gets_everything(memory_url):
    loop = loop_with_a_game(memory_url)
    server = memory_server(memory_url)
    server.connected = False
    loop.table.session.apply(LAY)
    threading.Timer(0.3, lambda: setattr(server, "connected", True)).start()
    loop.finish(wait_s=5)
    assert loop.table.journal.pending == 0
    assert loop.table.journal.load(loop.table.session.gid).actions == [LAY]
    assert loop.table.journal.holder() == (None, -2)  # the lease given back: the next run starts at once
    expected = Screen().render(MessageView("Paused", ("tablemate stopped", "Game kept")))
    assert loop.display.image.tobytes() == expected.tobytes()


class Pings:
    """A notifier that counts watchdog pings, with systemd's interval."""

    watchdog_interval = 1.0

    def __init__(self):
        self.pings = 0

    def watchdog(self):
        self.pings += 1


def test_a_watched_thread_that_is_not_alive_stops_the_watchdog_pings_until_it_answers(memory_url):
    client = connect(memory_url)
    now = [0.0]
    notifier = Pings()
    loop = Loop(Table(Journal(client, "t1"), TagMap(client, "t1")), open_display(DisplaySpec(driver="dummy")),
                notifier=notifier, clock=lambda: now[0])
    alive = [True]
    loop.watch("tablemate-readers", lambda: alive[0])
    loop._ping()
    assert notifier.pings == 1 and loop.unwell() == frozenset()
    alive[0] = False
    for _ in range(3):
        now[0] += 1.0
        loop._ping()
    assert notifier.pings == 1 and loop.unwell() == {"tablemate-readers"}
    alive[0] = True
    now[0] += 1.0
    loop._ping()
    assert notifier.pings == 2


class SlowDisplay(Display):
    """A panel whose every frame takes 0.2 s on the wire."""

    def __init__(self):
        super().__init__("slow")
        self.frames: list[bytes] = []

    def _show(self, image):
        time.sleep(0.2)
        self.frames.append(image.tobytes())


class Readiness(Notifier):
    """Records what the display held when READY=1 was sent."""

    def __init__(self, display: SlowDisplay):
        super().__init__("", "", "")
        self.display = display
        self.on_screen_at_ready: list[bytes] | None = None

    def notify(self, *lines: str) -> bool:
        if "READY=1" in lines:
            self.on_screen_at_ready = list(self.display.frames)
        return True


def test_ready_is_told_once_the_first_frame_is_on_the_panel_not_when_it_is_handed_over(memory_url):
    client = connect(memory_url)
    panel = SlowDisplay()
    panel.open()
    screen = DisplayThread(panel)
    screen.start()
    notifier = Readiness(panel)
    loop = Loop(Table(Journal(client, "t1"), TagMap(client, "t1")), screen, notifier=notifier)
    loop.start()
    assert notifier.on_screen_at_ready == [screen.image.tobytes()]
    screen.close()
