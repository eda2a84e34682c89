"""A Debian trixie root filesystem built with mmdebstrap from Debian's archive, cached between runs,
and trixie's own redis-server run on this machine from it.

The root is a directory under the cache (`TABLEMATE_CI_CACHE`, default ~/.cache/tablemate-ci), named
by a hash of what it holds, so a changed package list builds a new one and an unchanged one is
reused. A root of another architecture (arm64, armhf) needs qemu-user's binfmt_misc registration
(Debian's qemu-user-static, or qemu-user-binfmt): mmdebstrap runs its maintainer scripts through it.

    python -m tests.platform.trixie root [--arch arm64] [PACKAGE ...]   # prints the root's path
    python -m tests.platform.trixie redis-bin DIR      # writes DIR/redis-server, DIR/redis-cli, DIR/redis-check-aof
"""

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

SUITE = "trixie"
MIRROR = os.environ.get("TABLEMATE_DEBIAN_MIRROR", "http://deb.debian.org/debian")
#: what every root holds besides the packages asked for
BASE = ("ca-certificates",)
#: the packages of the Redis root: the server and the tools (redis-cli --cluster create, redis-check-aof)
REDIS = ("redis-server", "redis-tools")


def cache() -> Path:
    return Path(os.environ.get("TABLEMATE_CI_CACHE", Path.home() / ".cache" / "tablemate-ci"))


def root(packages: tuple[str, ...] = (), arch: str = "amd64", variant: str = "apt") -> Path:
    """The path of a trixie root holding `packages` (built once, then taken from the cache)."""
    wanted = sorted(set(BASE) | set(packages))
    key = hashlib.sha256(f"{SUITE} {arch} {variant} {MIRROR} {' '.join(wanted)}".encode()).hexdigest()[:12]
    target = cache() / f"{SUITE}-{arch}-{key}"
    if (target / ".complete").exists():
        return target
    if shutil.which("mmdebstrap") is None:
        raise RuntimeError("mmdebstrap is not installed (apt-get install mmdebstrap; .ci/run does)")
    building = target.with_name(target.name + ".building")
    shutil.rmtree(building, ignore_errors=True)
    shutil.rmtree(target, ignore_errors=True)
    building.parent.mkdir(parents=True, exist_ok=True)
    mode = [] if os.geteuid() == 0 else ["--mode=unshare"]
    subprocess.run(["mmdebstrap", *mode, f"--variant={variant}", f"--architectures={arch}",
                    f"--include={','.join(wanted)}", SUITE, str(building), MIRROR], check=True)
    (building / ".complete").write_text(" ".join(wanted) + "\n")
    building.rename(target)
    return target


def redis_bin(directory: Path) -> Path:
    """Write `directory`/redis-server, redis-cli and redis-check-aof: trixie's own binaries, run on this
    machine by the root's dynamic loader with the root's libraries (no chroot, so ports and paths are
    this machine's)."""
    base = root(REDIS)
    loader = base / "lib64" / "ld-linux-x86-64.so.2"
    libraries = ":".join(str(base / d) for d in ("usr/lib/x86_64-linux-gnu", "lib/x86_64-linux-gnu"))
    directory.mkdir(parents=True, exist_ok=True)
    for name in ("redis-server", "redis-cli", "redis-check-aof"):
        wrapper = directory / name
        wrapper.write_text(f'#!/bin/sh\nexec "{loader}" --library-path "{libraries}" "{base}/usr/bin/{name}" "$@"\n')
        wrapper.chmod(0o755)
    return directory


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.platform.trixie", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    build = commands.add_parser("root", help="build (or find in the cache) a trixie root and print its path")
    build.add_argument("--arch", default="amd64", help="Debian architecture (amd64, arm64, armhf)")
    build.add_argument("packages", nargs="*", help="packages the root holds")
    redis = commands.add_parser("redis-bin", help="write trixie's redis-server, redis-cli and redis-check-aof, runnable here, into DIR")
    redis.add_argument("directory", type=Path, help="where the commands go (put it first in PATH)")
    args = parser.parse_args(argv)
    if args.command == "root":
        print(root(tuple(args.packages), args.arch))
    else:
        print(redis_bin(args.directory))
    return 0


if __name__ == "__main__":
    sys.exit(main())
