# Every target builds or refreshes .venv itself, so a fresh clone needs nothing else.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test test-redis8 undo-soak bench run system-test virtual-pi arm64-check test-trixie clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	# the stock RC522 library, for the driver tests and bench to compare with; --no-deps, as on the
	# Pi, since its RPi.GPIO dependency cannot run off a Pi (the tests give it a fake one)
	$(PY) -m pip install --quiet --no-deps mfrc522==0.0.7
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/tablemate demo

# Two workers (pytest-xdist): most of the suite waits on processes, Redis and the browser, so the two
# cores overlap that waiting; every test takes its own ports and directories.
test: $(STAMP)
	$(PY) -m pytest -n 2

# Undo through the table in random games of every game, far more examples than make test's, with
# fresh random seeds (tests/e2e/test_undo_property.py: 372 games, about 7 minutes on two busy cores)
undo-soak: $(STAMP)
	UNDO_SOAK=60 $(PY) -m pytest -n 2 tests/e2e/test_undo_property.py

# The journal's, club's and store's tests, and the e2e durability tests, again on Redis 8: Debian
# trixie's redis-server 8.0 (the owner's OS), taken from a trixie root that mmdebstrap builds once and
# caches (tests/platform/trixie.py), and run on this machine through wrappers put first in PATH.
REDIS8 := $(VENV)/redis8
REDIS8_TESTS := tests/firmware/journal tests/firmware/club tests/firmware/test_store.py tests/firmware/test_backup.py \
	tests/e2e/test_recovery.py tests/e2e/test_outage.py tests/e2e/test_hostile_store.py tests/e2e/test_local_copy.py \
	tests/systemd/test_redis_aof_tail.py
test-redis8: $(STAMP)
	$(PY) -m tests.platform.trixie redis-bin $(REDIS8) >/dev/null
	$(REDIS8)/redis-server --version | grep ' v=8\.' || { echo "$(REDIS8)/redis-server is not Redis 8" >&2; exit 1; }
	PATH=$(abspath $(REDIS8)):$$PATH $(PY) -m pytest -n 2 -rs $(REDIS8_TESTS)

bench: $(STAMP)
	$(PY) bench/run.py

# The virtual table: the whole table in a browser page on this machine (tablemate sim, the clone's
# config/desktop.toml); the demos' tag files are enrolled so every game can be played.
run: $(STAMP)
	$(VENV)/bin/tablemate sim $(foreach f,$(wildcard firmware/demos/*.tags.toml),--tags $(f))

# The owner's OS booted: a Debian trixie VM (QEMU; KVM when it works, else TCG) in which install.sh
# sets tablemate up as the README says, then the service under systemd, a power pull, the watchdog,
# the backup (tests/platform/system.py). As root; the image is built once into ~/.cache/tablemate-ci.
system-test: $(STAMP)
	$(PY) -m tests.platform.system

# The virtual Pi: the same trixie VM with Debian's trixie-backports kernel, whose gpio-sim and CUSE
# serve the Pi's GPIO, SPI and I2C devices from the RC522 and panel models; install.sh, the service
# with pi.toml's real drivers, a recorded game played to its golden frame through them, and the
# failures a first Pi meets (tests/virtualpi/system.py, docs/virtual-pi.md). As root.
virtual-pi: $(STAMP)
	$(PY) -m tests.virtualpi.system

# The Pi's architecture: install.sh's package and pip steps in a trixie arm64 root under qemu-user,
# then the hardware libraries, every module and `tablemate demo` there (tests/platform/arm.py). As root.
arm64-check: $(STAMP)
	$(PY) -m tests.platform.arm --arch arm64

# The whole suite on the owner's Python: `make test` in a Debian trixie root (Python 3.13, Redis 8,
# chromium) with its own virtualenv (tests/platform/suite.py). As root.
test-trixie:
	$(PYTHON) -m tests.platform.suite

clean:
	rm -rf $(VENV) build *.egg-info
