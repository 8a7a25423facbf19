#!/usr/bin/env bash
# Checks the Go package (src/pgflake) with gofmt and go vet, tests it
# against the reference vectors (go test, no server), then builds and runs
# its recipe against PG_FLAKE_TEST_DSN. GOPATH mode with Debian's Go 1.19
# and pgx v4 (golang-go, golang-github-jackc-pgx-v4-dev, in
# /usr/share/gocode): no module proxy, nothing is downloaded. One package at
# a time (-p 1); the build cache is .cache here unless GOCACHE says otherwise.
set -euo pipefail
cd "$(dirname "$0")"
export GO111MODULE=off GOPATH="$PWD:/usr/share/gocode" GOFLAGS= GOPROXY=off
export GOCACHE=${GOCACHE:-$PWD/.cache}
unformatted=$(gofmt -l src)
if [ -n "$unformatted" ]; then
    echo "clients/go: not gofmt-formatted: $unformatted" >&2
    exit 1
fi
go vet -p 1 pgflake/...
go test -p 1 pgflake
# A binary of this run's own: the versions' suites may run side by side.
# Under PG_FLAKE_TMP as the tests' other files (TMPDIR, /tmp without it).
tmp=${PG_FLAKE_TMP:-${TMPDIR:-/tmp}}
mkdir -p "$tmp"
out=$(mktemp -d "$tmp/pgflake-go.XXXXXX")
trap 'rm -rf "$out"' EXIT
go build -p 1 -o "$out/pgflake-recipe" pgflake/cmd/pgflake-recipe
"$out/pgflake-recipe"
