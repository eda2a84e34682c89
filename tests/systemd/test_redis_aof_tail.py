"""systemd/redis-aof-tail, run before each start of Redis (redis-server's drop-in): a write that a
power cut tore at the end of the append-only file is cut off and kept aside, and Redis starts with
every write it acknowledged; damage anywhere else, or more than a write, is left as it is and named.
A real redis-server, and the redis-check-aof beside it."""

import shutil
import subprocess
from pathlib import Path

import pytest
import redis

from tests.redis_server import RedisServer

REPO = Path(__file__).parents[2]
SCRIPT = REPO / "systemd" / "redis-aof-tail"
DROP_IN = REPO / "systemd" / "redis-server.service.d" / "tablemate.conf"
INSTALLED = "/usr/local/lib/tablemate/redis-aof-tail"
#: the write a power cut tore: one transaction as Redis appends it (MULTI ... EXEC)
WRITE = (b"*1\r\n$5\r\nMULTI\r\n*5\r\n$4\r\nXADD\r\n$1\r\ns\r\n$3\r\n9-0\r\n$1\r\nn\r\n$1\r\n9\r\n"
         b"*1\r\n$4\r\nEXEC\r\n")

needs_check = pytest.mark.skipif(shutil.which("redis-check-aof") is None,
                                 reason="redis-check-aof is not installed (apt-get install redis-tools; .ci/run does)")


class Stored:
    """A redis-server that acknowledged five entries and stopped; its AOF's last file."""

    def __init__(self, directory: Path):
        self.server = RedisServer(directory).start()
        for n in range(1, 6):
            redis.Redis(port=self.server.port).xadd("s", {"n": n}, id=f"{n}-0")
        self.server.stop()
        self.manifest = directory / "appendonlydir" / "appendonly.aof.manifest"
        last = [line.split() for line in self.manifest.read_text().splitlines()][-1]
        self.last = self.manifest.parent / last[last.index("file") + 1]

    def check(self) -> subprocess.CompletedProcess:
        return subprocess.run([str(SCRIPT), str(self.manifest)], capture_output=True, text=True, timeout=30)

    def entries(self) -> list[bytes]:
        self.server.start()
        try:
            return [fields[b"n"] for _, fields in redis.Redis(port=self.server.port).xrange("s")]
        finally:
            self.server.stop()


@needs_check
@pytest.mark.parametrize("torn", [WRITE[:len(WRITE) // 2], b"\0" * (len(WRITE) // 2) + WRITE[len(WRITE) // 2:]],
                         ids=["its start on the disk", "its end on the disk"])
def test_a_write_torn_at_the_end_is_cut_off_and_kept_aside_and_redis_starts_with_every_acknowledged_one(tmp_path, torn):
    stored = Stored(tmp_path / "redis")
    size = stored.last.stat().st_size
    with stored.last.open("ab") as aof:
        aof.write(torn)
    done = stored.check()
    assert done.returncode == 0
    assert stored.last.stat().st_size == size
    [aside] = (tmp_path / "redis").glob(f"{stored.last.name}.torn-*")
    assert aside.read_bytes() == torn
    assert f"{stored.last} ended in a write torn by a power cut ({len(torn)} bytes after byte {size}" in done.stderr
    assert stored.entries() == [b"1", b"2", b"3", b"4", b"5"]


@needs_check
@pytest.mark.parametrize("where", ["inside", "too much"])
def test_other_damage_is_left_as_it_is_and_named(tmp_path, where):
    """A byte damaged before the last write (cutting there would drop acknowledged ones), or more
    garbage at the end than one write: the owner decides."""
    stored = Stored(tmp_path / "redis")
    data = stored.last.read_bytes()
    if where == "inside":
        at = data.index(b"*5\r\n$4\r\nXADD")  # the first entry's command, no longer a command
        data = data[:at] + b"?" + data[at + 1:]
    else:
        data += b"\0" * 5000 + WRITE
    stored.last.write_bytes(data)
    done = stored.check()
    assert done.returncode == 0 and stored.last.read_bytes() == data
    assert not list((tmp_path / "redis").glob("*.torn-*"))
    assert f"{stored.last} is damaged after byte" in done.stderr and "redis-check-aof --fix" in done.stderr


@needs_check
def test_a_whole_file_and_no_file_are_left_alone_without_a_word(tmp_path):
    stored = Stored(tmp_path / "redis")
    data = stored.last.read_bytes()
    done = stored.check()
    assert (done.returncode, done.stderr, stored.last.read_bytes()) == (0, "", data)
    done = subprocess.run([str(SCRIPT), str(tmp_path / "none" / "appendonly.aof.manifest")], capture_output=True, text=True)
    assert (done.returncode, done.stderr) == (0, "")


def test_the_script_is_shellcheck_clean():
    shellcheck = shutil.which("shellcheck")
    if shellcheck is None:
        pytest.skip("shellcheck is not installed (.ci/run installs it with apt)")
    result = subprocess.run([shellcheck, "--severity=style", str(SCRIPT)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


def test_the_drop_in_runs_the_check_before_redis_starts_and_systemd_analyze_verify_is_silent(tmp_path):
    """Debian's unit, as far as systemd reads it, with the drop-in beside it (the script where the
    installer puts it, here the checkout's)."""
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed (.ci/run installs systemd)")
    text = DROP_IN.read_text()
    assert f"ExecStartPre=-+{INSTALLED} /var/lib/redis/appendonlydir/appendonly.aof.manifest" in text.splitlines()
    (tmp_path / "redis-server.service").write_text(
        "[Service]\nType=notify\nExecStart=/bin/true\nUser=redis\nNoExecPaths=/\nExecPaths=/bin/true\n")
    (tmp_path / "redis-server.service.d").mkdir()
    (tmp_path / "redis-server.service.d" / "tablemate.conf").write_text(text.replace(INSTALLED, str(SCRIPT)))
    done = subprocess.run([analyze, "verify", str(tmp_path / "redis-server.service")], capture_output=True, text=True,
                          env={"SYSTEMD_UNIT_PATH": f"{tmp_path}:", "PATH": "/usr/bin:/bin"})
    assert (done.returncode, done.stdout + done.stderr) == (0, "")
