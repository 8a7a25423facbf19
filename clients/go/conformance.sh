#!/usr/bin/env bash
# The Go adapter of the conformance runner (tests/conformance/PROTOCOL.md):
# builds cmd/pgflake-conformance when needed (build.sh) and runs it, its
# stdin and stdout the runner's.
#   python3 tests/conformance/runner.py --adapter go=clients/go/conformance.sh
set -euo pipefail
exec "$("$(dirname "$0")/build.sh" pgflake-conformance)"
