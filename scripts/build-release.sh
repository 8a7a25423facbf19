#!/usr/bin/env bash
# build-release.sh VERSION: the package of a released pg_flake (a version of
# scripts/releases.txt) for the PostgreSQL of PG_CONFIG, built from the
# release's own commit with its own Cargo.lock and release profile (but its
# thin LTO and opt-level, below) by `cargo pgrx package`, as a user of that release built it. Prints the
# directory DIR that holds the files laid out under pg_config's own paths
# (DIR<pkglibdir>/pg_flake.so, DIR<sharedir>/extension/...).
#
# Cached: PG_FLAKE_RELEASES (default /var/cache/pg_flake/releases) keeps
# each release's source and, per PostgreSQL installation, its package; one
# cargo target directory there serves every release, so their common
# dependencies build once. A build runs under a lock (the versions' long
# suites run side by side). Idempotent; the first build of a release for a
# version takes minutes, later calls return at once.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
version=${1:?usage: build-release.sh VERSION}
PG_CONFIG=${PG_CONFIG:?PG_CONFIG: the pg_config of the PostgreSQL to build for}
cache=${PG_FLAKE_RELEASES:-/var/cache/pg_flake/releases}

commit=$(awk -v v="$version" '$1 == v { print $3 }' "$here/releases.txt")
[ -n "$commit" ] || { echo "build-release: $version is not in scripts/releases.txt" >&2; exit 2; }
major=$("$PG_CONFIG" --version | sed -nE 's/^PostgreSQL ([0-9]+).*/\1/p')
# The package's files lie under the paths of this pg_config: one build per
# PostgreSQL installation, not per major version.
out=$cache/$version-${commit:0:12}/pg$major-$(printf %s "$PG_CONFIG" | sha256sum | cut -c1-8)
if [ -f "$out/done" ]; then
    echo "$out/files"
    exit 0
fi

mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
if [ ! -f "$out/done" ]; then
    src=$cache/$version-${commit:0:12}/src
    if [ ! -f "$src/Cargo.toml" ]; then
        rm -rf "$src"
        mkdir -p "$src"
        git -C "$here/.." archive --format=tar "$commit" | tar -x -C "$src"
    fi
    echo "build-release: building pg_flake $version ($commit) for PostgreSQL $major" >&2
    rm -rf "$out"
    mkdir -p "$out"
    # Every release's library is target/release/libpg_flake.so in the
    # shared target directory, and cargo copies it there only when it
    # compiles it: a release found up to date would be packaged with the
    # library of the release built last. So its crate is always compiled
    # (the dependencies stay shared).
    touch "$src/src/lib.rs"
    # Without the release profile's thin LTO, in 16 codegen units, at opt-level 1: the same
    # source and behaviour (panics still unwind, no debug assertions), in a fraction of the
    # build time. The releases are the state the upgrade and package tests start from, not
    # what is measured, and CI builds seven of them on 2 cores (docs/development.md "CI's time").
    (cd "$src" && CARGO_TARGET_DIR=$cache/target CARGO_PROFILE_RELEASE_LTO=false \
        CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 CARGO_PROFILE_RELEASE_OPT_LEVEL=1 cargo pgrx package \
        --pg-config "$PG_CONFIG" --no-default-features --features "pg$major" \
        --out-dir "$out/files") >&2
    [ -f "$out/files$("$PG_CONFIG" --pkglibdir)/pg_flake.so" ] \
        || { echo "build-release: no pg_flake.so in $out/files" >&2; exit 1; }
    # The build is the release: its install script is the one pinned in
    # sql/releases/ (pgrx orders the statements differently from build to build, so
    # the lines are compared sorted, its source-location comments left out).
    built=$out/files$("$PG_CONFIG" --sharedir)/extension/pg_flake--$version.sql
    if ! diff -q <(grep -v '^--' "$built" | sort) <(grep -v '^--' "$here/../sql/releases/pg_flake--$version.sql" | sort) >/dev/null; then
        echo "build-release: the build of $version does not make sql/releases/pg_flake--$version.sql" >&2
        exit 1
    fi
    touch "$out/done"
fi
echo "$out/files"
