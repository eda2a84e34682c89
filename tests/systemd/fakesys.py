"""Stand-ins for the system commands systemd/install.sh runs, acting on a fake root directory.

The installer tests put a directory of small wrappers first on PATH, each running this file with
the command's name. Every call is logged (one JSON list per line) so a test can tell which
commands a run used; each stand-in keeps its state in the fake root the way the real command
keeps it in /, so the installer's own queries (dpkg-query, getent, systemctl is-enabled) see
what its earlier commands did. Environment: FAKESYS_ROOT (the fake /), FAKESYS_LOG,
FAKESYS_PYTHON (the real interpreter), FAKESYS_REDIS_CLI and FAKESYS_REDIS_PORT (the real
redis-cli and the real redis-server it talks to), FAKESYS_REDIS_CONF (the redis.conf the fake
apt-get installs), FAKESYS_DOCTOR ("ok", "fail" or "absent": what `tablemate doctor` does),
FAKESYS_ARCH (what `dpkg --print-architecture` says; arm64 when unset).
"""

import json
import os
import re
import sys
from pathlib import Path

# shutil, subprocess and tomllib are imported where used: every call of a stand-in is a new
# process, and their import time adds up over an installer run.

HERE = Path(__file__).resolve()

# What the fake pip knows of the `pi` extra: each package's files and dependencies. The
# original RPi.GPIO and rpi-lgpio install the same module files, as the real ones do.
PACKAGES = {
    "rpi-lgpio": (["RPi/__init__.py", "RPi/GPIO/__init__.py"], ["lgpio"]),
    "rpi.gpio": (["RPi/__init__.py", "RPi/GPIO/__init__.py"], []),
    "mfrc522": (["mfrc522/__init__.py"], ["RPi.GPIO", "spidev"]),
    "lgpio": (["lgpio.py"], []),
    "spidev": (["spidev.py"], []),
    "smbus2": (["smbus2/__init__.py"], []),
}

#: File contents that matter: rpi-lgpio's RPi.GPIO is pure Python on lgpio (drivers/gpio_check.py
#: tells it from the original by that import).
SOURCES = {("rpi-lgpio", "RPi/GPIO/__init__.py"): "# rpi-lgpio\nimport lgpio\n"}


def fake_root() -> Path:
    return Path(os.environ["FAKESYS_ROOT"])


def log(name: str, args: list[str]) -> None:
    with open(os.environ["FAKESYS_LOG"], "a", encoding="utf-8") as file:
        file.write(json.dumps([name, *args]) + "\n")


def wrapper(target: Path, name: str, *extra: str) -> None:
    """Write an executable at `target` that runs this file as command `name`."""
    words = " ".join([os.environ["FAKESYS_PYTHON"], "-S", str(HERE), name, *extra])
    target.write_text(f'#!/bin/sh\nexec {words} "$@"\n')
    target.chmod(0o755)


# -- packages -------------------------------------------------------------------------------------

INSTALLED = "var/lib/dpkg/fakesys-installed"


def installed_packages() -> set[str]:
    path = fake_root() / INSTALLED
    return set(path.read_text().split()) if path.exists() else set()


def dpkg_query(args: list[str]) -> int:
    """`dpkg-query -W -f='${Package} ${Status}\\n' PACKAGE...`"""
    assert args[:2] == ["-W", "-f=${Package} ${Status}\\n"], args
    unknown = [p for p in args[2:] if p not in installed_packages()]
    for package in args[2:]:
        if package in unknown:
            print(f"dpkg-query: no packages found matching {package}", file=sys.stderr)
        else:
            print(f"{package} install ok installed")
    return 1 if unknown else 0


def dpkg(args: list[str]) -> int:
    assert args == ["--print-architecture"], args
    print(os.environ.get("FAKESYS_ARCH", "arm64"))
    return 0


