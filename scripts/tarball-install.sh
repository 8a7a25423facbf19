#!/bin/sh
# install.sh of pg_flake's binary tarball (scripts/package.sh writes it there
# with the version and PostgreSQL major filled in; docs/operations.md
# "Packaging"). Installs pg_flake @VERSION@ into a PostgreSQL @PG_MAJOR@:
#
#   tar xzf pg_flake-@VERSION@-pg@PG_MAJOR@-linux-*.tar.gz
#   sudo ./pg_flake-@VERSION@-pg@PG_MAJOR@-linux-*/install.sh /path/to/pg_config
#
# The pg_config: the argument, else $PG_CONFIG, else the first on PATH. Its
# PostgreSQL must be @PG_MAJOR@ (a library built for another major version
# would not load). lib/ goes to `pg_config --pkglibdir`, extension/ to
# `pg_config --sharedir`/extension. Every file is copied under a temporary
# name beside its place, then renamed over the old one: a running server
# keeps the library it has mapped (overwriting it in place would crash it),
# and nothing is written through a hard link into another installation.
# Then: restart a server that preloads pg_flake, and in each database
# CREATE EXTENSION pg_flake, or ALTER EXTENSION pg_flake UPDATE.
# POSIX sh; nothing but cp, chmod, mv and pg_config.
set -eu
version=@VERSION@
major=@PG_MAJOR@

die() {
    echo "install.sh: $*" >&2
    exit 1
}

case ${1:-} in
-h | --help)
    echo "usage: $0 [PG_CONFIG]"
    echo "Installs pg_flake $version into the PostgreSQL $major that PG_CONFIG (or \$PG_CONFIG, or the"
    echo "pg_config on PATH) describes."
    exit 0
    ;;
esac
[ $# -le 1 ] || die "usage: $0 [PG_CONFIG]"

here=$(cd "$(dirname "$0")" && pwd)
pg_config=${1:-${PG_CONFIG:-}}
if [ -z "$pg_config" ]; then
    pg_config=$(command -v pg_config) \
        || die "no pg_config on PATH: name the one of your PostgreSQL $major, e.g. $0 /usr/lib/postgresql/$major/bin/pg_config"
fi
[ -f "$pg_config" ] && [ -x "$pg_config" ] || die "$pg_config is not an executable pg_config"
found=$("$pg_config" --version) || die "$pg_config --version failed"
found_major=$(echo "$found" | sed -n 's/^PostgreSQL \([0-9][0-9]*\).*/\1/p')
[ -n "$found_major" ] || die "$pg_config --version says '$found', not a PostgreSQL version"
if [ "$found_major" != "$major" ]; then
    die "this is pg_flake $version for PostgreSQL $major, but $pg_config is $found: use pg_flake-$version-pg$found_major-linux-$(uname -m).tar.gz"
fi

libdir=$("$pg_config" --pkglibdir)
extdir=$("$pg_config" --sharedir)/extension
for dir in "$libdir" "$extdir"; do
    [ -d "$dir" ] || die "$dir (from $pg_config) is not a directory"
    [ -w "$dir" ] || die "cannot write to $dir: run as the owner of that PostgreSQL installation (e.g. with sudo)"
done
[ -f "$here/lib/pg_flake.so" ] || die "$here/lib/pg_flake.so is missing: unpack the whole tarball"

# put FILE DIR MODE: FILE into DIR, by a rename over the old file.
put() {
    target=$2/$(basename "$1")
    temporary=$2/.$(basename "$1").install-$$
    if ! { cp "$1" "$temporary" && chmod "$3" "$temporary" && mv -f "$temporary" "$target"; }; then
        rm -f "$temporary"
        die "could not install $target"
    fi
}

scripts=0
for file in "$here"/extension/*; do
    put "$file" "$extdir" 644
    scripts=$((scripts + 1))
done
put "$here/lib/pg_flake.so" "$libdir" 755

echo "pg_flake $version installed for $found:"
echo "  $libdir/pg_flake.so"
echo "  $extdir: pg_flake.control and $((scripts - 1)) install and upgrade scripts"
echo "Next: restart a server that has pg_flake in shared_preload_libraries; then, in each database,"
echo "CREATE EXTENSION pg_flake (new) or ALTER EXTENSION pg_flake UPDATE (from an earlier version)."
