"""tablemate doctor: each check in plain words, and a failing exit status when something is wrong."""

import io
import sys
from pathlib import Path

from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from firmware.config import DESKTOP as DESKTOP_PROFILE
from firmware.config import load_profile
from tests.firmware.profiles import with_local_dir, with_store
from firmware.doctor import run_checks
from tests.drivers.fake_rc522 import FakeBus, WallClock
from tests.redis_server import RedisServer

DESKTOP = DESKTOP_PROFILE.read_text()


def doctor(tmp_path, text):
    path = tmp_path / "profile.toml"
    path.write_text(text)
    out = io.StringIO()
    return run_checks(load_profile(path), out), out.getvalue()


def test_the_desktop_profile_is_all_well(tmp_path):
    code, out = doctor(tmp_path, with_store(DESKTOP, "memory://"))
    assert code == 0 and out.endswith("all well\n")
    assert "ok: reader shared (mock, shared): answers" in out and "ok: display terminal: answers" in out


def test_rpi_gpio_is_said_to_be_the_shim_or_not_needed_never_just_fine(tmp_path, monkeypatch):
    monkeypatch.setattr("firmware.doctor.module_file", lambda: None)
    monkeypatch.setattr("firmware.doctor.check_rpi_gpio", lambda required: None)
    assert "ok: RPi.GPIO: not installed, and this profile needs none (no SPI display)" in doctor(tmp_path, with_store(DESKTOP, "memory://"))[1]
    monkeypatch.setattr("firmware.doctor.module_file", lambda: Path("/usr/lib/python3/dist-packages/RPi/GPIO/__init__.py"))
    assert "ok: RPi.GPIO: rpi-lgpio's shim" in doctor(tmp_path, with_store(DESKTOP, "memory://"))[1]


def test_redis_not_answering_is_a_problem_with_the_fix(tmp_path):
    from tests.redis_server import free_port

    code, out = doctor(tmp_path, with_store(DESKTOP, f'redis://127.0.0.1:{free_port()}/0'))
    assert code == 1 and "PROBLEM: Redis at redis://127.0.0.1:" in out and "sudo systemctl start redis-server" in out


def test_redis_with_and_without_its_append_only_file(tmp_path, redis_server):
    on_redis = with_store(DESKTOP, redis_server.url)
    requiring = on_redis.replace(f'url = "{redis_server.url}"', f'url = "{redis_server.url}"\nrequire_aof = true')
    code, out = doctor(tmp_path, requiring)
    assert code == 0 and "writes every action to disk before answering" in out
    plain = RedisServer(tmp_path / "plain", aof=False)
    (tmp_path / "plain").mkdir()
    plain.start()
    try:
        code, out = doctor(tmp_path, requiring.replace(redis_server.url, plain.url))
        assert code == 1 and f"PROBLEM: Redis keeps no append-only file: a power cut can lose the last actions (the profile's [store] " \
            f"require_aof); fix: redis-cli -p {plain.port} CONFIG SET appendonly yes" in out
        code, out = doctor(tmp_path, on_redis.replace(redis_server.url, plain.url))
        assert code == 0 and "ok: the profile does not require Redis's append-only file" in out
    finally:
        plain.stop()


def test_a_redis_that_may_evict_keys_is_a_problem_with_the_fix_and_the_lease_holder_is_shown(tmp_path, redis_server):
    from firmware.journal import Journal
    from firmware.journal.lease import this_process
    from firmware.store import connect

    client = connect(redis_server.url)
    client.config_set("maxmemory-policy", "allkeys-lru")
    code, out = doctor(tmp_path, with_store(DESKTOP, redis_server.url))
    assert code == 1 and "PROBLEM: Redis's maxmemory-policy is allkeys-lru: when its memory is full it deletes keys, games among " \
        f"them; fix: redis-cli -p {redis_server.port} CONFIG SET maxmemory-policy noeviction" in out
    assert "ok: writer lease of table desktop: free (no tablemate writes table desktop now)" in out
    Journal(client, "desktop").claim()
    me = this_process()
    _, out = doctor(tmp_path, with_store(DESKTOP, redis_server.url))
    assert f"ok: writer lease of table desktop: held by {me.host} (pid {me.pid}) for 15 s more" in out
    client.delete("tablemate:{desktop}:writer")
    client.rpush("tablemate:{desktop}:writer", "x")
    code, out = doctor(tmp_path, with_store(DESKTOP, redis_server.url))
    assert code == 1 and "PROBLEM: writer lease of table desktop: stale: the key holds another kind of data than a writer's name; " \
        "the table takes it over at its next write" in out
    client.delete("tablemate:{desktop}:writer")
    client.set("tablemate:{desktop}:writer", "garbage")
    _, out = doctor(tmp_path, with_store(DESKTOP, redis_server.url))
    assert "PROBLEM: writer lease of table desktop: stale: its value 'garbage' names no writer" in out