def apt_get(args: list[str]) -> int:
    import shutil
    if args[0] == "update":
        return 0
    assert args[0] == "install", args
    packages = [a for a in args[1:] if not a.startswith("-")]
    (fake_root() / INSTALLED).parent.mkdir(parents=True, exist_ok=True)
    (fake_root() / INSTALLED).write_text("\n".join(sorted(installed_packages() | set(packages))) + "\n")
    conf = fake_root() / "etc/redis/redis.conf"
    if "redis-server" in packages and not conf.exists():
        conf.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(os.environ["FAKESYS_REDIS_CONF"], conf)
    return 0


def raspi_config(args: list[str]) -> int:
    lines = {"do_i2c": "dtparam=i2c_arm=on", "do_spi": "dtparam=spi=on"}
    assert args[0] == "nonint" and args[1] in lines and args[2] == "0", args
    with open(fake_root() / "boot/firmware/config.txt", "a", encoding="utf-8") as file:
        file.write(lines[args[1]] + "\n")
    return 0


# -- users and groups -----------------------------------------------------------------------------

def table(name: str) -> list[list[str]]:
    return [line.split(":") for line in (fake_root() / "etc" / name).read_text().splitlines() if line]


def save(name: str, rows: list[list[str]]) -> None:
    (fake_root() / "etc" / name).write_text("".join(":".join(row) + "\n" for row in rows))


def getent(args: list[str]) -> int:
    for row in table(args[0]):
        if row[0] == args[1]:
            print(":".join(row))
            return 0
    return 2


def add_group(name: str) -> None:
    groups = table("group")
    assert all(row[0] != name for row in groups), f"group {name} exists"
    save("group", groups + [[name, "x", str(900 + len(groups)), ""]])


def add_members(user: str, names: list[str]) -> None:
    groups = table("group")
    for row in groups:
        if row[0] in names:
            members = [m for m in row[3].split(",") if m]
            assert user not in members, f"{user} is already in {row[0]}"
            row[3] = ",".join(members + [user])
    missing = set(names) - {row[0] for row in groups}
    assert not missing, f"no such groups: {missing}"
    save("group", groups)


def option(args: list[str], name: str) -> str | None:
    return args[args.index(name) + 1] if name in args else None


def groupadd(args: list[str]) -> int:
    add_group(args[-1])
    return 0


def useradd(args: list[str]) -> int:
    user = args[-1]
    users = table("passwd")
    assert all(row[0] != user for row in users), f"user {user} exists"
    assert "--system" in args and "--user-group" in args, args
    add_group(user)
    gid = next(row[2] for row in table("group") if row[0] == user)
    save("passwd", users + [[user, "x", gid, gid, option(args, "--comment") or "", option(args, "--home-dir"), option(args, "--shell")]])
    add_members(user, option(args, "--groups").split(","))
    return 0


def usermod(args: list[str]) -> int:
    assert "--append" in args, "usermod without --append would drop the user's other groups"
    add_members(args[-1], option(args, "--groups").split(","))
    return 0


#: Owners the fake chown gave (the real files stay the test user's): "path user:group" lines.
OWNERS = "var/lib/fakesys/owners"


def chown(args: list[str]) -> int:
    """`chown USER:GROUP PATH` as root would: the user and the group must exist, and the path."""
    owner, path = args
    user, group = owner.split(":")
    assert any(row[0] == user for row in table("passwd")), f"chown: invalid user: {user!r}"
    assert any(row[0] == group for row in table("group")), f"chown: invalid group: {group!r}"
    assert Path(path).exists(), f"chown: cannot access {path!r}: No such file or directory"
    owners = fake_root() / OWNERS
    owners.parent.mkdir(parents=True, exist_ok=True)
    with owners.open("a", encoding="utf-8") as file:
        file.write(f"{path.replace(str(fake_root()), '')} {owner}\n")
    return 0


