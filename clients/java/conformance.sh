#!/usr/bin/env bash
# The Java package's conformance adapter (tests/conformance/PROTOCOL.md):
# builds the jar if needed (build.sh, cached) and speaks the protocol on
# stdin/stdout. For the shared runner: --adapter java=clients/java/conformance.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
jar=${PGJDBC_JAR:-/usr/share/java/postgresql.jar}
lib=$("$here/build.sh")
exec java -XX:TieredStopAtLevel=1 -Xshare:auto -cp "$lib:$here/build/test-classes:$jar" \
    io.github.pgflake.conformance.ConformanceAdapter