def test_an_rc522_without_spidev_is_named(tmp_path):
    text = DESKTOP.replace('[[readers]]\nname = "seat0"\ndriver = "mock"\nseat = 0', '[[readers]]\nname = "seat0"\ndriver = "mfrc522"\nseat = 0\nbus = 0\ndevice = 0\nrst = 25')
    code, out = doctor(tmp_path, text)
    assert code == 1 and "PROBLEM: reader seat0 (mfrc522, seat 0): the mfrc522 back end needs the spidev library" in out


def test_an_rc522_answers_with_its_chip_version_and_receiver_gain(tmp_path, monkeypatch):
    bus, factory = FakeBus(WallClock()), MockFactory()
    bus.add_chip(0, 0, version=0x88).wire_reset(factory, 25)
    monkeypatch.setitem(sys.modules, "spidev", bus.module())
    monkeypatch.setattr(Device, "pin_factory", factory)
    text = DESKTOP.replace('[[readers]]\nname = "seat0"\ndriver = "mock"\nseat = 0',
                           '[[readers]]\nname = "seat0"\ndriver = "mfrc522"\nseat = 0\nbus = 0\ndevice = 0\nrst = 25\ngain_db = 48')
    code, out = doctor(tmp_path, text)
    assert "ok: reader seat0 (mfrc522, seat 0): answers: FM17522 clone (0x88), receiver gain 48 dB" in out
    factory.close()


def test_the_i2c_bus_speed_is_read_from_the_device_tree_and_unknown_elsewhere(tmp_path):
    from firmware.doctor import Finding, check_i2c_speed

    path = tmp_path / "profile.toml"
    display = 'driver = "terminal"                            # the 128x64 frame drawn in this terminal\n'
    path.write_text(DESKTOP.replace(display, 'driver = "ssd1306"\n').replace('terminal_style = "braille"', "#"))
    profile = load_profile(path)
    root = tmp_path / "root"
    assert check_i2c_speed(profile, root)[0].text.startswith("I2C bus 1: speed unknown")
    node = root / "sys/class/i2c-adapter/i2c-1/of_node"
    node.mkdir(parents=True)
    (node / "clock-frequency").write_bytes((100_000).to_bytes(4, "big"))  # the Pi's default
    slow = check_i2c_speed(profile, root)[0]
    assert not slow.ok and "runs at 100 kHz" in slow.text and "i2c_arm_baudrate=400000" in slow.text
    (node / "clock-frequency").write_bytes(bytes.fromhex("00061a80"))  # 400000, as dtparam sets it
    assert check_i2c_speed(profile, root) == [Finding(True, "I2C bus 1 runs at 400 kHz")]


def test_the_local_copy_is_reported_off_on_and_in_agreement_with_redis_or_not(tmp_path, redis_server):
    from firmware.journal import Journal
    from firmware.journal.local import LocalCopy
    from firmware.store import connect
    from firmware.tagmap import TagEntry, TagMap

    _, out = doctor(tmp_path, with_store(DESKTOP, redis_server.url))
    assert "ok: local copy: off ([store] local_dir is not set): Redis alone keeps the games and the tag map" in out
    state = tmp_path / "state"
    text = with_local_dir(DESKTOP, redis_server.url, state)
    code, out = doctor(tmp_path, text)
    assert code == 0 and f"ok: local copy {state}: on, writable, " in out and "MB free" in out
    assert "ok: local copy holds no games yet, no tag map yet; last written never" in out

    client = connect(redis_server.url)
    journal = Journal(client, "desktop", local=LocalCopy(state, "desktop"))
    journal.claim()
    journal.reconcile()
    journal.begin_game("g1", "thurn_und_taxis", ["Ana", "Ben"], {})
    for number in (1, 2, 3):
        journal.append("g1", number, {"n": number})
    tags = TagMap(client, "desktop", state)
    tags.reconcile()
    tags.set("04a1b2c3", TagEntry("thurn_und_taxis", "card", {"id": "nuernberg-1"}, "Nürnberg 1/3"))
    code, out = doctor(tmp_path, text)
    assert code == 0 and "ok: local copy holds 1 game(s), 3 entries, 1 tags, 0 games' enrolment places; last written 20" in out
    assert "ok: local copy agrees with Redis: its tokens are Redis's, and game g1 has 3 entries in both" in out
    whole = (state / "desktop.jsonl").read_bytes()
    (state / "desktop.jsonl").write_bytes(whole[:whole.rindex(b"\n", 0, -1) + 1])  # its last line lost on the card
    code, out = doctor(tmp_path, text)
    assert code == 1 and "PROBLEM: local copy of the games: it lacks its last 1 records (cut short on the disk" in out
    (state / "desktop.jsonl").write_bytes(whole)

    other = Journal(client, "desktop")  # a run without the copy writes on
    other.adopt(other.load("g1"))
    other.append("g1", 4, {"n": 4})
    code, out = doctor(tmp_path, text)
    assert code == 1 and "PROBLEM: local copy of the games: Redis does not vouch for it" in out
    assert "PROBLEM: game g1: the local copy holds 3 entries, Redis 4; fix: restart the table (sudo systemctl restart tablemate)" in out


