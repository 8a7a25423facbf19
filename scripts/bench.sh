#!/usr/bin/env bash
# `make bench-V` (V = 15, 18, …; `make bench` runs every version in
# PG_VERSIONS, then the codecs): measures pg_flake against PostgreSQL's own
# keys on the PostgreSQL of PG_BIN and writes that version's section of
# docs/BENCHMARKS.md (between its generated-section markers) and its insert
# chart docs/bench-insert-V.png.
#   bench.sh          the server suites, on the version of PG_BIN
#   bench.sh codecs   the core crate's codec benchmarks (no server; `make
#                     bench-codecs`), their section of docs/BENCHMARKS.md
#   bench.sh managed  only pg_flake_sql against the native extension and
#                     PostgreSQL's UUIDs (`make bench-managed-V`, about ten
#                     minutes; docs/managed.md): with pg_tle preloaded where it
#                     is installed; the full run includes it
#   bench.sh profile  only the generation profile (`make bench-profile-V`, a
#                     few minutes): one ID against the physical floor, and a
#                     perf profile of sno_generate(), not preloaded and
#                     preloaded; the full run includes it
#
# The server is this script's own (fresh data directory, 127.0.0.1 only,
# fixed settings below): first without preloading (per-backend generators on
# 15 and 16, shared mode from 17), then restarted with pg_flake preloaded,
# then with fsync = on, not preloaded and preloaded, for the cost of durable
# marks (docs/BENCHMARKS.md says what each part measures).
#
# Environment: PG_BIN; PG_FLAKE_BENCH_PORT (PostgreSQL 15's port, default
# bench's in the port table scripts/ports.txt: version V listens on it moved
# by the table's step), or BENCH_PORT (this run's port);
# BENCH_DATA ($PG_FLAKE_TMP/pg_flake-bench-V, PG_FLAKE_TMP default /tmp);
# BENCH_OUT ($PG_FLAKE_TMP/pg_flake-bench/V, or …/codecs: raw results and
# logs); BENCH_INSERT_REPS (1); BENCH_CPU (0: the CPU every timed session's
# backend and the codec benchmarks are pinned to); BENCH_QUICK=1 (a smoke
# run with small N; does not touch docs/).
set -euo pipefail
cd "$(dirname "$0")/.."
export PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
TMP=${PG_FLAKE_TMP:-/tmp}
driver=(python3 scripts/bench.py)
start=$(date +%s)

if [ "${1:-}" = codecs ]; then
    export BENCH_OUT=${BENCH_OUT:-$TMP/pg_flake-bench/codecs}
    mkdir -p "$BENCH_OUT"
    echo "== bench: codecs (criterion)"
    "${driver[@]}" codecs
    "${driver[@]}" report-codecs --elapsed $(($(date +%s) - start))
    echo "bench: codecs done in $(($(date +%s) - start)) s"
    exit 0
fi

