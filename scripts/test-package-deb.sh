#!/usr/bin/env bash
# Tests the Debian package as a user gets it (docs/operations.md
# "Packaging"): target/debian/postgresql-<major>-pg-flake_<version>_<arch>.deb
# (from `make package-V`), installed with apt into the machine's own
# PostgreSQL over the previous release's package, as an apt upgrade does:
#  1. the previous release (the last of scripts/releases.txt, built from its
#     commit by scripts/build-release.sh) packaged by scripts/package-deb.sh,
#     installed with apt; a fresh server of the machine's own programs,
#     preloading pg_flake from Debian's directory; CREATE EXTENSION at that
#     release, every format generated and decoded (tests/package/formats.sql);
#  2. this version's package installed with apt over it: dpkg owns every
#     file, as the package shipped it; restart, ALTER EXTENSION pg_flake
#     UPDATE, every format again, the coordination-based ones above;
#  3. CREATE EXTENSION at this version in a new database, every format, and
#     the whole regression suite (tests/regress, as scripts/test-sql.sh runs
#     it preloaded) against the installed package.
# Fails on any difference. This version's package stays installed: it
# replaces the pg_flake files of the machine's PostgreSQL (those of `make
# install`). `make test-package-deb-17` runs this script in the Debian 13
# chroot (scripts/pg17-chroot.sh run): there the machine is the chroot, its
# apt, dpkg and PostgreSQL 17.
#   PG_FLAKE_PACKAGE_MAJOR  PostgreSQL major version (15)
#   PG_FLAKE_PACKAGE_PORT   the server's port on 127.0.0.1 (test-package's first
#                           port for the major version, scripts/ports.txt)
#   PG_FLAKE_PACKAGE_DATA   its data directory ($PG_FLAKE_TMP/pg_flake-package-MAJOR,
#                           recreated; PG_FLAKE_TMP default /tmp, which also
#                           holds pg_regress's results while it runs)
#   PG_FLAKE_RELEASES       scripts/build-release.sh's cache
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
major=${PG_FLAKE_PACKAGE_MAJOR:-15}
PORT=${PG_FLAKE_PACKAGE_PORT:-$(scripts/ports.sh test-package "$major")}
TMP=${PG_FLAKE_TMP:-/tmp}
DATA=${PG_FLAKE_PACKAGE_DATA:-$TMP/pg_flake-package-$major}
export PG_BIN=/usr/lib/postgresql/$major/bin
version=$(awk -F '"' '/^\[/ { in_package = ($0 == "[package]") } in_package && /^version *=/ { print $2; exit }' Cargo.toml)
previous=$(awk '/^[0-9]/ { v = $1 } END { print v }' scripts/releases.txt)
arch=$(dpkg --print-architecture)
name=postgresql-$major-pg-flake
deb=target/debian/${name}_${version}_$arch.deb
[ -f "$deb" ] || { echo "test-package-deb: $deb is missing: run make package-$major first" >&2; exit 1; }
say() { echo "test-package-deb: $*"; }
fail() { echo "test-package-deb: $*" >&2; exit 1; }

