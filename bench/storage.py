"""The Pi's storage and CPU under the tap: tap-to-frame when the card's fsync is slow, the writes'
own latency and grouping, the CPU a tap costs, under a Pi-class CPU cap, and the bytes an action
costs the card.

- Slow fsync: every fdatasync/fsync of the appliance and of its redis-server (AOF on, appendfsync
  always) is delayed by strace's fault injection (`strace -f --seccomp-bpf -e trace=fdatasync,fsync
  -e inject=fdatasync,fsync:delay_enter=USEC[:when=25+25]`): none, 5 ms, 20 ms, 100 ms each, and
  250 ms every 25th call of each thread. The appliance (the demos' profile, its local copy in a
  directory on this machine's disk) recovers a half-played 5-player Taj Mahal game and its loop runs
  in its own thread as in `tablemate run`; a player taps a card on their mock reader: the time runs
  from `MockReader.tap()` to the return of the `display.show()` of the frame it caused. Each play is
  then undone by a press, so every tap is the same move. Reported: tap-to-frame median, p99, max;
  each write's latency (from its frame to its batch on the disk: the local copy synced and Redis's
  transaction acknowledged) and how many writes each batch (one fdatasync, one transaction) carried.
- CPU: the loop thread's own CPU time (time.thread_time, not wall) for each tap, from the event to
  the frame handed over and what follows it; the CPU time per tap of every thread (the loop, the
  writer, the readers' polling, the display, the bench's own) and of redis-server, for the tap, its
  undo and their writes, beside the wall time per tap; the tap's path profiled in the loop thread's
  CPU time (its stages' shares, and the functions with the most own time); and tap-to-frame with
  the appliance and its redis-server in one cgroup capped at 1/4 and 1/8 of a core (cgroup v1
  `cpu`: cfs_quota_us 1000 in a period of 4000 or 8000; cgroup v2 `cpu.max` alike), as a Pi 4 and
  a Pi Zero 2 W / 3B+ run this Python about 4 and 8 times slower. Needs root and a cpu controller:
  else the figures say why they are missing. Each CPU figure is taken twice: the taps back to back
  (the next as soon as the last one's frames are shown and its card lifted, about 25 a second) and
  paced (each once the writes before it are made, as at a table, where taps come seconds apart; and
  as every tap came before the writer thread, when its frame waited for its writes).
- Bytes on the card: the recorded Taj Mahal demo played whole (virtual time: one write per action)
  with the local copy; write_bytes of /proc/<pid>/io of the appliance and of redis-server over the
  game, per accepted action, and the AOF rewrite's share under Redis's policy (auto-aof-rewrite-
  percentage and -min-size: a rewrite writes the data set once per min-size of appends; its size is
  measured by a BGREWRITEAOF after the game).

Targets (this machine): tap-to-frame p99 <= 5 ms with no delay, <= 30 ms with 20 ms per fsync and with
250 ms stalls every 25th, <= 25 ms on 1/8 of a core (paced). On this machine, shared with other
work, `--own-core` gives the bench a core of its own.

    python bench/storage.py                 # every figure (make bench runs it too)
    python bench/storage.py --only cpu      # one section: fsync, cpu, bytes
    python bench/storage.py --own-core      # alone on cpu 1, everything else on cpu 0 meanwhile
                                            # (bench/cpuset.py; root, cgroup v1 cpuset)
"""

import argparse
import cProfile
import dataclasses
import json
import os
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.cpuset import OwnCore  # noqa: E402
from bench.firmware import PLAYERS, SEED, TIMING, Frames, _journal_game, tapped  # noqa: E402
from drivers.readers import TagEvent  # noqa: E402
from firmware import script, tagfile  # noqa: E402
from firmware.app import App  # noqa: E402
from firmware.journal import Writer  # noqa: E402
from firmware.store import connect  # noqa: E402
from tests.e2e.games import bot_game  # noqa: E402
from tests.e2e.rig import mocked_profile  # noqa: E402
from tests.redis_server import free_port  # noqa: E402