major=$("$PG_BIN/pg_config" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
export BENCH_PG_MAJOR=$major
export BENCH_PORT=${BENCH_PORT:-$(scripts/ports.sh bench "$major" "${PG_FLAKE_BENCH_PORT:-}")}
export BENCH_DATA=${BENCH_DATA:-$TMP/pg_flake-bench-$major}
export BENCH_OUT=${BENCH_OUT:-$TMP/pg_flake-bench/$major}

# Tools: gnuplot for the chart, python3 for the driver, strace to count the
# marks' fdatasync calls, perf for the generation profile (Debian packages).
scripts/apt-install.sh bench gnuplot-nox python3 strace linux-perf

# The fixed server settings: PostgreSQL's defaults written out (so a changed
# default or a site config cannot move the figures; 15, 16 and 18 have the
# same ones), plus autovacuum off (it would otherwise run during the next
# measurement) and fsync off (from pg-server.sh; on for the marks).
# Sessions that need more set it themselves.
SETTINGS=(
    "shared_buffers = '128MB'"
    "work_mem = '4MB'"
    "maintenance_work_mem = '64MB'"
    "max_wal_size = '1GB'"
    "min_wal_size = '80MB'"
    "checkpoint_timeout = '5min'"
    "wal_level = 'replica'"
    "synchronous_commit = on"
    "max_parallel_workers_per_gather = 2"
    "jit = on"
    "autovacuum = off"
    "track_io_timing = off"
)
PRELOAD="shared_preload_libraries = 'pg_flake'"

mkdir -p "$BENCH_OUT"
scripts/pg-server.sh stop "$BENCH_DATA" || true
rm -rf "$BENCH_DATA"
trap 'scripts/pg-server.sh stop "$BENCH_DATA" || true' EXIT

# pg_flake_sql's server: not preloaded, pg_tle preloaded where installed.
managed_server() {
    local tle=()
    if [ -f "$("$PG_BIN/pg_config" --sharedir)/extension/pg_tle.control" ]; then
        tle=("shared_preload_libraries = 'pg_tle'")
    fi
    scripts/pg-server.sh start "$BENCH_DATA" "$BENCH_PORT" "${SETTINGS[@]}" "${tle[@]}"
}

if [ "${1:-}" = managed ]; then
    echo "== bench: pg_flake_sql, PostgreSQL $major, 127.0.0.1:$BENCH_PORT"
    managed_server
    "${driver[@]}" managed
    scripts/pg-server.sh stop "$BENCH_DATA"
    "${driver[@]}" report-managed
    echo "bench: pg_flake_sql, PostgreSQL $major, done in $(($(date +%s) - start)) s"
    exit 0
fi

# `bench.sh holders`: the leased generators' phase alone (a few minutes), on the
# preloaded server; its table printed (and in $BENCH_OUT/holders.md).
if [ "${1:-}" = holders ]; then
    rm -f "$BENCH_OUT/results.json"
    echo "== bench: leased generators, PostgreSQL $major, 127.0.0.1:$BENCH_PORT, preloaded"
    scripts/pg-server.sh start "$BENCH_DATA" "$BENCH_PORT" "${SETTINGS[@]}" "$PRELOAD"
    "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$BENCH_PORT" -U postgres -d postgres \
        -c "CREATE DATABASE bench"
    "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$BENCH_PORT" -U postgres -d bench \
        -c "CREATE EXTENSION pg_flake"
    "${driver[@]}" holders
    scripts/pg-server.sh stop "$BENCH_DATA"
    "${driver[@]}" report-holders | tee "$BENCH_OUT/holders.md"
    echo "bench: leased generators, PostgreSQL $major, done in $(($(date +%s) - start)) s"
    exit 0
fi

if [ "${1:-}" = profile ]; then
    rm -f "$BENCH_OUT/results.json"
    echo "== bench: generation profile, PostgreSQL $major, 127.0.0.1:$BENCH_PORT, not preloaded"
    scripts/pg-server.sh start "$BENCH_DATA" "$BENCH_PORT" "${SETTINGS[@]}"
    "${driver[@]}" profile plain
    echo "== bench: generation profile, preloaded"
    scripts/pg-server.sh start "$BENCH_DATA" "$BENCH_PORT" "${SETTINGS[@]}" "$PRELOAD"
    "${driver[@]}" profile preloaded
    scripts/pg-server.sh stop "$BENCH_DATA"
    "${driver[@]}" report-profile
    echo "bench: generation profile, PostgreSQL $major, done in $(($(date +%s) - start)) s"
    exit 0
fi

echo "== bench: PostgreSQL $major, server on 127.0.0.1:$BENCH_PORT, not preloaded"
scripts/pg-server.sh start "$BENCH_DATA" "$BENCH_PORT" "${SETTINGS[@]}"
"${driver[@]}" backend
"${driver[@]}" profile plain

echo "== bench: same server restarted with pg_flake preloaded"
scripts/pg-server.sh start "$BENCH_DATA" "$BENCH_PORT" "${SETTINGS[@]}" "$PRELOAD"
"${driver[@]}" shared
"${driver[@]}" holders
"${driver[@]}" profile preloaded

echo "== bench: durable marks with fsync = on, not preloaded"
scripts/pg-server.sh start "$BENCH_DATA" "$BENCH_PORT" "${SETTINGS[@]}" "fsync = on"
"${driver[@]}" marks plain

echo "== bench: durable marks with fsync = on, preloaded"
scripts/pg-server.sh start "$BENCH_DATA" "$BENCH_PORT" "${SETTINGS[@]}" "fsync = on" "$PRELOAD"
"${driver[@]}" marks preloaded

echo "== bench: pg_flake_sql (pg_tle preloaded where installed)"
managed_server
"${driver[@]}" managed
scripts/pg-server.sh stop "$BENCH_DATA"

"${driver[@]}" report --elapsed $(($(date +%s) - start))
"${driver[@]}" report-profile
"${driver[@]}" report-managed
echo "bench: PostgreSQL $major done in $(($(date +%s) - start)) s"
