#!/usr/bin/env bash
# Sets up a Raspberry Pi (Raspberry Pi OS trixie, or bookworm) to run tablemate as a systemd service,
# from this checkout: apt packages, I2C and SPI, Redis with AOF, the service user, a virtualenv with
# the `pi` extra, /etc/tablemate/pi.toml, the unit, the nightly backup timer. Idempotent: a
# second run changes nothing, and after `git pull` a run upgrades the installed copy. See
# README.md, section Raspberry Pi.
set -euo pipefail

SERVICE_USER=tablemate
HARDWARE_GROUPS=(gpio spi i2c)
# python3-dev, build-essential and swig build what PyPI has no wheel for here: spidev (none at all),
# lgpio on Python 3.13 (trixie; its wheels are for 3.9-3.12), Pillow on armhf (ARMHF_PACKAGES).
APT_PACKAGES=(python3-venv python3-dev build-essential swig redis-server redis-tools i2c-tools)
ARMHF_PACKAGES=(libjpeg-dev zlib1g-dev)
# PYPI=1 makes lgpio's setup.py compile its own copy of the lg library, as its PyPI wheels are built
# (Debian packages no liblgpio to link to). --prefer-binary takes a wheel over a newer release that
# would have to be built here: cbor2 (luma.core's) from 6.0 needs a Rust compiler on armhf.
PIP_ENV=(env PYPI=1)
PIP_OPTIONS=(--quiet --prefer-binary)
# pip packages that depend on the original RPi.GPIO, which would replace rpi-lgpio's RPi.GPIO
# module: installed with --no-deps, after the rest of the `pi` extra.
NO_DEPS_PACKAGES=(mfrc522)
STATE_DIR=/var/lib/tablemate
VENV=/opt/tablemate/venv
SOURCE_STAMP=$VENV/.tablemate-source
COMMAND_LINK=/usr/local/bin/tablemate
CONFIG=/etc/tablemate/pi.toml
# The profile may hold the club's password ([club] password): root and the service's group read it.
CONFIG_MODE=0640
UNIT_NAME=tablemate.service
UNIT=/etc/systemd/system/$UNIT_NAME
# Nightly backups: the timer starts the service, which writes into BACKUP_DIR (kept 14 nights),
# readable by the service's group only, as the files in it.
BACKUP_UNITS=(tablemate-backup.service tablemate-backup.timer)
BACKUP_TIMER=tablemate-backup.timer
BACKUP_DIR=/var/backups/tablemate
BACKUP_DIR_MODE=0750
# Started by tablemate.service once it stopped cleanly: turns the paused display off later.
COMPANION_NAME=tablemate-panel-off.service
COMPANION=/etc/systemd/system/$COMPANION_NAME
REDIS_CONF=/etc/redis/redis.conf
REDIS_SNIPPET=/etc/redis/tablemate.conf
# Run before each start of Redis: a write a power cut tore at the end of its AOF is cut off.
AOF_TAIL=/usr/local/lib/tablemate/redis-aof-tail
REDIS_DROP_IN=/etc/systemd/system/redis-server.service.d/tablemate.conf
# The files that make up the installed package; a change to any of them reinstalls it.
PACKAGE_PATHS=(pyproject.toml README.md engines drivers firmware)
# Device nodes that exist once I2C and SPI are on (SPI1's only with its overlay).
I2C_RE='^(device_tree_param|dtparam)=([^,]*,)*i2c(_arm)?(=(on|true|yes|1))?(,.*)?$'
SPI_RE='^(device_tree_param|dtparam)=([^,]*,)*spi(=(on|true|yes|1))?(,.*)?$'
SPI1_RE='^dtoverlay=spi1-3cs(,.*)?$'
OTHER_SPI1_RE='^dtoverlay=spi1-[12]cs(,.*)?$'
# The I2C clock: 400 kHz (the SSD1306's and SH1106's fast mode) instead of the Pi's 100 kHz.
I2C_BAUDRATE=400000
I2C_BAUDRATE_RE='^(device_tree_param|dtparam)=([^,]*,)*i2c(_arm)?_baudrate=[0-9]+(,.*)?$'

SOURCE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROOT=/
DRY_RUN=0
FORCE=0
CHANGES=0
RESTART_NEEDED=0
REBOOT_REASONS=()
BOOT_CONFIG=""
BOOT_LINES=()
WORK_DIR=""
DIED=0

export DEBIAN_FRONTEND=noninteractive

