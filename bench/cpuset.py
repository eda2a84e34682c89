"""A core of its own for a bench on a shared machine (cgroup v1 cpuset), everything else kept running.

`OwnCore()` is a context manager: in the root cpuset (/sys/fs/cgroup/cpuset) it makes two sibling
cpusets, `tablemate-bench` (the bench's core, 1) and `tablemate-others` (the other cores), puts this
process in the first and every other process of the root cpuset in the second, so that what the bench
starts (its redis-server, strace, workers) inherits the bench's core and nothing else runs there. On
leaving (a return, an exception, SIGINT, SIGTERM or SIGHUP) every process is put back in the root
cpuset, the CPU affinities that threads had set for themselves are set again (a move between cpusets
resets them), and both cpusets are removed. It says what it did on stderr. A cpuset left by a bench
that was killed (SIGKILL) is emptied and removed at the next start.

Kernel threads stay where they are: the kernel places its per-CPU threads itself (a cpuset refuses
them), and the others hardly run. So do processes that are exiting, and any that refuses to move
(said). Interrupts are not moved either: their handlers still run on the bench's core now and then.

Needs root and the cpuset controller mounted as cgroup v1.

    python bench/storage.py --own-core                  # bench/storage.py's flag
    python bench/cpuset.py python bench/firmware.py     # any command
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

CPUSETS = Path("/sys/fs/cgroup/cpuset")
NAMES = ("tablemate-bench", "tablemate-others")
PF_KTHREAD = 0x00200000


class Unavailable(RuntimeError):
    """The machine cannot give a core (no cpuset, not root, a single core)."""


def _say(text: str) -> None:
    print(f"own core: {text}", file=sys.stderr, flush=True)


def _cpus(text: str) -> set[int]:
    """A cpuset's list ("0-1,3") as a set."""
    cpus: set[int] = set()
    for part in filter(None, text.strip().split(",")):
        first, _, last = part.partition("-")
        cpus.update(range(int(first), int(last or first) + 1))
    return cpus


