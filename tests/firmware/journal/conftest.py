"""The journal's tests run on the in-memory store and on a Redis Cluster."""

import inspect

import pytest


@pytest.fixture(params=["memory", "cluster"])
def store_url(request):
    """Each test on the in-memory store and on a 3-master Redis Cluster (firmware.store's keys keep a
    table in one hash slot); the tests that cut a fakeredis connection run on memory alone."""
    if request.param == "cluster":
        if "memory_url" in inspect.signature(request.function).parameters:
            pytest.skip("simulates an outage with fakeredis")
        return request.getfixturevalue("cluster_url")
    return request.getfixturevalue("memory_url")
