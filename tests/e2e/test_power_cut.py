"""A power cut that drops every byte not yet synced, by LazyFS (github dsrhaslab/lazyfs, a FUSE file
system that keeps writes in its own cache until fsync and drops them on `lazyfs::clear-cache`).
Redis's directory (AOF, appendfsync always) and the journal's local copy live on one LazyFS mount; the
appliance (`tablemate run`, its writes on the writer thread) plays a scripted game; at a random
moment both processes are frozen, LazyFS drops what was not synced, both are killed and started
again. Every entry Redis had acknowledged before the freeze is there, in order, once, and the game
goes on from what was kept; the inputs the players saw that were lost are counted, and those the
table named at the restart ("Not saved before the power went") are counted (see
firmware/journal/shown.py for what can be named).

LazyFS is not part of this project and is built by hand (the README, "Power cuts"): the test skips
unless LAZYFS names its binary. Run as root (FUSE, allow_other):

    LAZYFS=/work/lazyfs/lazyfs/build/lazyfs .venv/bin/python -m pytest -s tests/e2e/test_power_cut.py
"""

import os
import random
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from firmware.journal import Journal
from firmware.journal.shown import Shown
from firmware.store import connect
from tests.redis_server import RedisServer

from .appliance import Appliance, script_seconds
from .resume import journal_signature, stored_entries
from .test_recovery import uninterrupted

LAZYFS = os.environ.get("LAZYFS")
CUTS = int(os.environ.get("POWER_CUTS", "10"))
pytestmark = pytest.mark.skipif(not LAZYFS or not Path(LAZYFS).is_file(),
                                reason="LAZYFS does not name a lazyfs binary (built by hand: README, 'Power cuts')")


class Lazy:
    """One LazyFS mount: `mount` shows `root` through LazyFS's cache; commands go to its FIFO. The
    paths are short, as LazyFS reads its FIFO 100 bytes at a time."""

    def __init__(self, base: Path):
        self.root, self.mount, self.fifo = base / "r", base / "m", base / "f"
        self.root.mkdir(parents=True)
        self.mount.mkdir()
        self.config = base / "c.toml"
        self.config.write_text(f'[faults]\nfifo_path="{self.fifo}"\n[cache]\napply_eviction=false\n'
                               f'[cache.simple]\ncustom_size="256mb"\nblocks_per_page=1\n'
                               f'[filesystem]\nlog_all_operations=false\nlogfile=""\n')
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = subprocess.Popen([LAZYFS, str(self.mount), "--config-path", str(self.config), "-o", "allow_other",
                                         "-o", "modules=subdir", "-o", f"subdir={self.root}", "-f"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while not (os.path.ismount(self.mount) and self.fifo.exists()):
            assert time.monotonic() < deadline and self.process.poll() is None, "LazyFS did not mount"
            time.sleep(0.05)

    def command(self, text: str) -> None:
        with open(self.fifo, "w") as fifo:
            fifo.write(text + "\n")

    def stop(self) -> None:
        subprocess.run(["fusermount3", "-u", "-z", str(self.mount)], check=False)
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None


def test_a_power_cut_dropping_every_unsynced_byte_loses_nothing_saved(tmp_path):
    reference = uninterrupted("memory://power-cut-reference")
    base = Path(f"/tmp/lz{os.getpid()}")
    shutil.rmtree(base, ignore_errors=True)
    lazy = Lazy(base)
    lazy.start()
    redis = RedisServer(lazy.mount / "redis")
    appliance = None
    rng = random.Random(29)
    resume, results = 0, []
    try:
        redis.start()
        appliance = Appliance(tmp_path, redis.url, reference.tags, local_dir=lazy.mount / "state")
        journal = Journal(connect(redis.url, timeout=10.0), "t1")
        for cut in range(CUTS):
            rest = reference.lines[resume:]
            appliance.start(rest)
            time.sleep(rng.uniform(0.3, min(3.0, 0.8 * script_seconds(rest))))
            acknowledged = stored_entries(journal)
            for process in (redis.process, appliance.process):
                process.send_signal(signal.SIGSTOP)
            shown = Shown(lazy.mount / "state", "t1").read()  # what the players saw (LazyFS's cache)
            lazy.command("lazyfs::clear-cache")
            time.sleep(0.5)
            redis.kill()
            appliance.kill()
            redis.start()
            restarted = stored_entries(journal)
            appliance.start([])
            kept = stored_entries(journal)
            named = appliance.output().count("were shown but not saved")
            appliance.stop()
            assert kept[: len(acknowledged)] == acknowledged, f"cut {cut}: an acknowledged entry was lost"
            lost = sorted({n for _, n, _ in shown if n > len(kept)})
            results.append((len(acknowledged), len(restarted), len(kept), len(lost), named))
            resume = reference.resume_at(journal_signature(journal))
            assert resume < len(reference.lines), "the game ended before every cut was made"
    finally:
        if appliance is not None:
            appliance.close()
        redis.kill()
        lazy.stop()
        shutil.rmtree(base, ignore_errors=True)
    print("\ncuts (acknowledged before, in Redis after the cut, kept after the start, shown and lost, named):")
    for row in results:
        print("  ", row)
