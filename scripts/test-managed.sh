#!/usr/bin/env bash
# The managed suite (make test-managed-V; issue 47, docs/managed.md,
# docs/development.md "pg_flake_sql"): pg_flake_sql, the edition for managed
# PostgreSQL, against the PostgreSQL in PG_BIN, beside the native extension
# installed there (make install-V):
#   PG_BIN=/usr/lib/postgresql/15/bin scripts/test-managed.sh [PYTEST_ARGS...]
# 1. The generated files (managed/dist) match their sources
#    (python3 managed/build.py --check).
# 2. pg_tle for that version (scripts/pg-tle-build.sh; a notice, and the
#    suite's pg_tle parts skip, when its tarball is absent or it does not
#    build there).
# 3. The tests, tests/servers/managed, on the harness of scripts/test-servers.sh
#    (its .venv has pgspot): PG_FLAKE_SERVERS_PORT (test-managed's first port
#    for that version, scripts/ports.txt) and PG_FLAKE_SERVERS_DATA (default
#    $PG_FLAKE_TMP/pgf-managed-V).
set -euo pipefail
cd "$(dirname "$0")/.."
export PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
major=$("$PG_BIN/pg_config" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
export PG_FLAKE_SERVERS_PORT=${PG_FLAKE_SERVERS_PORT:-$(scripts/ports.sh test-managed "$major")}
export PG_FLAKE_SERVERS_DATA=${PG_FLAKE_SERVERS_DATA:-${PG_FLAKE_TMP:-/tmp}/pgf-managed-$major}
started=$SECONDS
python3 managed/build.py --check
status=0
scripts/pg-tle-build.sh "$major" || status=$?
case $status in
0) ;;
3) echo "test-managed: pg_tle does not build for PostgreSQL $major; its tests skip" >&2 ;;
*) exit "$status" ;;
esac
scripts/test-servers.sh managed "$@"
echo "test-managed: PostgreSQL $major passed in $((SECONDS - started)) s"
