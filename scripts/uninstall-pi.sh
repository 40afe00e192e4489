#!/usr/bin/env bash
# Remove what scripts/install-pi.sh installed.
#
#   sudo scripts/uninstall-pi.sh [--purge] [--dry-run]
#
# Stops and removes the service, its unit, the Avahi announcement and /opt/qwirkle. The games and
# calibration (/var/lib/qwirkle), the config (/etc/qwirkle) and the qwirkle user stay unless --purge.
# Debian packages stay (other programs may use them). Running it again is safe.
set -euo pipefail

purge=0
dry=0
while (($#)); do
    case "$1" in
        --purge) purge=1; shift ;;
        --dry-run) dry=1; shift ;;
        -h | --help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "uninstall-pi.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
if ((!dry && EUID != 0)); then
    echo "uninstall-pi.sh: needs root: sudo $0 $*" >&2
    exit 2
fi

run() {
    if ((dry)); then printf '+ %s\n' "$*"; else "$@"; fi
}

if systemctl cat qwirkle.service >/dev/null 2>&1; then
    run systemctl disable --now qwirkle.service
fi
run rm -f /etc/systemd/system/qwirkle.service /etc/avahi/services/qwirkle.service
run systemctl daemon-reload
run rm -rf /opt/qwirkle
if ((purge)); then
    run rm -rf /etc/qwirkle /var/lib/qwirkle
    if id qwirkle >/dev/null 2>&1; then
        run userdel qwirkle
    fi
    echo "removed the service, the code, the config, the games and the qwirkle user"
else
    echo "removed the service and the code; kept /etc/qwirkle, /var/lib/qwirkle and the qwirkle user (--purge removes them)"
fi
if ((dry)); then echo "(dry run: nothing was changed)"; fi
