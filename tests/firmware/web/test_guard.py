"""The guard's reading of the Host header: exactly a host and an optional port (RFC 9110), or no host."""

import httpx
import pytest

from firmware.web import Background
from firmware.web.guard import host_named


@pytest.mark.parametrize("header, host", [
    ("127.0.0.1", "127.0.0.1"), ("127.0.0.1:8080", "127.0.0.1"), ("LocalHost:80", "localhost"), ("tablemate.local", "tablemate.local"),
    ("[::1]:8080", "::1"), ("[0:0:0:0:0:0:0:1]", "::1"),
    ("evil.example@127.0.0.1", None), ("127.0.0.1@evil.example", None), ("user:pw@127.0.0.1:80", None), ("127.0.0.1:80:80", None),
    ("127.0.0.1/evil", None), ("127.0.0.1 ", None), ("::1", None), ("[::1", None), ("[nope]", None), ("", None), ("127.0.0.1:", None),
])
def test_a_host_header_names_a_host_only_when_it_is_exactly_one(header, host):
    assert host_named(header) == host


def test_the_live_view_with_hosts_answers_only_there(memory_url):
    server = Background(memory_url, "t1", port=0, hosts=("tablemate.local", "::1")).start()
    try:
        for host, status in (("tablemate.local:8080", 200), ("TABLEMATE.local", 200), ("[::1]", 200), ("127.0.0.1", 403),
                             ("evil.example", 403), ("evil.example@tablemate.local", 403)):
            assert httpx.get(server.url + "/api/state", headers={"host": host}, timeout=5).status_code == status, host
    finally:
        server.stop()
    server = Background(memory_url, "t1", port=0).start()  # no list: any host, as before
    try:
        assert httpx.get(server.url + "/api/state", headers={"host": "anything.example"}, timeout=5).status_code == 200
    finally:
        server.stop()
