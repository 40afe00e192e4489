#!/usr/bin/env bash
# Install the Qwirkle table companion on Raspberry Pi OS (Bookworm, 64-bit; Pi 4 or Pi 5) as a service.
#
#   sudo scripts/install-pi.sh [--port PORT] [--hostname NAME] [--no-start] [--dry-run]
#
# Run it from a checkout of the project. It installs the Debian packages, makes a venv in /opt/qwirkle
# that sees Debian's picamera2 and numpy (--system-site-packages), installs the project into it, creates
# the `qwirkle` system user (group video, for the camera), writes /etc/qwirkle/config.toml (only if
# absent: your edits survive), installs the systemd unit and the Avahi announcement, and starts the
# service. Running it again is safe: it updates the code and restarts the service, nothing else changes.
# --dry-run prints what it would do and changes nothing. scripts/uninstall-pi.sh undoes it.
set -euo pipefail

PREFIX=/opt/qwirkle
VENV="$PREFIX/venv"
ETC=/etc/qwirkle
CONFIG="$ETC/config.toml"
STATE=/var/lib/qwirkle
UNIT=/etc/systemd/system/qwirkle.service
AVAHI=/etc/avahi/services/qwirkle.service
USER_NAME=qwirkle
SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# python3-picamera2 comes with libcamera and Debian's numpy 1.x, which picamera2 and simplejpeg are
# built against. The venv sees that numpy, and the project's `pi` extra pins numpy<2, so pip keeps it
# and never installs numpy 2 beside it (the clash: "numpy.dtype size changed" on import).
PACKAGES=(python3-picamera2 python3-numpy python3-venv python3-pip avahi-daemon)

port=8000
hostname_wanted=""
start=1
dry=0

usage() { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; }

while (($#)); do
    case "$1" in
        --port) port="${2:?--port needs a number}"; shift 2 ;;
        --hostname) hostname_wanted="${2:?--hostname needs a name}"; shift 2 ;;
        --no-start) start=0; shift ;;
        --dry-run) dry=1; shift ;;
        -h | --help) usage; exit 0 ;;
        *) echo "install-pi.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
if ! [[ "$port" =~ ^[0-9]+$ ]] || ((port < 1024 || port > 65535)); then
    echo "install-pi.sh: --port $port: give a port from 1024 to 65535" >&2
    exit 2
fi
if ((!dry && EUID != 0)); then
    echo "install-pi.sh: needs root: sudo $0 $*" >&2
    exit 2
fi

run() {
    if ((dry)); then printf '+ %s\n' "$*"; else "$@"; fi
}
step() { printf '== %s\n' "$*"; }

step "Debian packages: ${PACKAGES[*]}"
run apt-get update
run apt-get install -y --no-install-recommends "${PACKAGES[@]}"

step "system user $USER_NAME (in group video, for the camera)"
if id "$USER_NAME" >/dev/null 2>&1; then
    echo "user $USER_NAME exists"
else
    run useradd --system --user-group --home-dir "$STATE" --no-create-home --shell /usr/sbin/nologin "$USER_NAME"
fi
run usermod --append --groups video "$USER_NAME"

step "venv $VENV (with Debian's site packages) and the project"
if [[ -x "$VENV/bin/python" ]]; then
    echo "venv exists"
else
    run install -d -m 0755 "$PREFIX"
    run python3 -m venv --system-site-packages "$VENV"
fi
run "$VENV/bin/pip" install --quiet --upgrade pip
run "$VENV/bin/pip" install --quiet --upgrade "${SRC}[pi]"

step "config $CONFIG"
run install -d -m 0750 -o root -g "$USER_NAME" "$ETC"
if [[ -f "$CONFIG" ]]; then
    echo "keeping $CONFIG as it is (edit it, then: sudo systemctl restart qwirkle)"
    if [[ -x "$VENV/bin/python" ]]; then
        # The port Avahi announces is the config's; this also refuses a config with a mistake in it.
        port="$("$VENV/bin/python" -c 'import sys; from device.config import load_config
print(load_config(sys.argv[1]).port)' "$CONFIG")"
    fi
else
    pin="$(printf '%04d' "$(shuf -i 0-9999 -n 1)")"
    if ((dry)); then
        echo "+ write $CONFIG from systemd/config.toml (port $port, a new random PIN)"
    else
        sed -e "s/@PORT@/$port/" -e "s/@PIN@/$pin/" "$SRC/systemd/config.toml" >"$CONFIG.new"
        chown root:"$USER_NAME" "$CONFIG.new"
        chmod 0640 "$CONFIG.new"
        mv "$CONFIG.new" "$CONFIG"
        echo "wrote $CONFIG: port $port, PIN $pin"
    fi
fi
run install -d -m 0750 -o "$USER_NAME" -g "$USER_NAME" "$STATE"

step "service $UNIT and Avahi announcement $AVAHI (port $port)"
run install -m 0644 "$SRC/systemd/qwirkle.service" "$UNIT"
run install -d -m 0755 "$(dirname "$AVAHI")"
if ((dry)); then
    echo "+ write $AVAHI from systemd/qwirkle-avahi.service (port $port)"
else
    sed -e "s/@PORT@/$port/" "$SRC/systemd/qwirkle-avahi.service" >"$AVAHI"
    chmod 0644 "$AVAHI"
fi

if [[ -n "$hostname_wanted" && "$hostname_wanted" != "$(hostname)" ]]; then
    step "hostname $hostname_wanted (the page becomes http://$hostname_wanted.local:$port/)"
    if command -v raspi-config >/dev/null 2>&1; then
        run raspi-config nonint do_hostname "$hostname_wanted"
    else
        run hostnamectl set-hostname "$hostname_wanted"
        run sed -i "s/^127\.0\.1\.1.*/127.0.1.1\t$hostname_wanted/" /etc/hosts
    fi
    run systemctl restart avahi-daemon
fi

step "enable the service"
run systemctl daemon-reload
run systemctl enable qwirkle.service avahi-daemon.service
if ((start)); then
    run systemctl restart qwirkle.service
fi

name="${hostname_wanted:-$(hostname)}"
step "done: http://$name.local:$port/ (or http://<the Pi's address>:$port/; the console shows a QR code)"
echo "check it with: $VENV/bin/qwirkle doctor    logs: journalctl -u qwirkle -f"
if ((dry)); then echo "(dry run: nothing was changed)"; fi