usage() {
    cat <<'EOF'
Usage: sudo systemd/install.sh [--dry-run] [--force] [--root DIR]

Sets up this Raspberry Pi to run tablemate as a systemd service (README.md, section Raspberry Pi).
  --dry-run   print each step and what it would change, and change nothing
  --force     install on a machine that is not a Raspberry Pi
  --root DIR  read and write every file under DIR instead of / (for tests: the commands still
              act on this machine, so put stand-ins for them first on PATH)
Running it again changes nothing; after `git pull` it upgrades the installed copy.
EOF
}

say() { printf '==> %s\n' "$*"; }
note() { printf '    %s\n' "$*"; }
warn() { printf 'WARNING: %s\n' "$*" >&2; }
die() {
    printf 'install.sh: %s\n' "$1" >&2
    DIED=1
    exit "${2:-1}"
}

# The path of a system file under ROOT.
at() { printf '%s%s' "${ROOT%/}" "$1"; }

# A command as it would be typed: arguments with spaces or shell characters in single quotes.
shown() {
    local arg text=""
    for arg in "$@"; do
        if [[ $arg =~ ^[A-Za-z0-9_./=:,+@%-]+$ ]]; then
            text+=" $arg"
        else
            text+=" '${arg//\'/\'\\\'\'}'"
        fi
    done
    printf '%s' "${text# }"
}

# Runs a command that changes the system; --dry-run prints it instead.
run() {
    CHANGES=$((CHANGES + 1))
    if [ "$DRY_RUN" = 1 ]; then
        note "would run: $(shown "$@")"
        return 0
    fi
    note "run: $(shown "$@")"
    "$@"
}

# Installs file $1 as system file $2 with mode $3 unless it already has that content.
# Returns 0 when it wrote (or would write) the file, 1 when the file was already right.
put_file() {
    local source=$1 target=$2 mode=$3 path
    path=$(at "$target")
    if [ -f "$path" ] && cmp -s "$source" "$path"; then
        note "unchanged: $target"
        return 1
    fi
    CHANGES=$((CHANGES + 1))
    if [ "$DRY_RUN" = 1 ]; then
        note "would write $target"
        return 0
    fi
    install -D -m "$mode" "$source" "$path"
    note "wrote $target"
}

# Appends the lines $2... to system file $1.
append_lines() {
    local target=$1 path
    shift
    path=$(at "$target")
    CHANGES=$((CHANGES + 1))
    if [ "$DRY_RUN" = 1 ]; then
        note "would append to $target:"
    else
        printf '%s\n' "$@" >>"$path"
        note "appended to $target:"
    fi
    printf '        %s\n' "$@"
}

# True when system file $1 has a line matching the extended regular expression $2.
has_line() { grep -qE "$2" "$(at "$1")" 2>/dev/null; }

parse_arguments() {
    while [ $# -gt 0 ]; do
        case $1 in
            --dry-run) DRY_RUN=1 ;;
            --force) FORCE=1 ;;
            --root)
                [ $# -ge 2 ] || die "--root needs a directory" 2
                ROOT=$2
                shift
                ;;
            -h | --help)
                usage
                exit 0
                ;;
            *)
                usage >&2
                die "unknown argument: $1 (nothing was changed)" 2
                ;;
        esac
        shift
    done
    [ -d "$ROOT" ] || die "--root $ROOT is not a directory (nothing was changed)" 2
    ROOT=$(cd "$ROOT" && pwd)
}