TAPS = 100
DELAYS = {"none": None, "5ms": "delay_enter=5000", "20ms": "delay_enter=20000", "100ms": "delay_enter=100000",
          "250ms_every_25th": "delay_enter=250000:when=25+25"}
CAPS = {"whole_core": None, "quarter_core": 4000, "eighth_core": 8000}
#: how the taps come: each as soon as the last one's frames are shown and its card lifted (back to
#: back, about 25 a second), or once the writes of the last one are made too (paced: as at a table,
#: where taps come seconds apart, and as every tap came before the writer thread)
HOW = ("back_to_back", "paced")
QUOTA_US = 1000
TARGETS = {"none": 5.0, "20ms": 30.0, "250ms_every_25th": 30.0, "eighth_core_paced": 25.0}
DEMO = ROOT / "firmware" / "demos"


def _stats(name: str, values: list[float], scale: float = 1000) -> dict:
    values = sorted(values)
    p99 = statistics.quantiles(values, n=100, method="inclusive")[98] if len(values) > 1 else values[0]
    return {f"{name}_median": round(statistics.median(values) * scale, 2), f"{name}_p99": round(p99 * scale, 2),
            f"{name}_max": round(values[-1] * scale, 2)}


# -- the appliance's side (a child process, so strace and the cgroup take it whole) --------------


