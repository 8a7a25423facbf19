#!/usr/bin/env bash
# SQL regression tests (pg_regress, expected output checked in) and the
# integration tests (vectors through SQL, concurrency), against a freshly
# initialised server that runs only for this script.
set -euo pipefail
cd "$(dirname "$0")/.."
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
PORT=${PG_FLAKE_TEST_PORT:-54330}
DATA=${PG_FLAKE_TEST_DATA:-/tmp/pg_flake-test-data}
PGXS=$(dirname "$("$PG_BIN/pg_config" --pgxs)")
OUT=$(mktemp -d /tmp/pg_flake-regress.XXXXXX)

scripts/pg-server.sh stop "$DATA" || true
rm -rf "$DATA"
trap 'scripts/pg-server.sh stop "$DATA"' EXIT
# Preloaded, as pg_flake.public_id_key requires (it is hidden from other
# roles only when the library is loaded before any SQL runs).
scripts/pg-server.sh start "$DATA" "$PORT" "shared_preload_libraries = 'pg_flake'"

psql=(psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PORT" -U postgres)
"${psql[@]}" -d postgres -c "CREATE DATABASE regress_flake" -c "CREATE DATABASE flake_test"

tests=$(cd tests/regress/sql && ls *.sql | sed 's/\.sql$//' | sort)
if ! "$PGXS/../test/regress/pg_regress" --use-existing --host=127.0.0.1 --port="$PORT" --user=postgres \
    --inputdir=tests/regress --outputdir="$OUT" --dbname=regress_flake $tests; then
    cat "$OUT/regression.diffs" 2>/dev/null || true
    exit 1
fi

PG_FLAKE_TEST_DSN="host=127.0.0.1 port=$PORT user=postgres dbname=flake_test" \
PG_FLAKE_TEST_LOG="$DATA/server.log" \
    cargo test --release -p pg_flake_integration -- --nocapture --test-threads=1
rm -rf "$OUT"
