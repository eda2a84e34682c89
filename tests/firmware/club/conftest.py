"""A club redis-server set up exactly as docs/club.md says: the lines `tablemate club-acl` prints, run
through one redis-cli session (the admin, the default user off, a user per table, the page's user,
CONFIG REWRITE). Whichever redis-server is first on PATH plays the club's (Redis 8: tests/platform)."""

import io
import re
import shlex
from contextlib import redirect_stdout
from dataclasses import dataclass

import pytest
import redis

from firmware.cli import main
from firmware.store import connect
from tests.redis_server import RedisServer


@dataclass
class Club:
    server: RedisServer
    admin: str
    #: table -> its password, as the [club] section printed for it says
    passwords: dict[str, str]
    page: str

    @property
    def url(self) -> str:
        return self.server.url

    def table(self, name: str) -> redis.Redis:
        """A connection as table `name`'s ACL user."""
        return connect(self.url, username=f"table-{name}", password=self.passwords[name])

    def as_admin(self) -> redis.Redis:
        return redis.Redis(port=self.server.port, username="admin", password=self.admin, decode_responses=True)


def set_up(server: RedisServer, *tables: str) -> Club:
    """Run what `tablemate club-acl TABLES...` prints on `server`, as its owner would in redis-cli."""
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["club-acl", *tables]) == 0
    text = out.getvalue()
    cli = redis.Redis(port=server.port, decode_responses=True, single_connection_client=True)
    for line in text.splitlines():
        if line.split(" ", 1)[0] in ("ACL", "AUTH", "CONFIG"):
            cli.execute_command(*shlex.split(line))
    passwords = dict(re.findall(r'table = "([^"]+)"\nuser = "[^"]+"\npassword = "([^"]+)"', text))
    admin = re.search(r"^AUTH admin (\S+)$", text, re.MULTILINE).group(1)
    page = re.search(r"TABLEMATE_CLUB_PASSWORD=(\S+)\)", text).group(1)
    return Club(server, admin, passwords, page)


@pytest.fixture
def club(tmp_path):
    """The club's redis-server with tables t1, t2 and t3, set up as the docs say."""
    conf = tmp_path / "redis.conf"
    conf.write_text('appendonly no\nsave ""\n')
    server = RedisServer(tmp_path / "club", config=conf).start()
    yield set_up(server, "t1", "t2", "t3")
    server.stop()
