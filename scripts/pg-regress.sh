#!/usr/bin/env bash
# Runs the regression tests TEST... (tests/regress) with PG_BIN's
# pg_regress against the server on 127.0.0.1:PORT, in its existing database
# regress_flake, with results in OUTDIR; on a failure prints the diffs and
# exits 1. Used by test-sql.sh and test-package.sh (which picks the tests
# of a version with regress-tests.sh).
#   scripts/pg-regress.sh PORT OUTDIR TEST...
set -euo pipefail
cd "$(dirname "$0")/.."
port=${1:?usage: pg-regress.sh PORT OUTDIR TEST...}
outdir=${2:?usage: pg-regress.sh PORT OUTDIR TEST...}
shift 2
# PGXS's pg_regress, or one beside the other programs (PostgreSQL 17 from the
# chroot: a wrapper that runs the chroot's, scripts/pg17-chroot.sh).
pg_regress=$PG_BIN/pg_regress
[ -x "$pg_regress" ] || pg_regress=$(dirname "$("$PG_BIN/pg_config" --pgxs)")/../test/regress/pg_regress
if ! "$pg_regress" --use-existing --bindir="$PG_BIN" --host=127.0.0.1 --port="$port" \
    --user=postgres --inputdir=tests/regress --outputdir="$outdir" --dbname=regress_flake "$@"; then
    cat "$outdir/regression.diffs" 2>/dev/null || true
    exit 1
fi
