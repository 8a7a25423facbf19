#!/usr/bin/env bash
# Builds the pg_flake jar and the test classes with the JDK's javac and jar
# (no Maven repository is reachable here; pom.xml says what Maven would do):
#   build/pg-flake-0.5.0.jar           the library (pgjdbc not included)
#   build/pg-flake-0.5.0-sources.jar   its sources
#   build/test-classes/                the tests, the conformance adapter and the lease writer
# Cached: nothing is rebuilt while the sources, pom.xml and this script are
# unchanged (a checksum of them in build/.stamp), and one build runs at a
# time (the versions' suites may run side by side). Validates pom.xml with
# `mvn -o validate` when Maven is installed. Prints the jar's path.
# PGJDBC_JAR: pgjdbc's jar (Debian's libpostgresql-jdbc-java by default).
set -euo pipefail
cd "$(dirname "$0")"
here=$(pwd)
version=0.5.0
jar=${PGJDBC_JAR:-/usr/share/java/postgresql.jar}
out=build
mkdir -p "$out"
exec 7>"$out/.lock"
flock 7
stamp=$( (cat build.sh pom.xml; find src -name '*.java' | LC_ALL=C sort | xargs cat; echo "$jar") | sha256sum | cut -d' ' -f1)
if [ -f "$out/.stamp" ] && [ "$(cat "$out/.stamp")" = "$stamp" ] && [ -f "$out/pg-flake-$version.jar" ]; then
    echo "$here/$out/pg-flake-$version.jar"
    exit 0
fi
if command -v mvn >/dev/null; then
    # Offline: only the model is checked (coordinates, dependencies, plugins named).
    mvn -o -q -f pom.xml validate >&2
fi
rm -rf "$out/classes" "$out/test-classes" "$out"/*.jar
javac -Xlint:all -Werror --release 17 -encoding UTF-8 -d "$out/classes" -cp "$jar" \
    $(find src/main/java -name '*.java' | LC_ALL=C sort)
printf 'Automatic-Module-Name: io.github.pgflake\nImplementation-Title: pg_flake for Java\nImplementation-Version: %s\n' \
    "$version" >"$out/MANIFEST.MF"
jar --create --file "$out/pg-flake-$version.jar" --manifest "$out/MANIFEST.MF" -C "$out/classes" .
jar --create --file "$out/pg-flake-$version-sources.jar" -C src/main/java .
javac -Xlint:all -Werror --release 17 -encoding UTF-8 -d "$out/test-classes" \
    -cp "$out/pg-flake-$version.jar:$jar" $(find src/test/java -name '*.java' | LC_ALL=C sort)
echo "$stamp" >"$out/.stamp"
echo "$here/$out/pg-flake-$version.jar"
