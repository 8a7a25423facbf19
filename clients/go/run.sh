#!/usr/bin/env bash
# The Go module's checks (README.md): gofmt and go vet, the unit tests (the
# reference vectors, the leased generators without a server, with -race;
# the pgx codecs), then against PG_FLAKE_TEST_DSN the tests with a server
# (pgxflake: leases with SQL decoding, goroutines, roles, writer processes
# killed and paused; the documentation's examples) and the pgx/database/sql
# recipe. Module mode with Debian 12's Go 1.19 and pgx v4:
# vendor.sh links them into vendor/, GOPROXY=off, nothing is downloaded.
# The build cache is clients/go/.cache unless GOCACHE says otherwise, so the
# versions' runs (which may run side by side) compile pgx once and reuse the
# unit tests' result.
set -euo pipefail
cd "$(dirname "$0")"
: "${PG_FLAKE_TEST_DSN:?set PG_FLAKE_TEST_DSN, e.g. host=127.0.0.1 port=PORT user=postgres dbname=flake_clients}"
./vendor.sh
export GOFLAGS=-mod=vendor GOPROXY=off GOTOOLCHAIN=local GO111MODULE=on
export GOCACHE=${GOCACHE:-$PWD/.cache}
# The tests' files (writer outputs) and binaries under PG_FLAKE_TMP, as the
# other suites' (TMPDIR, /tmp without it).
tmp=${PG_FLAKE_TMP:-${TMPDIR:-/tmp}}
mkdir -p "$tmp"
out=$(mktemp -d "$tmp/pgflake-go.XXXXXX")
trap 'rm -rf "$out"' EXIT
export TMPDIR=$out GOTMPDIR=$out

step() { printf '== clients/go: %s\n' "$*"; }
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './vendor/*'))
if [ -n "$unformatted" ]; then
    echo "clients/go: not gofmt-formatted: $unformatted" >&2
    exit 1
fi
step "go vet"
go vet ./...
# Without a server (its tests skip): cached by go test between the
# versions' runs of one checkout. The root package imports no pgx, so -race
# rebuilds only the standard library's packages it needs.
step "unit tests with -race (vectors, values, leased generators; no server)"
env -u PG_FLAKE_TEST_DSN go test -race .
step "pgx codecs (no server)"
env -u PG_FLAKE_TEST_DSN go test ./pgxflake
step "tests against the server (PG_FLAKE_TEST_DSN)"
go test -count=1 -run '^TestServer' ./pgxflake
step "recipe (pgx, database/sql, OIDs)"
go build -o "$out/" ./cmd/...
"$out/pgflake-recipe"
