"""The system test's own pieces that `make test` can check in moments, so a change elsewhere (the
profile's keys, the STATUS= line, install.sh's package lists) fails here rather than in a VM."""

import tempfile
import uuid
from pathlib import Path

import tomli_w

from firmware import script as scripts, tagfile
from firmware.app import App
from firmware.config import load_profile
from tests.platform import REPO
from tests.platform.arm import apt_packages
from tests.platform.system import acknowledged, mocked_profile, reference


def test_the_mocked_profile_is_pi_toml_with_mock_hardware_and_loads():
    profile = mocked_profile()
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "pi.toml"
        path.write_text(tomli_w.dumps(profile), encoding="utf-8")
        loaded = load_profile(path)
    assert {reader.driver for reader in loaded.readers} == {"mock"} and loaded.buttons.driver == "mock"
    assert loaded.display.driver == "dummy"
    assert loaded.store.require_aof and str(loaded.store.local_dir) == "/var/lib/tablemate"


def test_acknowledged_reads_the_entries_of_the_tables_own_status_line():
    profile = dict(mocked_profile(), store={"url": f"memory://platform-{uuid.uuid4().hex}"})
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "profile.toml"
        path.write_text(tomli_w.dumps(profile), encoding="utf-8")
        loaded = load_profile(path)
    clock = scripts.VirtualClock()
    demos = REPO / "firmware" / "demos"
    app = App.build(loaded, clock=clock, web=False, tags=tagfile.load(demos / "maharani.tags.toml"))
    try:
        app.loop.start()
        assert acknowledged(app.loop.status()) is None  # choosing a game
        scripts.VirtualTime(app, clock).play(scripts.load(demos / "maharani.script")[:60])
        entries = app.loop.table.session.entries
        assert entries > 1 and acknowledged(app.loop.status()) == entries
    finally:
        app.close()
    assert acknowledged("Taj Mahal: Round 2, 57 entries; Redis does not answer, 3 waiting") == 54


def test_the_reference_game_has_a_snapshot_per_entry_count_up_to_the_end():
    demos = REPO / "firmware" / "demos"
    steps, snapshots = reference(mocked_profile(), demos / "maharani.script", demos / "maharani.tags.toml")
    counts = sorted(snapshots)
    assert counts[0] == 0 and snapshots[0].actions == [] and len(snapshots[0].scores) == 3  # Maharani's three players
    assert [snapshots[n].step for n in counts] == sorted(snapshot.step for snapshot in snapshots.values())
    assert snapshots[counts[-1]].step < len(steps) and len(snapshots[counts[-1]].actions) > len(snapshots[counts[1]].actions)
    assert [s["total"] for s in snapshots[0].scores] == [0, 0, 0] and snapshots[counts[-1]].scores != snapshots[0].scores


def test_the_arm_roots_hold_install_shs_own_apt_packages():
    text = (REPO / "systemd" / "install.sh").read_text()
    assert all(package in text for package in apt_packages("arm64"))
    assert apt_packages("armhf") == apt_packages("arm64") + ["libjpeg-dev", "zlib1g-dev"]
