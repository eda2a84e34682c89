"""A power cut that drops every byte not yet synced, by LazyFS (github dsrhaslab/lazyfs, a FUSE file
system that keeps writes in its own cache until fsync and drops them on `lazyfs::clear-cache`).
Redis's directory (AOF, appendfsync always) and the journal's local copy live on one LazyFS mount; the
appliance (`tablemate run`, its writes on the writer thread) plays a scripted game.

- Dropped caches: at a random moment both processes are frozen, LazyFS drops what was not synced,
  both are killed and started again. Every entry Redis had acknowledged before the freeze is there,
  in order, once, and the game goes on from what was kept; the inputs the players saw that were
  lost are counted, and those the table named at the restart ("Not saved before the power went")
  are counted (see firmware/journal/shown.py for what can be named).
- A torn write: at a random moment the next write() to the local copy, or to Redis's AOF, is torn
  (LazyFS's torn-op: split in two, one half written to the disk, its start or its end, then LazyFS
  dies and every unsynced byte with it); Redis and the appliance are killed at once, the AOF is
  checked as redis-server's drop-in checks it before Redis starts (systemd/redis-aof-tail), and both
  start again. Nothing the table saved is lost (what Redis acknowledged, what the local copy held
  synced on the disk), the torn record is named (the appliance's log, redis-aof-tail's), never
  taken, and the game goes on: played to its end, it is the uninterrupted run's.

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
from contextlib import contextmanager
from pathlib import Path

import pytest

from firmware.journal import Journal
from firmware.journal.local import LocalCopy
from firmware.journal.shown import Shown
from firmware.store import connect
from tests.redis_server import RedisServer

from .appliance import Appliance, script_seconds
from .resume import journal_signature, stored_entries
from .test_recovery import Reference, exported, play_to_the_end, uninterrupted

LAZYFS = os.environ.get("LAZYFS")
CUTS = int(os.environ.get("POWER_CUTS", "10"))
AOF_TAIL = Path(__file__).parents[2] / "systemd" / "redis-aof-tail"
#: the writes torn, in turn: the local copy's or Redis's AOF's, with its start on the disk (part 1 of
#: 2) or its end (part 2: its start reads back as zeros)
TEARS = [("local copy", 1), ("AOF", 2), ("local copy", 2), ("AOF", 1)]
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
        assert len(text) < 100, f"LazyFS reads 100 bytes at a time: {text!r} is too long"
        with open(self.fifo, "w") as fifo:
            fifo.write(text + "\n")

    def dead(self) -> bool:
        """LazyFS killed itself (after a torn write): every unsynced byte is gone with it."""
        return self.process.poll() is not None

    def stop(self) -> None:
        subprocess.run(["fusermount3", "-u", "-z", str(self.mount)], check=False)
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None


@contextmanager
def on_lazyfs(tmp_path: Path, reference: Reference):
    """A LazyFS mount (at a short path), a redis-server with its directory on it (its AOF's directory
    named short too: LazyFS takes a torn file's path in a 100-byte command), and the appliance with
    its local copy on it, not started; all stopped after."""
    base = Path(f"/tmp/lz{os.getpid()}")
    shutil.rmtree(base, ignore_errors=True)
    lazy = Lazy(base)
    lazy.start()
    redis = RedisServer(lazy.mount / "d", args=("--appenddirname", "a"))
    appliance = None
    try:
        redis.start()
        appliance = Appliance(tmp_path, redis.url, reference.tags, local_dir=lazy.mount / "state")
        yield lazy, redis, appliance, Journal(connect(redis.url, timeout=10.0), "t1")
    finally:
        if appliance is not None:
            appliance.close()
        redis.kill()
        lazy.stop()
        shutil.rmtree(base, ignore_errors=True)


def test_a_power_cut_dropping_every_unsynced_byte_loses_nothing_saved(tmp_path):
    reference = uninterrupted("memory://power-cut-reference")
    rng = random.Random(29)
    resume, results = 0, []
    with on_lazyfs(tmp_path, reference) as (lazy, redis, appliance, journal):
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
    print("\ncuts (acknowledged before, in Redis after the cut, kept after the start, shown and lost, named):")
    for row in results:
        print("  ", row)


def test_a_write_torn_by_a_power_cut_is_named_nothing_saved_is_lost_and_the_game_goes_on(tmp_path, capsys):
    reference = uninterrupted("memory://power-cut-torn-reference")
    rng = random.Random(29)
    resume, results = 0, []
    with on_lazyfs(tmp_path, reference) as (lazy, redis, appliance, journal):
        aof = lazy.mount / "d" / "a"
        for what, part in TEARS:
            rest = reference.lines[resume:]
            appliance.start(rest)
            time.sleep(rng.uniform(0.3, min(3.0, 0.5 * script_seconds(rest))))
            target = lazy.mount / "state" / "t1.jsonl" if what == "local copy" else aof / _last_aof_file(aof)
            lazy.command(f"lazyfs::torn-op::file={lazy.root / target.relative_to(lazy.mount)}::persist={part}::parts=2")
            acknowledged = []
            deadline = time.monotonic() + 30
            while not lazy.dead():  # the next write to the file is torn, and LazyFS dies: the power is off
                assert time.monotonic() < deadline, f"no write to {target} within 30 s"
                try:
                    acknowledged = stored_entries(journal)
                except Exception:
                    pass  # Redis found its disk gone: it exits rather than answer
                time.sleep(0.01)
            redis.kill()
            appliance.kill()
            found = LocalCopy(lazy.root / "state", "t1").load(aside=False)  # what the card holds
            held = next(game.record().entries for game in found.games if game.gid == found.active)
            lazy.stop()
            lazy.start()
            checked = subprocess.run([str(AOF_TAIL), str(aof / "appendonly.aof.manifest")], capture_output=True, text=True)
            assert checked.returncode == 0, checked.stderr
            redis.start()
            appliance.start([])
            kept = stored_entries(journal)
            said = appliance.output() + checked.stderr
            appliance.stop()
            assert kept[:len(acknowledged)] == acknowledged, f"{what}: an entry Redis acknowledged was lost"
            assert kept[:len(held)] == held, f"{what}: an entry the local copy held on the disk was lost"
            torn = "its last line was torn by a power cut" if what == "local copy" else "ended in a write torn by a power cut"
            assert torn in said, f"the torn write to the {what} was not named:\n{said}"
            stored = list(journal.load(journal.current()).actions)
            assert stored == reference.log["actions"][:len(stored)], f"{what}: the game is not the uninterrupted one's:\n{said}"
            results.append((what, "its start" if part == 1 else "its end", len(acknowledged), len(held), len(kept),
                            said.count("were shown but not saved")))
            resume = reference.resume_at(journal_signature(journal))
            assert resume < len(reference.lines), "the game ended before every write was torn"
        play_to_the_end(appliance, journal, reference, resume)
        assert exported(appliance, capsys) == reference.log
    with capsys.disabled():
        print("\ntorn writes (file, the half on the disk, entries Redis acknowledged, entries the local copy "
              "held on the disk, entries after the start, inputs named):")
        for row in results:
            print("  ", row)


def _last_aof_file(directory: Path) -> str:
    """The file Redis appends to: the last one its manifest lists."""
    last = directory.joinpath("appendonly.aof.manifest").read_text().splitlines()[-1].split()
    return last[last.index("file") + 1]
