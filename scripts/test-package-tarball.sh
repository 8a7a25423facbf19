#!/usr/bin/env bash
# Tests the binary tarball as a user gets it (docs/operations.md "Packaging"):
# target/package/pg_flake-<version>-pg<major>-linux-<arch>.tar.gz (from
# `make package-V`), installed by its own install.sh into a fresh server of
# PG_CONFIG's PostgreSQL, over the previous release (the last of
# scripts/releases.txt, built from its commit by scripts/build-release.sh):
#  1. a private copy of the PostgreSQL installation: hard links of its
#     programs, libraries and share directory at the same paths under a root
#     of its own, as tests/servers/releases/release_install.py lays one out
#     (PostgreSQL finds its directories relative to its programs), with no
#     pg_flake file. The shared installation is never written: every
#     pg_flake file of the copy is checked to be a file of its own (one link),
#     so nothing can have been written through a link into the shared one.
#     So the test does not depend on `make install`, and runs beside other
#     suites (and beside an install into the shared installation);
#  2. the previous release's files in it, a fresh server preloading pg_flake,
#     CREATE EXTENSION pg_flake at that release, every format generated and
#     decoded (tests/package/formats.sql);
#  3. install.sh refuses a pg_config of another major version, with the
#     message a user sees; then the one-line install, `tar xzf TARBALL &&
#     ./pg_flake-…/install.sh PG_CONFIG`; the installed files are the
#     tarball's, the library replaced by a rename;
#  4. restart; the server maps the new library; ALTER EXTENSION pg_flake
#     UPDATE reaches this version; every format generates and decodes, the
#     coordination-based ones above every ID from before;
#  5. a new database: CREATE EXTENSION pg_flake at this version, every format;
#     another: CREATE EXTENSION pg_flake VERSION '0.1.0' then UPDATE (the
#     releases' install scripts and every upgrade script are in the tarball).
# `make test-package-tarball-17` runs this in the Debian 13 chroot
# (scripts/pg17-chroot.sh run), with the chroot's own pg_config: there the
# installation copied is the chroot's PostgreSQL 17.
#   PG_CONFIG               the pg_config of the PostgreSQL's real programs
#   PG_FLAKE_PACKAGE_PORT   the server's port on 127.0.0.1 (test-package's second
#                           port for the major version, scripts/ports.txt)
#   PG_FLAKE_PACKAGE_DATA   the copy, the server's data and the unpacked tarball
#                           ($PG_FLAKE_TMP/pg_flake-package-MAJOR-tarball,
#                           recreated, removed when the test passes)
#   PG_FLAKE_RELEASES       scripts/build-release.sh's cache
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
started=$SECONDS
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
major=$("$PG_CONFIG" --version | sed -nE 's/^PostgreSQL ([0-9]+).*/\1/p')
[ -n "$major" ] || { echo "test-package-tarball: cannot read the major version from $PG_CONFIG --version" >&2; exit 1; }
PORT=${PG_FLAKE_PACKAGE_PORT:-$(($(scripts/ports.sh test-package "$major") + 1))}
WORK=${PG_FLAKE_PACKAGE_DATA:-${PG_FLAKE_TMP:-/tmp}/pg_flake-package-$major-tarball}
version=$(awk -F '"' '/^\[/ { in_package = ($0 == "[package]") } in_package && /^version *=/ { print $2; exit }' Cargo.toml)
previous=$(awk '/^[0-9]/ { v = $1 } END { print v }' scripts/releases.txt)
name=pg_flake-$version-pg$major-linux-$(uname -m)
tarball=$repo/target/package/$name.tar.gz
[ -f "$tarball" ] || { echo "test-package-tarball: $tarball is missing: run make package-$major first" >&2; exit 1; }
say() { echo "test-package-tarball: $*"; }
fail() { echo "test-package-tarball: $*" >&2; exit 1; }

bindir=$("$PG_CONFIG" --bindir)
pkglibdir=$("$PG_CONFIG" --pkglibdir)
sharedir=$("$PG_CONFIG" --sharedir)
libdir=$("$PG_CONFIG" --libdir)

