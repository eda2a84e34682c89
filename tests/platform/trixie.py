"""A Debian trixie root filesystem built with mmdebstrap from Debian's archive, cached between runs,
and trixie's own redis-server run on this machine from it.

The root is a directory under the cache (`TABLEMATE_CI_CACHE`, default ~/.cache/tablemate-ci), named
by a hash of what it holds, so a changed package list builds a new one and an unchanged one is
reused; builders of the same root wait for each other (a lock file beside it). Besides packages, a
root may be given files and commands run in it once its packages are in (the VM image of
tests/platform/vm.py is such a root). A root of another architecture (arm64, armhf) runs its
maintainer scripts through qemu-user: `binfmt` mounts binfmt_misc and registers Debian's
qemu-user-static interpreter for it when this machine has not. `Chroot` runs commands in a root
through a throwaway overlay (as root), so the cached root stays as built.

    python -m tests.platform.trixie root [--arch arm64] [PACKAGE ...]   # prints the root's path
    python -m tests.platform.trixie redis-bin DIR                          # writes DIR/redis-server, DIR/redis-cli
"""

import argparse
import fcntl
import hashlib
import os
import platform
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

SUITE = "trixie"
MIRROR = os.environ.get("TABLEMATE_DEBIAN_MIRROR", "http://deb.debian.org/debian")
#: what every root holds besides the packages asked for
BASE = ("ca-certificates",)
#: the packages of the Redis root: the server and the client (redis-cli --cluster create)
REDIS = ("redis-server", "redis-tools")
#: Debian's architecture names -> qemu-user's (the names of its binfmt_misc entries)
QEMU = {"amd64": "x86_64", "arm64": "aarch64", "armhf": "arm"}
BINFMT = Path("/proc/sys/fs/binfmt_misc")
#: where Debian keeps the certificate authorities a machine's owner added (update-ca-certificates)
LOCAL_CAS = Path("/usr/local/share/ca-certificates")


def cache() -> Path:
    return Path(os.environ.get("TABLEMATE_CI_CACHE", Path.home() / ".cache" / "tablemate-ci"))


def host_arch() -> str:
    """This machine's Debian architecture."""
    machine = platform.machine()
    return next((arch for arch, name in QEMU.items() if name == machine), machine)


def binfmt(arch: str) -> None:
    """Make this machine run `arch`'s programs through qemu-user: binfmt_misc mounted and the
    interpreter registered (with the F flag of Debian's entry, so it works inside a chroot)."""
    if arch == host_arch():
        return
    name = f"qemu-{QEMU[arch]}"
    if not (BINFMT / "status").exists():
        subprocess.run(["mount", "-t", "binfmt_misc", "binfmt_misc", str(BINFMT)], check=True)
    if (BINFMT / name).exists():
        return
    entry = Path("/usr/lib/binfmt.d") / f"{name}.conf"
    if not entry.exists():
        raise RuntimeError(f"{entry} is missing: apt-get install qemu-user-static (.ci/run does)")
    (BINFMT / "register").write_text(entry.read_text().strip())


