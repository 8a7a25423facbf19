#!/usr/bin/env bash
# Makes clients/go/vendor from Debian 12's Go packages (golang-go,
# golang-github-jackc-pgx-v4-dev and the packages it depends on, under
# /usr/share/gocode/src): a symbolic link per module and the
# vendor/modules.txt that go.mod's requirements call for. With it, `go
# build` (module mode, -mod=vendor, GOPROXY=off) needs no module proxy and
# no module cache. Nothing is copied: the sources stay Debian's, and
# vendor/ is not committed (README.md, "Building offline"). Idempotent;
# safe to run from several suites at once.
#
# The versions are those of go.mod, which are the Debian packages' (checked
# below against each module's go.mod where it names its own version).
set -euo pipefail
cd "$(dirname "$0")"
src=${PG_FLAKE_GOCODE:-/usr/share/gocode/src}
# Debian's Go and pgx, installed when missing (as root; the nemesis and
# make bench build Go programs too, and may run before test-clients.sh).
if ! command -v go >/dev/null || [ ! -d "$src/github.com/jackc/pgx/v4" ]; then
    # On stderr: build.sh's stdout is the binaries' paths, which callers run.
    ../../scripts/apt-install.sh clients/go golang-go golang-github-jackc-pgx-v4-dev >&2
fi

# module version package...
modules=(
    "github.com/jackc/chunkreader/v2 v2.0.1 github.com/jackc/chunkreader/v2"
    "github.com/jackc/pgconn v1.11.0 github.com/jackc/pgconn github.com/jackc/pgconn/internal/ctxwatch github.com/jackc/pgconn/stmtcache"
    "github.com/jackc/pgio v1.0.0 github.com/jackc/pgio"
    "github.com/jackc/pgpassfile v1.0.0 github.com/jackc/pgpassfile"
    "github.com/jackc/pgproto3/v2 v2.2.0 github.com/jackc/pgproto3/v2"
    "github.com/jackc/pgservicefile v0.0.0-20200714003250-2b9c44734f2b github.com/jackc/pgservicefile"
    "github.com/jackc/pgtype v1.10.0 github.com/jackc/pgtype"
    "github.com/jackc/pgx/v4 v4.15.0 github.com/jackc/pgx/v4 github.com/jackc/pgx/v4/internal/sanitize github.com/jackc/pgx/v4/pgxpool github.com/jackc/pgx/v4/stdlib"
    "github.com/jackc/puddle v1.2.1 github.com/jackc/puddle"
    "golang.org/x/crypto v0.4.0 golang.org/x/crypto/pbkdf2"
    "golang.org/x/text v0.7.0 golang.org/x/text/cases golang.org/x/text/internal golang.org/x/text/internal/language golang.org/x/text/internal/language/compact golang.org/x/text/internal/tag golang.org/x/text/language golang.org/x/text/runes golang.org/x/text/secure/bidirule golang.org/x/text/secure/precis golang.org/x/text/transform golang.org/x/text/unicode/bidi golang.org/x/text/unicode/norm golang.org/x/text/width"
)

manifest=""
for line in "${modules[@]}"; do
    read -r module version packages <<<"$line"
    if [ ! -f "$src/$module/go.mod" ]; then
        echo "clients/go/vendor.sh: $src/$module is missing: apt-get install golang-github-jackc-pgx-v4-dev" >&2
        exit 1
    fi
    grep -q "^$module $version\$" go.mod || grep -q "	$module $version" go.mod || {
        echo "clients/go/vendor.sh: go.mod does not require $module $version" >&2
        exit 1
    }
    gover=$(sed -n 's/^go \([0-9.]*\).*/\1/p' "$src/$module/go.mod" | head -n 1)
    manifest+="# $module $version"$'\n'"## explicit${gover:+; go $gover}"$'\n'
    for p in $packages; do
        manifest+="$p"$'\n'
    done
done

# Up to date: nothing to do (the common case, and what concurrent runs see).
if [ -f vendor/modules.txt ] && [ "$(cat vendor/modules.txt)" == "${manifest%$'\n'}" ]; then
    exit 0
fi
exec 7>.vendor.lock
flock 7
if [ -f vendor/modules.txt ] && [ "$(cat vendor/modules.txt)" == "${manifest%$'\n'}" ]; then
    exit 0
fi
rm -rf vendor.new
mkdir vendor.new
for line in "${modules[@]}"; do
    read -r module _ <<<"$line"
    mkdir -p "vendor.new/$(dirname "$module")"
    ln -s "$src/$module" "vendor.new/$module"
done
printf '%s' "$manifest" >vendor.new/modules.txt
rm -rf vendor
mv vendor.new vendor
