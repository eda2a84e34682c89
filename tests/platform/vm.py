"""A Debian trixie machine booted in QEMU with Debian's own kernel and real systemd: its image, built
once and cached, and a harness that boots it, runs commands in it over SSH, copies files in, and
pulls its power.

    disk = image(packages=("strace",), files={"/etc/motd": b"hi\\n"})    # the base and these extras
    with VM(disk, workdir) as vm:                                        # its own copy-on-write disk
        vm.boot()
        vm.run("systemctl is-system-running --wait")
        vm.copy_in(Path("checkout"), "/home/pi/tablemate")
        vm.power_pull()                                                  # SIGKILL of QEMU
        vm.boot()                                                        # the same disk, after the cut

The image is a trixie root (tests/platform/trixie.py, so the same cache) with `PACKAGES`, a user
`pi` as Raspberry Pi OS has, root's SSH key, DHCP on the first Ethernet port and QEMU's DNS, made
into an ext4 disk; QEMU boots its kernel and initrd directly (no boot loader). Each VM writes to a
qcow2 overlay of that disk, so the cached image stays as built and a test starts from a fresh
system. The network is QEMU's user-mode one: the guest reaches Debian's archive and PyPI through this
machine, and this machine reaches the guest's SSH on a loopback port. KVM is used when it can run a
guest here, else TCG (`TABLEMATE_VM_ACCEL` = kvm or tcg decides).
"""

import argparse
import functools
import os
import select
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from . import trixie

#: a bootable trixie as a Raspberry Pi OS Lite has it, with Debian's kernel and an SSH server; the
#: compiler and python3-venv are in every Raspberry Pi OS Lite (pi-gen's stage2 package list)
PACKAGES = ("linux-image-amd64", "initramfs-tools", "systemd-sysv", "udev", "dbus", "kmod", "e2fsprogs",
            "openssh-server", "sudo", "iproute2", "procps", "netbase", "python3", "python3-venv", "build-essential")
#: the guest's network: DHCP from QEMU's user-mode network, whose DNS is 10.0.2.3; the user `pi` runs
#: sudo without a password, as Raspberry Pi OS's first user does (pi-gen's 010_pi-nopasswd)
FILES = {
    "/etc/sudoers.d/010_pi-nopasswd": b"pi ALL=(ALL) NOPASSWD: ALL\n",
    "/etc/systemd/network/10-ethernet.network": b"[Match]\nName=e*\n\n[Network]\nDHCP=yes\n",
    "/etc/resolv.conf": b"nameserver 10.0.2.3\n",
    "/etc/hostname": b"tablemate\n",
    "/etc/hosts": b"127.0.0.1 localhost\n127.0.1.1 tablemate\n",
    "/etc/fstab": b"/dev/vda / ext4 errors=remount-ro 0 1\n",
}
COMMANDS = ("systemctl enable systemd-networkd ssh",
            "useradd --create-home --shell /bin/bash --groups sudo pi",
            "chmod 0700 /root/.ssh && chmod 0600 /root/.ssh/authorized_keys && chmod 0440 /etc/sudoers.d/010_pi-nopasswd")
DISK_GB = 8
#: how long the kernel may take under KVM to reach its initrd's /init (about a second where KVM works)
KVM_PROBE_S = 20
KERNEL_ARGS = "root=/dev/vda rw console=ttyS0 net.ifnames=0 systemd.journald.forward_to_console=0"


@dataclass(frozen=True)
class Image:
    """A bootable disk (qcow2, the base of each VM's own disk), its kernel and initrd, and the key
    that logs in as root."""
    disk: Path
    kernel: Path
    initrd: Path
    key: Path


def ssh_key() -> Path:
    """The private key of the images' root login (made once, kept in the cache)."""
    key = trixie.cache() / "vm-ssh" / "id_ed25519"
    if not key.exists():
        key.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "tablemate-vm", "-f", str(key)], check=True)
    return key


def image(packages: Sequence[str] = (), files: Mapping[str, bytes] | None = None, commands: Sequence[str] = ()) -> Image:
    """The VM image with `packages`, `files` and `commands` beyond the base (as trixie.root takes
    them), built once and then taken from the cache."""
    key = ssh_key()
    base = trixie.root((*PACKAGES, *packages), files={**FILES, "/root/.ssh/authorized_keys": key.with_suffix(".pub").read_bytes(),
                                                      **(files or {})}, commands=(*COMMANDS, *commands), online=True)

    def build(directory: Path) -> None:
        kernel, initrd = (max((base / "boot").glob(pattern)) for pattern in ("vmlinuz-*", "initrd.img-*"))
        shutil.copy(kernel, directory / "vmlinuz")
        shutil.copy(initrd, directory / "initrd.img")
        raw = directory / "disk.raw"
        subprocess.run(["mke2fs", "-q", "-t", "ext4", "-L", "root", "-d", str(base), str(raw), f"{DISK_GB}G"], check=True,
                       stdout=subprocess.DEVNULL)
        subprocess.run(["qemu-img", "convert", "-O", "qcow2", str(raw), str(directory / "disk.qcow2")], check=True)
        raw.unlink()

    built = trixie.cached(f"{base.name}-disk", build)
    return Image(built / "disk.qcow2", built / "vmlinuz", built / "initrd.img", key)