# pg_regress comes with the server's development package.
scripts/apt-install.sh test-package-deb "postgresql-$major" "postgresql-server-dev-$major"
# apt_install DEB: with apt, as a user does; one installer at a time
# (scripts/apt-install.sh's lock). --reinstall: a package rebuilt with the
# same version must still replace the installed files; --allow-downgrades:
# the previous release over this one, left installed by an earlier run.
apt_install() {
    local path=$1
    # apt takes a file for a package name only with a slash in it.
    case $path in /*) ;; *) path=./$path ;; esac
    say "apt-get install $path"
    DEBIAN_FRONTEND=noninteractive flock /var/lock/pg_flake-apt-install.lock \
        apt-get install -y -qq --reinstall --allow-downgrades "$path" >/dev/null
}
# installed VERSION: dpkg has the package at VERSION, every file as shipped.
installed() {
    local status changed
    status=$(dpkg-query -W -f='${Status} ${Version}' "$name")
    [ "$status" = "install ok installed $1" ] || fail "dpkg says: $status"
    changed=$(dpkg --verify "$name")
    [ -z "$changed" ] || fail "installed files differ from the package: $changed"
}
library=/usr/lib/postgresql/$major/lib/pg_flake.so

# 1. The previous release's package, from its build.
say "the previous release, $previous, for PostgreSQL $major"
previous_files=$(PG_CONFIG=$PG_BIN/pg_config scripts/build-release.sh "$previous" | tail -n 1)
# The test's own time, from here (a build of the previous release is
# cached: minutes the first time on a machine, none after).
say "$previous built ($((SECONDS - started)) s)"
started=$SECONDS
work=$TMP/pg_flake-package-$major-deb-previous
rm -rf "$work"
mkdir -p "$work/payload/lib" "$work/payload/extension"
find "$previous_files" -name pg_flake.so -exec cp {} "$work/payload/lib/" \;
find "$previous_files" -path '*/extension/pg_flake*' -exec cp {} "$work/payload/extension/" \;
PG_CONFIG=$PG_BIN/pg_config scripts/package-deb.sh "$work/payload" "$work" >/dev/null
apt_install "$work/${name}_${previous}_$arch.deb"
installed "$previous"

trap 'scripts/pg-server.sh stop "$DATA" || true' EXIT
scripts/pg-server.sh stop "$DATA" || true
rm -rf "$DATA"
scripts/pg-server.sh start "$DATA" "$PORT" "shared_preload_libraries = 'pg_flake'"
maps_library() { grep -c " $library\$" "/proc/$(head -n 1 "$DATA/postmaster.pid")/maps" || true; }
[ "$(maps_library)" -gt 0 ] || fail "the server did not load $library"
psql=(psql -X -q -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PORT" -U postgres)
extversion() { "${psql[@]}" -d "$1" -c "SELECT extversion FROM pg_extension WHERE extname = 'pg_flake'"; }
"${psql[@]}" -d postgres -c "CREATE DATABASE flake_update" -c "CREATE DATABASE flake_package" \
    -c "CREATE DATABASE regress_flake"
"${psql[@]}" -d flake_update -c "CREATE EXTENSION pg_flake"
[ "$(extversion flake_update)" = "$previous" ] || fail "CREATE EXTENSION on $previous's package gave $(extversion flake_update)"
"${psql[@]}" -d flake_update -v phase=before -f tests/package/formats.sql
rm -rf "$work"

# 2. This version's package over it; restart, update.
apt_install "$deb"
installed "$version"
dpkg -S "$library" | grep -q "^$name:" || fail "$library is not the package's"
scripts/pg-server.sh stop "$DATA"
scripts/pg-server.sh start "$DATA" "$PORT" "shared_preload_libraries = 'pg_flake'"
[ "$(maps_library)" -gt 0 ] || fail "the server did not load $library after the restart"
"${psql[@]}" -d flake_update -c "ALTER EXTENSION pg_flake UPDATE"
[ "$(extversion flake_update)" = "$version" ] || fail "ALTER EXTENSION pg_flake UPDATE gave $(extversion flake_update)"
"${psql[@]}" -d flake_update -v phase=after -f tests/package/formats.sql
say "$name updated from $previous to $version; every format generates above ($((SECONDS - started)) s)"

# 3. A fresh database, then the regression suite.
"${psql[@]}" -d flake_package -c "CREATE EXTENSION pg_flake"
[ "$(extversion flake_package)" = "$version" ] || fail "CREATE EXTENSION gave version $(extversion flake_package)"
"${psql[@]}" -d flake_package -v phase=fresh -f tests/package/formats.sql
mkdir -p "$TMP"
OUT=$(mktemp -d "$TMP/pg_flake-package-regress.XXXXXX")
# shellcheck disable=SC2046 # one test name per word
scripts/pg-regress.sh "$PORT" "$OUT" $(scripts/regress-tests.sh "$major")
rm -rf "$OUT"
say "$name $version passed: apt over $previous, the update, every format, the regression suite ($((SECONDS - started)) s)"
