#!/usr/bin/env bash
# Builds the Debian package of pg_flake for the PostgreSQL that PG_CONFIG
# belongs to (default: Debian's PostgreSQL 15):
#   target/debian/postgresql-<major>-pg-flake_<version>_<arch>.deb
# with the version from Cargo.toml. `cargo pgrx package` makes the release
# build and lays the files out under pg_config's own directories in
# target/release/pg_flake-pg<major>/; the package puts them where Debian's
# PostgreSQL packages look for extensions (/usr/lib/postgresql/<major>/lib,
# /usr/share/postgresql/<major>/extension), whatever PostgreSQL built them.
# Needs dpkg-dev (dpkg-deb, dpkg-shlibdeps) and binutils (strip); the lead's
# `make prereqs` covers the rest of the build. `make package-17` runs it in
# the Debian 13 chroot (scripts/pg17-chroot.sh), with CARGO_TARGET_DIR
# target/pg17-chroot: the package is built and its dependencies found there.
set -euo pipefail
cd "$(dirname "$0")/.."
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
MAINTAINER=${DEB_MAINTAINER:-pg_flake maintainers <maintainers@pg-flake.invalid>}

scripts/apt-install.sh package-deb dpkg-dev binutils

major=$("$PG_CONFIG" --version | sed -nE 's/^PostgreSQL ([0-9]+).*/\1/p')
[ -n "$major" ] || { echo "package-deb: cannot read the major version from $PG_CONFIG --version" >&2; exit 1; }
version=$(awk -F '"' '/^\[/ { in_package = ($0 == "[package]") } in_package && /^version *=/ { print $2; exit }' Cargo.toml)
# META.json (PGXN) states the version twice besides its meta-spec's 1.0.0;
# the control file takes Cargo.toml's (@CARGO_VERSION@).
stray=$(grep -o '"version": *"[^"]*"' META.json | grep -v -e "\"$version\"" -e '"1.0.0"' || true)
[ -z "$stray" ] || { echo "package-deb: META.json has $stray, Cargo.toml $version: keep them in step" >&2; exit 1; }
arch=$(dpkg --print-architecture)
name=postgresql-$major-pg-flake
deb=target/debian/${name}_${version}_${arch}.deb

echo "package-deb: building $name $version with $PG_CONFIG"
cargo pgrx package --pg-config "$PG_CONFIG" --no-default-features --features "pg$major"
staged=${CARGO_TARGET_DIR:-target}/release/pg_flake-pg$major
staged_lib=$staged$("$PG_CONFIG" --pkglibdir)
staged_ext=$staged$("$PG_CONFIG" --sharedir)/extension
for file in "$staged_lib/pg_flake.so" "$staged_ext/pg_flake.control" "$staged_ext/pg_flake--$version.sql"; do
    [ -f "$file" ] || { echo "package-deb: cargo pgrx package did not make $file" >&2; exit 1; }
done

work=target/debian/build-$name
root=$work/debian/$name
rm -rf "$work"
install -d "$root/DEBIAN" "$root/usr/lib/postgresql/$major/lib" \
    "$root/usr/share/postgresql/$major/extension" "$root/usr/share/doc/$name"
# Everything pgrx staged: the library, the control file, the install script
# and any upgrade scripts (sql/pg_flake--A--B.sql).
install -m 644 "$staged_lib"/* "$root/usr/lib/postgresql/$major/lib/"
install -m 644 "$staged_ext"/* "$root/usr/share/postgresql/$major/extension/"
# And the install scripts of 0.1.0, 0.2.0 and 0.3.0 as they landed, as `make install` adds them: CREATE
# EXTENSION pg_flake VERSION '0.1.0' (or '0.2.0', '0.3.0') then works (docs/operations.md "Versions"; the
# regression test upgrade needs it).
install -m 644 sql/pg_flake--0.1.0.sql sql/pg_flake--0.2.0.sql sql/pg_flake--0.3.0.sql "$root/usr/share/postgresql/$major/extension/"
# As dh_strip does: the symbol tables are most of a Rust library's size;
# the dynamic symbols PostgreSQL looks up stay.
strip --strip-unneeded --remove-section=.comment --remove-section=.note \
    "$root/usr/lib/postgresql/$major/lib/pg_flake.so"

# tail, not head: head would end the pipe early and pipefail take git's SIGPIPE.
first_year=$(git log --format=%ad --date=format:%Y 2>/dev/null | tail -n 1)
last_year=$(git log -1 --format=%ad --date=format:%Y 2>/dev/null || date +%Y)
years=${first_year:-$last_year}
[ "$years" = "$last_year" ] || years="$years-$last_year"
cat > "$root/usr/share/doc/$name/copyright" <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: pg_flake
Source: the pg_flake repository (README.md)

Files: *
Copyright: $years the pg_flake developers
License: MIT
 Permission is hereby granted, free of charge, to any person obtaining a copy
 of this software and associated documentation files (the "Software"), to deal
 in the Software without restriction, including without limitation the rights
 to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
 copies of the Software, and to permit persons to whom the Software is
 furnished to do so, subject to the following conditions:
 .
 The above copyright notice and this permission notice shall be included in
 all copies or substantial portions of the Software.
 .
 THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
 IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
 FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
 AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
 LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
 OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
 SOFTWARE.
EOF
# Dates are the last commit's (the changelog's, and every file's time in
# the archive through SOURCE_DATE_EPOCH), so the same tree gives the same
# metadata. The version has no Debian revision: a native package, whose
# changelog is changelog.gz.
date=$(git log -1 --format=%aD 2>/dev/null || date -R)
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
printf '%s (%s) unstable; urgency=medium\n\n  * Built from the pg_flake repository (see docs/operations.md, "Versions").\n\n -- %s  %s\n' \
    "$name" "$version" "$MAINTAINER" "$date" | gzip -9n > "$root/usr/share/doc/$name/changelog.gz"
chmod 644 "$root/usr/share/doc/$name/"*

# Shared-library dependencies (libc6, libgcc-s1), as dh_shlibdeps finds them.
printf 'Source: pg-flake\n\nPackage: %s\nArchitecture: any\n' "$name" > "$work/debian/control"
shlibs=$(cd "$work" && dpkg-shlibdeps -O -e"debian/$name/usr/lib/postgresql/$major/lib/pg_flake.so" \
    | sed -n 's/^shlibs:Depends=//p')

cat > "$root/DEBIAN/control" <<EOF
Package: $name
Version: $version
Architecture: $arch
Maintainer: $MAINTAINER
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: postgresql-$major${shlibs:+, $shlibs}
Section: database
Priority: optional
Description: distributed, time-sortable IDs for PostgreSQL $major (pg_flake)
 pg_flake makes the flake family of distributed, time-sortable identifiers
 native PostgreSQL types and functions: sno, SIQ, DistributedId (with its
 128-bit form, base62 encoding and AES public identities), Flax ID, the
 k-ordered uid (kuid64, kuid96) and Discord-style Snowflakes, each byte-exact
 with its original implementation.
 .
 After installing: CREATE EXTENSION pg_flake; add pg_flake to
 shared_preload_libraries for one server-wide generator per format.
EOF
(cd "$root" && find usr -type f | sort | xargs md5sum) > "$root/DEBIAN/md5sums"
chmod 644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"

rm -f "$deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
rm -rf "$work"
echo "package-deb: $deb ($(du -h "$deb" | cut -f1))"
dpkg-deb --info "$deb" | sed -n '/Package:/,$p'
dpkg-deb --contents "$deb"