def kvm_works(base: Image) -> bool:
    """Whether KVM runs this image's kernel here: booted with -cpu host and no disk, it must reach
    its first user-space program (the initrd's /init) within a few seconds. /dev/kvm may open and a
    boot sector run while a kernel still hangs or QEMU aborts, as under nested KVM on these machines."""
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return False
    command = ["qemu-system-x86_64", "-accel", "kvm", "-cpu", "host", "-m", "512", "-display", "none", "-nodefaults",
               "-no-reboot", "-serial", "stdio", "-kernel", str(base.kernel), "-initrd", str(base.initrd),
               "-append", "console=ttyS0 panic=-1 root=/dev/null"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL) as qemu:
        output = bytearray()
        deadline = time.monotonic() + KVM_PROBE_S
        try:
            while b"Run /init as init process" not in output and time.monotonic() < deadline:
                ready, _, _ = select.select([qemu.stdout], [], [], 0.5)
                if ready:
                    chunk = os.read(qemu.stdout.fileno(), 65536)
                    if not chunk:
                        break  # QEMU ended (it aborts when KVM refuses the CPU's set-up)
                    output += chunk
        finally:
            qemu.kill()
    return b"Run /init as init process" in output


@functools.cache
def accelerator(base: Image) -> str:
    chosen = os.environ.get("TABLEMATE_VM_ACCEL")
    if chosen not in (None, "kvm", "tcg"):
        raise ValueError(f"TABLEMATE_VM_ACCEL={chosen!r}: kvm or tcg")
    return chosen or ("kvm" if kvm_works(base) else "tcg")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class VMError(AssertionError):
    """The VM did not do what was asked; the message ends with the tail of its console."""


