"""The owner's platform, Debian 13 "trixie" (Raspberry Pi OS's base), for the checks that need it.

What its checks share: the checkout as an owner's clone has it, and phases timed and printed."""

import subprocess
import time
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def checkout() -> dict[str, Path]:
    """The files a clone of this repository holds, as they are on this disk (name -> path): the
    tracked ones and new ones not ignored, so what is checked is what would be committed."""
    names = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                           capture_output=True, check=True).stdout.decode().split("\0")
    return {name: REPO / name for name in names if name and (REPO / name).is_file()}


class Phases:
    """Each phase's time, printed as it ends ("phase install: 312.4 s") and kept in `times`."""

    def __init__(self, title: str):
        self.title = title
        self.times: dict[str, float] = {}
        self.started = time.monotonic()

    @contextmanager
    def __call__(self, name: str):
        print(f"{self.title}: {name} ...", flush=True)
        start = time.monotonic()
        try:
            yield
        finally:
            self.times[name] = time.monotonic() - start
            print(f"{self.title}: phase {name}: {self.times[name]:.1f} s", flush=True)

    def note(self, text: str) -> None:
        print(f"{self.title}: {text}", flush=True)

    def summary(self) -> str:
        total = time.monotonic() - self.started
        return f"{self.title}: " + ", ".join(f"{name} {seconds:.0f} s" for name, seconds in self.times.items()) + f"; total {total:.0f} s"
