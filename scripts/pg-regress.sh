#!/usr/bin/env bash
# Runs the regression tests TEST... (tests/regress) with PG_BIN's
# pg_regress against the server on 127.0.0.1:PORT, with results in OUTDIR;
# on a failure prints the diffs and exits 1. By default in the server's
# existing database regress_flake; with --scratch-db NAME in the database
# NAME, which pg_regress drops and creates afresh (make installcheck, against
# a server that holds other databases). Used by test-sql.sh, test-package-deb.sh
# (which pick the tests of a version with regress-tests.sh) and
# installcheck.sh.
#   scripts/pg-regress.sh [--scratch-db NAME] PORT OUTDIR TEST...
set -euo pipefail
cd "$(dirname "$0")/.."
database=(--use-existing --dbname=regress_flake)
if [ "${1:-}" = --scratch-db ]; then
    database=(--dbname="${2:?usage: pg-regress.sh --scratch-db NAME PORT OUTDIR TEST...}")
    shift 2
fi
port=${1:?usage: pg-regress.sh [--scratch-db NAME] PORT OUTDIR TEST...}
outdir=${2:?usage: pg-regress.sh [--scratch-db NAME] PORT OUTDIR TEST...}
shift 2
# PGXS's pg_regress, or one beside the other programs (PostgreSQL 17 from the
# chroot: a wrapper that runs the chroot's, scripts/pg17-chroot.sh).
pg_regress=$PG_BIN/pg_regress
[ -x "$pg_regress" ] || pg_regress=$(dirname "$("$PG_BIN/pg_config" --pgxs)")/../test/regress/pg_regress
if ! "$pg_regress" "${database[@]}" --bindir="$PG_BIN" --host=127.0.0.1 --port="$port" \
    --user=postgres --inputdir=tests/regress --outputdir="$outdir" "$@"; then
    cat "$outdir/regression.diffs" 2>/dev/null || true
    exit 1
fi
