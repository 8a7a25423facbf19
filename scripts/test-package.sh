#!/usr/bin/env bash
# Tests the Debian package as a user gets it: installs
# target/debian/postgresql-<major>-pg-flake_<version>_<arch>.deb (from
# `make package`) with apt into the machine's PostgreSQL, checks that dpkg
# owns the installed files and that a fresh server of the machine's own
# binaries loads the library from Debian's directory, then runs CREATE
# EXTENSION and the whole regression suite (tests/regress, as
# scripts/test-sql.sh does in shared mode) against it. Fails on any
# difference. The package stays installed. `make test-package-17` runs this
# script in the Debian 13 chroot (scripts/pg17-chroot.sh run): there the
# machine is the chroot, its apt, dpkg and PostgreSQL 17.
#   PG_FLAKE_PACKAGE_MAJOR  PostgreSQL major version (15)
#   PG_FLAKE_PACKAGE_PORT   the server's port on 127.0.0.1 (test-package's in
#                           the port table scripts/ports.txt)
#   PG_FLAKE_PACKAGE_DATA   its data directory ($PG_FLAKE_TMP/pg_flake-package-MAJOR,
#                           recreated; PG_FLAKE_TMP default /tmp, which also
#                           holds pg_regress's results while it runs)
set -euo pipefail
cd "$(dirname "$0")/.."
major=${PG_FLAKE_PACKAGE_MAJOR:-15}
PORT=${PG_FLAKE_PACKAGE_PORT:-$(scripts/ports.sh test-package "$major")}
TMP=${PG_FLAKE_TMP:-/tmp}
DATA=${PG_FLAKE_PACKAGE_DATA:-$TMP/pg_flake-package-$major}
export PG_BIN=/usr/lib/postgresql/$major/bin
version=$(awk -F '"' '/^\[/ { in_package = ($0 == "[package]") } in_package && /^version *=/ { print $2; exit }' Cargo.toml)
name=postgresql-$major-pg-flake
deb=target/debian/${name}_${version}_$(dpkg --print-architecture).deb
[ -f "$deb" ] || { echo "test-package: $deb is missing: run make package first" >&2; exit 1; }

# pg_regress comes with the server's development package.
scripts/apt-install.sh test-package "postgresql-$major" "postgresql-server-dev-$major"
echo "test-package: apt-get install $deb"
# --reinstall: a package rebuilt with the same version must still replace
# the installed files.
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --reinstall "./$deb" >/dev/null
status=$(dpkg-query -W -f='${Status} ${Version}' "$name")
[ "$status" = "install ok installed $version" ] || { echo "test-package: dpkg says: $status" >&2; exit 1; }
# Every file as the package shipped it (dpkg --verify prints nothing then).
changed=$(dpkg --verify "$name")
[ -z "$changed" ] || { echo "test-package: installed files differ from the package: $changed" >&2; exit 1; }
library=/usr/lib/postgresql/$major/lib/pg_flake.so
dpkg -S "$library" | grep -q "^$name:" || { echo "test-package: $library is not the package's" >&2; exit 1; }

trap 'scripts/pg-server.sh stop "$DATA" || true' EXIT
scripts/pg-server.sh stop "$DATA" || true
rm -rf "$DATA"
scripts/pg-server.sh start "$DATA" "$PORT" "shared_preload_libraries = 'pg_flake'"
postmaster=$(head -n 1 "$DATA/postmaster.pid")
grep -q " $library\$" "/proc/$postmaster/maps" \
    || { echo "test-package: the server did not load $library" >&2; exit 1; }
psql=(psql -X -q -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PORT" -U postgres)
"${psql[@]}" -d postgres -c "CREATE DATABASE flake_package" -c "CREATE DATABASE regress_flake"
installed=$("${psql[@]}" -d flake_package -c "CREATE EXTENSION pg_flake" \
    -c "SELECT extversion FROM pg_extension WHERE extname = 'pg_flake'")
[ "$installed" = "$version" ] || { echo "test-package: CREATE EXTENSION gave version $installed" >&2; exit 1; }
echo "test-package: $name $version installed; the server on port $PORT loads $library"
"${psql[@]}" -d flake_package -c "SELECT sno_generate(), siq_generate('event'), flaxid_generate()"

mkdir -p "$TMP"
OUT=$(mktemp -d "$TMP/pg_flake-package-regress.XXXXXX")
# shellcheck disable=SC2046 # one test name per word
scripts/pg-regress.sh "$PORT" "$OUT" $(scripts/regress-tests.sh "$major")
rm -rf "$OUT"
echo "test-package: the regression suite passed against the installed package"
