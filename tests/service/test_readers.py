"""A real `tablemate run` with RC522 readers (fake chips behind a stand-in spidev): a reader missing at
boot neither stops the start nor the watchdog; STATUS= and the log say which reader and how to fix it."""

import signal

from .support import desktop_profile, unit_seconds

#: as systemd's WatchdogSec=1s would set it
WATCHDOG_USEC = 1_000_000


def test_a_reader_missing_at_boot_is_in_the_status_and_the_log_while_the_service_runs(tmp_path, notify_socket, tablemate):
    notify = notify_socket("path")
    profile = desktop_profile(tmp_path, store="memory://", rc522=True)
    process = tablemate(profile, tmp_path, notify=notify.address, watchdog_usec=WATCHDOG_USEC,
                        fake_spidev=["0.0:25", "0.1:24", "1.0:23", "1.1:22"])  # /dev/spidev1.2 is missing
    notify.wait_for(lambda m: m.get("READY") == "1", 30, "READY=1")
    status = notify.wait_for(lambda m: "Reader" in m.get("STATUS", ""), 10, "a STATUS line naming the reader")
    assert status["STATUS"] == "Choosing a game; Reader 5: SPI1 is off"
    for _ in range(2):  # the readers' thread lives on: the watchdog is pinged
        notify.wait_for(lambda m: m.get("WATCHDOG") == "1", 2, "a watchdog ping")
    process.signal(signal.SIGTERM)
    assert process.wait(unit_seconds("TimeoutStopSec")) == 0, process.stderr()
    log = process.stderr()
    assert "reader 5 (seat4): /dev/spidev1.2 does not exist" in log and "dtoverlay=spi1-3cs" in log
    assert "reader 1" not in log and "Traceback" not in log, log
