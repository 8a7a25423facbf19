# shellcheck shell=bash
# What the tests with several servers share (test-long.sh, test-citus.sh):
# sourced after the script has set DATA, the prefix of its servers' data
# directories ($DATA-<name>). Every server logs with
# log_line_prefix = '%m [%p] %e ', so the fifth field of a log line is its
# SQLSTATE and the sixth its level.

# OUT: a scratch directory, removed at exit with every server started
# (record each in STARTED).
OUT=$(mktemp -d "$DATA-out.XXXXXX")
STARTED=()
stop_all() {
    local data
    for data in "${STARTED[@]}"; do scripts/pg-server.sh stop "$data" 2>/dev/null || true; done
}
trap 'stop_all; rm -rf "$OUT"' EXIT

failures=0
# check DESCRIPTION RESULT: RESULT t passes, anything else fails (counted
# in failures, which the script turns into its exit status).
check() {
    if [ "$2" = t ]; then
        echo "  ok    $1"
    else
        echo "  FAIL  $1"
        failures=$((failures + 1))
    fi
}
# is COMMAND...: t if the command succeeds, else f (for check).
is() { "$@" && echo t || echo f; }

# field N LINE: the Nth |-separated field of a line.
field() { cut -d'|' -f"$1" <<<"$2"; }
# now: the time, for since. since START: seconds since START, to a tenth.
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# fresh_data NAME: $DATA-NAME emptied (a server left there by an earlier
# run stopped) and recorded in STARTED, for a server to start there.
fresh_data() {
    scripts/pg-server.sh stop "$DATA-$1" 2>/dev/null || true
    rm -rf "$DATA-$1"
    STARTED+=("$DATA-$1")
}

# finish LABEL START: the last line of a run. With a failed check it keeps
# the data directories (their server.log) and exits 1; else it stops every
# server and removes them.
finish() {
    if [ "$failures" != 0 ]; then
        echo "$1: $(since "$2") s, $failures failed check(s); data directories (server.log) kept: ${STARTED[*]}"
        exit 1
    fi
    stop_all
    local data
    for data in "${STARTED[@]}"; do rm -rf "$data"; done
    echo "$1: $(since "$2") s, every check passed"
}

# errors_by_sqlstate NAME: the ERROR/FATAL/PANIC lines of a server's log
# counted by SQLSTATE, on one line ("57P01 FATAL: 3,…"), or "none".
errors_by_sqlstate() {
    awk '$6 ~ /^(ERROR|FATAL|PANIC):$/ { n[$5 " " $6]++ }
         END { if (length(n) == 0) print "none"; for (k in n) print k, n[k] }' "$DATA-$1/server.log" | sort | paste -sd, -
}
# check_log NAME [SQLSTATE...]: the check that a server's log has no
# ERROR/FATAL/PANIC line but of the SQLSTATEs given (those the test
# provokes; a PANIC never passes). On failure it prints the first such lines
# with what follows each (DETAIL, CONTEXT, STATEMENT), so that a run which
# only leaves its output behind (CI) still says what went wrong.
check_log() {
    local name=$1
    shift
    local allowed=" $* " log=$DATA-$name/server.log unexpected
    local select='$6 ~ /^(ERROR|FATAL|PANIC):$/ && (index(allowed, " " $5 " ") == 0 || $6 == "PANIC:")'
    unexpected=$(awk -v allowed="$allowed" "$select"' { n++ } END { print n + 0 }' "$log")
    check "$name: server log without unexpected errors (by SQLSTATE: $(errors_by_sqlstate "$name"); expected: ${*:-none})" \
        "$(is [ "$unexpected" = 0 ])"
    [ "$unexpected" = 0 ] || awk -v allowed="$allowed" "$select"' { if (++shown > 10) exit; more = 1; print "        " $0; next }
         more && ($6 ~ /^(DETAIL|HINT|CONTEXT|STATEMENT|QUERY):$/ || $0 !~ /^[0-9][0-9][0-9][0-9]-/) { print "        " $0; next }
         { more = 0 }' "$log"
}
