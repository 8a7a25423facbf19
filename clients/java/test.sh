#!/usr/bin/env bash
# Builds the jar (cached, build.sh) and runs the Java tests: every *Test
# class under src/test/java with the package's own runner. Tests that need a
# server (@ServerTest) run against PG_FLAKE_TEST_DSN (libpq's key=value form)
# and are skipped without it. The others, and the server tests marked
# perVersion = false, do not depend on the server's version: once a run of a
# build passed them (build/.unit-passed holds its checksum), later runs of
# the same build (the other versions' suites) run only the other server tests.
# Extra arguments go to java before the runner, e.g. -Dtest=Lease to run only
# the tests whose Class#method contains "Lease".
# PGJDBC_JAR: pgjdbc's jar (Debian's libpostgresql-jdbc-java by default).
set -euo pipefail
cd "$(dirname "$0")"
jar=${PGJDBC_JAR:-/usr/share/java/postgresql.jar}
lib=$(./build.sh)
stamp=$(cat build/.stamp)
tests=$(cd build/test-classes && find . -name '*Test.class' | sed 's|^\./||; s|\.class$||; s|/|.|g' | LC_ALL=C sort)
only=()
if [ $# -eq 0 ] && [ "$(cat build/.unit-passed 2>/dev/null)" = "$stamp" ]; then
    echo "java: the tests without a server passed for this build already: server tests only"
    only=(-Dpgflake.only=server)
fi
# shellcheck disable=SC2086 # one class name per word
java -Dpgflake.vectors=../../tests/vectors "${only[@]}" "$@" -cp "$lib:build/test-classes:$jar" \
    io.github.pgflake.testing.TestRunner $tests
if [ $# -eq 0 ] && [ ${#only[@]} -eq 0 ]; then
    echo "$stamp" >build/.unit-passed
fi
