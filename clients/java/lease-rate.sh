#!/usr/bin/env bash
# IDs per second of one Java leased generator, without inserts
# (src/test/java/io/github/pgflake/tools/LeaseRate.java; make bench's holders).
# Builds the jar first if needed (build.sh, cached).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
jar=${PGJDBC_JAR:-/usr/share/java/postgresql.jar}
lib=$("$here/build.sh")
exec java -XX:+UseSerialGC -Xmx512m -cp "$lib:$here/build/test-classes:$jar" io.github.pgflake.tools.LeaseRate "$@"