class _Lock:
    """An exclusive lock on `path` while in a with-block: one builder of a cached thing at a time."""

    def __init__(self, path: Path):
        self.path = path

    def __enter__(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.file = open(self.path, "w")
        fcntl.flock(self.file, fcntl.LOCK_EX)

    def __exit__(self, *exc: object) -> None:
        self.file.close()


def cached(name: str, build) -> Path:
    """The cache's directory `name`, made by `build(directory)` unless a complete one is there.

    The build goes into a sibling directory that is renamed once `build` returns, so an interrupted
    build is never taken for a complete one."""
    target = cache() / name
    with _Lock(target.with_name(target.name + ".lock")):
        if (target / ".complete").exists():
            return target
        building = target.with_name(target.name + ".building")
        mounted = [line.split()[1] for line in Path("/proc/mounts").read_text().splitlines()
                   if line.split()[1].startswith(f"{building}/")]
        if mounted:  # an interrupted build's: removing the directory would reach into them
            raise RuntimeError(f"{building} still has mounts ({', '.join(mounted)}): unmount them (umount -R) and run this again")
        shutil.rmtree(building, ignore_errors=True)
        shutil.rmtree(target, ignore_errors=True)
        building.mkdir(parents=True)
        build(building)
        (building / ".complete").touch()
        building.rename(target)
    return target


def local_cas() -> dict[str, bytes]:
    """The certificate authorities this machine's owner added (none on most machines): a root that
    reaches PyPI from here trusts them too, as behind a TLS-inspecting proxy it must."""
    return {str(path): path.read_bytes() for path in sorted(LOCAL_CAS.rglob("*.crt"))}


def root(packages: Sequence[str] = (), arch: str = "amd64", variant: str = "apt", *,
         files: Mapping[str, bytes] | None = None, commands: Sequence[str] = (), online: bool = False) -> Path:
    """The path of a trixie root holding `packages` (built once, then taken from the cache), and
    `files` (path in the root -> content, mode 0644), then changed by `commands` (shell lines run
    in it, in order). `online`: it trusts this machine's own certificate authorities (local_cas)."""
    wanted = sorted(set(BASE) | set(packages))
    if online and local_cas():
        files, commands = {**local_cas(), **(files or {})}, ("update-ca-certificates", *commands)
    files = dict(sorted((files or {}).items()))
    recipe = hashlib.sha256(f"{SUITE} {arch} {variant} {MIRROR} {' '.join(wanted)}".encode())
    for path, content in files.items():
        recipe.update(f"\0{path}\0".encode() + hashlib.sha256(content).digest())
    for command in commands:
        recipe.update(f"\0{command}".encode())

    def build(directory: Path) -> None:
        if shutil.which("mmdebstrap") is None:
            raise RuntimeError("mmdebstrap is not installed (apt-get install mmdebstrap; .ci/run does)")
        binfmt(arch)
        mode = [] if os.geteuid() == 0 else ["--mode=unshare"]
        with tempfile.TemporaryDirectory(prefix="trixie-files-") as staging:
            for path, content in files.items():
                where = Path(staging) / path.lstrip("/")
                where.parent.mkdir(parents=True, exist_ok=True)
                where.write_bytes(content)
                where.chmod(0o644)
            hooks = [f"--customize-hook=sync-in {staging} /"] if files else []
            hooks += [f'--customize-hook=chroot "$1" sh -ec {shlex.quote(command)}' for command in commands]
            subprocess.run(["mmdebstrap", *mode, f"--variant={variant}", f"--architectures={arch}",
                            f"--include={','.join(wanted)}", *hooks, SUITE, str(directory), MIRROR], check=True)
        directory.chmod(0o755)  # mmdebstrap leaves it 0700: the top of a file system every user reads
        (directory / ".packages").write_text(" ".join(wanted) + "\n")

    return cached(f"{SUITE}-{arch}-{recipe.hexdigest()[:12]}", build)


class Chroot:
    """A throwaway view of a root (an overlay: writes go to a temporary directory) with /proc, /sys
    and /dev mounted, to run commands in with chroot."""

    def __init__(self, base: Path):
        self.base = base

    def __enter__(self) -> "Chroot":
        self.scratch = Path(tempfile.mkdtemp(prefix="chroot-"))
        self.path = self.scratch / "root"
        for name in ("upper", "work", "root"):
            (self.scratch / name).mkdir()
        self.mounts: list[Path] = []
        self._mount(["-t", "overlay", "overlay", "-o",
                     f"lowerdir={self.base},upperdir={self.scratch / 'upper'},workdir={self.scratch / 'work'}"], self.path)
        self._mount(["-t", "proc", "proc"], self.path / "proc")
        self._mount(["--rbind", "/sys"], self.path / "sys")
        self._mount(["--rbind", "/dev"], self.path / "dev")
        shutil.copy("/etc/resolv.conf", self.path / "etc" / "resolv.conf")
        return self

    def _mount(self, args: list[str], target: Path) -> None:
        subprocess.run(["mount", *args, str(target)], check=True)
        self.mounts.append(target)

    def __exit__(self, *exc: object) -> None:
        for target in reversed(self.mounts):
            subprocess.run(["umount", "--recursive", "--lazy", str(target)], check=False)
        # never rmtree through the merged view: a mount left there would take this machine's /dev along
        for name in ("upper", "work"):
            shutil.rmtree(self.scratch / name)
        (self.scratch / "root").rmdir()
        self.scratch.rmdir()

    def copy_in(self, files: dict[str, Path], destination: str) -> None:
        for name, source in files.items():
            target = self.path / destination.lstrip("/") / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)

    def run(self, command: str, timeout: float = 3600, capture: bool = True) -> str:
        """Run `command` with bash in the root, as root, with a clean environment (none of this
        machine's pip or proxy settings); its output (printed instead, not `capture`), or
        AssertionError with it when the command fails."""
        env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root", "LANG": "C.UTF-8"}
        result = subprocess.run(["chroot", str(self.path), "/bin/bash", "-c", command], env=env, capture_output=capture,
                                text=True, timeout=timeout)
        if result.returncode != 0 and not capture:
            raise AssertionError(f"`{command}` exited with {result.returncode} in the {self.base.name} root")
        if result.returncode != 0:
            raise AssertionError(f"`{command}` exited with {result.returncode} in the {self.base.name} root:\n"
                                 f"{result.stdout[-6000:]}{result.stderr[-6000:]}")
        return (result.stdout or "") + (result.stderr or "")


def redis_bin(directory: Path) -> Path:
    """Write `directory`/redis-server and redis-cli: trixie's own binaries, run on this machine by the
    root's dynamic loader with the root's libraries (no chroot, so ports and paths are this machine's)."""
    base = root(REDIS)
    loader = base / "lib64" / "ld-linux-x86-64.so.2"
    libraries = ":".join(str(base / d) for d in ("usr/lib/x86_64-linux-gnu", "lib/x86_64-linux-gnu"))
    directory.mkdir(parents=True, exist_ok=True)
    for name in ("redis-server", "redis-cli"):
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
    redis = commands.add_parser("redis-bin", help="write trixie's redis-server and redis-cli, runnable here, into DIR")
    redis.add_argument("directory", type=Path, help="where the two commands go (put it first in PATH)")
    args = parser.parse_args(argv)
    if args.command == "root":
        print(root(tuple(args.packages), args.arch))
    else:
        print(redis_bin(args.directory))
    return 0


if __name__ == "__main__":
    sys.exit(main())
