#!/usr/bin/env bash
# Prints the regression tests (tests/regress/sql/*.sql) that apply to
# PostgreSQL MAJOR, one per line: soft errors with COPY ... ON_ERROR need 17,
# btree skip support 18. Used by test-sql.sh and test-package-deb.sh.
#   scripts/regress-tests.sh MAJOR
set -euo pipefail
cd "$(dirname "$0")/.."
major=${1:?usage: regress-tests.sh MAJOR}
skip=" "
[ "$major" -ge 17 ] || skip+="soft_errors "
[ "$major" -ge 18 ] || skip+="skip_scan "
for test in tests/regress/sql/*.sql; do
    test=$(basename "$test" .sql)
    [[ $skip == *" $test "* ]] || echo "$test"
done
