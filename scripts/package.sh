#!/usr/bin/env bash
# Builds pg_flake's binary artifacts for the PostgreSQL that PG_CONFIG
# belongs to (default: Debian's PostgreSQL 15), from one `cargo pgrx package`
# (docs/operations.md "Packaging"):
#   target/package/pg_flake-<version>-pg<major>-linux-<arch>.tar.gz
#   target/debian/postgresql-<major>-pg-flake_<version>_<debarch>.deb  (--deb)
# with the version from Cargo.toml. The tarball holds one directory,
# pg_flake-<version>-pg<major>-linux-<arch>/, laid out for pg_config's own
# directories, whatever PostgreSQL built it:
#   lib/pg_flake.so   for `pg_config --pkglibdir`, stripped as dh_strip does
#   extension/        for `pg_config --sharedir`/extension: the control file,
#                     this version's install script, the install scripts of
#                     the releases as they shipped (sql/releases/: CREATE
#                     EXTENSION pg_flake VERSION '0.1.0' works, as after
#                     `make install`) and every upgrade script as PostgreSQL
#                     runs it (scripts/assemble-upgrade.py)
#   install.sh        scripts/tarball-install.sh, for this version and major
#   LICENSE, README.md, CHANGELOG.md
# That directory is also what the .deb ships (scripts/package-deb.sh), so
# both artifacts of a version carry the same files.
# `make package-17` runs this in the Debian 13 chroot (scripts/pg17-chroot.sh,
# CARGO_TARGET_DIR target/pg17-chroot): built against Debian 13 there.
# The archive is reproducible: every file's time is the last commit's
# (SOURCE_DATE_EPOCH), owners are 0, names sorted.
set -euo pipefail
cd "$(dirname "$0")/.."
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
deb=
case ${1:-} in
--deb) deb=yes ;;
"") ;;
*) echo "usage: $0 [--deb]" >&2; exit 2 ;;
esac

scripts/apt-install.sh package binutils

major=$("$PG_CONFIG" --version | sed -nE 's/^PostgreSQL ([0-9]+).*/\1/p')
[ -n "$major" ] || { echo "package: cannot read the major version from $PG_CONFIG --version" >&2; exit 1; }
version=$(awk -F '"' '/^\[/ { in_package = ($0 == "[package]") } in_package && /^version *=/ { print $2; exit }' Cargo.toml)
name=pg_flake-$version-pg$major-linux-$(uname -m)
out=target/package
payload=$out/$name

echo "package: building pg_flake $version with $PG_CONFIG"
cargo pgrx package --pg-config "$PG_CONFIG" --no-default-features --features "pg$major"
staged=${CARGO_TARGET_DIR:-target}/release/pg_flake-pg$major
staged_lib=$staged$("$PG_CONFIG" --pkglibdir)
staged_ext=$staged$("$PG_CONFIG" --sharedir)/extension
for file in "$staged_lib/pg_flake.so" "$staged_ext/pg_flake.control" "$staged_ext/pg_flake--$version.sql"; do
    [ -f "$file" ] || { echo "package: cargo pgrx package did not make $file" >&2; exit 1; }
done
grep -q "^default_version = '$version'\$" "$staged_ext/pg_flake.control" \
    || { echo "package: $staged_ext/pg_flake.control is not for $version" >&2; exit 1; }

rm -rf "$payload"
install -d "$payload/lib" "$payload/extension"
install -m 755 "$staged_lib/pg_flake.so" "$payload/lib/"
# As dh_strip does: the symbol tables are most of a Rust library's size;
# the dynamic symbols PostgreSQL looks up stay.
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$payload/lib/pg_flake.so"
install -m 644 "$staged_ext"/pg_flake.control "$staged_ext"/pg_flake--"$version".sql "$payload/extension/"
python3 scripts/assemble-upgrade.py --out target/sql
install -m 644 sql/releases/*.sql target/sql/*.sql "$payload/extension/"
sed -e "s/@VERSION@/$version/g" -e "s/@PG_MAJOR@/$major/g" scripts/tarball-install.sh > "$payload/install.sh"
chmod 755 "$payload/install.sh"
install -m 644 LICENSE README.md CHANGELOG.md "$payload/"

export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
tarball=$out/$name.tar.gz
(cd "$out" && tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
    -cf - "$name" | gzip -9n > "$name.tar.gz.new")
mv -f "$tarball.new" "$tarball"
# The newest C library version its symbols need: the oldest system it runs on.
glibc=$(objdump -T "$payload/lib/pg_flake.so" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -n 1)
echo "package: $tarball ($(du -h "$tarball" | cut -f1); the library needs glibc ${glibc#GLIBC_} or later)"
tar -tzvf "$tarball"

if [ -n "$deb" ]; then
    scripts/package-deb.sh "$payload"
fi
