#!/usr/bin/env bash
# SQL regression tests (pg_regress, expected output checked in) and the
# integration tests (vectors through SQL, concurrency), against freshly
# initialised servers of one PostgreSQL version (the programs in PG_BIN,
# default PostgreSQL 15's) that run only for this script:
#  1. preloaded: shared mode (docs/operations.md "Shared mode"), which
#     pg_flake.public_id_key also requires (it is hidden from other roles
#     only when the library is loaded before any SQL runs). Every suite,
#     then the SQL examples of README.md and docs/ (scripts/test-readme.py, which needs
#     the key setting), the Python package's tests (scripts/test-python.sh)
#     and the driver recipes (scripts/test-clients.sh).
#  2. not preloaded: shared mode again, in a DSM segment the first backend
#     makes (named on 17+, pinned and recorded in a file on 15 and 16). The
#     same regression tests, with the same expected output, except public_id
#     (its key setting needs preloading), and the concurrency tests (which
#     check the mode the server is in).
# Where PostgreSQL's own output differs between versions, pg_regress takes
# the alternative expected file that matches (tests/regress/expected/*_1.out).
#
# Environment: PG_BIN; PG_FLAKE_TEST_PORT (PostgreSQL 15's port, default
# test-sql's in the port table scripts/ports.txt: version V listens on it
# moved by the table's step, preloaded, and on the next port not
# preloaded); PG_FLAKE_TMP (/tmp: the data directories are
# $PG_FLAKE_TMP/pg_flake-test-V and pg_flake-test-V-backend, removed when
# their suite passes).
set -euo pipefail
cd "$(dirname "$0")/.."
export PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
# The version's own client programs (psql) before any other.
export PATH="$PG_BIN:$PATH"
major=$("$PG_BIN/pg_config" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
PORT=$(scripts/ports.sh test-sql "$major" "${PG_FLAKE_TEST_PORT:-}")
BACKEND_PORT=$((PORT + 1))
TMP=${PG_FLAKE_TMP:-/tmp}
DATA=$TMP/pg_flake-test-$major
BACKEND_DATA=$DATA-backend
mkdir -p "$TMP"
OUT=$(mktemp -d "$TMP/pg_flake-regress-$major.XXXXXX")

# On stderr, a test server's last log lines, then the lines that tell of a
# crash or a PANIC: last, because a CI report may show only the end of the
# output.
server_log_tail() {
    local log=$1/server.log
    [ -f "$log" ] || return 0
    echo "== $log: last 20 lines" >&2
    tail -n 20 "$log" >&2
    echo "== $log: crashes and PANICs" >&2
    grep -E "PANIC|terminated by signal|was terminated|reinitializing|TRAP" "$log" | tail -n 8 >&2 || true
}

# suite NAME MODE DATADIR PORT REGRESS_TESTS CARGO_TEST_FILTER [CONF_LINE]
suite() {
    local name=$1 mode=$2 data=$3 port=$4 tests=$5 filter=$6
    shift 6
    running=$data
    echo "== pg_flake on PostgreSQL $major, $name: $mode mode (port $port)"
    scripts/pg-server.sh stop "$data" || true
    rm -rf "$data"
    scripts/pg-server.sh start "$data" "$port" "$@"
    local psql=(psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres)
    "${psql[@]}" -d postgres -c "CREATE DATABASE regress_flake" -c "CREATE DATABASE flake_test"
    # shellcheck disable=SC2086 # one test name per word
    scripts/pg-regress.sh "$port" "$OUT/$name" $tests
    PG_FLAKE_TEST_MODE=$mode \
    PG_FLAKE_TEST_DSN="host=127.0.0.1 port=$port user=postgres dbname=flake_test" \
    PG_FLAKE_TEST_LOG="$data/server.log" \
    PG_BIN="$PG_BIN" \
        cargo test --profile test-release -p pg_flake_integration -- --nocapture --test-threads=1 $filter
    if [ "$name" = preloaded ]; then
        local server="host=127.0.0.1 port=$port user=postgres"
        # The SQL examples of the documentation: the README's, then each
        # docs/ file's, in one session (a later file may use an earlier one's).
        PG_FLAKE_TEST_DSN="$server dbname=postgres" python3 scripts/test-readme.py \
            README.md docs/sql-reference.md docs/guarantees.md docs/operations.md \
            docs/applications.md docs/development.md
        # The clients (docs/applications.md "Clients"), each in a database of its own.
        "${psql[@]}" -d postgres -c "CREATE DATABASE flake_python"
        PG_FLAKE_TEST_DSN="$server dbname=flake_python" scripts/test-python.sh
        PG_FLAKE_TEST_DSN="$server dbname=flake_clients" scripts/test-clients.sh
        # The Rust leased generators against this server: threads sharing
        # one, a fork after it was made (docs/applications.md "The Rust library").
        "${psql[@]}" -d postgres -c "CREATE DATABASE flake_leases"
        "${psql[@]}" -d flake_leases -c "CREATE EXTENSION pg_flake"
        PG_FLAKE_LEASE_DSN="$server dbname=flake_leases" \
            cargo test -p flake-core --features lease --test leased_pg -- --test-threads=1
    fi
    scripts/pg-server.sh stop "$data"
    # A passed suite's server is not needed again, and each holds about a
    # gigabyte after the concurrency tests: six of them, beside the builds,
    # could fill the disk of a small CI machine. A failed suite's stays.
    rm -rf "$data"
    running=
}

# Whatever step of a suite fails, its server's side of it (a crash, a
# PANIC, the error a client saw only as "db error") goes into the output,
# which CI keeps, while its files it does not.
running=
on_exit() {
    local status=$?
    if [ "$status" -ne 0 ] && [ -n "$running" ]; then
        server_log_tail "$running"
    fi
    scripts/pg-server.sh stop "$DATA" || true
    scripts/pg-server.sh stop "$BACKEND_DATA" || true
}
trap on_exit EXIT
# pgspot over the scripts as this version's PostgreSQL has them installed:
# the install script and every upgrade script (docs/guarantees.md
# "Privileges and trust").
extension_dir=$("$PG_BIN/pg_config" --sharedir)/extension
default_version=$(sed -nE "s/^default_version = '(.*)'/\1/p" "$extension_dir/pg_flake.control")
python3 scripts/check-pgspot.py --all "$extension_dir/pg_flake--$default_version.sql" \
    "$extension_dir"/pg_flake--*--*.sql
# The tests that apply to this version (soft errors 17+, skip support 18+).
all=$(scripts/regress-tests.sh "$major")
suite preloaded shared "$DATA" "$PORT" "$all" "" "shared_preload_libraries = 'pg_flake'"
suite "not preloaded" shared "$BACKEND_DATA" "$BACKEND_PORT" \
    "$(echo "$all" | grep -vx public_id)" "concurrent"
rm -rf "$OUT"