def _user_task(pid: int) -> bool:
    """A process or thread of user space that runs (not a kernel thread, not exiting or gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[0] not in ("Z", "X") and not int(fields[6]) & PF_KTHREAD


def _procs(cpuset: Path) -> list[int]:
    return [int(pid) for pid in (cpuset / "cgroup.procs").read_text().split()]


def _move(pids: list[int], to: Path) -> list[int]:
    """Move `pids` (whole processes) into `to`; those that could not be (gone, or refused)."""
    refused = []
    for pid in pids:
        try:
            (to / "cgroup.procs").write_text(str(pid))
        except OSError:
            refused.append(pid)
    return refused


class OwnCore:
    """This process alone on `cpu` while inside the `with`; see the module docstring."""

    def __init__(self, cpu: int = 1):
        self.cpu = cpu
        self.bench, self.others = (CPUSETS / name for name in NAMES)
        self._affinities: dict[int, set[int]] = {}
        self._handlers: dict[int, object] = {}

    def __enter__(self) -> "OwnCore":
        if not (CPUSETS / "cpuset.cpus").exists():
            raise Unavailable(f"no cgroup v1 cpuset controller at {CPUSETS}")
        if os.geteuid() != 0:
            raise Unavailable("moving processes between cpusets needs root")
        cpus = _cpus((CPUSETS / "cpuset.effective_cpus").read_text())
        rest = cpus - {self.cpu}
        if self.cpu not in cpus or not rest:
            raise Unavailable(f"cpu {self.cpu} and another are needed; this machine's cpuset has {sorted(cpus)}")
        self._remove_left()
        mems = (CPUSETS / "cpuset.mems").read_text().strip()
        for path, given in ((self.bench, {self.cpu}), (self.others, rest)):
            path.mkdir()
            (path / "cpuset.cpus").write_text(",".join(map(str, sorted(given))))
            (path / "cpuset.mems").write_text(mems)
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            self._handlers[signum] = signal.signal(signum, _interrupted)
        try:
            self._affinities = _narrowed_affinities()
            (self.bench / "cgroup.procs").write_text(str(os.getpid()))
            moved, refused = self._empty_root()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        left = len(_procs(CPUSETS))
        _say(f"this bench (pid {os.getpid()}) and what it starts run alone on cpu {self.cpu} ({self.bench}); "
             f"{moved} other processes moved to cpu {','.join(map(str, sorted(rest)))} ({self.others}) and "
             f"kept running; {left - len(refused)} kernel threads (and exiting processes) left where they are"
             + (f"; {len(refused)} processes refused to move: {refused}" if refused else ""))
        return self

    def _empty_root(self) -> tuple[int, list[int]]:
        """Move every user process of the root cpuset into `others`, again until none is left
        (a process may fork meanwhile); how many were moved, and those that refused."""
        moved: set[int] = set()
        refused: set[int] = set()
        for _ in range(20):
            pids = [pid for pid in _procs(CPUSETS) if pid not in refused and _user_task(pid)]
            if not pids:
                break
            failed = _move(pids, self.others)
            refused.update(pid for pid in failed if _user_task(pid))
            moved.update(set(pids) - set(failed))
        else:
            raise RuntimeError("processes keep appearing in the root cpuset: cannot give the bench a core")
        return len(moved), sorted(refused)

    def __exit__(self, *exc) -> None:
        back = 0
        for path in (self.others, self.bench):
            if path.exists():
                back += self._restore(path)
        restored = _reset_affinities(self._affinities)
        for signum, handler in self._handlers.items():
            signal.signal(signum, handler)
        self._handlers.clear()
        _say(f"{back} processes back in the root cpuset (every cpu), {restored} threads' own CPU affinity "
             f"set again, {NAMES[0]} and {NAMES[1]} removed")

    def _restore(self, path: Path) -> int:
        """Every process of `path` back in the root cpuset, and `path` removed; how many."""
        back = 0
        deadline = time.monotonic() + 10
        while True:
            pids = _procs(path)
            _move(pids, CPUSETS)
            back += len(pids)
            try:
                path.rmdir()
                return back
            except OSError:
                if time.monotonic() > deadline:
                    _say(f"{path} could not be removed: {_procs(path)} are still in it")
                    return back
                time.sleep(0.05)

    def _remove_left(self) -> None:
        """Cpusets a killed bench left behind: emptied into the root and removed."""
        for path in (self.bench, self.others):
            if path.exists():
                _say(f"{path} was left by an earlier bench: its processes go back to the root cpuset")
                self._restore(path)


def _narrowed_affinities() -> dict[int, set[int]]:
    """Every user thread's CPU affinity that is narrower than all cpus (set by the thread or its
    owner), by thread id: a move between cpusets resets it."""
    everything = _cpus((CPUSETS / "cpuset.effective_cpus").read_text())
    found = {}
    for task in Path("/proc").glob("[0-9]*/task/[0-9]*"):
        tid = int(task.name)
        try:
            if not _user_task(tid):
                continue
            cpus = os.sched_getaffinity(tid)
        except OSError:
            continue
        if cpus != everything:
            found[tid] = cpus
    return found


def _reset_affinities(affinities: dict[int, set[int]]) -> int:
    restored = 0
    for tid, cpus in affinities.items():
        try:
            os.sched_setaffinity(tid, cpus)
            restored += 1
        except OSError:
            pass  # the thread has ended
    return restored


def _interrupted(signum, frame) -> None:
    raise SystemExit(128 + signum)


def main() -> int:
    """Run the command given alone on cpu 1; its exit status."""
    if len(sys.argv) < 2:
        print("usage: python bench/cpuset.py COMMAND [ARGUMENT...]", file=sys.stderr)
        return 2
    with OwnCore():
        return subprocess.run(sys.argv[1:]).returncode


if __name__ == "__main__":
    sys.exit(main())