# Every check that can refuse comes before the first change.
check_before_changing() {
    local file model codename
    for file in pyproject.toml config/pi.toml systemd/tablemate.service systemd/$COMPANION_NAME \
        systemd/redis-tablemate.conf systemd/redis-aof-tail systemd/redis-server.service.d/tablemate.conf \
        drivers/gpio_check.py "${BACKUP_UNITS[@]/#/systemd/}"; do
        [ -f "$SOURCE/$file" ] || die "$SOURCE is not a complete tablemate checkout: $file is missing (nothing was changed)" 2
    done
    if [ "$ROOT" = / ] && [ "$DRY_RUN" = 0 ] && [ "$(id -u)" -ne 0 ]; then
        die "run it as root: sudo $0 (or see what it would do with --dry-run; nothing was changed)" 2
    fi

    model=""
    file=$(at /proc/device-tree/model)
    [ -r "$file" ] && model=$(tr -d '\0' <"$file")
    if [[ $model == "Raspberry Pi"* ]]; then
        say "Machine: $model"
    elif [ "$FORCE" = 1 ]; then
        warn "this is not a Raspberry Pi (${model:-no /proc/device-tree/model}): going on because of --force"
    else
        die "this is not a Raspberry Pi (${model:-no /proc/device-tree/model}), so nothing was changed. Run it on the Pi, or add --force to install anyway." 2
    fi

    codename=$(sed -n 's/^VERSION_CODENAME=//p' "$(at /etc/os-release)" 2>/dev/null || true)
    case $codename in
        trixie | bookworm) say "Release: $codename" ;;
        *) warn "written for Raspberry Pi OS trixie (and bookworm); this is ${codename:-an unknown release}: going on" ;;
    esac
    command -v python3 >/dev/null || die "python3 is missing (Raspberry Pi OS has it; nothing was changed)" 2
    python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' ||
        die "tablemate needs Python 3.11 or newer (Raspberry Pi OS trixie has 3.13, bookworm 3.11; nothing was changed)" 2

    for file in /boot/firmware/config.txt /boot/config.txt; do
        if [ -f "$(at "$file")" ]; then
            BOOT_CONFIG=$file
            break
        fi
    done
    if [ -z "$BOOT_CONFIG" ] && [ "$FORCE" = 0 ]; then
        die "no config.txt in /boot/firmware or /boot, so I2C and SPI cannot be turned on (nothing was changed)" 2
    fi
}

