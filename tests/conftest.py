"""Fixtures shared by every test package."""

import pytest

from firmware.store import memory_server

from .redis_server import RedisServer


@pytest.fixture
def redis_server(tmp_path):
    """A real redis-server on loopback with AOF, for one test (the test may stop and restart it)."""
    server = RedisServer(tmp_path).start()
    yield server
    server.stop()


@pytest.fixture
def memory_url(request):
    """A fresh `memory://` store URL for one test, so tests never share in-process data."""
    url = f"memory://{request.node.nodeid}"
    yield url
    memory_server(url).connected = True
