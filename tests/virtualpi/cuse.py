"""A character device served from this process through CUSE (the kernel's "character device in user
space", part of FUSE): the kernel sends each open, read, write, ioctl and close of the device node to
/dev/cuse as a FUSE request, and the answer written back is what the caller's system call returns.

Only the protocol is here (include/uapi/linux/fuse.h, fs/fuse/cuse.c, fs/fuse/ioctl.c); what a device
answers is a `Device`'s job. Ioctls are "unrestricted" (CUSE_UNRESTRICTED_IOCTL): the kernel knows
nothing of a command's argument, so the device names the caller's memory it wants to read and to
write (`Retry`), and the kernel calls again with those bytes; that is how spidev's SPI_IOC_MESSAGE
and i2c-dev's I2C_RDWR, whose structs carry pointers, reach the caller's buffers.

The region is registered under the device's name (cuse.c: `register_chrdev_region(devt, 1,
devinfo.name)`), and that name is what /proc/devices shows and systemd's DeviceAllow=char-NAME matches.
"""

import errno
import logging
import os
import struct
import threading
from dataclasses import dataclass

log = logging.getLogger(__name__)

IN_HEADER = struct.Struct("<IIQQIIIHH")  # len, opcode, unique, nodeid, uid, gid, pid, total_extlen, padding
OUT_HEADER = struct.Struct("<IiQ")  # len, error, unique
CUSE_INIT_IN = struct.Struct("<IIII")  # major, minor, unused, flags
CUSE_INIT_OUT = struct.Struct("<IIIIIIII40x")  # major, minor, unused, flags, max_read, max_write, dev major, minor
OPEN_OUT = struct.Struct("<QIi")  # fh, open_flags, backing_id
IOCTL_IN = struct.Struct("<QIIQII")  # fh, flags, cmd, arg, in_size, out_size
IOCTL_OUT = struct.Struct("<iIII")  # result, flags, in_iovs, out_iovs
IOVEC = struct.Struct("<QQ")  # base, len

FUSE_OPEN, FUSE_READ, FUSE_WRITE, FUSE_RELEASE, FUSE_FLUSH = 14, 15, 16, 18, 25
FUSE_INTERRUPT, FUSE_DESTROY, FUSE_IOCTL, FUSE_POLL, CUSE_INIT = 36, 38, 39, 40, 4096
FUSE_KERNEL_VERSION, FUSE_MINOR = 7, 31
CUSE_UNRESTRICTED_IOCTL = 1
FUSE_IOCTL_RETRY = 1 << 2
FOPEN_DIRECT_IO, FOPEN_NONSEEKABLE = 1, 4
BUFFER = 1 << 20


class Retry(Exception):
    """Raised by `Device.ioctl`: call again with the caller's memory at `reads` ((address, length)
    pairs) appended to `data`, and with room for the answer at `writes`."""

    def __init__(self, reads: list[tuple[int, int]], writes: list[tuple[int, int]] = ()):
        super().__init__("retry")
        self.reads, self.writes = list(reads), list(writes)


class Failed(Exception):
    """Raised by a `Device` method: the caller's system call fails with `code` (an errno)."""

    def __init__(self, code: int):
        super().__init__(os.strerror(code))
        self.code = code


@dataclass
class Call:
    """One ioctl as the kernel passes it: `data` is the caller's memory asked for so far, in order;
    `room` the bytes of the caller's memory that the answer may fill."""

    command: int
    argument: int
    data: bytes
    room: int
    pid: int


class Device:
    """What a device node does; each method raises `Failed` to fail the caller's system call."""

    def open(self, pid: int) -> None:
        """A process opened the node."""

    def release(self) -> None:
        """A file of the node was closed for the last time."""

    def ioctl(self, call: Call) -> tuple[int, bytes]:
        """The ioctl's return value and the bytes for the memory asked for with `Retry.writes`."""
        raise Failed(errno.ENOTTY)

    def read(self, size: int) -> bytes:
        raise Failed(errno.EINVAL)

    def write(self, data: bytes) -> int:
        raise Failed(errno.EINVAL)