install_apt_packages() {
    local package installed packages=("${APT_PACKAGES[@]}") missing=()
    if [ "$(dpkg --print-architecture)" = armhf ]; then
        packages+=("${ARMHF_PACKAGES[@]}")
    fi
    say "Packages: ${packages[*]}"
    # shellcheck disable=SC2016 # ${Package} and ${Status} are dpkg-query's fields
    installed=$(dpkg-query -W -f='${Package} ${Status}\n' "${packages[@]}" 2>/dev/null || true)
    for package in "${packages[@]}"; do
        grep -qx "$package install ok installed" <<<"$installed" || missing+=("$package")
    done
    if [ ${#missing[@]} -eq 0 ]; then
        note "ok: all installed"
        return
    fi
    run apt-get update -q
    run apt-get install -y -q "${missing[@]}"
}

# Turns bus $1 on unless a line of config.txt matching $2 already does: with raspi-config's
# command $3 when there is raspi-config, else by adding line $4 to BOOT_LINES for config.txt.
# Returns 1 when the bus was already on.
enable_bus() {
    local what=$1 pattern=$2 command=$3 line=$4
    if has_line "$BOOT_CONFIG" "$pattern"; then
        note "ok: $what is on in $BOOT_CONFIG"
        return 1
    fi
    if command -v raspi-config >/dev/null; then
        run raspi-config nonint "$command" 0
    else
        BOOT_LINES+=("$line")
    fi
    REBOOT_REASONS+=("$what was turned on")
}

# Without raspi-config, /dev/i2c-* needs the i2c-dev module loaded at boot.
load_i2c_dev() {
    local modules
    if command -v raspi-config >/dev/null || grep -qsx 'i2c-dev' "$(at /etc/modules)" "$(at /etc/modules-load.d)"/*.conf; then
        return
    fi
    modules=$(mktemp)
    printf '# tablemate: /dev/i2c-* for the display (systemd/install.sh)\ni2c-dev\n' >"$modules"
    put_file "$modules" /etc/modules-load.d/tablemate-i2c.conf 0644 || true
    rm -f "$modules"
}

# The I2C clock at 400 kHz: a whole frame takes ~24 ms on the wire instead of ~96 ms at the
# default 100 kHz. A speed the owner set already is left as it is, with a warning when it differs.
set_i2c_baudrate() {
    local found
    found=$(grep -E "$I2C_BAUDRATE_RE" "$(at "$BOOT_CONFIG")" 2>/dev/null | grep -oE 'i2c(_arm)?_baudrate=[0-9]+' | tail -n 1 || true)
    if [ "${found#*=}" = "$I2C_BAUDRATE" ]; then
        note "ok: the I2C bus runs at 400 kHz"
    elif [ -n "$found" ]; then
        warn "$BOOT_CONFIG sets $found; tablemate's display wants i2c_arm_baudrate=$I2C_BAUDRATE (400 kHz): change it yourself if nothing else on the bus needs that speed (left as it is)"
    else
        BOOT_LINES+=("dtparam=i2c_arm_baudrate=$I2C_BAUDRATE")
        REBOOT_REASONS+=("the I2C bus was set to 400 kHz (the display's frames take a quarter of the time)")
    fi
}

# I2C for the display, SPI0 and SPI1 with three chip selects for the readers.
configure_boot() {
    say "I2C and SPI"
    if [ -z "$BOOT_CONFIG" ]; then
        warn "no config.txt in /boot/firmware or /boot: I2C and SPI left as they are (--force)"
        return
    fi
    if enable_bus "I2C (the display)" "$I2C_RE" do_i2c dtparam=i2c_arm=on; then
        load_i2c_dev
    fi
    set_i2c_baudrate
    enable_bus "SPI0 (readers 1-2)" "$SPI_RE" do_spi dtparam=spi=on || true
    if has_line "$BOOT_CONFIG" "$SPI1_RE"; then
        note "ok: SPI1 has three chip selects (dtoverlay=spi1-3cs)"
    elif has_line "$BOOT_CONFIG" "$OTHER_SPI1_RE"; then
        warn "$BOOT_CONFIG already has another SPI1 overlay; readers 3-5 on SPI1 CS0-2 need dtoverlay=spi1-3cs: change it yourself if you wire them (left as it is)"
    else
        BOOT_LINES+=(dtoverlay=spi1-3cs)
        REBOOT_REASONS+=("SPI1 with three chip selects (readers 3-5) was turned on")
    fi
    if [ ${#BOOT_LINES[@]} -gt 0 ]; then
        append_lines "$BOOT_CONFIG" "" "[all]" "# tablemate (systemd/install.sh): display on I2C at 400 kHz, readers on SPI0 and SPI1" "${BOOT_LINES[@]}"
    fi
}

# A device node that config.txt's buses should bring is missing: a reboot is pending while config.txt
# changed since this system started (the kernel's btime); once the system started with it, the
# firmware or the kernel did not bring the device up, which no reboot mends: said with where to look.
check_devices() {
    local device missing=() booted
    [ -n "$BOOT_CONFIG" ] && [ ${#REBOOT_REASONS[@]} -eq 0 ] || return 0
    for device in /dev/i2c-1 /dev/spidev0.0; do
        [ -e "$(at "$device")" ] || missing+=("$device")
    done
    if has_line "$BOOT_CONFIG" "$SPI1_RE" && [ ! -e "$(at /dev/spidev1.0)" ]; then
        missing+=(/dev/spidev1.0)
    fi
    [ ${#missing[@]} -gt 0 ] || return 0
    booted=$(sed -n 's/^btime //p' "$(at /proc/stat)" 2>/dev/null || true)
    if [ -z "$booted" ] || [ "$(date -r "$(at "$BOOT_CONFIG")" +%s)" -ge "$booted" ]; then
        REBOOT_REASONS+=("$BOOT_CONFIG changed since this system started, and ${missing[*]} (its buses' devices) are missing")
        return
    fi
    warn "${missing[*]} missing although $BOOT_CONFIG turns their buses on and this system started with it: an overlay or parameter the firmware did not apply (a typo, a line under a [section] that is not this board's), or a kernel module that did not load. A reboot will not change that. Look at: sudo vclog --msg (the firmware's log: overlays that failed); sudo dmesg | grep -i -e spi -e i2c; lsmod | grep -e spidev -e i2c_dev. tablemate starts anyway, and its screen, systemctl status and tablemate doctor name each part it misses"
}

redis_cli() { redis-cli "$@" | tr -d '\r'; }

# Turns the snippet's settings on in the running server, then waits for the AOF rewrite that
# `appendonly yes` starts: only then does the AOF hold the data that was in dump.rdb.
apply_redis_settings_live() {
    local key value reply info attempt
    if [ "$DRY_RUN" = 0 ] && [ "$(redis_cli ping 2>/dev/null)" != PONG ]; then
        run systemctl start redis-server.service
        for attempt in $(seq 50); do
            [ "$(redis_cli ping 2>/dev/null)" = PONG ] && break
            [ "$attempt" -lt 50 ] || die "Redis does not answer on localhost:6379, so AOF was not turned on and /etc/redis was left as it was. Check: systemctl status redis-server"
            sleep 0.2
        done
    fi
    while read -r key value; do
        case $key in '' | '#'*) continue ;; esac
        CHANGES=$((CHANGES + 1))
        if [ "$DRY_RUN" = 1 ]; then
            note "would run: redis-cli CONFIG SET $key $value"
            continue
        fi
        reply=$(redis_cli CONFIG SET "$key" "$value")
        note "run: redis-cli CONFIG SET $key $value: $reply"
        [ "$reply" = OK ] || die "Redis refused CONFIG SET $key $value: $reply (/etc/redis was left as it was)"
    done <"$SOURCE/systemd/redis-tablemate.conf"
    [ "$DRY_RUN" = 0 ] || return 0
    for attempt in $(seq 600); do
        info=$(redis_cli INFO persistence)
        if grep -qx 'aof_rewrite_in_progress:0' <<<"$info" && grep -qx 'aof_rewrite_scheduled:0' <<<"$info"; then
            grep -qx 'aof_last_bgrewrite_status:ok' <<<"$info" ||
                die "Redis could not write its AOF (see journalctl -u redis-server); /etc/redis was left as it was"
            note "Redis wrote its AOF"
            return 0
        fi
        [ "$attempt" -lt 600 ] || die "Redis did not finish writing its AOF within a minute; /etc/redis was left as it was. Run this again."
        sleep 0.1
    done
}

configure_redis() {
    local include="include $REDIS_SNIPPET" snippet_ok=0 include_ok=0
    say "Redis: AOF on, every write synced ($REDIS_SNIPPET)"
    cmp -s "$SOURCE/systemd/redis-tablemate.conf" "$(at "$REDIS_SNIPPET")" && snippet_ok=1
    grep -qxF "$include" "$(at "$REDIS_CONF")" 2>/dev/null && include_ok=1
    if [ "$snippet_ok" = 1 ] && [ "$include_ok" = 1 ]; then
        note "ok: $REDIS_CONF includes $REDIS_SNIPPET"
        return
    fi
    if [ "$DRY_RUN" = 0 ] && [ ! -f "$(at "$REDIS_CONF")" ]; then
        die "$REDIS_CONF is missing: is the redis-server package installed?"
    fi
    apply_redis_settings_live
    put_file "$SOURCE/systemd/redis-tablemate.conf" "$REDIS_SNIPPET" 0644 || true
    if [ "$include_ok" = 0 ]; then
        append_lines "$REDIS_CONF" "" "# tablemate: its settings, last so that they win (systemd/install.sh)" "$include"
    fi
}

# Before each start of Redis, a write that a power cut tore at the end of its append-only file is
# cut off and kept aside (systemd/redis-aof-tail says when that is safe): else Redis refuses the
# file and the table waits for it for ever.
install_aof_tail() {
    local changed=0
    say "Redis: a write torn at the end of its AOF by a power cut is cut off before it starts ($REDIS_DROP_IN)"
    if put_file "$SOURCE/systemd/redis-aof-tail" "$AOF_TAIL" 0755; then
        changed=1
    fi
    if put_file "$SOURCE/systemd/redis-server.service.d/tablemate.conf" "$REDIS_DROP_IN" 0644; then
        changed=1
    fi
    if [ "$changed" = 1 ]; then
        run systemctl daemon-reload
    fi
}

# True when user $1 is a member of group $2.
in_group() {
    local members
    members=$(getent group "$2" | cut -d: -f4)
    [[ ",$members," == *",$1,"* ]]
}

# The service's state directory (the journal's local copy), as the unit's StateDirectory= makes it at
# its first start: made now, so that the doctor run before that start finds it.
create_state_dir() {
    if [ -d "$(at "$STATE_DIR")" ]; then
        note "ok: $STATE_DIR exists"
    else
        run mkdir -p -m 0750 "$(at "$STATE_DIR")"
        run chown "$SERVICE_USER:$SERVICE_USER" "$(at "$STATE_DIR")"
    fi
}

create_user() {
    local group missing=()
    say "User $SERVICE_USER in groups ${HARDWARE_GROUPS[*]}"
    for group in "${HARDWARE_GROUPS[@]}"; do
        if ! getent group "$group" >/dev/null; then
            warn "there is no group $group (Raspberry Pi OS has one): creating it. Raspberry Pi OS's udev rules give the devices to these groups; elsewhere check who owns /dev/gpiochip*, /dev/spidev* and /dev/i2c-*"
            run groupadd --system "$group"
        fi
    done
    if ! getent passwd "$SERVICE_USER" >/dev/null; then
        run useradd --system --user-group --home-dir "$STATE_DIR" --no-create-home \
            --shell /usr/sbin/nologin --comment "tablemate service" \
            --groups "$(IFS=,; echo "${HARDWARE_GROUPS[*]}")" "$SERVICE_USER"
        RESTART_NEEDED=1
        return
    fi
    for group in "${HARDWARE_GROUPS[@]}"; do
        in_group "$SERVICE_USER" "$group" || missing+=("$group")
    done
    if [ ${#missing[@]} -eq 0 ]; then
        note "ok: $SERVICE_USER exists and is in every group"
        return
    fi
    run usermod --append --groups "$(IFS=,; echo "${missing[*]}")" "$SERVICE_USER"
    RESTART_NEEDED=1
}

# The owner's login (who ran sudo) joins the service's group, which reads the profile and the
# backups: `tablemate status` and copying the backups off the Pi need no sudo.
admit_owner() {
    local owner=${SUDO_USER:-}
    if [ -z "$owner" ] || [ "$owner" = root ]; then
        note "to read $CONFIG and the backups from your login without sudo: sudo usermod --append --groups $SERVICE_USER LOGIN"
    elif in_group "$owner" "$SERVICE_USER"; then
        note "ok: $owner is in the group $SERVICE_USER"
    else
        run usermod --append --groups "$SERVICE_USER" "$owner"
        note "($owner reads $CONFIG and the backups from its next login)"
    fi
}

install_config() {
    say "Configuration: $CONFIG"
    if [ -e "$(at "$CONFIG")" ]; then
        if cmp -s "$SOURCE/config/pi.toml" "$(at "$CONFIG")"; then
            note "ok: same as config/pi.toml"
        else
            note "kept: yours differs from config/pi.toml (compare them after an upgrade)"
        fi
    else
        put_file "$SOURCE/config/pi.toml" "$CONFIG" "$CONFIG_MODE"
        RESTART_NEEDED=1
    fi
    secure "$CONFIG" "$CONFIG_MODE" "root:$SERVICE_USER"
}

# Gives system path $1 mode $2 and owner $3 (user:group) unless it has them already.
secure() {
    local target=$1 mode=$2 owner=$3 path
    path=$(at "$target")
    if [ "$(stat -c '%a %U:%G' "$path" 2>/dev/null)" = "${mode#0} $owner" ]; then
        note "ok: $target is $mode $owner"
        return
    fi
    run chmod "$mode" "$path"
    run chown "$owner" "$path"
}

# A digest of the files that make up the installed package.
source_digest() {
    local name paths=()
    for name in "${PACKAGE_PATHS[@]}"; do
        if [ -e "$SOURCE/$name" ]; then
            paths+=("$name")
        fi
    done
    (cd "$SOURCE" && find "${paths[@]}" -name __pycache__ -prune -o -type f -print | LC_ALL=C sort |
        xargs -r -d '\n' sha256sum | sha256sum | cut -d' ' -f1)
}

# The `pi` extra of pyproject.toml, one "name requirement" line each.
pi_requirements() {
    python3 - "$SOURCE/pyproject.toml" <<'EOF'
import re, sys, tomllib
with open(sys.argv[1], "rb") as file:
    for requirement in tomllib.load(file)["project"]["optional-dependencies"]["pi"]:
        print(re.match(r"[A-Za-z0-9._-]+", requirement).group().lower(), requirement)
EOF
}

gpio_shim_ok() {
    local python
    python=$(at "$VENV/bin/python")
    [ -x "$python" ] && "$python" "$SOURCE/drivers/gpio_check.py" 2>&1 | sed 's/^/    /'
}

# Copies the package's files to WORK_DIR, a temporary directory, so that pip builds there and
# leaves no root-owned build/ or *.egg-info in the checkout.
copy_source() {
    local name
    if [ "$DRY_RUN" = 1 ]; then
        WORK_DIR="<a copy of $SOURCE>"
        return
    fi
    WORK_DIR=$(mktemp -d)
    for name in "${PACKAGE_PATHS[@]}"; do
        if [ -e "$SOURCE/$name" ]; then
            cp -R "$SOURCE/$name" "$WORK_DIR/"
        fi
    done
    find "$WORK_DIR" -name __pycache__ -prune -exec rm -rf {} +
}

install_python_packages() {
    local pip python requirements name requirement with_deps=() no_deps=() digest
    pip=$(at "$VENV/bin/pip")
    python=$(at "$VENV/bin/python")
    requirements=$(pi_requirements)
    while read -r name requirement; do
        if [[ " ${NO_DEPS_PACKAGES[*]} " == *" $name "* ]]; then
            no_deps+=("$requirement")
        else
            with_deps+=("$requirement")
        fi
    done <<<"$requirements"
    if [ -x "$python" ] && "$python" -c 'import importlib.metadata as m; m.distribution("RPi.GPIO")' 2>/dev/null; then
        note "the original RPi.GPIO is installed: removing it and rpi-lgpio, whose module files it shares"
        run "$pip" uninstall --yes RPi.GPIO rpi-lgpio
    fi
    copy_source
    run "${PIP_ENV[@]}" "$pip" install "${PIP_OPTIONS[@]}" "$WORK_DIR" "${with_deps[@]}"
    if [ ${#no_deps[@]} -gt 0 ]; then
        run "${PIP_ENV[@]}" "$pip" install "${PIP_OPTIONS[@]}" --no-deps "${no_deps[@]}"
        note "(when pip says that mfrc522 requires RPi.GPIO, which is not installed: expected, rpi-lgpio provides the module)"
    fi
    if [ "$DRY_RUN" = 1 ]; then
        note "would check that RPi.GPIO is rpi-lgpio's shim, and record the source digest in $SOURCE_STAMP"
        return
    fi
    gpio_shim_ok || die "the virtualenv's RPi.GPIO is not rpi-lgpio's (above); run this again, and if it persists see README.md, section Raspberry Pi"
    digest=$(source_digest)
    printf '%s\n' "$digest" >"$(at "$SOURCE_STAMP")"
    note "recorded the source digest in $SOURCE_STAMP"
}

install_virtualenv() {
    local link target
    say "Virtualenv $VENV with the pi extra"
    if [ ! -x "$(at "$VENV/bin/python")" ]; then
        run python3 -m venv "$(at "$VENV")"
    fi
    if [ -f "$(at "$SOURCE_STAMP")" ] && [ "$(cat "$(at "$SOURCE_STAMP")")" = "$(source_digest)" ] && gpio_shim_ok; then
        note "ok: up to date with $SOURCE"
    else
        install_python_packages
        RESTART_NEEDED=1
    fi
    link=$(at "$COMMAND_LINK")
    target=$VENV/bin/tablemate
    if [ "$(readlink "$link" 2>/dev/null)" = "$target" ]; then
        note "ok: $COMMAND_LINK -> $target"
    elif [ -e "$link" ] || [ -L "$link" ]; then
        warn "$COMMAND_LINK exists and is not tablemate's: left alone (the command is $target)"
    else
        run ln -s "$target" "$link"
    fi
}

install_unit() {
    local changed=0
    say "Service $UNIT_NAME, and $COMPANION_NAME (turns the display off a while after a stop)"
    if put_file "$SOURCE/systemd/tablemate.service" "$UNIT" 0644; then
        changed=1
        RESTART_NEEDED=1
    fi
    if put_file "$SOURCE/systemd/$COMPANION_NAME" "$COMPANION" 0644; then
        changed=1
    fi
    if [ "$changed" = 1 ]; then
        run systemctl daemon-reload
    fi
    enable_unit "$UNIT_NAME"
}

# Enable unit $1 unless it is already enabled.
enable_unit() {
    local enabled
    enabled=$(systemctl is-enabled "$1" 2>/dev/null || true)
    if [ "$enabled" = enabled ]; then
        note "ok: $1 enabled"
    else
        run systemctl enable "$1"
    fi
}

# The nightly backup: its directory (the service user writes it, its group reads it: the owner's
# login copies the files off the Pi), its service and its timer, enabled and started.
install_backups() {
    local unit changed=0 active
    say "Nightly backups into $BACKUP_DIR ($BACKUP_TIMER)"
    if [ ! -d "$(at "$BACKUP_DIR")" ]; then
        run mkdir -p -m "$BACKUP_DIR_MODE" "$(at "$BACKUP_DIR")"
    fi
    secure "$BACKUP_DIR" "$BACKUP_DIR_MODE" "$SERVICE_USER:$SERVICE_USER"
    for unit in "${BACKUP_UNITS[@]}"; do
        if put_file "$SOURCE/systemd/$unit" "/etc/systemd/system/$unit" 0644; then
            changed=1
        fi
    done
    if [ "$changed" = 1 ]; then
        run systemctl daemon-reload
    fi
    enable_unit "$BACKUP_TIMER"
    active=$(systemctl is-active "$BACKUP_TIMER" 2>/dev/null || true)
    if [ "$active" = active ]; then
        note "ok: $BACKUP_TIMER is waiting for the night"
    else
        run systemctl start "$BACKUP_TIMER"
    fi
}

# `tablemate doctor` as the service user, when this version has it; a failure is reported, and
# the service starts anyway (it shows what is wrong on the display and in the journal).
run_doctor() {
    local command
    command=$(at "$VENV/bin/tablemate")
    if [ "$DRY_RUN" = 1 ]; then
        note "would run: tablemate doctor --config $CONFIG (as $SERVICE_USER), if this version has it"
        return
    fi
    if ! "$command" doctor --help >/dev/null 2>&1; then
        note "skipped: this version has no 'tablemate doctor'"
        return
    fi
    note "run: tablemate doctor --config $CONFIG (as $SERVICE_USER)"
    # shellcheck disable=SC2016 # the inner script's variables belong to the inner shell
    if runuser -u "$SERVICE_USER" -- sh -c 'dir=$(mktemp -d) && cd "$dir" && LG_WD=$dir "$0" doctor --config "$1"; status=$?; rm -rf "$dir"; exit $status' \
        "$command" "$CONFIG"; then
        note "doctor: all good"
    else
        warn "tablemate doctor found problems (above): fix the wiring or $CONFIG, then: sudo systemctl restart tablemate"
    fi
}

# A table that uplinks to a club ([club] in its profile) needs its own user on the club's Redis: print
# the ACL line for the club's owner to run there (docs/club.md). Nothing is changed here.
print_club_acl() {
    local command config
    config=$(at "$CONFIG")
    [ "$DRY_RUN" = 0 ] && [ -f "$config" ] && grep -q '^\[club\]' "$config" || return 0
    command=$(at "$VENV/bin/tablemate")
    say "Club: on the club server, run this once (redis-cli, as its admin) so this table may copy its games there:"
    "$command" club-acl --config "$CONFIG" || warn "tablemate club-acl could not read [club] in $CONFIG: fix it, then run: tablemate club-acl --config $CONFIG"
}

finish() {
    local active reason
    if [ ${#REBOOT_REASONS[@]} -gt 0 ]; then
        say "REBOOT NEEDED before tablemate can start:"
        for reason in "${REBOOT_REASONS[@]}"; do
            note "- $reason"
        done
        note "Run: sudo reboot   (tablemate starts by itself afterwards; nothing reboots on its own)"
    else
        say "Start"
        active=$(systemctl is-active "$UNIT_NAME" 2>/dev/null || true)
        if [ "$active" = active ] && [ "$RESTART_NEEDED" = 0 ]; then
            note "ok: $UNIT_NAME is running"
        else
            case $active in
                active | activating | reloading) run systemctl stop "$UNIT_NAME" ;;
            esac
            run_doctor
            run systemctl start "$UNIT_NAME"
        fi
    fi
    print_club_acl
    say "Check it: systemctl status tablemate; journalctl -u tablemate -f (more in README.md, section Raspberry Pi)"
    if [ "$DRY_RUN" = 1 ]; then
        say "Dry run: nothing was changed ($CHANGES changes would be made)."
    elif [ "$CHANGES" = 0 ]; then
        say "Nothing changed: already installed."
    else
        say "Done: $CHANGES changes."
    fi
}

# On exit: remove the source copy, and after an unexpected failure say how to go on.
on_exit() {
    local status=$?
    if [ "$DRY_RUN" = 0 ] && [ -n "$WORK_DIR" ]; then
        rm -rf "$WORK_DIR"
    fi
    if [ "$status" -ne 0 ] && [ "$DIED" = 0 ]; then
        printf 'install.sh: a step failed (see the message above); the steps before it are done. Fix the cause and run it again.\n' >&2
    fi
}

main() {
    parse_arguments "$@"
    check_before_changing
    trap on_exit EXIT
    install_apt_packages
    configure_boot
    check_devices
    configure_redis
    install_aof_tail
    create_user
    create_state_dir
    admit_owner
    install_config
    install_virtualenv
    install_unit
    install_backups
    finish
}

# Sourced (tests/platform/arm.py runs its steps in another architecture's root), it only defines them.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    main "$@"
fi
