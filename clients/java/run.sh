#!/usr/bin/env bash
# Compiles and runs the pgjdbc recipe against PG_FLAKE_TEST_DSN, with
# Debian's pgjdbc (libpostgresql-jdbc-java) unless PGJDBC_JAR names another.
set -euo pipefail
cd "$(dirname "$0")"
jar=${PGJDBC_JAR:-/usr/share/java/postgresql.jar}
rm -rf build
javac -Xlint:all -Werror -d build -cp "$jar" FlakeSno.java PgFlakeRecipe.java
exec java -cp "build:$jar" PgFlakeRecipe
