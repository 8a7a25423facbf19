#!/usr/bin/env bash
# The client recipes (clients/*/README.md) against the database in
# PG_FLAKE_TEST_DSN (libpq's key=value form), which is created with pg_flake
# if missing. The recipes drop and create pg_flake in it: use a database of
# its own. Installs what is missing first (as root, on Debian 12): Node.js
# and npm, a JDK and pgjdbc from Debian, Go and pgx v4 from Debian (built in
# GOPATH mode, no module proxy), the node packages from
# clients/node/package-lock.json. Runs all four and fails if any failed.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${PG_FLAKE_TEST_DSN:?set PG_FLAKE_TEST_DSN, e.g. host=127.0.0.1 port=25430 user=postgres dbname=flake_clients}"
export PG_FLAKE_TEST_DSN
PSQL=${PG_BIN:+$PG_BIN/}psql

missing=()
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
command -v javac >/dev/null || missing+=(default-jdk-headless)
[ -f "${PGJDBC_JAR:-/usr/share/java/postgresql.jar}" ] || missing+=(libpostgresql-jdbc-java)
command -v go >/dev/null || missing+=(golang-go)
[ -d /usr/share/gocode/src/github.com/jackc/pgx/v4 ] || missing+=(golang-github-jackc-pgx-v4-dev)
if [ ${#missing[@]} -gt 0 ]; then
    scripts/apt-install.sh test-clients "${missing[@]}"
fi
# npm writes node_modules/.package-lock.json last: older than the lock file
# (or absent) means the installed packages are not the locked ones.
if [ ! clients/node/node_modules/.package-lock.json -nt clients/node/package-lock.json ]; then
    echo "test-clients: npm ci (clients/node)"
    (cd clients/node && npm ci --no-audit --no-fund --loglevel=error)
fi
echo "test-clients: building the Rust recipe (clients/rust)"
cargo build --quiet --locked --manifest-path clients/rust/Cargo.toml

# The database: the DSN's, created through the same server's postgres database.
dbname=$(printf '%s\n' "$PG_FLAKE_TEST_DSN" | tr ' ' '\n' | sed -n 's/^dbname=//p' | tail -n 1)
if ! "$PSQL" -X -q "$PG_FLAKE_TEST_DSN" -c "SELECT 1" >/dev/null 2>&1; then
    "$PSQL" -X -q -v ON_ERROR_STOP=1 "$PG_FLAKE_TEST_DSN dbname=postgres" -c "CREATE DATABASE \"$dbname\""
fi
"$PSQL" -X -q -v ON_ERROR_STOP=1 "$PG_FLAKE_TEST_DSN" \
    -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS pg_flake"

failed=()
run() {
    local name=$1
    shift
    echo "== $name"
    "$@" || failed+=("$name")
}
run node node clients/node/recipe.js
run java clients/java/run.sh
run rust clients/rust/target/debug/pg-flake-client-rust
run go clients/go/run.sh
if [ ${#failed[@]} -gt 0 ]; then
    echo "test-clients: FAILED: ${failed[*]}" >&2
    exit 1
fi
echo "test-clients: node, java, rust and go recipes passed"
