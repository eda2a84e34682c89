"""The journal's tests run on the in-memory store and on a Redis Cluster; those that need what only a
real server does (XSETID, which fakeredis lacks) on a redis-server and on a Redis Cluster."""

import pytest


def pytest_generate_tests(metafunc):
    """Each test on the in-memory store and on a 3-master Redis Cluster (firmware.store's keys keep a
    table in one hash slot); a test that cuts a fakeredis connection (it asks for `memory_url`)
    runs on the in-memory store alone."""
    if "store_url" in metafunc.fixturenames:
        kinds = ["memory"] if "memory_url" in metafunc.fixturenames else ["memory", "cluster"]
        metafunc.parametrize("store_url", kinds, indirect=True)
    if "real_url" in metafunc.fixturenames:
        metafunc.parametrize("real_url", ["redis", "cluster"], indirect=True)


@pytest.fixture
def store_url(request):
    return request.getfixturevalue("cluster_url" if request.param == "cluster" else "memory_url")


@pytest.fixture
def real_url(request):
    """A real Redis: a redis-server of the test's own, or the shared 3-master Redis Cluster."""
    return request.getfixturevalue("cluster_url") if request.param == "cluster" else request.getfixturevalue("redis_server").url
