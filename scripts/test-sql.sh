#!/usr/bin/env bash
# SQL regression tests (pg_regress, expected output checked in) and the
# integration tests (vectors through SQL, concurrency), against freshly
# initialised servers that run only for this script:
#  1. shared mode: pg_flake preloaded (README "Shared mode"), which
#     pg_flake.public_id_key also requires (it is hidden from other roles
#     only when the library is loaded before any SQL runs). Every suite, then
#     the README's SQL examples (scripts/test-readme.py, which needs the key setting).
#  2. backend mode: not preloaded (per-backend generators, README "Guarantees"). The same
#     regression tests, with the same expected output, except public_id
#     (its key setting needs preloading), and the concurrency tests.
set -euo pipefail
cd "$(dirname "$0")/.."
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
PORT=${PG_FLAKE_TEST_PORT:-25430}
DATA=${PG_FLAKE_TEST_DATA:-/tmp/pg_flake-test-data}
BACKEND_PORT=${PG_FLAKE_TEST_BACKEND_PORT:-$((PORT + 1))}
BACKEND_DATA=${PG_FLAKE_TEST_BACKEND_DATA:-$DATA-backend}
PGXS=$(dirname "$("$PG_BIN/pg_config" --pgxs)")
OUT=$(mktemp -d /tmp/pg_flake-regress.XXXXXX)

# suite MODE DATADIR PORT REGRESS_TESTS CARGO_TEST_FILTER [CONF_LINE]
suite() {
    local mode=$1 data=$2 port=$3 tests=$4 filter=$5
    shift 5
    echo "== pg_flake in $mode mode (port $port)"
    scripts/pg-server.sh stop "$data" || true
    rm -rf "$data"
    scripts/pg-server.sh start "$data" "$port" "$@"
    local psql=(psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres)
    "${psql[@]}" -d postgres -c "CREATE DATABASE regress_flake" -c "CREATE DATABASE flake_test"
    if ! "$PGXS/../test/regress/pg_regress" --use-existing --host=127.0.0.1 --port="$port" --user=postgres \
        --inputdir=tests/regress --outputdir="$OUT/$mode" --dbname=regress_flake $tests; then
        cat "$OUT/$mode/regression.diffs" 2>/dev/null || true
        exit 1
    fi
    PG_FLAKE_TEST_MODE=$mode \
    PG_FLAKE_TEST_DSN="host=127.0.0.1 port=$port user=postgres dbname=flake_test" \
    PG_FLAKE_TEST_LOG="$data/server.log" \
    PG_BIN="$PG_BIN" \
        cargo test --release -p pg_flake_integration -- --nocapture --test-threads=1 $filter
    [ "$mode" != shared ] || PG_BIN="$PG_BIN" PG_FLAKE_TEST_DSN="host=127.0.0.1 port=$port user=postgres dbname=postgres" \
        python3 scripts/test-readme.py
    scripts/pg-server.sh stop "$data"
}

trap 'scripts/pg-server.sh stop "$DATA" || true; scripts/pg-server.sh stop "$BACKEND_DATA" || true' EXIT
# Tests of what only later versions have: soft errors with COPY … ON_ERROR
# (17+), btree skip support (18+).
version=$("$PG_BIN/pg_config" --version | sed 's/^PostgreSQL \([0-9]*\).*/\1/')
skip=" "
[ "$version" -ge 17 ] || skip+="soft_errors "
[ "$version" -ge 18 ] || skip+="skip_scan "
all=$(cd tests/regress/sql && for t in *.sql; do
    t=${t%.sql}; [[ $skip == *" $t "* ]] || echo "$t"; done)
suite shared "$DATA" "$PORT" "$all" "" "shared_preload_libraries = 'pg_flake'"
suite backend "$BACKEND_DATA" "$BACKEND_PORT" "$(echo "$all" | grep -vx public_id)" concurrent
rm -rf "$OUT"
