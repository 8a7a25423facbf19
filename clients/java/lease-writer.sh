#!/usr/bin/env bash
# The Java lease holder (src/test/java/io/github/pgflake/tools/LeaseWriter.java):
# tests/servers/lease_writer.py's command line, for the nemesis and the lease
# tests. Builds the jar first if needed (build.sh, cached).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
jar=${PGJDBC_JAR:-/usr/share/java/postgresql.jar}
lib=$("$here/build.sh")
exec java -XX:+UseSerialGC -Xmx256m -cp "$lib:$here/build/test-classes:$jar" io.github.pgflake.tools.LeaseWriter "$@"
