"""The sd_notify client: datagrams on a path socket and an abstract one; silent outside systemd."""

import os
import socket

import pytest

from firmware.sdnotify import Notifier


@pytest.fixture(params=["path", "abstract"])
def listener(request, tmp_path):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    if request.param == "path":
        address = str(tmp_path / "notify.sock")
        sock.bind(address)
    else:
        address = f"@tablemate-test-{os.getpid()}-{id(sock)}"
        sock.bind("\0" + address[1:])
    sock.settimeout(2)
    yield address, sock
    sock.close()


def test_ready_status_watchdog_and_stopping_arrive(listener):
    address, sock = listener
    notifier = Notifier(address, "", "")
    assert notifier.ready("Ready: Taj Mahal, round 3")
    assert sock.recv(4096).decode().splitlines() == ["READY=1", "STATUS=Ready: Taj Mahal, round 3"]
    notifier.watchdog()
    assert sock.recv(4096) == b"WATCHDOG=1"
    notifier.status("Store unreachable: 2 actions waiting")
    assert sock.recv(4096) == b"STATUS=Store unreachable: 2 actions waiting"
    notifier.stopping()
    assert sock.recv(4096) == b"STOPPING=1"


def test_outside_systemd_nothing_is_sent():
    notifier = Notifier("", "", "")
    assert not notifier.enabled and not notifier.ready() and notifier.watchdog_interval is None


def test_watchdog_interval_is_half_the_period_and_only_for_our_pid():
    assert Notifier("@x", "10000000", "").watchdog_interval == 5.0
    assert Notifier("@x", "10000000", str(os.getpid())).watchdog_interval == 5.0
    assert Notifier("@x", "10000000", "1").watchdog_interval is None


def test_a_vanished_socket_is_not_an_error(tmp_path):
    assert not Notifier(str(tmp_path / "gone.sock"), "", "").ready()