def stat(args: list[str]) -> int:
    """`stat -c '%a %U:%G' PATH`: the file's mode, and the owner the fake chown last gave it (else
    root:root, as install.sh, run as root, makes its files)."""
    assert args[:2] == ["-c", "%a %U:%G"], args
    path = Path(args[2])
    if not path.exists():
        print(f"stat: cannot statx '{args[2]}': No such file or directory", file=sys.stderr)
        return 1
    owners = fake_root() / OWNERS
    given = [line.rsplit(" ", 1) for line in owners.read_text().splitlines()] if owners.exists() else []
    owner = next((who for name, who in reversed(given) if name == str(path).replace(str(fake_root()), "")), "root:root")
    print(f"{path.stat().st_mode & 0o7777:o} {owner}")
    return 0


# -- services -------------------------------------------------------------------------------------

def wanted_by(unit: str) -> Path:
    """Where `systemctl enable` links `unit`: the target its [Install] WantedBy= names."""
    path = fake_root() / "etc/systemd/system" / unit
    if not path.exists():
        return fake_root() / "etc/systemd/system/multi-user.target.wants" / unit
    target = re.search(r"^WantedBy=(\S+)", path.read_text(), re.MULTILINE)
    assert target, f"{unit} has no WantedBy=: systemctl enable would not know where to link it"
    return fake_root() / "etc/systemd/system" / f"{target.group(1)}.wants" / unit


def systemctl(args: list[str]) -> int:
    verb, unit = args[0], args[-1]
    wants = wanted_by(unit)
    active = fake_root() / "run/fakesys" / f"{unit}.active"
    if verb == "daemon-reload":
        return 0
    if verb == "is-enabled":
        print("enabled" if wants.is_symlink() else "disabled")
        return 0 if wants.is_symlink() else 1
    if verb == "enable":
        assert (fake_root() / "etc/systemd/system" / unit).exists(), f"Failed to enable unit: Unit file {unit} does not exist."
        wants.parent.mkdir(parents=True, exist_ok=True)
        wants.symlink_to(f"/etc/systemd/system/{unit}")
        return 0
    if verb == "is-active":
        print("active" if active.exists() else "inactive")
        return 0 if active.exists() else 3
    if verb in ("start", "restart"):
        active.parent.mkdir(parents=True, exist_ok=True)
        active.touch()
        return 0
    if verb == "stop":
        active.unlink(missing_ok=True)
        return 0
    raise AssertionError(f"systemctl {args}")


def runuser(args: list[str]) -> int:
    import subprocess
    command = args[args.index("--") + 1:]
    return subprocess.run(command).returncode


def redis_cli(args: list[str]) -> int:
    import subprocess
    port = os.environ.get("FAKESYS_REDIS_PORT")
    if not port:
        print("Could not connect to Redis at 127.0.0.1:6379: Connection refused", file=sys.stderr)
        return 1
    return subprocess.run([os.environ["FAKESYS_REDIS_CLI"], "-p", port, *args]).returncode


# -- Python: venv, pip and the installed `tablemate` ----------------------------------------------

def python3(args: list[str]) -> int:
    """`-m venv DIR` makes a real virtualenv without pip and puts the fake pip in it."""
    import subprocess
    real = os.environ["FAKESYS_PYTHON"]
    if args[:2] != ["-m", "venv"]:
        os.execv(real, [real, *args])
    venv = Path(args[2])
    subprocess.run([real, "-m", "venv", "--without-pip", str(venv)], check=True)
    wrapper(venv / "bin" / "pip", "pip", str(venv))
    return 0


def site_packages(venv: Path) -> Path:
    return next((venv / "lib").glob("python3*/site-packages"))


def dist_info(site: Path, name: str) -> Path | None:
    wanted = re.sub(r"[-_.]+", "-", name).lower()
    for path in site.glob("*.dist-info"):
        if re.sub(r"[-_.]+", "-", path.name.removesuffix(".dist-info").rsplit("-", 1)[0]).lower() == wanted:
            return path
    return None


