#!/usr/bin/env bash
# The multi-server tests (tests/servers, pytest on harness.Server): real
# servers of the PostgreSQL in PG_BIN started, stopped, killed, cloned and
# promoted, their clocks moved (libfaketime), as root running the servers as
# the `postgres` user.
#   PG_BIN=/usr/lib/postgresql/15/bin scripts/test-servers.sh [PYTEST_ARGS...]
# Environment: PG_FLAKE_SERVERS_PORT (first port, default test-servers'
# PostgreSQL 15 port in the port table scripts/ports.txt; a test uses the
# next few; the make targets set each suite's), PG_FLAKE_SERVERS_DATA (data
# directories, default $PG_FLAKE_TMP/pgf-servers-<major>, PG_FLAKE_TMP
# default /tmp; a failed test's are kept there).
# gdb: test_marks_faults.py stops a backend where it holds a spinlock.
# Creates tests/servers/.venv (psycopg, pytest, ruff, pgspot for the managed
# suite; the pins of python/tests/constraints.txt) on first use. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
export PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
export PATH="$PG_BIN:$PATH"
major=$("$PG_BIN/pg_config" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
export PG_FLAKE_SERVERS_PORT=${PG_FLAKE_SERVERS_PORT:-$(scripts/ports.sh test-servers 15)}
export PG_FLAKE_SERVERS_DATA=${PG_FLAKE_SERVERS_DATA:-${PG_FLAKE_TMP:-/tmp}/pgf-servers-$major}
scripts/apt-install.sh test-servers faketime procps gdb
VENV=tests/servers/.venv
PINS=python/tests/constraints.txt
# One version at a time makes the environment (`make -j2 test-long` runs
# the versions side by side).
exec 9>"$VENV.lock"
flock 9
if ! "$VENV/bin/python" -c 'import psycopg, pytest, pglast' 2>/dev/null \
    || [ "$(sha256sum "$PINS" | cut -d' ' -f1)" != "$(cat "$VENV/pins" 2>/dev/null)" ]; then
    rm -rf "$VENV"
    if ! python3 -m venv "$VENV" >/dev/null 2>&1; then
        rm -rf "$VENV"
        scripts/apt-install.sh test-servers python3-venv
        python3 -m venv "$VENV"
    fi
    "$VENV/bin/pip" install -q --disable-pip-version-check -c "$PINS" "psycopg[binary]" pytest ruff pgspot
    sha256sum "$PINS" | cut -d' ' -f1 > "$VENV/pins"
fi
flock -u 9
"$VENV/bin/ruff" check --quiet tests/servers
"$VENV/bin/ruff" format --quiet --check tests/servers
cd tests/servers
echo "test-servers: PostgreSQL $major ($PG_BIN), data in $PG_FLAKE_SERVERS_DATA"
exec .venv/bin/pytest -p no:cacheprovider -q -ra "$@"