class VM:
    """One machine: its own disk (a qcow2 overlay of the image), console log and SSH port in
    `workdir`; boot(), run(), copy_in(), shutdown(), power_pull(). The disk outlives power cuts and
    shutdowns: the next boot() starts from it, and so does a VM made again on the same `workdir`
    (a kept test's machine, booted to look inside)."""

    def __init__(self, base: Image, workdir: Path, *, memory_mb: int = 2048, cpus: int = 2, accel: str | None = None):
        self.image, self.workdir = base, workdir
        self.memory_mb, self.cpus = memory_mb, cpus
        self.accel = accel or accelerator(base)
        self.disk = workdir / "disk.qcow2"
        self.console = workdir / "console.log"
        self.process: subprocess.Popen | None = None
        self.port = 0
        workdir.mkdir(parents=True, exist_ok=True)
        if not self.disk.exists():
            subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", "-F", "qcow2", "-b", str(base.disk), str(self.disk)],
                           check=True)

    def __enter__(self) -> "VM":
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process is not None:
            self.power_pull()

    def start(self) -> None:
        """Start QEMU (the machine powers on); `boot` also waits for its SSH."""
        if self.process is not None:
            raise VMError("the VM is already running")
        self.port = free_port()
        cpu = ["-cpu", "host"] if self.accel == "kvm" else ["-cpu", "max"]
        command = ["qemu-system-x86_64", "-accel", self.accel, *cpu, "-smp", str(self.cpus), "-m", str(self.memory_mb),
                   "-nodefaults", "-display", "none", "-no-reboot", "-serial", f"file:{self.console}",
                   "-kernel", str(self.image.kernel), "-initrd", str(self.image.initrd), "-append", KERNEL_ARGS,
                   "-drive", f"file={self.disk},format=qcow2,if=virtio",
                   "-netdev", f"user,id=net0,hostfwd=tcp:127.0.0.1:{self.port}-:22", "-device", "virtio-net-pci,netdev=net0",
                   "-device", "virtio-rng-pci"]
        with open(self.console, "ab") as log:
            log.write(f"\n==== power on: {' '.join(command)}\n".encode())
        self.started = time.monotonic()
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=open(self.workdir / "qemu.stderr", "ab"))

    def boot(self, timeout: float = 600) -> float:
        """Power on and wait until SSH logs in; the seconds that took."""
        self.start()
        deadline = self.started + timeout
        while time.monotonic() < deadline:
            if (status := self.process.poll()) is not None:
                self.process = None
                raise self.error(f"QEMU ended while booting (exit status {status}; {self.workdir / 'qemu.stderr'})")
            if self.ssh("true", timeout=30, connect_timeout=5).returncode == 0:
                return time.monotonic() - self.started
            time.sleep(2)
        raise self.error(f"no SSH login within {timeout} s of power-on")

    def ssh_options(self, connect_timeout: int = 10) -> list[str]:
        """ssh's options to log in as root (`ssh OPTIONS root@127.0.0.1 COMMAND`)."""
        return ["-i", str(self.image.key), "-p", str(self.port), "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no",
                "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", "-o", f"ConnectTimeout={connect_timeout}",
                "-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=6"]

    def ssh(self, command: str, *, timeout: float, connect_timeout: int = 10, input: bytes | None = None) -> subprocess.CompletedProcess:
        try:
            return subprocess.run(["ssh", *self.ssh_options(connect_timeout), "root@127.0.0.1", command], input=input,
                                  capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired as expired:
            return subprocess.CompletedProcess(expired.cmd, 255, expired.stdout or b"", (expired.stderr or b"") + b"\n(timed out)")

    def run(self, command: str, *, timeout: float = 600, check: bool = True, input: bytes | None = None) -> subprocess.CompletedProcess:
        """Run `command` as root in the guest's shell; its output as text. `check`: VMError on a
        non-zero exit status, with the command's output."""
        result = self.ssh(command, timeout=timeout, input=input)
        result = subprocess.CompletedProcess(command, result.returncode, result.stdout.decode(errors="replace"),
                                             result.stderr.decode(errors="replace"))
        if check and result.returncode != 0:
            raise self.error(f"`{command}` exited with {result.returncode}:\n{result.stdout}{result.stderr}")
        return result

    def copy_in(self, files: Mapping[str, Path] | Path, destination: str, *, owner: str = "root") -> None:
        """Copy `files` (name in `destination` -> path here, or a whole directory) into the guest's
        `destination`, owned by `owner`."""
        if isinstance(files, Path):
            files = {str(path.relative_to(files)): path for path in sorted(files.rglob("*")) if path.is_file()}
        with tempfile.TemporaryFile() as archive:
            with tarfile.open(fileobj=archive, mode="w") as tar:
                for name, path in files.items():
                    tar.add(path, arcname=name, recursive=False)
            archive.seek(0)
            target = shlex.quote(destination)
            self.run(f"mkdir -p {target} && tar -x -C {target} --no-same-owner && chown -R {shlex.quote(owner)}: {target}",
                     input=archive.read())

    def shutdown(self, timeout: float = 300) -> None:
        """A clean power-off (`systemctl poweroff`), waiting for QEMU to end."""
        self.ssh("systemctl poweroff", timeout=30)
        self._wait_gone(timeout, "power off")

    def reboot(self, timeout: float = 600) -> float:
        """`systemctl reboot` (QEMU runs with -no-reboot, so it ends) and a new boot; its seconds."""
        self.ssh("systemctl reboot", timeout=30)
        self._wait_gone(timeout, "reboot")
        return self.boot(timeout)

    def power_pull(self) -> None:
        """Cut the power: SIGKILL of QEMU. What the guest had not written to its disk (its page
        cache, QEMU's cached qcow2 tables of unflushed writes) is lost as in a power cut."""
        if self.process is None:
            return
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        self.process = None

    def _wait_gone(self, timeout: float, what: str) -> None:
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            raise self.error(f"still running {timeout} s after {what}") from None
        self.process = None

    def error(self, message: str) -> VMError:
        tail = self.console.read_text(errors="replace").splitlines()[-30:] if self.console.exists() else []
        return VMError(message + "\n-- the console's last lines:\n" + "\n".join(tail))


def run_check(target: str, parser: argparse.ArgumentParser, run: Callable[[str, Path], object], argv: list[str] | None) -> int:
    """The entry point of a check made in a VM (`make TARGET`): as root, in a new directory kept when
    it fails (the VM's disk, its console log) or with --keep; `run(game, workdir)` returns the phases,
    printed. `parser` has the check's own --game."""
    parser.add_argument("--keep", action="store_true", help="keep the VM's directory (its disk, console log) even when it passed")
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        print(f"{parser.prog} builds its image as root (mmdebstrap, then mke2fs with the files' owners): "
              f"run it as root (sudo make {target})", file=sys.stderr)
        return 2
    workdir = Path(tempfile.mkdtemp(prefix=f"tablemate-{target}-"))
    try:
        phases = run(args.game, workdir)
    except (AssertionError, VMError):
        print(f"{target}: FAILED; the VM's disk and console log are in {workdir}", file=sys.stderr)
        raise
    print(phases.summary())
    if args.keep:
        print(f"{target}: the VM's directory: {workdir}")
    else:
        shutil.rmtree(workdir)
    return 0
