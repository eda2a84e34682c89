"""The notify protocol spoken by a real `tablemate run` on the desktop profile: READY=1 once the table
is on screen (not while the store does not answer at boot), STATUS= lines that follow the game,
WATCHDOG=1 every half WATCHDOG_USEC, STOPPING=1 at SIGTERM; to a path socket and to an abstract one
("@name"), as systemd may hand out either."""

import signal
import time

import pytest

from .support import DEMOS, desktop_profile, entries_of, script_prefix, unit_seconds

#: as systemd's WatchdogSec=1s would set it: a ping is due every 0.5 s, a kill after 1 s of silence
WATCHDOG_USEC = 1_000_000
#: steps of the recorded Thurn und Taxis demo: the game and the players chosen, then the first cards
STEPS = 14


@pytest.mark.parametrize("kind", ["path", "abstract"])
def test_ready_then_status_lines_that_follow_the_game_and_regular_watchdog_pings(kind, tmp_path, notify_socket, tablemate):
    notify = notify_socket(kind)
    profile = desktop_profile(tmp_path, store="memory://", gap_ms=150)
    process = tablemate(profile, tmp_path, notify=notify.address, watchdog_usec=WATCHDOG_USEC,
                        script=script_prefix("thurn_und_taxis", STEPS, tmp_path), tags=[DEMOS / "thurn_und_taxis.tags.toml"])

    first = notify.wait_for(lambda m: True, 30, "first message")
    assert first == {"READY": "1", "STATUS": "Choosing a game"}
    arrivals = [time.monotonic()]  # READY, then every WATCHDOG=1
    statuses = []

    def note(message: dict) -> bool:
        if message.get("WATCHDOG") == "1":
            arrivals.append(time.monotonic())
        if "STATUS" in message:
            statuses.append(message["STATUS"])
        return len(arrivals) > 4 and bool(statuses) and entries_of(statuses[-1]) >= 5

    notify.wait_for(note, 30, "4 pings and a STATUS line with 5 journal entries")
    assert statuses[0] == "Thurn und Taxis: Round 1, 0 entries"  # the game chosen, nothing played yet
    counts = [entries_of(status) for status in statuses]
    assert counts == list(range(len(counts))), statuses  # a line per accepted action, none repeated
    gaps = [later - earlier for earlier, later in zip(arrivals, arrivals[1:])]
    assert max(gaps) < WATCHDOG_USEC / 1e6, f"a watchdog ping came late: {gaps}"
    assert all(m.get("WATCHDOG", "1") == "1" and "READY" not in m for m in notify.received[1:])

    process.signal(signal.SIGTERM)
    notify.wait_for(lambda m: m.get("STOPPING") == "1", unit_seconds("TimeoutStopSec"), "STOPPING=1")
    assert process.wait(unit_seconds("TimeoutStopSec")) == 0, process.stderr()


def test_no_ready_while_the_store_does_not_answer_at_boot_and_ready_once_it_does(tmp_path, redis_server, notify_socket, tablemate):
    notify = notify_socket("path")
    redis_server.stop()
    profile = desktop_profile(tmp_path, store=redis_server.url)
    process = tablemate(profile, tmp_path, notify=notify.address, watchdog_usec=WATCHDOG_USEC)

    first = notify.wait_for(lambda m: True, 30, "first message")
    assert first == {"STATUS": "Waiting for Redis"}
    notify.wait_for(lambda m: m.get("WATCHDOG") == "1", 2, "a ping while waiting")  # alive, not stuck
    redis_server.start()  # the same port
    ready = notify.wait_for(lambda m: m.get("READY") == "1", 30, "READY=1 once Redis answers")
    assert ready["STATUS"] == "Choosing a game"
    assert not [m for m in notify.received[:-1] if "READY" in m]

    process.signal(signal.SIGTERM)
    assert process.wait(unit_seconds("TimeoutStopSec")) == 0, process.stderr()


def test_tag_files_given_while_the_store_does_not_answer_wait_for_it_like_the_service(tmp_path, redis_server, notify_socket, tablemate):
    """`tablemate run --tags FILE` with Redis down waits for it (it used to exit with status 3), then
    enrols the file once Redis answers."""
    from firmware.store import connect

    notify = notify_socket("path")
    redis_server.stop()
    process = tablemate(desktop_profile(tmp_path, store=redis_server.url), tmp_path, notify=notify.address,
                        tags=[DEMOS / "maharani.tags.toml"])
    notify.wait_for(lambda m: m.get("STATUS") == "Waiting for Redis", 30, "STATUS=Waiting for Redis")
    assert process.process.poll() is None, process.stderr()
    redis_server.start()
    notify.wait_for(lambda m: m.get("READY") == "1", 30, "READY=1 once Redis answers")
    assert len(connect(redis_server.url).hgetall("tablemate:{desktop}:tags")) == 60
    process.signal(signal.SIGTERM)
    assert process.wait(unit_seconds("TimeoutStopSec")) == 0, process.stderr()


def test_a_stop_while_waiting_for_the_store_is_clean(tmp_path, redis_server, notify_socket, tablemate):
    notify = notify_socket("abstract")
    redis_server.stop()
    process = tablemate(desktop_profile(tmp_path, store=redis_server.url), tmp_path, notify=notify.address)
    notify.wait_for(lambda m: m.get("STATUS") == "Waiting for Redis", 30, "STATUS=Waiting for Redis")
    process.signal(signal.SIGTERM)
    notify.wait_for(lambda m: m.get("STOPPING") == "1", unit_seconds("TimeoutStopSec"), "STOPPING=1")
    assert process.wait(unit_seconds("TimeoutStopSec")) == 0, process.stderr()
    assert not [m for m in notify.received if "READY" in m]