class Server:
    """Serves `device` as /dev/`name` (the kernel's device number `major`:`minor`, or a free one
    when `major` is 0) from a thread, until `close()`."""

    def __init__(self, name: str, device: Device, major: int = 0, minor: int = 0):
        self.name, self.device, self.major, self.minor = name, device, major, minor
        self.ready = threading.Event()
        self.fd = os.open("/dev/cuse", os.O_RDWR)
        self.thread = threading.Thread(target=self._serve, name=f"cuse {name}", daemon=True)
        self.thread.start()

    def close(self) -> None:
        """The node disappears (the kernel unregisters it when the channel closes)."""
        fd, self.fd = self.fd, -1
        if fd >= 0:
            os.close(fd)

    # -- the protocol ----------------------------------------------------------------------------
    def _serve(self) -> None:
        while self.fd >= 0:
            try:
                request = os.read(self.fd, BUFFER)
            except OSError as error:
                if error.errno in (errno.EINTR, errno.EAGAIN, errno.ENOENT):
                    continue
                if error.errno not in (errno.ENODEV, errno.EBADF):
                    log.error("%s: reading /dev/cuse: %s", self.name, error)
                return
            length, opcode, unique, _node, _uid, _gid, pid, _ext, _pad = IN_HEADER.unpack_from(request)
            body = request[IN_HEADER.size:length]
            try:
                answer = self._answer(opcode, body, pid)
            except Failed as failure:
                self._reply(unique, b"", -failure.code)
                continue
            except Exception:  # a bug in a model must fail the call, not kill the device
                log.exception("%s: opcode %d", self.name, opcode)
                self._reply(unique, b"", -errno.EIO)
                continue
            if answer is not None:
                self._reply(unique, answer)
            if opcode == CUSE_INIT:
                self.ready.set()

    def _answer(self, opcode: int, body: bytes, pid: int) -> bytes | None:
        if opcode == CUSE_INIT:
            major, minor, _unused, _flags = CUSE_INIT_IN.unpack_from(body)
            if major != FUSE_KERNEL_VERSION:
                raise Failed(errno.EPROTO)
            info = f"DEVNAME={self.name}\0".encode()
            out = CUSE_INIT_OUT.pack(FUSE_KERNEL_VERSION, min(minor, FUSE_MINOR), 0, CUSE_UNRESTRICTED_IOCTL,
                                     BUFFER // 2, BUFFER // 2, self.major, self.minor)
            return out + info
        if opcode == FUSE_OPEN:
            self.device.open(pid)
            return OPEN_OUT.pack(0, FOPEN_DIRECT_IO | FOPEN_NONSEEKABLE, 0)
        if opcode == FUSE_RELEASE:
            self.device.release()
            return b""
        if opcode == FUSE_FLUSH:
            return b""
        if opcode == FUSE_IOCTL:
            return self._ioctl(body, pid)
        if opcode == FUSE_READ:
            _fh, _offset, size = struct.unpack_from("<QQI", body)
            return self.device.read(size)
        if opcode == FUSE_WRITE:
            _fh, _offset, size = struct.unpack_from("<QQI", body)
            return struct.pack("<II", self.device.write(body[40:40 + size]), 0)
        if opcode in (FUSE_INTERRUPT, FUSE_DESTROY):
            return None  # no answer: the interrupted request still gets its own
        raise Failed(errno.ENOSYS)

    def _ioctl(self, body: bytes, pid: int) -> bytes:
        _fh, _flags, command, argument, in_size, out_size = IOCTL_IN.unpack_from(body)
        data = body[IOCTL_IN.size:IOCTL_IN.size + in_size]
        try:
            result, out = self.device.ioctl(Call(command, argument, data, out_size, pid))
        except Retry as retry:
            vectors = b"".join(IOVEC.pack(*iov) for iov in retry.reads + retry.writes)
            return IOCTL_OUT.pack(0, FUSE_IOCTL_RETRY, len(retry.reads), len(retry.writes)) + vectors
        return IOCTL_OUT.pack(result, 0, 0, 0) + out

    def _reply(self, unique: int, body: bytes, error: int = 0) -> None:
        try:
            os.write(self.fd, OUT_HEADER.pack(OUT_HEADER.size + len(body), error, unique) + body)
        except OSError as failure:
            if failure.errno != errno.ENOENT:  # ENOENT: the caller was interrupted and gave up
                log.error("%s: answering the kernel: %s", self.name, failure)