say "the previous release, $previous, for PostgreSQL $major"
previous_files=$(PG_CONFIG=$PG_CONFIG scripts/build-release.sh "$previous" | tail -n 1)
# The test's own time, from here (a build of the previous release is
# cached: minutes the first time on a machine, none after).
say "$previous built ($((SECONDS - started)) s)"
started=$SECONDS

root=$WORK/root
data=$WORK/data
server_bin=$root$bindir
trap 'PG_BIN=$server_bin scripts/pg-server.sh stop "$data" >/dev/null 2>&1 || true' EXIT
if [ -x "$server_bin/pg_ctl" ]; then
    PG_BIN=$server_bin scripts/pg-server.sh stop "$data" || true
fi
rm -rf "$WORK"
mkdir -p "$root"
chmod 755 "$WORK" "$root"

# 1. The private copy: the programs' directory, the library and share
# directories, and the directories outside the system's of the shared
# libraries the programs load (a relocatable build's own, found by ldd); a
# directory inside another listed one goes with it.
private_library_dirs() {
    local program
    for program in postgres initdb psql pg_ctl; do
        ldd "$bindir/$program" | sed -nE 's/.*=> (\/[^ ]+) .*/\1/p'
    done | xargs -r -n 1 realpath | xargs -r -n 1 dirname \
        | grep -vE '^(/lib|/usr/lib/x86_64-linux-gnu|/usr/lib64)(/|$)' || true
}
{
    printf '%s\n' "$bindir" "$pkglibdir" "$sharedir"
    [ "$(dirname "$libdir")" != "$(dirname "$bindir")" ] || echo "$libdir"
    private_library_dirs
} | sort -u | awk '{ for (i = 1; i <= n; i++) if (index($0 "/", kept[i] "/") == 1) next; kept[++n] = $0; print }' \
    | while read -r dir; do
        # Hard links; a copy where they cannot cross file systems (the chroot's).
        if ! (cd / && cp -al --parents "${dir#/}" "$root" 2>/dev/null); then
            rm -rf "${root:?}$dir"
            (cd / && cp -a --parents "${dir#/}" "$root")
        fi
    done
rm -f "$root$pkglibdir"/pg_flake* "$root$sharedir"/extension/pg_flake*
copy_config=$server_bin/pg_config
[ "$("$copy_config" --pkglibdir)" = "$root$pkglibdir" ] \
    || fail "the copy's pg_config says pkglibdir $("$copy_config" --pkglibdir), not $root$pkglibdir"
say "a private copy of PostgreSQL $major in $root ($((SECONDS - started)) s)"