def put_dist(site: Path, name: str, version: str, files: list[str]) -> None:
    """Install package `name` into `site` as pip would: its files, and a dist-info listing them."""
    for file in files:
        (site / file).parent.mkdir(parents=True, exist_ok=True)
        (site / file).write_text(SOURCES.get((name.lower(), file), f"# {name}\n"))
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    records = files + [f"{info.name}/METADATA", f"{info.name}/RECORD"]
    (info / "RECORD").write_text("".join(f"{r},,\n" for r in records))


def remove_dist(venv: Path, name: str) -> bool:
    import shutil
    site = site_packages(venv)
    info = dist_info(site, name)
    if info is None:
        return False
    for line in (info / "RECORD").read_text().splitlines():
        (site / line.split(",")[0]).unlink(missing_ok=True)
    shutil.rmtree(info, ignore_errors=True)
    return True


def build_lgpio() -> None:
    """As lgpio 0.2.2.0's sdist builds on Python 3.13, which PyPI has no wheel of it for: SWIG makes
    its wrapper, and without PYPI=1 it links -llgpio, a library Debian does not package."""
    if "swig" not in installed_packages():
        sys.exit("error: command 'swig' failed: No such file or directory\nERROR: Failed building wheel for lgpio")
    if os.environ.get("PYPI") != "1":
        sys.exit("/usr/bin/ld: cannot find -llgpio: No such file or directory\nERROR: Failed building wheel for lgpio")


def pip_install(venv: Path, items: list[str], deps: bool, force: bool) -> None:
    import tomllib
    site = site_packages(venv)
    for item in items:
        if os.path.isdir(item):
            project = tomllib.loads(Path(item, "pyproject.toml").read_text())["project"]
            remove_dist(venv, project["name"])
            put_dist(site, project["name"], project["version"], [f"{project['name']}_installed.py"])
            wrapper(venv / "bin" / "tablemate", "tablemate")
            continue
        name = re.match(r"[A-Za-z0-9._-]+", item).group()
        if dist_info(site, name) is not None and not force:
            continue
        remove_dist(venv, name)
        if name.lower() == "lgpio":
            build_lgpio()
        files, requires = PACKAGES[name.lower()]
        put_dist(site, name, "1.0", files)
        if deps:
            pip_install(venv, requires, deps, False)


def pip(args: list[str]) -> int:
    venv, verb, rest = Path(args[0]), args[1], args[2:]
    if verb == "uninstall":
        for name in (a for a in rest if not a.startswith("-")):
            if not remove_dist(venv, name):
                print(f"WARNING: Skipping {name} as it is not installed.", file=sys.stderr)
        return 0
    assert verb == "install", args
    pip_install(venv, [a for a in rest if not a.startswith("-")], "--no-deps" not in rest, "--force-reinstall" in rest)
    return 0


def tablemate(args: list[str]) -> int:
    behaviour = os.environ.get("FAKESYS_DOCTOR", "ok")
    if args[:1] != ["doctor"] or behaviour == "absent":
        print(f"tablemate: error: invalid choice: {args[:1]}", file=sys.stderr)
        return 2
    if "--help" in args:
        return 0
    assert os.access(".", os.W_OK) and os.environ["LG_WD"] == os.getcwd(), "lgpio needs a writable LG_WD"
    print("doctor: readers and display answer" if behaviour == "ok" else "doctor: reader 3 does not answer")
    return 0 if behaviour == "ok" else 1


COMMANDS = {
    "apt-get": apt_get, "dpkg": dpkg, "dpkg-query": dpkg_query, "raspi-config": raspi_config,
    "getent": getent, "groupadd": groupadd, "useradd": useradd, "usermod": usermod,
    "systemctl": systemctl, "runuser": runuser, "redis-cli": redis_cli, "chown": chown, "stat": stat,
    "python3": python3, "pip": pip, "tablemate": tablemate,
}

if __name__ == "__main__":
    command, arguments = sys.argv[1], sys.argv[2:]
    log(command, arguments[1:] if command == "pip" else arguments)
    sys.exit(COMMANDS[command](arguments))
