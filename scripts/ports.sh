#!/usr/bin/env bash
# The ports of the one port table, scripts/ports.txt:
#   scripts/ports.sh SUITE MAJOR [BASE]
#       SUITE's first port for PostgreSQL MAJOR: BASE + STEP * (MAJOR - 15),
#       BASE the table's unless given and not empty (RUN_PORT,
#       PG_FLAKE_TEST_PORT, PG_FLAKE_BENCH_PORT: PostgreSQL 15's port moved).
#   scripts/ports.sh
#       the table with every suite's ports for PostgreSQL 15, 16, 17 and 18.
set -euo pipefail
table="$(dirname "$0")/ports.txt"

if [ $# -eq 0 ]; then
    awk 'BEGIN { printf "%-14s %-13s %-13s %-13s %-13s %s\n", "suite", "15", "16", "17", "18", "what listens there" }
        /^[a-z]/ {
            line = sprintf("%-14s", $1)
            for (v = 15; v <= 18; v++) {
                first = $2 + $3 * (v - 15)
                ports = $4 == 1 ? first : first "-" (first + $4 - 1)
                line = line sprintf(" %-13s", ports)
            }
            what = $0
            sub(/^[^ \t]+[ \t]+[^ \t]+[ \t]+[^ \t]+[ \t]+[^ \t]+[ \t]+/, "", what)
            print line " " what
        }' "$table"
    exit 0
fi

suite=$1 major=${2:?usage: ports.sh SUITE MAJOR [BASE]} base=${3:-}
case $major in *[!0-9]*|'') echo "ports.sh: not a major version: $major" >&2; exit 2 ;; esac
case $base in *[!0-9]*) echo "ports.sh: not a port: $base" >&2; exit 2 ;; esac
read -r table_base step < <(awk -v suite="$suite" '$1 == suite { print $2, $3; found = 1; exit }
    END { if (!found) print "" }' "$table") || true
if [ -z "${step:-}" ]; then
    echo "ports.sh: no suite $suite in $table" >&2
    exit 2
fi
echo $((${base:-$table_base} + step * (major - 15)))
