#!/usr/bin/env bash
# apt-install.sh WHO PACKAGE...: installs those of the Debian packages that
# are missing (as root), saying so under the caller's name; does nothing
# when all are installed. APT_NO_RECOMMENDS=1: without their recommended
# packages (the chroot of PostgreSQL 17 is kept minimal).
set -euo pipefail
who=$1
shift

# keep_missing PACKAGE...: sets `missing` to those not installed.
keep_missing() {
    missing=()
    local pkg
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
    done
}

keep_missing "$@"
[ ${#missing[@]} -gt 0 ] || exit 0
# One installer at a time: the versions' test suites run side by side
# (`make -j3 test-long`), and dpkg refuses a second one. Another suite may
# have installed some of them while this one waited for the lock.
exec 9>/var/lock/pg_flake-apt-install.lock
flock 9
keep_missing "${missing[@]}"
[ ${#missing[@]} -gt 0 ] || exit 0
echo "$who: installing ${missing[*]}"
apt-get update -qq
options=()
[ "${APT_NO_RECOMMENDS:-}" != 1 ] || options+=(--no-install-recommends)
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${options[@]}" "${missing[@]}" >/dev/null
