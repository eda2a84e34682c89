"""The kernel's side of an unrestricted CUSE ioctl (fs/fuse/ioctl.c), for testing a `Device` without a
kernel: the caller's memory is a bytearray, a pointer an offset in it; each `Retry` gathers the bytes
asked for and makes room for the answer, and the final answer is scattered where `Retry.writes` said."""

from .cuse import Call, Retry

MAX_RETRIES = 8


class Memory:
    """A caller's address space: `put` bytes somewhere and get their address; `read` them back."""

    def __init__(self, size: int = 1 << 16):
        self.ram = bytearray(size)
        self.top = 16  # 0 stays the NULL pointer

    def put(self, data: bytes) -> int:
        address = self.top
        self.ram[address:address + len(data)] = data
        self.top += len(data) + 16
        return address

    def read(self, address: int, length: int) -> bytes:
        return bytes(self.ram[address:address + length])


def ioctl(device, command: int, argument: int, memory: Memory) -> int:
    """What ioctl(2) returns to the caller (raises cuse.Failed for an error)."""
    reads, writes = [], []
    for _ in range(MAX_RETRIES):
        data = b"".join(memory.read(base, length) for base, length in reads)
        try:
            result, out = device.ioctl(Call(command, argument, data, sum(n for _, n in writes), 1))
        except Retry as retry:
            reads, writes = retry.reads, retry.writes
            continue
        for base, length in writes:
            chunk, out = out[:length], out[length:]
            memory.ram[base:base + len(chunk)] = chunk
        return result
    raise AssertionError("the device keeps asking for a retry")
