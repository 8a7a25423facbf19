#!/usr/bin/env bash
# The Python package's tests (python/tests) against a running server with
# pg_flake installed (the tests create the extension where it is missing):
#   PG_FLAKE_TEST_DSN='host=127.0.0.1 port=PORT user=postgres dbname=flake_test' \
#       scripts/test-python.sh [PYTEST_ARGS...]
# Creates the virtual environment python/.venv on first use and installs
# ./python[psycopg,psycopg2,asyncpg,sqlalchemy,django,test] with the pinned versions of
# python/tests/constraints.txt, again only when the package or the pins
# changed, so later runs take seconds. Idempotent; needs python3 (3.9 or
# later) and, on Debian, installs python3-venv if it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${PG_FLAKE_TEST_DSN:?set PG_FLAKE_TEST_DSN to the libpq connection string of the test database}"
export PG_FLAKE_TEST_DSN PIP_DISABLE_PIP_VERSION_CHECK=1
PYTHON=${PYTHON:-python3}
VENV=python/.venv
# make test runs the versions side by side: one makes or refreshes the
# environment while the others wait.
exec 9>python/.venv.lock
flock 9
if ! "$VENV/bin/python" -c 'import sys' 2>/dev/null; then
    rm -rf "$VENV"
    if ! "$PYTHON" -m venv "$VENV" >/dev/null 2>&1; then
        # Debian ships the venv module (ensurepip) in a package of its own.
        rm -rf "$VENV"
        scripts/apt-install.sh test-python python3-venv
        "$PYTHON" -m venv "$VENV"
    fi
fi

# What the installed copy was built from: reinstall when any of it changed.
sources=$(find python/pyproject.toml python/README.md python/tests/constraints.txt python/pg_flake \
    -type f \( -name '*.py' -o -name '*.toml' -o -name '*.txt' -o -name '*.md' -o -name py.typed \) | sort)
stamp=$(cat $sources | sha256sum | cut -d' ' -f1)
if [ "$stamp" != "$(cat "$VENV/pg_flake-installed" 2>/dev/null)" ]; then
    echo "test-python: installing ./python[psycopg,psycopg2,asyncpg,sqlalchemy,django,test] into $VENV"
    "$VENV/bin/pip" install -q -c python/tests/constraints.txt "./python[psycopg,psycopg2,asyncpg,sqlalchemy,django,test]"
    # setuptools builds in the source tree; a stale build/ would ship deleted modules next time.
    rm -rf python/build python/pg_flake.egg-info
    echo "$stamp" > "$VENV/pg_flake-installed"
fi
flock -u 9

cd python
# Lint and format first, as `make lint` does for the Rust code.
.venv/bin/ruff check --quiet pg_flake tests
.venv/bin/ruff format --quiet --check pg_flake tests
# The console script, not `python -m pytest`: the tests import the installed
# package, not the source tree. Django's backend uses psycopg 3 when it is
# installed; the Django tests run once more on psycopg2 (the test project's
# settings hide psycopg 3 then), unless pytest arguments chose the tests.
.venv/bin/pytest -p no:cacheprovider -q "$@"
if [ $# -eq 0 ]; then
    PG_FLAKE_DJANGO_DRIVER=psycopg2 .venv/bin/pytest -p no:cacheprovider -q ./tests/django_project
fi
