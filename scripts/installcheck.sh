#!/usr/bin/env bash
# `make installcheck [REGRESS="sno siq"]`: the regression tests
# (tests/regress) against the server `make run` started, as it runs, in
# seconds: nothing is built, installed or restarted (after a change, `make
# run` installs it and restarts the server). The tests run in a scratch
# database of their own, pg_flake_installcheck, which pg_regress drops and
# creates afresh (never make run's `flake`), and their output is compared
# with tests/regress/expected as scripts/test-sql.sh compares it (an
# alternative *_1.out where PostgreSQL's versions differ).
#   scripts/installcheck.sh PORT [TEST...]
# Without TEST: every test that scripts/test-sql.sh runs on the preloaded
# server of this version (scripts/regress-tests.sh). make run's server
# preloads pg_flake; against one that does not, public_id (its key setting
# needs preloading) is left out, with a notice, as test-sql.sh leaves it out
# of its suite without preloading.
# Environment: PG_BIN (the version's programs); PG_FLAKE_TMP (/tmp: the
# results go to $PG_FLAKE_TMP/pg_flake-installcheck-V, kept until the next
# run; regression.diffs there on a failure).
set -euo pipefail
cd "$(dirname "$0")/.."
port=${1:?usage: installcheck.sh PORT [TEST...]}
shift
export PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
export PATH="$PG_BIN:$PATH"
major=$("$PG_BIN/pg_config" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
run="make run$([ "$major" = 15 ] || echo " PG=$major")"
DB=pg_flake_installcheck
# Quiet: no NOTICE of the DROP ... IF EXISTS below.
psql=(env PGOPTIONS="-c client_min_messages=warning" psql -X -q -At -v ON_ERROR_STOP=1
    -h 127.0.0.1 -p "$port" -U postgres -d postgres)
fail() {
    echo "make installcheck: $*" >&2
    exit 1
}

server=$("${psql[@]}" -c "SELECT current_setting('server_version_num')::int / 10000" 2>/dev/null) \
    || fail "no server answers on 127.0.0.1:$port: run \`$run\` first (it builds, installs and starts one)"
[ "$server" = "$major" ] \
    || fail "the server on 127.0.0.1:$port is PostgreSQL $server, not $major: \`make installcheck PG=$server\`"
[ -n "$("${psql[@]}" -c "SELECT 1 FROM pg_available_extensions WHERE name = 'pg_flake'")" ] \
    || fail "pg_flake is not installed in PostgreSQL $major: run \`$run\` first"

all=$(scripts/regress-tests.sh "$major")
if [ $# -eq 0 ]; then
    tests=$all
else
    tests=$(printf '%s\n' "$@")
    for test in $tests; do
        [ -f "tests/regress/sql/$test.sql" ] || fail "no test $test (tests/regress/sql/$test.sql)"
        grep -qx "$test" <<<"$all" || fail "$test does not apply to PostgreSQL $major (scripts/regress-tests.sh)"
    done
fi
preload=$("${psql[@]}" -c "SHOW shared_preload_libraries")
if [[ ",${preload// /}," != *,pg_flake,* ]] && grep -qx public_id <<<"$tests"; then
    echo "make installcheck: the server does not preload pg_flake: public_id left out (it needs preloading)" >&2
    tests=$(grep -vx public_id <<<"$tests" || true)
    [ -n "$tests" ] || exit 0
fi

# What a test that failed half-way may have left on the server, which the
# next run would trip over: the upgrade test's second database and the
# tests' roles (each test drops them at its end). The scratch database goes
# first (with any session a failed run left open): a role cannot be dropped
# while it owns objects in it.
"${psql[@]}" -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" \
    -c "DROP DATABASE IF EXISTS regress_flake_upgraded WITH (FORCE)"
for role in $("${psql[@]}" -c "SELECT rolname FROM pg_roles WHERE rolname ~ '^regress_flake_|_regress_user$'"); do
    "${psql[@]}" -c "DROP ROLE \"$role\""
done

out=${PG_FLAKE_TMP:-/tmp}/pg_flake-installcheck-$major
rm -rf "$out"
mkdir -p "$out"
echo "make installcheck: PostgreSQL $major on 127.0.0.1:$port, database $DB, results in $out"
# shellcheck disable=SC2086 # one test name per word
scripts/pg-regress.sh --scratch-db "$DB" "$port" "$out" $tests
