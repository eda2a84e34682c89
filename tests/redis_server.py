"""A real redis-server on loopback for integration tests, started and stopped by the fixtures."""

import shutil
import socket
import subprocess
import time
from pathlib import Path

import redis


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    """One redis-server process with its own directory; AOF on (appendfsync always) as on the Pi.

    With `config` (a redis.conf, as apt installs it) the file decides persistence; only the port,
    the directory and running in the foreground are set here. `args` are more options, last.
    """

    def __init__(self, directory: Path, aof: bool = True, config: Path | None = None, port: int | None = None,
                 args: tuple[str, ...] = ()):
        self.directory = directory
        self.port = port or free_port()
        self.aof = aof
        self.config = config
        self.args = args
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> "RedisServer":
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not installed (.ci/run installs it with apt)")
        self.directory.mkdir(parents=True, exist_ok=True)
        args = [binary] + ([str(self.config)] if self.config else [])
        args += ["--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.directory)]
        if self.config:
            args += ["--daemonize", "no", "--supervised", "no", "--logfile", "", "--pidfile", str(self.directory / "pid")]
        else:
            args += ["--save", ""]
        if self.aof and not self.config:
            args += ["--appendonly", "yes", "--appendfsync", "always"]
        args += self.args
        self.process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        client = redis.Redis(port=self.port)
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                return self
            except redis.ConnectionError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise RuntimeError("redis-server did not start") from None
                time.sleep(0.02)

    def stop(self) -> None:
        """SIGTERM: Redis writes what it holds and exits, as at a clean shutdown."""
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
        self.process = None

    def kill(self) -> None:
        """SIGKILL, as a power cut: no shutdown work; only what the AOF holds survives a `start()`."""
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)
        self.process = None