# 2. The previous release, created and generating.
find "$previous_files" -name pg_flake.so -exec cp {} "$root$pkglibdir/" \;
find "$previous_files" -path '*/extension/pg_flake*' -exec cp {} "$root$sharedir/extension/" \;
export PG_BIN=$server_bin
scripts/pg-server.sh start "$data" "$PORT" "shared_preload_libraries = 'pg_flake'"
library=$root$pkglibdir/pg_flake.so
# maps_library [SUFFIX]: how many of the postmaster's mappings are of the library
# (SUFFIX " (deleted)": of the file that was there before a rename over it).
maps_library() { grep -c " $library${1:-}\$" "/proc/$(head -n 1 "$data/postmaster.pid")/maps" || true; }
[ "$(maps_library)" -gt 0 ] || fail "the server did not load $library"
psql=("$server_bin/psql" -X -q -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PORT" -U postgres)
extversion() { "${psql[@]}" -d "$1" -c "SELECT extversion FROM pg_extension WHERE extname = 'pg_flake'"; }
"${psql[@]}" -d postgres -c "CREATE DATABASE flake_update" -c "CREATE DATABASE flake_fresh" \
    -c "CREATE DATABASE flake_chain"
"${psql[@]}" -d flake_update -c "CREATE EXTENSION pg_flake"
[ "$(extversion flake_update)" = "$previous" ] || fail "CREATE EXTENSION on the previous release gave $(extversion flake_update)"
"${psql[@]}" -d flake_update -v phase=before -f tests/package/formats.sql
say "$previous created and generating ($((SECONDS - started)) s)"

# 3. install.sh: another major version refused, then the one-line install.
mkdir -p "$WORK/unpacked/other"
printf '#!/bin/sh\necho "PostgreSQL %s.1"\n' "$((major + 1))" > "$WORK/unpacked/other/pg_config"
chmod 755 "$WORK/unpacked/other/pg_config"
cd "$WORK/unpacked"
tar xzf "$tarball"
if refusal=$("./$name/install.sh" "$WORK/unpacked/other/pg_config" 2>&1); then
    fail "install.sh installed for PostgreSQL $((major + 1)): $refusal"
fi
case $refusal in
*"for PostgreSQL $major, but"*) say "install.sh refuses another major version: $refusal" ;;
*) fail "install.sh failed for PostgreSQL $((major + 1)) without saying why: $refusal" ;;
esac
rm -rf "$WORK/unpacked"/*
old_inode=$(stat -c %i "$library")
tar xzf "$tarball" && "./$name/install.sh" "$copy_config"
cd "$repo"
for file in "$WORK/unpacked/$name"/extension/*; do
    cmp -s "$file" "$root$sharedir/extension/$(basename "$file")" || fail "install.sh did not install $(basename "$file")"
done
cmp -s "$WORK/unpacked/$name/lib/pg_flake.so" "$library" || fail "install.sh did not install pg_flake.so"
[ "$(stat -c %i "$library")" != "$old_inode" ] || fail "install.sh wrote the library in place (the running server maps it)"
# The running server keeps the old library, and serves.
[ "$(maps_library " (deleted)")" -gt 0 ] || fail "the running server does not map the library it loaded"
"${psql[@]}" -d flake_update -c "SELECT sno_generate()" >/dev/null

# 4. Restart, update, generate above.
scripts/pg-server.sh stop "$data"
scripts/pg-server.sh start "$data" "$PORT" "shared_preload_libraries = 'pg_flake'"
[ "$(maps_library)" -gt 0 ] || fail "the server did not load $library after the restart"
# Files of their own: none written through a hard link into the shared installation.
linked=$(find "$root$pkglibdir" "$root$sharedir/extension" -maxdepth 1 -name 'pg_flake*' -links +1)
[ -z "$linked" ] || fail "pg_flake files of the copy share their inode with another installation: $linked"
"${psql[@]}" -d flake_update -c "ALTER EXTENSION pg_flake UPDATE"
[ "$(extversion flake_update)" = "$version" ] || fail "ALTER EXTENSION pg_flake UPDATE gave $(extversion flake_update)"
"${psql[@]}" -d flake_update -v phase=after -f tests/package/formats.sql
say "updated from $previous to $version; every format generates above ($((SECONDS - started)) s)"

# 5. A fresh database at this version, and one from 0.1.0 up.
"${psql[@]}" -d flake_fresh -c "CREATE EXTENSION pg_flake"
[ "$(extversion flake_fresh)" = "$version" ] || fail "CREATE EXTENSION gave $(extversion flake_fresh)"
"${psql[@]}" -d flake_fresh -v phase=fresh -f tests/package/formats.sql
first=$(awk '/^[0-9]/ { print $1; exit }' scripts/releases.txt)
"${psql[@]}" -d flake_chain -c "CREATE EXTENSION pg_flake VERSION '$first'" -c "ALTER EXTENSION pg_flake UPDATE"
[ "$(extversion flake_chain)" = "$version" ] || fail "the update from $first gave $(extversion flake_chain)"
scripts/pg-server.sh stop "$data"

rm -rf "$WORK"
say "$name passed: install.sh, CREATE EXTENSION, every format, the update from $previous and from $first ($((SECONDS - started)) s)"
