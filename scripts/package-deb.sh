#!/usr/bin/env bash
# Builds the Debian package of pg_flake from the files of a binary tarball
# (scripts/package.sh, which calls this with --deb, so that the .deb and the
# tarball of a version come from one build and carry the same files):
#   scripts/package-deb.sh PAYLOAD [OUTDIR]
#   OUTDIR/postgresql-<major>-pg-flake_<version>_<arch>.deb  (OUTDIR: target/debian)
# PAYLOAD is the tarball's directory: lib/pg_flake.so and extension/ (the
# control file, whose default_version is the package's version, and every
# install and upgrade script); <major> is PG_CONFIG's (default: Debian's
# PostgreSQL 15). The package puts them where Debian's PostgreSQL packages
# look for extensions (/usr/lib/postgresql/<major>/lib,
# /usr/share/postgresql/<major>/extension), whatever PostgreSQL built them,
# with LICENSE as its copyright file. Needs dpkg-dev (dpkg-deb,
# dpkg-shlibdeps) and binutils (strip). `make package-17` runs it in the
# Debian 13 chroot (scripts/pg17-chroot.sh): the package's dependencies are
# found there. scripts/test-package-deb.sh also makes the previous release's
# package this way, from that release's build.
set -euo pipefail
cd "$(dirname "$0")/.."
payload=${1:?usage: package-deb.sh PAYLOAD [OUTDIR]}
outdir=${2:-target/debian}
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
MAINTAINER=${DEB_MAINTAINER:-pg_flake maintainers <maintainers@pg-flake.invalid>}

scripts/apt-install.sh package-deb dpkg-dev binutils

major=$("$PG_CONFIG" --version | sed -nE 's/^PostgreSQL ([0-9]+).*/\1/p')
[ -n "$major" ] || { echo "package-deb: cannot read the major version from $PG_CONFIG --version" >&2; exit 1; }
version=$(sed -nE "s/^default_version = '([^']+)'\$/\1/p" "$payload/extension/pg_flake.control" 2>/dev/null || true)
[ -n "$version" ] || { echo "package-deb: no default_version in $payload/extension/pg_flake.control" >&2; exit 1; }
for file in "$payload/lib/pg_flake.so" "$payload/extension/pg_flake--$version.sql"; do
    [ -f "$file" ] || { echo "package-deb: $file is missing" >&2; exit 1; }
done
arch=$(dpkg --print-architecture)
name=postgresql-$major-pg-flake
mkdir -p "$outdir"
deb=$outdir/${name}_${version}_${arch}.deb
echo "package-deb: $name $version from $payload"

work=$outdir/build-$name-$version
root=$work/debian/$name
rm -rf "$work"
install -d "$root/DEBIAN" "$root/usr/lib/postgresql/$major/lib" \
    "$root/usr/share/postgresql/$major/extension" "$root/usr/share/doc/$name"
install -m 644 "$payload/lib/pg_flake.so" "$root/usr/lib/postgresql/$major/lib/"
install -m 644 "$payload"/extension/* "$root/usr/share/postgresql/$major/extension/"
# As dh_strip does (the tarball's library is stripped already; a previous
# release's build is not): the dynamic symbols PostgreSQL looks up stay.
strip --strip-unneeded --remove-section=.comment --remove-section=.note \
    "$root/usr/lib/postgresql/$major/lib/pg_flake.so"

# The copyright file in Debian's machine-readable form, from LICENSE (MIT):
# its copyright line, and its text as the License paragraph (blank lines as
# " .", as that form has them).
copyright=$(sed -n 's/^Copyright (c) //p' LICENSE | head -n 1)
[ -n "$copyright" ] || { echo "package-deb: no 'Copyright (c)' line in LICENSE" >&2; exit 1; }
{
    printf 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n'
    printf 'Upstream-Name: pg_flake\nSource: the pg_flake repository (README.md)\n\n'
    printf 'Files: *\nCopyright: %s\nLicense: MIT\n' "$copyright"
    sed -n '/^Permission is hereby granted/,$p' LICENSE | sed -e 's/^$/./' -e 's/^/ /'
} > "$root/usr/share/doc/$name/copyright"
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
