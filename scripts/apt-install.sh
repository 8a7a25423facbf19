#!/usr/bin/env bash
# apt-install.sh WHO PACKAGE...: installs those of the Debian packages that
# are missing (as root), saying so under the caller's name; does nothing
# when all are installed.
set -euo pipefail
who=$1
shift
missing=()
for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
[ ${#missing[@]} -gt 0 ] || exit 0
# One installer at a time: the versions' test suites run side by side
# (`make -j2 test-long`), and dpkg refuses a second one.
exec 9>/var/lock/pg_flake-apt-install.lock
flock 9
still_missing=()
for pkg in "${missing[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || still_missing+=("$pkg")
done
missing=("${still_missing[@]+"${still_missing[@]}"}")
if [ ${#missing[@]} -gt 0 ]; then
    echo "$who: installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
