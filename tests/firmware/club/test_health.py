"""What the doctor says of the club: an address tablemate.service may not reach, and a club Redis that
lets anyone in (test_acl.py), from `systemctl show` as systemd prints a unit's IP access lists."""

import pytest

from firmware.club.health import beyond_reach

#: `systemctl show --property=IPAddressAllow,IPAddressDeny tablemate.service` for systemd/tablemate.service
SHOWN = ("IPAddressAllow=127.0.0.0/8 ::1/128 169.254.0.0/16 fe80::/64 10.0.0.0/8 172.16.0.0/12 192.168.0.0/16 fc00::/7\n"
         "IPAddressDeny=0.0.0.0/0 ::/0\n")


@pytest.fixture
def systemctl(tmp_path, monkeypatch):
    """A `systemctl` first on PATH that answers `show` with `shown`."""
    def install(shown: str, status: int = 0) -> None:
        (tmp_path / "shown").write_text(shown)
        program = tmp_path / "systemctl"
        program.write_text(f'#!/bin/sh\ncat "{tmp_path / "shown"}"\nexit {status}\n')
        program.chmod(0o755)
        monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")
    return install


def test_a_club_beyond_the_lan_is_outside_what_the_service_may_reach(systemctl):
    systemctl(SHOWN)
    assert beyond_reach("redis://203.0.113.7:6379/0") == "203.0.113.7"
    assert beyond_reach("redis+cluster://192.168.1.5:7000,203.0.113.8:7000") == "203.0.113.8"
    for url in ("redis://192.168.1.5:6379/0", "redis://10.1.2.3/0", "redis://localhost:6379/0", "redis://[fd00::5]:6379/0",
                "unix:///run/redis/redis.sock"):
        assert beyond_reach(url) is None, url


def test_no_list_no_unit_or_no_systemd_fences_nothing(systemctl):
    systemctl(SHOWN.replace("IPAddressDeny=0.0.0.0/0 ::/0", "IPAddressDeny="))  # a drop-in that opened it
    assert beyond_reach("redis://203.0.113.7:6379/0") is None
    systemctl(SHOWN.replace(" fc00::/7", " fc00::/7 203.0.113.7/32"))  # a drop-in that adds the club's address
    assert beyond_reach("redis://203.0.113.7:6379/0") is None
    systemctl("System has not been booted with systemd as init system (PID 1). Can't operate.\n", status=1)
    assert beyond_reach("redis://203.0.113.7:6379/0") is None


def test_the_doctor_names_the_drop_in_that_lets_the_service_reach_the_club(systemctl, tmp_path):
    from firmware.club.health import check
    from firmware.config import DESKTOP, load_profile
    from tests.firmware.profiles import with_store

    systemctl(SHOWN)
    profile = tmp_path / "profile.toml"
    profile.write_text(with_store(DESKTOP.read_text(), "memory://") + '\n[club]\nurl = "redis://203.0.113.7:6379/0"\n')
    [(fine, text)] = check(load_profile(profile))
    assert not fine and "203.0.113.7 is outside the addresses tablemate.service may reach" in text
    assert "sudo systemctl edit tablemate, and add [Service] IPAddressAllow=203.0.113.7" in text