def test_a_local_copy_that_cannot_be_written_or_whose_disk_is_nearly_full_is_a_problem_with_the_fix(tmp_path, monkeypatch):
    from firmware.journal import copyhealth

    (tmp_path / "a-file").write_text("")
    code, out = doctor(tmp_path, with_local_dir(DESKTOP, "redis://127.0.0.1:1/0", tmp_path / "a-file" / "state"))
    assert code == 1 and f"PROBLEM: local copy {tmp_path}/a-file/state: cannot be written" in out
    assert "fix: make it a directory the service's user may write (sudo install -d -o tablemate" in out
    monkeypatch.setattr(copyhealth, "LOW_FREE_BYTES", 2**62)
    code, out = doctor(tmp_path, with_local_dir(DESKTOP, "redis://127.0.0.1:1/0", tmp_path / "state"))
    assert code == 1 and f"PROBLEM: local copy {tmp_path}/state: the disk is nearly full" in out and "fix: free room" in out


def test_another_users_local_copy_is_not_checked_and_said_so_instead_of_a_problem(tmp_path, redis_server, monkeypatch):
    """The Pi's login running the doctor may not open the service's /var/lib/tablemate (0750 tablemate)."""
    import os

    state = tmp_path / "state"
    state.mkdir()
    owner = state.stat().st_uid
    monkeypatch.setattr(os, "geteuid", lambda: owner + 4242)
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode, **kw: False if Path(path) == state else real_access(path, mode, **kw))
    code, out = doctor(tmp_path, with_local_dir(DESKTOP, redis_server.url, state))
    assert code == 0 and out.endswith("all well\n"), out
    assert f"not checked: local copy {state}: it is " in out and f"user uid {owner + 4242} may not open it; run the doctor as root or as " in out
    assert "cannot be written" not in out and "cannot be read" not in out


def test_each_missing_part_is_one_line_and_gpiozeros_fallback_warnings_fold_into_the_buttons_line(tmp_path, monkeypatch, caplog, recwarn):
    """Without spidev and a pin library: no log line of the drivers besides the findings, and the
    reasons gpiozero gave for each pin library it tried in the buttons' line, not as warnings."""
    monkeypatch.setattr(Device, "pin_factory", None)
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    text = DESKTOP.replace('[[readers]]\nname = "seat0"\ndriver = "mock"\nseat = 0', '[[readers]]\nname = "seat0"\ndriver = "mfrc522"\nseat = 0\nbus = 0\ndevice = 0\nrst = 25')
    text = text.replace('driver = "mock"                                # gpiozero MockFactory', 'driver = "gpio"  #')
    code, out = doctor(tmp_path, with_store(text, "memory://"))
    assert code == 1
    assert [line for line in out.splitlines() if "seat0" in line] == [
        line for line in out.splitlines() if line.startswith("PROBLEM: reader seat0 (mfrc522, seat 0): ")]
    buttons = [line for line in out.splitlines() if line.startswith("PROBLEM: buttons: ")]
    assert len(buttons) == 1 and "no GPIO access" in buttons[0] and "(gpiozero tried lgpio: " in buttons[0], out
    assert [record.getMessage() for record in caplog.records if record.name.startswith("drivers")] == []
    assert [str(warning.message) for warning in recwarn] == []
