"""Fixtures shared by every test package."""

import pytest

from firmware.store import memory_server

from .redis_server import RedisClusterServers, RedisServer


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


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory):
    """A 3-master Redis Cluster on loopback, started once for the whole run (tests share it: each
    takes it through `cluster_url`, which empties it first); skipped where none can be made."""
    why = RedisClusterServers.unavailable()
    if why:
        pytest.skip(why)
    cluster = RedisClusterServers(tmp_path_factory.mktemp("cluster")).start()
    yield cluster
    cluster.stop()


@pytest.fixture
def cluster_url(redis_cluster):
    """The shared cluster's URL, emptied for this test."""
    redis_cluster.flush()
    return redis_cluster.url
