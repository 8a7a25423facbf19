#!/usr/bin/env bash
# The client recipes (clients/*/README.md) against the database in
# PG_FLAKE_TEST_DSN (libpq's key=value form), which is created with pg_flake
# if missing. The recipes drop and create pg_flake in it: use a database of
# its own. Installs what is missing first (as root, on Debian 12): Node.js
# and npm, a JDK and pgjdbc from Debian, Go and pgx v4 from Debian (the Go
# module clients/go, built offline from a vendor/ of links to Debian's
# sources, no module proxy), libfaketime, the node packages from
# clients/node/package-lock.json (npm's registry only). Runs them all
# (node-postgres, Drizzle, Prisma, the Java package's tests with pgjdbc,
# tokio-postgres, Go pgx) and fails
# if any failed. The npm package pg-flake (clients/typescript): built from
# its lock file and packed (scripts/build-typescript.sh), the tarball
# installed with npm into a scratch project where its tests run (unit, and
# against this database), its conformance adapter on the installed copy;
# the node recipes use the same tarball. The Go module's run.sh also runs
# its unit tests (cached between the versions' runs) and its leased
# generators' tests against this server.
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
# The Java holders' clock tests (clients/java, WriterFaultsTest).
[ -f /usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 ] || missing+=(faketime)
command -v go >/dev/null || missing+=(golang-go)
[ -d /usr/share/gocode/src/github.com/jackc/pgx/v4 ] || missing+=(golang-github-jackc-pgx-v4-dev)
[ -f "${FAKETIME_LIB:-/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1}" ] || missing+=(faketime)
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
# The npm package, packed; the recipes require('pg-flake') from its tarball,
# installed without touching their lock file (again only when it changed).
ts_dir=$(scripts/build-typescript.sh --pack)
ts_version=$(node -p "require('$ts_dir/package.json').version")
ts_tarball="$ts_dir/pg-flake-$ts_version.tgz"
ts_sum=$(sha256sum "$ts_tarball" | cut -d' ' -f1)
if [ "$ts_sum" != "$(cat clients/node/node_modules/.pg-flake-tarball 2>/dev/null)" ]; then
    echo "test-clients: npm install pg-flake-$ts_version.tgz (clients/node)"
    (cd clients/node && npm install --no-save --ignore-scripts --prefer-offline --no-audit --no-fund \
        --loglevel=error "$ts_tarball")
    echo "$ts_sum" > clients/node/node_modules/.pg-flake-tarball
fi
# The scratch project: the tarball and the pinned pg, as an application installs them
# (made again when the tarball changed; the versions' runs share it).
ts_scratch="${PG_FLAKE_TMP:-/tmp}/pg-flake-ts-scratch"
ts_key="$ts_sum $(cat "$ts_dir/dist/.built")" # the tarball and the tests
if [ "$ts_key" != "$(cat "$ts_scratch/.built" 2>/dev/null)" ]; then
    rm -rf "$ts_scratch"
    mkdir -p "$ts_scratch"
    echo '{ "name": "pg-flake-scratch", "private": true }' > "$ts_scratch/package.json"
    pg_pin=$(node -p "require('$ts_dir/package.json').devDependencies.pg")
    echo "test-clients: npm install pg-flake-$ts_version.tgz pg@$pg_pin (a scratch project, $ts_scratch)"
    (cd "$ts_scratch" && npm install --ignore-scripts --prefer-offline --no-audit --no-fund --loglevel=error \
        "$ts_tarball" "pg@$pg_pin")
    cp -r "$ts_dir/dist-test" "$ts_scratch/test"
    echo "$ts_key" > "$ts_scratch/.built"
fi
flock -u 8
# The Java package's jar and tests: built once for every version's suite
# (build.sh caches by a checksum of the sources and builds one at a time).
echo "test-clients: building the Java package (clients/java)"
clients/java/build.sh >/dev/null
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
run docs-examples node clients/node/docs-examples.js
# The Java tests drop and create pg_flake, make roles and tables: a database of their own.
if ! "$PSQL" -X -q "$PG_FLAKE_TEST_DSN dbname=flake_java" -c "SELECT 1" >/dev/null 2>&1; then
    "$PSQL" -X -q -v ON_ERROR_STOP=1 "$PG_FLAKE_TEST_DSN dbname=postgres" -c "CREATE DATABASE flake_java"
fi
run java env PG_FLAKE_TEST_DSN="$PG_FLAKE_TEST_DSN dbname=flake_java" clients/java/test.sh
run rust clients/rust/target/debug/pg-flake-client-rust
run go clients/go/run.sh
run typescript env PG_FLAKE_REPO="$PWD" PG_FLAKE_TS_PACKAGE="$ts_scratch/node_modules/pg-flake" \
    node --test --test-concurrency=1 --test-reporter=spec "$ts_scratch"/test/*.test.mjs
run typescript-vectors env PG_FLAKE_TS="$ts_scratch/node_modules/pg-flake/dist/esm/index.js" \
    python3 tests/conformance/runner.py --adapter typescript="node tests/conformance/adapters/typescript_adapter.mjs"
if [ ${#failed[@]} -gt 0 ]; then
    echo "test-clients: FAILED: ${failed[*]}" >&2
    exit 1
fi
echo "test-clients: node, drizzle, prisma, java, rust and go recipes and the TypeScript package passed"
