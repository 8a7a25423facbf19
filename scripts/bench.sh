#!/usr/bin/env bash
# `make bench`: measures pg_flake against PostgreSQL's own keys in one run and
# writes docs/BENCHMARKS.md (between its generated-section markers) and the
# insert chart docs/bench-insert.png. See docs/BENCHMARKS.md, "How to repeat".
#
# The server is this script's own (fresh data directory, 127.0.0.1 only,
# fixed settings below), first without preloading (per-backend generators),
# then restarted with pg_flake preloaded for the shared-mode rows.
#
# Environment: BENCH_PORT (25440), BENCH_DATA (/tmp/pg_flake-bench-data),
# BENCH_OUT (/tmp/pg_flake-bench: raw results and logs), BENCH_INSERT_REPS
# (1), BENCH_CPU (0: the CPU every timed session's backend and the codec
# benchmarks are pinned to), BENCH_QUICK=1 (a smoke run with small N; does
# not touch docs/).
set -euo pipefail
cd "$(dirname "$0")/.."
export PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
export BENCH_PORT=${BENCH_PORT:-25440}
export BENCH_DATA=${BENCH_DATA:-/tmp/pg_flake-bench-data}
export BENCH_OUT=${BENCH_OUT:-/tmp/pg_flake-bench}

# Tools: gnuplot for the chart, python3 for the driver (Debian packages).
scripts/apt-install.sh bench gnuplot-nox python3

# The fixed server settings: PostgreSQL 15's defaults written out (so a
# changed default or a site config cannot move the figures), plus
# autovacuum off (it would otherwise run during the next measurement) and
# fsync off (from pg-server.sh). Sessions that need more set it themselves.
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
export BENCH_SETTINGS
BENCH_SETTINGS=$(printf '%s\n' "${SETTINGS[@]}" "fsync = off (scripts/pg-server.sh)" "max_connections = 100 (scripts/pg-server.sh)")

mkdir -p "$BENCH_OUT"
scripts/pg-server.sh stop "$BENCH_DATA" || true
rm -rf "$BENCH_DATA"
trap 'scripts/pg-server.sh stop "$BENCH_DATA" || true' EXIT

driver=(python3 scripts/bench.py)
start=$(date +%s)

echo "== bench: server on 127.0.0.1:$BENCH_PORT, per-backend mode (not preloaded)"
scripts/pg-server.sh start "$BENCH_DATA" "$BENCH_PORT" "${SETTINGS[@]}"
"${driver[@]}" backend

echo "== bench: same server restarted with pg_flake preloaded (shared mode rows)"
scripts/pg-server.sh start "$BENCH_DATA" "$BENCH_PORT" "${SETTINGS[@]}" "shared_preload_libraries = 'pg_flake'"
"${driver[@]}" shared
scripts/pg-server.sh stop "$BENCH_DATA"

echo "== bench: codecs (criterion)"
"${driver[@]}" codecs

"${driver[@]}" report --elapsed $(($(date +%s) - start))
echo "bench: done in $(($(date +%s) - start)) s"
