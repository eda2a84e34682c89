"""Why a device node cannot be opened, said from the refusal's errno and the node's owner, group and mode."""

import errno
import grp
import os
import pwd
from types import SimpleNamespace

import pytest

from drivers import pins


@pytest.fixture
def node(tmp_path):
    path = tmp_path / "spidev0.0"
    path.write_bytes(b"")
    return path


def test_eperm_is_the_units_device_policy_not_a_group(node):
    said = pins.permission_denied(str(node), "spi", errno.EPERM)
    assert "device policy" in said and "DeviceAllow=char-spi rw" in said and "usermod" not in said


def test_eperm_names_the_kernels_name_of_the_nodes_major_as_deviceallow_matches_it():
    said = pins.permission_denied("/dev/null", "spi", errno.EPERM)
    assert "DeviceAllow=char-mem rw" in said  # /proc/devices: "1 mem"


def test_a_node_no_group_may_open_points_at_the_udev_rules_not_at_a_group_to_join(node):
    node.chmod(0o600)
    said = pins.permission_denied(str(node), "spi")
    assert "mode 600, which no group may open" in said and "udev rules give it to group spi" in said
    assert "usermod" not in said


def test_a_user_outside_the_nodes_group_is_told_to_join_it(node, monkeypatch):
    node.chmod(0o660)
    group = grp.getgrgid(os.stat(node).st_gid).gr_name
    monkeypatch.setattr(grp, "getgrgid", lambda gid: SimpleNamespace(gr_name=group, gr_mem=[]))
    user = pwd.getpwuid(os.geteuid()).pw_name
    assert f"user {user} is not in group {group}, which owns it: sudo usermod -aG {group} {user}" in pins.permission_denied(str(node), "spi")


def test_a_user_in_the_group_whose_process_is_not_is_told_to_restart_or_mend_the_unit(node, monkeypatch):
    node.chmod(0o660)
    user = pwd.getpwuid(os.geteuid()).pw_name
    monkeypatch.setattr(grp, "getgrgid", lambda gid: SimpleNamespace(gr_name="spi", gr_mem=[user]))
    said = pins.permission_denied(str(node), "spi")
    assert "is in group spi" in said and "this process is not" in said and "SupplementaryGroups=" in said


def test_a_gpio_chip_refused_is_explained_by_opening_it_since_lgpio_does_not_say_why(monkeypatch):
    monkeypatch.setattr(pins.glob, "glob", lambda pattern: ["/dev/gpiochip0"])
    monkeypatch.setattr(pins, "refusal", lambda path: errno.EPERM)
    said, short = pins.gpio_problem(RuntimeError("can not open gpiochip"), "the button on GPIO5 (pin 29)")
    assert "device policy" in said and short == "no permission"


def test_refusal_is_the_errno_of_a_refused_open_and_none_for_a_node_that_opens(node, monkeypatch):
    assert pins.refusal(str(node)) is None

    def refuse(path, flags):
        raise PermissionError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(pins.os, "open", refuse)
    assert pins.refusal(str(node)) == errno.EPERM
