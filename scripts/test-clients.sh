#!/usr/bin/env bash
# The client recipes (clients/*/README.md) against the database in
# PG_FLAKE_TEST_DSN (libpq's key=value form), which is created with pg_flake
# if missing. The recipes drop and create pg_flake in it: use a database of
# its own. Installs what is missing first (as root, on Debian 12): Node.js
# and npm, a JDK and pgjdbc from Debian, Go and pgx v4 from Debian (built in
# GOPATH mode, no module proxy), the node packages from
# clients/node/package-lock.json (npm's registry only). Runs them all
# (node-postgres, Drizzle, Prisma, pgjdbc, tokio-postgres, Go pgx) and fails
# if any failed.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${PG_FLAKE_TEST_DSN:?set PG_FLAKE_TEST_DSN, e.g. host=127.0.0.1 port=PORT user=postgres dbname=flake_clients}"
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
# The node packages (pg, Drizzle, Prisma) and the Prisma client, one
# installer at a time (the versions' suites may run side by side).
# --ignore-scripts: no package needs its install scripts, and Prisma's would
# try to download engines from binaries.prisma.sh (clients/node/README.md,
# "Prisma"); the client is generated offline below.
exec 8>clients/node/.install.lock
flock 8
# npm writes node_modules/.package-lock.json last: older than the lock file
# (or absent) means the installed packages are not the locked ones.
if [ ! clients/node/node_modules/.package-lock.json -nt clients/node/package-lock.json ]; then
    echo "test-clients: npm ci (clients/node)"
    (cd clients/node && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
fi
# prisma generate copies the schema into the client it writes: a different
# copy (or none) means the client is not this schema's.
if ! cmp -s clients/node/prisma/schema.prisma clients/node/node_modules/.prisma/client/schema.prisma; then
    echo "test-clients: prisma generate (clients/node)"
    if ! out=$(cd clients/node && CHECKPOINT_DISABLE=1 node node_modules/prisma/build/index.js generate --no-hints 2>&1); then
        printf '%s\n' "$out" >&2
        exit 1
    fi
fi
flock -u 8
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
run drizzle node clients/node/drizzle-recipe.js
run prisma node clients/node/prisma-recipe.js
run java clients/java/run.sh
run rust clients/rust/target/debug/pg-flake-client-rust
run go clients/go/run.sh
if [ ${#failed[@]} -gt 0 ]; then
    echo "test-clients: FAILED: ${failed[*]}" >&2
    exit 1
fi
echo "test-clients: node, drizzle, prisma, java, rust and go recipes passed"