def tapping(url: str, directory: Path, taps: int, how: str) -> dict:
    """Recover a half-played game and tap the same card `taps` times (each play undone): `how` the
    taps come (HOW)."""
    actions = bot_game("taj_mahal", PLAYERS, {}, SEED)
    cut = next(n for n in range(len(actions) // 2, len(actions))
               if actions[n]["type"] == "play" and len(actions[n]["cards"]) == 1)
    play = actions[cut]
    uid = _journal_game(url, "tap", actions, cut)[play["cards"][0]["id"]]
    profile = mocked_profile(url, "tap", local_dir=directory)
    app = App.build(dataclasses.replace(profile, reader_timing=TIMING), web=False)
    frames = Frames(app)
    writes, batches, run = [], [], Writer._run
    writer: Writer = app.loop.table.journal
    threads = ThreadTimes(int(connect(url).info("server")["process_id"]))

    def timed(self, batch) -> None:
        run(self, batch)
        done, made = time.monotonic(), [post for post in batch if post.kind == "write"]
        if made:
            batches.append(len(made))
            writes.extend(done - post.at for post in made)

    def saved() -> None:
        if not writer.wait(60):
            raise RuntimeError("the writes before a tap were not made within 60 s")

    profiler = _profiled(app) if how == "profile" else None
    Writer._run = timed
    try:
        latencies = tapped(app, frames, app.readers.readers[f"seat{play['player']}"], uid, cut, taps,
                           settle=saved if how == "paced" else None, meter=threads)
    finally:
        Writer._run = run
    stored = writer.load(app.loop.table.session.gid)
    if len(stored.entries) != cut + 2 * taps or len(stored.actions) != cut:
        raise RuntimeError("the taps were not each accepted, undone and stored once")
    if profiler:
        return _profile(profiler)
    return {"taps": taps, **_stats("tap_to_frame_ms", latencies), **_stats("tap_cpu_ms", frames.tap_cpu),
            **_stats("write_ms", writes), "writes_per_fsync_mean": round(sum(batches) / len(batches), 2),
            "writes_per_fsync_max": max(batches), **threads.figures(taps)}


class ThreadTimes:
    """The CPU time of each thread of this process, and of redis-server, between two calls."""

    ROLES = {"tablemate-loop": "loop", "tablemate-journal": "writer", "tablemate-readers": "readers",
             "tablemate-display": "display", "MainThread": "bench"}

    def __init__(self, redis_pid: int):
        self.redis_pid = redis_pid
        self.marks: list[tuple[float, dict[str, float]]] = []

    def __call__(self) -> None:
        times: dict[str, float] = {}
        for thread in threading.enumerate():
            role = self.ROLES.get(thread.name, "other threads")
            try:
                times[role] = times.get(role, 0.0) + time.clock_gettime(time.pthread_getcpuclockid(thread.ident))
            except OSError:
                pass  # ended meanwhile
        times["redis-server"] = sum(int(task.read_text().split()[0]) / 1e9
                                    for task in Path(f"/proc/{self.redis_pid}/task").glob("*/schedstat"))
        self.marks.append((time.monotonic(), times))

    def figures(self, taps: int) -> dict:
        """CPU per tap (the tap, its undo and their writes), by thread, against the wall time per tap."""
        (start, before), (end, after) = self.marks
        per_tap = {role: round((after[role] - before.get(role, 0.0)) * 1000 / taps, 2) for role in after}
        return {"cpu_per_tap_ms": {**per_tap, "total": round(sum(per_tap.values()), 2)},
                "wall_per_tap_ms": round((end - start) * 1000 / taps, 2)}


def _profiled(app: App) -> cProfile.Profile:
    """The loop thread's CPU (not wall: time it waits for another thread is not counted) in each tap,
    profiled from here on."""
    profiler, handle = cProfile.Profile(time.thread_time), app.loop.handle

    def handling(event) -> None:
        tap = isinstance(event, TagEvent) and event.kind == "arrived"
        if tap:
            profiler.enable()
        try:
            handle(event)
        finally:
            if tap:
                profiler.disable()

    app.loop.handle = handling
    return profiler


#: the stages of a tap's path in the loop thread (file, function): their share of its CPU
STAGES = {"the input taken: flow, engine, the write handed over": ("firmware/table.py", "tag"),
          "the view: scores, hint": ("firmware/table.py", "view"),
          "the drawing": ("firmware/screens.py", "render"),
          "the frame handed to the display thread": ("drivers/display/sender.py", "show"),
          "the note of what was shown, the writer woken": ("firmware/journal/writer.py", "send"),
          "STATUS=": ("firmware/loop.py", "_report")}


def _profile(profiler: cProfile.Profile) -> dict:
    rows = pstats.Stats(profiler).stats
    total = sum(row[2] for row in rows.values())
    stages = {name: round(100 * sum(row[3] for (f, _, function), row in rows.items()
                                    if f.endswith(where) and function == what) / total, 1)
              for name, (where, what) in STAGES.items()}
    top = sorted(rows.items(), key=lambda item: -item[1][2])[:12]
    return {"tap_path_cpu_pct": stages,
            "own_cpu_pct": {f"{Path(f).name}:{line} {name}": round(100 * row[2] / total, 1) for (f, line, name), row in top}}


def card_bytes(url: str, directory: Path) -> dict:
    """The recorded demo played whole; this process's write_bytes and the game's actions."""
    before = _io(os.getpid())
    profile = mocked_profile(url, "bytes", local_dir=directory)
    clock = script.VirtualClock()
    app = App.build(profile, clock=clock, web=False)
    try:
        app.loop.table.tags.set_many(tagfile.load(DEMO / "taj_mahal.tags.toml"))
        app.loop.start()
        script.VirtualTime(app, clock).play(script.load(DEMO / "taj_mahal.script"))
        actions = len(app.loop.table.session.actions)
        entries = app.loop.table.session.entries
    finally:
        app.close()
    after = _io(os.getpid())
    return {"actions": actions, "entries": entries, "write_bytes": after["write_bytes"] - before["write_bytes"],
            "wchar": after["wchar"] - before["wchar"]}


def _io(pid: int) -> dict[str, int]:
    lines = Path(f"/proc/{pid}/io").read_text().splitlines()
    return {key: int(value) for key, value in (line.split(": ") for line in lines)}


# -- the bench's side ------------------------------------------------------------------------------


class Cgroup:
    """A cgroup capping its processes at QUOTA_US of CPU in each `period_us` (None: no cap)."""

    def __init__(self, period_us: int | None):
        self.period_us, self.path, self.problem = period_us, None, None
        if period_us is None:
            return
        v2 = Path("/sys/fs/cgroup/cgroup.controllers")
        try:
            if v2.exists() and "cpu" in v2.read_text().split():
                self.path = Path(f"/sys/fs/cgroup/tablemate-bench-{os.getpid()}")
                self.path.mkdir()
                (self.path / "cpu.max").write_text(f"{QUOTA_US} {period_us}")
            elif Path("/sys/fs/cgroup/cpu/cpu.cfs_quota_us").exists():
                self.path = Path(f"/sys/fs/cgroup/cpu/tablemate-bench-{os.getpid()}")
                self.path.mkdir()
                (self.path / "cpu.cfs_period_us").write_text(str(period_us))
                (self.path / "cpu.cfs_quota_us").write_text(str(QUOTA_US))
            else:
                self.problem = "no cgroup cpu controller on this machine"
        except OSError as error:
            self.problem = f"a cgroup cannot be made ({error}): run as root where a cpu controller is mounted"
            self.path = None

    def prefix(self) -> list[str]:
        """A command line's start that puts the command in this cgroup, then runs it."""
        if self.path is None:
            return []
        return ["sh", "-c", f'echo $$ > {self.path}/cgroup.procs && exec "$@"', "sh"]

    def remove(self) -> None:
        if self.path is not None:
            self.path.rmdir()


def _strace(delay: str | None) -> list[str]:
    if delay is None:
        return []
    return ["strace", "-f", "-qq", "--seccomp-bpf", "-o", "/dev/null", "-e", "trace=fdatasync,fsync",
            "-e", f"inject=fdatasync,fsync:{delay}"]


class Redis:
    """A redis-server (AOF on, appendfsync always, as the Pi's) started under `prefix` (strace, a
    cgroup); stopped with SHUTDOWN, so a tracer around it ends with it."""

    def __init__(self, directory: Path, prefix: list[str]):
        self.port = free_port()
        directory.mkdir(parents=True, exist_ok=True)
        binary = shutil.which("redis-server")
        self.process = subprocess.Popen([*prefix, binary, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(directory),
                                         "--save", "", "--appendonly", "yes", "--appendfsync", "always"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.client = connect(self.url)
        deadline = time.monotonic() + 20
        while True:
            try:
                self.client.ping()
                break
            except Exception:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise RuntimeError("redis-server did not start") from None
                time.sleep(0.05)
        self.pid = int(self.client.info("server")["process_id"])

    def stop(self) -> None:
        try:
            self.client.shutdown(nosave=True)
        except Exception:
            pass  # the connection closes as it shuts down
        self.process.wait(timeout=30)


def _worker(prefix: list[str], *args: str) -> dict:
    done = subprocess.run([*prefix, sys.executable, __file__, "--worker", *args], capture_output=True, text=True, timeout=900)
    if done.returncode:
        raise RuntimeError(f"the appliance's process failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.splitlines()[-1])


def scenario(directory: Path, delay: str | None = None, cap: Cgroup | None = None, how: str = "back_to_back") -> dict:
    prefix = (cap.prefix() if cap else []) + _strace(delay)
    redis = Redis(directory / "redis", prefix)
    try:
        return _worker(prefix, "tap", redis.url, str(directory / "state"), str(TAPS), how)
    finally:
        redis.stop()


def fsync_section(directory: Path) -> dict:
    if shutil.which("strace") is None:
        return {"missing": "strace is not installed (apt-get install strace)"}
    figures = {}
    for name, delay in DELAYS.items():
        figures[name] = scenario(directory / f"fsync-{name}", delay)
    return figures


def cpu_section(directory: Path) -> dict:
    figures = {"tap_profile": scenario(directory / "cpu-profile", how="profile")}
    for name, period in CAPS.items():
        for how in HOW:
            row = f"{name}_{how}"
            cap = Cgroup(period)
            if cap.problem:
                figures[row] = {"missing": cap.problem}
                continue
            try:
                figures[row] = {**({"cgroup": f"{QUOTA_US} us of CPU every {period} us ({cap.path})"} if period else {}),
                                **scenario(directory / f"cpu-{row}", cap=cap, how=how)}
            finally:
                cap.remove()
    return figures


def bytes_section(directory: Path) -> dict:
    redis = Redis(directory / "bytes-redis", [])
    try:
        before = _io(redis.pid)
        game = _worker([], "bytes", redis.url, str(directory / "bytes-state"))
        after = _io(redis.pid)
        policy = redis.client.config_get("auto-aof-rewrite-*")
        rewrites = redis.client.info("persistence")["aof_rewrites"]
        redis.client.bgrewriteaof()
        deadline = time.monotonic() + 30
        while redis.client.info("persistence")["aof_rewrite_in_progress"] and time.monotonic() < deadline:
            time.sleep(0.1)
        base = sum(p.stat().st_size for p in (directory / "bytes-redis").rglob("*.base.*"))
    finally:
        redis.stop()
    actions, entries = game["actions"], game["entries"]
    redis_bytes = after["write_bytes"] - before["write_bytes"]
    min_size = int(policy["auto-aof-rewrite-min-size"])
    return {
        "game": f"the recorded Taj Mahal demo: {actions} actions, {entries} journal entries",
        "redis_write_bytes_per_action": round(redis_bytes / actions),
        "appliance_write_bytes_per_action": round(game["write_bytes"] / actions),
        "card_bytes_per_action": round((redis_bytes + game["write_bytes"]) / actions),
        "appliance_wchar_per_action": round(game["wchar"] / actions),
        "aof_rewrite_policy": {k: policy[k] for k in sorted(policy)},
        "aof_rewrites_during_the_game": rewrites,
        "aof_rewrite_base_bytes": base,
        "aof_rewrite_share_pct": round(100 * base / (min_size + base), 3),
    }


def run(only: str | None = None) -> dict:
    sections = {"fsync": fsync_section, "cpu": cpu_section, "bytes": bytes_section}
    load = os.getloadavg()
    figures: dict = {"load_average_at_start": [round(x, 2) for x in load]}
    with tempfile.TemporaryDirectory() as directory:
        for name, section in sections.items():
            if only in (None, name):
                figures[name] = section(Path(directory))
    figures["targets_p99_ms"] = TARGETS
    checked = [(figures.get("fsync", {}).get(k) or figures.get("cpu", {}).get(k) or {}).get("tap_to_frame_ms_p99")
               for k in TARGETS]
    figures["meets_targets"] = all(v is not None and v <= TARGETS[k] for k, v in zip(TARGETS, checked))
    return figures


def main() -> None:
    if sys.argv[1:2] == ["--worker"]:
        kind, url, directory, *rest = sys.argv[2:]
        if kind == "tap":
            print(json.dumps(tapping(url, Path(directory), int(rest[0]), rest[1])))
        else:
            print(json.dumps(card_bytes(url, Path(directory))))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["fsync", "cpu", "bytes"], help="one section")
    parser.add_argument("--own-core", action="store_true",
                        help="run alone on cpu 1, every other process moved to cpu 0 meanwhile (bench/cpuset.py)")
    arguments = parser.parse_args()
    if not arguments.own_core:
        print(json.dumps(run(arguments.only), indent=2))
        return
    with OwnCore() as core:
        figures = run(arguments.only)
    figures["taken_on"] = f"cpu {core.cpu} alone: every other process on the other cpu meanwhile (bench/cpuset.py)"
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
