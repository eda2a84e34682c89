"""A real redis-server on loopback for integration tests, started and stopped by the fixtures."""

import random
import shutil
import socket
import subprocess
import time
from pathlib import Path

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def free_cluster_port() -> int:
    """A free port whose cluster bus port (the port + 10000) is free too."""
    while True:
        port = random.randint(20000, 50000)
        try:
            for candidate in (port, port + 10000):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", candidate))
        except OSError:
            continue
        return port


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
        client = redis.Redis(port=self.port, retry=Retry(NoBackoff(), 0))  # this loop is the retry
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                return self
            except redis.AuthenticationError:  # it answers, and asks for a login (its default user is off)
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


class RedisClusterServers:
    """A Redis Cluster of `masters` redis-servers on loopback, no replicas, joined by `redis-cli --cluster
    create` (what an owner would run); each node with its own directory and AOF as on the Pi."""

    def __init__(self, directory: Path, masters: int = 3):
        self.nodes = [RedisServer(directory / f"node{n}", port=free_cluster_port(), args=("--cluster-enabled", "yes", "--cluster-config-file",
                                                               str(directory / f"node{n}" / "nodes.conf"),
                                                               "--cluster-node-timeout", "2000"))
                      for n in range(masters)]

    @property
    def url(self) -> str:
        """The store URL a profile names it by (firmware.store): every node as a seed."""
        return "redis+cluster://" + ",".join(f"127.0.0.1:{node.port}" for node in self.nodes)

    @staticmethod
    def unavailable() -> str | None:
        """Why no cluster can be made here (None: it can)."""
        cli = shutil.which("redis-cli")
        if cli is None:
            return "redis-cli is not installed (apt-get install redis-tools; .ci/run does)"
        usage = subprocess.run([cli, "--cluster", "help"], capture_output=True, text=True)
        if "create" not in usage.stdout + usage.stderr:
            return "this redis-cli has no --cluster create (Redis 5 or newer has it)"
        return None

    def start(self) -> "RedisClusterServers":
        for node in self.nodes:
            node.start()
        subprocess.run([shutil.which("redis-cli"), "--cluster", "create", *(f"127.0.0.1:{node.port}" for node in self.nodes),
                        "--cluster-replicas", "0", "--cluster-yes"], check=True, capture_output=True, timeout=60)
        deadline = time.monotonic() + 20
        for node in self.nodes:
            client = redis.Redis(port=node.port, decode_responses=True)
            while client.execute_command("CLUSTER INFO").get("cluster_state") != "ok":
                if time.monotonic() > deadline:
                    raise RuntimeError("the cluster did not come up")
                time.sleep(0.05)
        return self

    def flush(self) -> None:
        """Empty every node (between tests sharing the cluster)."""
        for node in self.nodes:
            redis.Redis(port=node.port).flushall()

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()
