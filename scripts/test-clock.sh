#!/usr/bin/env bash
# `make test-clock`: durable marks, logical time and node identity against
# real servers whose clocks libfaketime moves (docs/guarantees.md "Guarantees"). Every
# part runs in both modes, preloaded (shared mode) and not preloaded
# (PostgreSQL 15/16: per-backend generators; 17+: shared mode in a DSM
# segment), for every coordination-based format (sno, siq, snowflake,
# kuid64, kuid96), except failover, which needs preloading:
#  restart    6 sessions generate for a few seconds; restarts with the clock
#             5 s behind, then 1 h behind: no new ID at or below an old one;
#             1 h behind stops generation with 55000 until
#             pg_flake.max_clock_lag is raised above it.
#  crash      SIGKILL of every child of the postmaster while 20 sessions
#             generate, an immediate stop and a restart 5 s behind: no ID at
#             or below a committed one, and IDs no further ahead of the
#             clock than its 5 s and a lease.
#  databases  two databases generate; after a restart 5 s behind, only the
#             second one generates: never below the first one's IDs.
#  failover   a streaming standby whose clock lags 10 s: it refuses the
#             coordination-based formats (25006) but not the random ones,
#             and generates with a pg_flake.node of its own; then the
#             primary is killed mid-generation and the standby promoted: no
#             ID at or below any the primary issued. Asynchronous, then
#             synchronous replication.
#  bound      a restart 90 s behind: the first generation fails at once
#             with 55000 and the lag; the state functions still answer.
#  step       6 sessions generate every format while the clock steps back
#             10 s, and (on another fresh server) 2 h then forward again:
#             no statement waits longer than a unit (plus a margin for the
#             machine), no duplicate, every session's IDs increase (sno:
#             one tick-tock flip), 2 h: 55000 except for sno.
# Every part prints its figures; the script exits non-zero if any check
# fails. Arguments: the parts to run (default: all, in the order above).
#
# Environment: PG_BIN (one PostgreSQL per run), PG_FLAKE_CLOCK_PORT (25580
# for PostgreSQL 15, version V 25580 + 2 (V - 15): this port and the next,
# so that the versions can run side by side), PG_FLAKE_CLOCK_DATA
# (/tmp/pgf-clock-V: data directories are $PG_FLAKE_CLOCK_DATA-<server>),
# FAKETIME_LIB (Debian's
# libfaketime), STEP_MARGIN_MS (1000: what a statement may take beyond one
# time unit on a loaded machine; the check is for a stall, a wait for the
# clock to come back 10 s or 2 h, not for speed, which `make bench` measures:
# CI runs the versions side by side on two CPUs).
set -euo pipefail
cd "$(dirname "$0")/.."
export PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
# Its own psql and pgbench, as test-long.sh and test-sql.sh do.
export PATH="$PG_BIN:$PATH"
major=$("$PG_BIN/pg_config" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
PORT=${PG_FLAKE_CLOCK_PORT:-$((25580 + 2 * (major - 15)))}
DATA=${PG_FLAKE_CLOCK_DATA:-/tmp/pgf-clock-$major}
FAKETIME_LIB=${FAKETIME_LIB:-/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1}
STEP_MARGIN_MS=${STEP_MARGIN_MS:-1000}
# Sessions generating when the server crashes, and after.
CRASH_SESSIONS=20
DB=flake_clock
ALL_PARTS=(restart crash databases failover bound step)
if [ $# -gt 0 ]; then parts=("$@"); else parts=("${ALL_PARTS[@]}"); fi

# libfaketime (faketime's dependency); pgrep and pkill.
scripts/apt-install.sh test-clock faketime procps
if [ ! -r "$FAKETIME_LIB" ]; then
    echo "test-clock: libfaketime not found at $FAKETIME_LIB (apt-get install faketime, or set FAKETIME_LIB)" >&2
    exit 2
fi
PG_MAJOR=$("$PG_BIN/pg_config" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')

# name|SQL type|generator|timestamp of an ID|time unit in ms. The five
# coordination-based formats.
FORMATS=(
    "sno|sno|sno_generate()|sno_timestamp|4"
    "siq|siq|siq_generate('event')|siq_timestamp|0.0153"
    "snowflake|bigint|snowflake_generate()|snowflake_timestamp|1"
    "kuid64|bigint|kuid64_generate()|kuid64_timestamp|1.024"
    "kuid96|kuid96|kuid96_generate()|kuid96_timestamp|1.024"
)
RANDOM_FORMATS=("flaxid_generate()" "distributed_id_generate()" "distributed_id128_generate()")
MODES=(preloaded plain)

# Every server logs the SQLSTATE of each line (%e), so that errors can be
# counted by SQLSTATE from its log.
COMMON_CONF=(
    "log_line_prefix = '%m [%p] %e '"
    "max_connections = 100"
)

mode_conf() { [ "$1" = preloaded ] && echo "shared_preload_libraries = 'pg_flake'" || true; }
# The generators' mode as pg_flake_generator_state() says it.
state_mode() { [ "$1" = preloaded ] || [ "$PG_MAJOR" -ge 17 ] && echo shared || echo backend; }
mode_label() {
    case "$1,$(state_mode "$1")" in
    preloaded,*) echo "preloaded: shared mode" ;;
    plain,shared) echo "not preloaded: shared mode (DSM segment)" ;;
    plain,backend) echo "not preloaded: per-backend mode" ;;
    esac
}

source scripts/test-lib.sh

psql_db() { # PORT DB [psql args...]
    local port=$1 db=$2
    shift 2
    psql -X -q -v ON_ERROR_STOP=1 -P pager=off -h 127.0.0.1 -p "$port" -U postgres -d "$db" "$@"
}
psql_at() { # PORT [psql args...]: the test database
    local port=$1
    shift
    psql_db "$port" "$DB" "$@"
}
value() { psql_at "$1" -tA -c "$2"; }
# setting PORT NAME: a setting of pg_flake as a new session sees it (the
# library loaded first: without preloading, a session knows pg_flake's
# settings once it has loaded it).
setting() { psql_at "$1" -tA -c "LOAD 'pg_flake'" -c "SHOW $2"; }


# --- servers -------------------------------------------------------------

declare -A SERVER_MODE SERVER_PORT SERVER_EXTRA

# The environment of a server whose clock is CLOCK: "" (the real clock),
# an offset in seconds for libfaketime ("-5", "-3600"), or "file:PATH", a
# libfaketime timestamp file read on every clock reading, so that writing
# an offset into it steps the running server's clock. Only the real-time
# clock moves (FAKETIME_DONT_FAKE_MONOTONIC), as when an operating system's
# clock is stepped: PostgreSQL's waits and timeouts keep their length.
clock_env() {
    case "$1" in
    "") echo "" ;;
    file:*) echo "LD_PRELOAD=$FAKETIME_LIB FAKETIME_TIMESTAMP_FILE=${1#file:} FAKETIME_NO_CACHE=1 FAKETIME_DONT_FAKE_MONOTONIC=1" ;;
    *) echo "LD_PRELOAD=$FAKETIME_LIB FAKETIME=$1 FAKETIME_DONT_FAKE_MONOTONIC=1" ;;
    esac
}

# start NAME [CLOCK]: starts a server made by `server` (again).
start() {
    local name=$1 clock=${2:-} conf=()
    mapfile -t conf < <(printf '%s\n' "${COMMON_CONF[@]}"; mode_conf "${SERVER_MODE[$name]}"; printf '%s' "${SERVER_EXTRA[$name]}")
    PG_SERVER_ENV=$(clock_env "$clock") scripts/pg-server.sh start "$DATA-$name" "${SERVER_PORT[$name]}" "${conf[@]}"
}
stop() { scripts/pg-server.sh stop "$DATA-$1"; }
# restart NAME CLOCK: a clean (fast) shutdown, then a start with that clock.
restart() {
    stop "$1"
    start "$1" "${2:-}"
}

# server NAME PORT MODE [CLOCK [CONF_LINE...]]: a fresh server with the test
# database and the extension.
server() {
    local name=$1 port=$2 mode=$3 clock=${4:-}
    shift 3
    [ $# -gt 0 ] && shift
    fresh_data "$name"
    SERVER_MODE[$name]=$mode
    SERVER_PORT[$name]=$port
    SERVER_EXTRA[$name]=$([ $# -gt 0 ] && printf '%s\n' "$@" || true)
    start "$name" "$clock"
    psql_db "$port" postgres -c "CREATE DATABASE $DB"
    setup_database "$port" "$DB"
}

# The extension, a table per format (the phase each row was made in, the
# session and its order) and try_generate(expression): one generation,
# with its outcome and its duration on the server.
setup_database() {
    local port=$1 db=$2 f
    psql_db "$port" "$db" -c "CREATE EXTENSION pg_flake" -c "CREATE SEQUENCE row_order" -c "
        CREATE FUNCTION try_generate(expression text, OUT code text, OUT message text, OUT hint text, OUT ms numeric)
        LANGUAGE plpgsql AS \$\$
        DECLARE
            started timestamptz := clock_timestamp();
        BEGIN
            BEGIN
                EXECUTE 'SELECT ' || expression;
                code := '00000';
            EXCEPTION WHEN others THEN
                GET STACKED DIAGNOSTICS code = RETURNED_SQLSTATE, message = MESSAGE_TEXT, hint = PG_EXCEPTION_HINT;
            END;
            ms := round(1000 * extract(epoch FROM clock_timestamp() - started), 2);
        END \$\$"
    for f in "${FORMATS[@]}"; do
        psql_db "$port" "$db" -c "CREATE TABLE t_$(field 1 "$f") (
            id $(field 2 "$f") PRIMARY KEY DEFAULT $(field 3 "$f"),
            phase int NOT NULL,
            session int NOT NULL DEFAULT pg_backend_pid(),
            n bigint NOT NULL DEFAULT nextval('row_order'))"
    done
}

postmaster_pid() { head -n 1 "$DATA-$1/postmaster.pid"; }

# --- generation ----------------------------------------------------------

# pgbench_scripts DIR: one script per format, inserting a row of phase
# :phase.
pgbench_scripts() {
    local dir=$1 f
    mkdir -p "$dir"
    PGBENCH_SCRIPTS=()
    for f in "${FORMATS[@]}"; do
        echo "INSERT INTO t_$(field 1 "$f") (phase) VALUES (:phase);" >"$dir/$(field 1 "$f").sql"
        PGBENCH_SCRIPTS+=(-f "$dir/$(field 1 "$f").sql")
    done
}

# generate PORT DB PHASE SECONDS [CLIENTS]: 6 sessions (default) insert rows
# of every format, each transaction one row of a format chosen at random
# (SECONDS: an integer, as pgbench takes it). Prints a line of figures, and
# checks that no session failed.
generate() {
    local port=$1 db=$2 phase=$3 seconds=$4 clients=${5:-6} rc=0 dir=$OUT/pgbench
    pgbench_scripts "$dir"
    "$PG_BIN/pgbench" -n -h 127.0.0.1 -p "$port" -U postgres -c "$clients" -j 1 -T "$seconds" -D phase="$phase" \
        "${PGBENCH_SCRIPTS[@]}" "$db" >"$dir/out" 2>"$dir/err" || rc=$?
    echo "  generated: $clients sessions for $seconds s in $db, phase $phase: $(grep -E '^number of transactions actually processed' "$dir/out" | sed 's/.*: //'), $(grep -E '^tps' "$dir/out" | sed -E 's/ \(.*//')"
    check "pgbench in $db, phase $phase: no session failed" "$(is [ "$rc" = 0 ])"
    [ "$rc" = 0 ] || sed 's/^/    /' "$dir/err" | head -n 5
}

# above_sql OLD_PHASES NEW_PHASE [DB_TABLE_PREFIX]: per format, the rows of
# the old phases and of the new one, the largest old ID and the smallest
# new one (with their times) and how many new IDs are at or below the
# largest old one (must be 0); old rows from tables named PREFIX<format>.
above_sql() {
    local old=$1 new=$2 prefix=${3:-t_} f name ts sql=""
    for f in "${FORMATS[@]}"; do
        name=$(field 1 "$f") ts=$(field 4 "$f")
        sql+="${sql:+ UNION ALL }SELECT '$name' AS format, o.rows AS rows_before, n.rows AS rows_after,
            o.largest::text AS largest_old, n.smallest::text AS smallest_new,
            $ts(o.largest) AS largest_old_time, $ts(n.smallest) AS smallest_new_time,
            (SELECT count(*) FROM t_$name WHERE phase = $new AND id <= o.largest) AS new_at_or_below_old
            FROM (SELECT count(*) AS rows, max(id) AS largest FROM $prefix$name WHERE phase IN ($old)) o,
                 (SELECT count(*) AS rows, min(id) AS smallest FROM t_$name WHERE phase = $new) n"
    done
    echo "$sql"
}

# compare PORT OLD_PHASES NEW_PHASE LABEL [PREFIX]: in one session, one
# more row of every format in the new phase, then the comparison with the
# generators' clock_lead and mark as this session sees them (per backend:
# its own generators), kept in table cmp_LABEL and printed.
compare() {
    local port=$1 old=$2 new=$3 label=$4 prefix=${5:-t_} f inserts=()
    for f in "${FORMATS[@]}"; do inserts+=(-c "INSERT INTO t_$(field 1 "$f") (phase) VALUES ($new)"); done
    psql_at "$port" "${inserts[@]}" -c "CREATE TABLE cmp_$label AS
        SELECT c.*, s.clock_lead, s.mark_time, s.mode
        FROM ($(above_sql "$old" "$new" "$prefix")) c
        LEFT JOIN pg_flake_generator_state() s USING (format)" \
        -c "SELECT format, rows_before, rows_after, largest_old, smallest_new, largest_old_time, smallest_new_time,
                new_at_or_below_old AS at_or_below, clock_lead FROM cmp_$label ORDER BY format"
}
check_above() { # PORT LABEL DESCRIPTION
    check "$3" "$(value "$1" "SELECT count(*) = ${#FORMATS[@]}
        AND bool_and(rows_before > 0 AND rows_after > 0 AND new_at_or_below_old = 0) FROM cmp_$2")"
}
check_mode() { # PORT LABEL MODE
    check "the generators ran in $(state_mode "$3") mode" \
        "$(value "$1" "SELECT count(*) = ${#FORMATS[@]} AND bool_and(mode = '$(state_mode "$3")') FROM cmp_$2")"
}

# try_all PORT LABEL: try_generate of every format, in one session; the
# outcomes (format|sqlstate|ms|message|hint) go to $OUT/tried_LABEL (a
# standby cannot keep them in a table) and are printed.
try_all() {
    local port=$1 label=$2 f sql=""
    for f in "${FORMATS[@]}"; do
        sql+="${sql:+ UNION ALL }SELECT '$(field 1 "$f")', code, ms, message, hint FROM try_generate(\$q\$$(field 3 "$f")\$q\$)"
    done
    psql_at "$port" -tA -F'|' -c "$sql" >"$OUT/tried_$label"
    awk -F'|' '{ printf "    %-10s %s %8s ms  %s\n", $1, $2, $3, $4 }' "$OUT/tried_$label"
}
# tried LABEL AWK_CONDITION: whether every format's outcome meets the
# condition ($1 format, $2 sqlstate, $3 ms, $4 message; lag: the seconds
# in a 55000 message).
tried() {
    is awk -F'|' -v n="${#FORMATS[@]}" "{ lag = \$4; sub(/.*the clock is /, \"\", lag); sub(/ s behind.*/, \"\", lag); lag += 0 }
        !($2) { bad++ } END { exit !(NR == n && bad == 0) }" "$OUT/tried_$1"
}

# --- restart -------------------------------------------------------------
part_restart() {
    local mode=$1
    local name=restart-$mode port=$PORT t0
    t0=$(now)
    echo "== restart ($(mode_label "$mode")): 127.0.0.1:$port"
    server "$name" "$port" "$mode"
    generate "$port" "$DB" 1 3
    echo "  restart with the clock 5 s behind"
    restart "$name" -5
    generate "$port" "$DB" 2 2
    compare "$port" 1 2 restart5
    check_mode "$port" restart5 "$mode"
    check_above "$port" restart5 "5 s behind: every format generated after the restart, no new ID at or below an old one"
    # (clock_lead: how far the IDs run ahead of the clock, less the
    # seconds since the restart; at most the clock's 5 s and a lease.)
    check "5 s behind: IDs no further ahead of the clock than its 5 s and a lease (clock_lead < 6 s for every format)" \
        "$(value "$port" "SELECT bool_and(clock_lead < '6 s') FROM cmp_restart5")"

    echo "  restart with the clock 1 h behind (pg_flake.max_clock_lag at its default, $(setting "$port" pg_flake.max_clock_lag))"
    restart "$name" -3600
    try_all "$port" hour
    echo "    hint: $(head -n 1 "$OUT/tried_hour" | cut -d'|' -f5)"
    check "1 h behind: every format fails with 55000 \"<format> generation stopped: the clock is N s behind the last <format> IDs issued\", N about 3600 (3550-3610)" \
        "$(tried hour '$2 == "55000" && $4 ~ ("^" $1 " generation stopped: the clock is [0-9.]+ s behind the last " $1 " IDs issued$") && lag > 3550 && lag < 3610')"
    check "1 h behind: each failure is immediate (under 100 ms on the server), not a wait" "$(tried hour '$3 < 100')"
    psql_at "$port" -c "LOAD 'pg_flake'" -c "ALTER SYSTEM SET pg_flake.max_clock_lag = '2h'" -c "SELECT pg_reload_conf()" >/dev/null
    echo "  pg_flake.max_clock_lag raised to $(setting "$port" pg_flake.max_clock_lag)"
    generate "$port" "$DB" 3 2
    compare "$port" 1,2 3 restart3600
    check_above "$port" restart3600 "1 h behind, bound raised: every format generated, no new ID at or below an old one"
    check "1 h behind, bound raised: IDs about 1 h ahead of the clock (clock_lead 3550-3601 s for every format)" \
        "$(value "$port" "SELECT bool_and(clock_lead BETWEEN '3550 s' AND '3601 s') FROM cmp_restart3600")"
    psql_at "$port" -c "LOAD 'pg_flake'" -c "ALTER SYSTEM RESET pg_flake.max_clock_lag" -c "SELECT pg_reload_conf()" >/dev/null
    check_log "$name"
    stop "$name"
    echo "restart ($mode): $(since "$t0") s"
}

# --- crash ---------------------------------------------------------------
part_crash() {
    local mode=$1
    local name=crash-$mode port=$PORT t0 pm pid killed
    t0=$(now)
    echo "== crash ($(mode_label "$mode")): 127.0.0.1:$port"
    server "$name" "$port" "$mode"
    pgbench_scripts "$OUT/pgbench"
    "$PG_BIN/pgbench" -n -h 127.0.0.1 -p "$port" -U postgres -c "$CRASH_SESSIONS" -j 1 -T 30 -D phase=1 \
        "${PGBENCH_SCRIPTS[@]}" "$DB" >"$OUT/crash.out" 2>&1 &
    pid=$!
    sleep 3
    pm=$(postmaster_pid "$name")
    killed=$(pgrep -P "$pm" | wc -l)
    pkill -9 -P "$pm" || true
    echo "  SIGKILL to the postmaster's $killed children (backends, checkpointer, WAL writer, ...) mid-generation"
    wait "$pid" || true
    echo "  pgbench: $(grep -cE 'aborted|terminat|closed' "$OUT/crash.out" || true) client errors after the kill"
    runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$DATA-$name" -m immediate -w stop >/dev/null
    echo "  immediate stop, then a start with the clock 5 s behind (crash recovery)"
    start "$name" -5
    generate "$port" "$DB" 2 2 "$CRASH_SESSIONS"
    compare "$port" 1 2 crash
    check_mode "$port" crash "$mode"
    check_above "$port" crash "after the crash, 5 s behind: every format generated, no new ID at or below a committed one"
    # Per backend, every slot was left uncleanly: each new holder starts
    # above what its slot's crashed holder may have used, not above the
    # marks of the other new holders (else each would start a lease
    # further ahead: $CRASH_SESSIONS sessions, $CRASH_SESSIONS s).
    check "after the crash: IDs at most the clock's 5 s and a lease (1 s) ahead of it (clock_lead < 7 s for every format)" \
        "$(value "$port" "SELECT bool_and(clock_lead < '7 s') FROM cmp_crash")"
    check_log "$name" 57P01 57P02 57P03
    stop "$name"
    echo "crash ($mode): $(since "$t0") s"
}

# --- two databases -------------------------------------------------------
part_databases() {
    local mode=$1
    local name=databases-$mode port=$PORT t0 f other=${DB}_other
    t0=$(now)
    echo "== two databases ($(mode_label "$mode")): 127.0.0.1:$port, $DB and $other"
    server "$name" "$port" "$mode"
    psql_db "$port" postgres -c "CREATE DATABASE $other"
    setup_database "$port" "$other"
    generate "$port" "$DB" 1 2 >"$OUT/first_db" &
    local pid=$!
    OUT=$OUT/other generate "$port" "$other" 1 2
    wait "$pid"
    cat "$OUT/first_db"
    failures=$((failures + $(grep -c '^  FAIL' "$OUT/first_db" || true)))
    echo "  restart with the clock 5 s behind; from now on only $other generates"
    restart "$name" -5
    generate "$port" "$other" 2 2
    # The first database's rows, next to the other's own.
    for f in "${FORMATS[@]}"; do
        f=$(field 1 "$f")
        psql_db "$port" "$other" -c "CREATE TABLE first_$f (LIKE t_$f)"
        psql_at "$port" -c "\\copy t_$f TO STDOUT" | psql_db "$port" "$other" -c "\\copy first_$f FROM STDIN"
    done
    echo "  $other's new IDs against $DB's:"
    DB=$other compare "$port" 1 2 first first_
    echo "  $other's new IDs against its own earlier ones:"
    DB=$other compare "$port" 1 2 own
    DB=$other check_mode "$port" own "$mode"
    DB=$other check_above "$port" first "no new ID of $other at or below an ID $DB issued before the restart"
    DB=$other check_above "$port" own "no new ID of $other at or below its own earlier ones"
    check_log "$name"
    stop "$name"
    echo "databases ($mode): $(since "$t0") s"
}

# --- failover ------------------------------------------------------------

# kill_server NAME: the whole server dies at once, as with its machine:
# every process frozen, then killed; its shared memory removed.
kill_server() {
    local pm pids
    pm=$(postmaster_pid "$1")
    pids="$pm $(pgrep -P "$pm" | paste -sd' ' -)"
    # shellcheck disable=SC2086
    kill -STOP $pids
    # shellcheck disable=SC2086
    kill -KILL $pids
    local shm
    shm=$(sed -n 7p "$DATA-$1/postmaster.pid" | awk '{ print $2 }')
    [ -n "$shm" ] && ipcrm -m "$shm" 2>/dev/null || true
}

part_failover() {
    local sync=$1 primary=primary-$1 standby=standby-$1 p=$PORT s=$((PORT + 1)) t0 f name
    t0=$(now)
    echo "== failover ($sync replication, preloaded): primary 127.0.0.1:$p (real clock), standby 127.0.0.1:$s (clock 10 s behind)"
    server "$primary" "$p" preloaded "" "wal_level = replica"
    # The standby: a base backup of the primary, started 10 s behind.
    rm -rf "$DATA-$standby"
    STARTED+=("$DATA-$standby")
    # (It warns of the primary's socket, which lives in its data directory.)
    runuser -u postgres -- "$PG_BIN/pg_basebackup" -h 127.0.0.1 -p "$p" -U postgres -D "$DATA-$standby" -R -X stream -c fast \
        2> >(grep -v 'skipping special file "./.s.PGSQL' >&2)
    rm -f "$DATA-$standby/server.log"
    SERVER_MODE[$standby]=preloaded
    SERVER_PORT[$standby]=$s
    SERVER_EXTRA[$standby]="unix_socket_directories = '$DATA-$standby'"
    start "$standby" -10
    if [ "$sync" = synchronous ]; then
        psql_at "$p" -c "ALTER SYSTEM SET synchronous_standby_names = '*'" -c "SELECT pg_reload_conf()" >/dev/null
    fi
    local deadline=$(($(date +%s) + 30))
    until [ "$(value "$p" "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'
            AND sync_state = '$([ "$sync" = synchronous ] && echo sync || echo async)'")" = 1 ] \
        || [ "$(date +%s)" -gt "$deadline" ]; do sleep 0.2; done
    echo "  replication, as the primary reports it:"
    psql_at "$p" -c "SELECT application_name, state, sync_state, current_setting('synchronous_standby_names') AS synchronous_standby_names,
        current_setting('synchronous_commit') AS synchronous_commit FROM pg_stat_replication"
    check "the standby streams, $sync" "$(value "$p" "SELECT count(*) = 1 FROM pg_stat_replication
        WHERE state = 'streaming' AND sync_state = '$([ "$sync" = synchronous ] && echo sync || echo async)'")"
    check "the standby's clock is 10 s behind the primary's" "$(value "$s" "SELECT abs(extract(epoch FROM now()) + 10 - $(date +%s.%N)) < 1")"

    # Before promotion: refused without a node of its own, with one allowed.
    try_all "$s" standby
    echo "    hint: $(head -n 1 "$OUT/tried_standby" | cut -d'|' -f5)"
    check "standby: every coordination-based format refused with 25006 \"cannot generate <format> IDs on a server in recovery\" (kuid64: it has no node field)" \
        "$(tried standby '$2 == "25006" && ($4 == "cannot generate " $1 " IDs on a server in recovery" || $1 == "kuid64" && $4 ~ /^cannot generate kuid64 IDs on a server in recovery: it has no node field/)')"
    local random_sql="" r
    for r in "${RANDOM_FORMATS[@]}"; do random_sql+="${random_sql:+ UNION ALL }SELECT '$r' AS generator, * FROM try_generate(\$q\$$r\$q\$)"; done
    psql_at "$s" -c "SELECT generator, code, message FROM ($random_sql) r"
    check "standby: the random formats generate (flaxid, distributed_id, distributed_id128)" \
        "$(value "$s" "SELECT bool_and(code = '00000') FROM ($random_sql) r")"
    # A standby generates only once it knows the node its primary generates
    # each format with (docs/operations.md "Standbys and failover"): one ID of each on
    # the primary, replayed.
    for f in "${FORMATS[@]}"; do value "$p" "SELECT $(field 3 "$f") IS NOT NULL" >/dev/null; done
    local replay_lsn
    replay_lsn=$(value "$p" "SELECT pg_current_wal_lsn()")
    deadline=$(($(date +%s) + 30))
    until [ "$(value "$s" "SELECT pg_last_wal_replay_lsn() >= '$replay_lsn'")" = t ] \
        || [ "$(date +%s)" -gt "$deadline" ]; do sleep 0.1; done
    psql_at "$s" -c "LOAD 'pg_flake'" -c "ALTER SYSTEM SET pg_flake.node = 9" -c "SELECT pg_reload_conf()" >/dev/null
    sleep 0.3
    echo "  standby with ALTER SYSTEM SET pg_flake.node = 9: pg_flake_node(), and the node in IDs it generates"
    psql_at "$s" -c "SELECT * FROM pg_flake_node()"
    psql_at "$s" -c "SELECT sno_partition(sno_generate()) >> 8 AS sno,
            (siq_domain_hash(siq_generate('event')) >> 24)::int AS siq, (snowflake_parts(snowflake_generate())).worker AS snowflake,
            kuid96_node(kuid96_generate()) AS kuid96,
            (SELECT code FROM try_generate('kuid64_generate()')) AS kuid64_code" >"$OUT/own_node"
    cat "$OUT/own_node"
    psql_at "$s" -tA -c "SELECT '  standby generators: ' || string_agg(format || ' clock_lead ' || clock_lead, ', ' ORDER BY format)
        FROM pg_flake_generator_state()"
    check "standby with pg_flake.node = 9: pg_flake_node() says node 9 from pg_flake.node for sno, siq, snowflake and kuid96" \
        "$(value "$s" "SELECT count(*) = 4 AND bool_and(node = 9 AND source = 'pg_flake.node' AND problem IS NULL)
            FROM pg_flake_node() WHERE format <> 'kuid64'")"
    check "standby with pg_flake.node = 9: its IDs carry node 9 (sno, siq, snowflake, kuid96) and kuid64 refuses (25006: no node field)" \
        "$(is grep -Eq '^ +9 \| +9 \| +9 \| +9 \| 25006$' "$OUT/own_node")"
    psql_at "$s" -c "LOAD 'pg_flake'" -c "ALTER SYSTEM RESET pg_flake.node" -c "SELECT pg_reload_conf()" >/dev/null
    sleep 0.3
    try_all "$s" standby_reset >/dev/null
    check "standby: pg_flake.node reset: refused again (the promoted server keeps the primary's identity)" \
        "$(tried standby_reset '$2 == "25006"')"

    # The primary generates; each client records every ID it got back
    # (committed: autocommit); the whole primary dies mid-generation.
    echo "  the primary generates (a session per format, each recording the IDs it got), then dies (SIGSTOP, SIGKILL of every process)"
    local pids=()
    pgbench_scripts "$OUT/pgbench"
    for f in "${FORMATS[@]}"; do
        name=$(field 1 "$f")
        yes "INSERT INTO t_$name (phase) VALUES (1) RETURNING id;" |
            psql -X -q -tA -h 127.0.0.1 -p "$p" -U postgres -d "$DB" >"$OUT/seen_$name" 2>"$OUT/seen_$name.err" &
        pids+=($!)
    done
    "$PG_BIN/pgbench" -n -h 127.0.0.1 -p "$p" -U postgres -c 4 -j 1 -T 60 -D phase=1 "${PGBENCH_SCRIPTS[@]}" "$DB" \
        >"$OUT/failover.pgbench" 2>&1 &
    local bench=$!
    sleep 3
    # The marks the standby has replayed (its generators show once used:
    # they generated with node 9), next to the primary's, a moment before
    # the primary dies.
    echo "  marks a moment before the primary dies (mark_time per format; the standby's are replayed from the WAL):"
    psql_at "$p" -tA -F' ' -c "SELECT format, mark_time FROM pg_flake_generator_state() ORDER BY format" >"$OUT/marks_primary"
    psql_at "$s" -tA -F' ' -c "SELECT format, mark_time FROM pg_flake_generator_state() ORDER BY format" >"$OUT/marks_standby"
    join "$OUT/marks_primary" "$OUT/marks_standby" | awk '{ printf "    %-10s primary %s %s   standby %s %s\n", $1, $2, $3, $4, $5 }'
    kill_server "$primary"
    wait "$bench" || true
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    local lsn
    lsn=$(value "$s" "SELECT pg_last_wal_receive_lsn()")
    echo "  the standby had received WAL up to $lsn"
    runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$DATA-$standby" -w promote >/dev/null
    check "the standby is promoted" "$(value "$s" "SELECT NOT pg_is_in_recovery()")"

    for f in "${FORMATS[@]}"; do
        name=$(field 1 "$f")
        psql_at "$s" -c "CREATE TABLE seen_$name (id $(field 2 "$f"), phase int DEFAULT 1)" \
            -c "\\copy seen_$name (id) FROM '$OUT/seen_$name'"
        psql_at "$s" -c "CREATE TABLE old_$name AS SELECT id, phase FROM t_$name UNION SELECT id, phase FROM seen_$name"
    done
    echo "  IDs of the old primary: committed rows the standby has, IDs the clients got back, and those it lacks"
    local lost_sql=""
    for f in "${FORMATS[@]}"; do
        name=$(field 1 "$f")
        lost_sql+="${lost_sql:+ UNION ALL }SELECT '$name' AS format, (SELECT count(*) FROM t_$name) AS replicated,
            (SELECT count(*) FROM seen_$name) AS seen_by_clients,
            (SELECT count(*) FROM seen_$name s WHERE NOT EXISTS (SELECT FROM t_$name t WHERE t.id = s.id)) AS seen_not_replicated"
    done
    psql_at "$s" -c "CREATE TABLE lost AS $lost_sql" -c "TABLE lost"
    check "the clients recorded IDs of every format" "$(value "$s" "SELECT bool_and(seen_by_clients > 0) FROM lost")"
    if [ "$sync" = synchronous ]; then
        check "synchronous: every ID a client got back is on the promoted server" \
            "$(value "$s" "SELECT sum(seen_not_replicated) = 0 FROM lost")"
    fi
    generate "$s" "$DB" 2 2
    echo "  new IDs of the promoted server (clock 10 s behind) against every ID of the old primary:"
    compare "$s" 1 2 promoted old_
    check_above "$s" promoted "promoted: every format generated, no new ID at or below one the old primary issued"
    check "promoted: IDs ahead of its clock, by no more than its 10 s and a lease (0 < clock_lead < 11 s for every format)" \
        "$(value "$s" "SELECT bool_and(clock_lead > '0 s' AND clock_lead < '11 s') FROM cmp_promoted")"
    # The walreceiver loses its primary (08006) and is stopped at promotion (57P01).
    check_log "$standby" 08006 57P01
    stop "$standby"
    echo "failover ($sync): $(since "$t0") s"
}

# --- bound ---------------------------------------------------------------
part_bound() {
    local mode=$1
    local name=bound-$mode port=$PORT t0
    t0=$(now)
    echo "== bound ($(mode_label "$mode")): 127.0.0.1:$port, a restart with the clock 90 s behind"
    server "$name" "$port" "$mode"
    generate "$port" "$DB" 1 1
    restart "$name" -90
    local started elapsed_ms
    started=$(now)
    try_all "$port" bound
    elapsed_ms=$(awk -v a="$started" -v b="$(now)" 'BEGIN { printf "%d", 1000 * (b - a) }')
    echo "  (all five first generations, with the connection, took $elapsed_ms ms seen from the client)"
    check "90 s behind: the first generation of every format fails with 55000, the message giving a lag of about 90 s (75-100)" \
        "$(tried bound '$2 == "55000" && lag > 75 && lag < 100')"
    check "90 s behind: each failure under 100 ms on the server, all five with the connection under 1 s on the client" \
        "$(tried bound '$3 < 100 && '"$elapsed_ms"' < 1000')"
    # The state as a session that just failed sees it (in shared mode a
    # generator shows once it has issued an ID in this run: none has).
    echo "  pg_flake_generator_state() and pg_flake_node() in a session whose generations just failed:"
    psql_at "$port" -c "SELECT string_agg((try_generate(g)).code, ', ') AS \"again: SQLSTATEs\"
            FROM unnest(ARRAY[$(for f in "${FORMATS[@]}"; do printf "\$q\$%s\$q\$," "$(field 3 "$f")"; done | sed 's/,$//')]) g" \
        -c "SELECT format, mode, issued, last_unit, mark_unit, mark_time, clock_lead, now() AS clock FROM pg_flake_generator_state()" \
        -c "SELECT * FROM pg_flake_node()" 2>&1 || true
    check "pg_flake_generator_state() and pg_flake_node() still answer" \
        "$(is psql_at "$port" -c "SELECT * FROM pg_flake_generator_state()" -c "SELECT count(*) FROM pg_flake_node()" -o /dev/null)"
    check_log "$name"
    stop "$name"
    echo "bound ($mode): $(since "$t0") s"
}

# --- live step -----------------------------------------------------------
part_step() {
    local mode=$1 offset=$2 label server_name port=$PORT t0 clockfile f
    label=$([ "$offset" = -10 ] && echo 10s || echo 2h)
    server_name=step$label-$mode
    t0=$(now)
    echo "== live step back by $label ($(mode_label "$mode")): 127.0.0.1:$port, 6 sessions generating every format"
    clockfile=$DATA-$server_name.clock
    echo "+0" >"$clockfile"
    chmod 644 "$clockfile"
    server "$server_name" "$port" "$mode" "file:$clockfile"
    # Each statement generates one ID into its format's table; the 55000 of
    # the bound is recorded rather than ending the session.
    psql_at "$port" -c "CREATE TABLE step_errors (format text, session int DEFAULT pg_backend_pid(),
            n bigint DEFAULT nextval('row_order'), sqlstate text, message text)" -c "
        CREATE FUNCTION step_insert(fmt text) RETURNS void LANGUAGE plpgsql AS \$\$
        BEGIN
            EXECUTE format('INSERT INTO t_%s (phase) VALUES (1)', fmt);
        EXCEPTION WHEN object_not_in_prerequisite_state THEN
            INSERT INTO step_errors (format, sqlstate, message) VALUES (fmt, SQLSTATE, SQLERRM);
        END \$\$"
    local dir=$OUT/$server_name scripts=()
    mkdir -p "$dir"
    for f in "${FORMATS[@]}"; do
        echo "SELECT step_insert('$(field 1 "$f")');" >"$dir/$(field 1 "$f").sql"
        scripts+=(-f "$dir/$(field 1 "$f").sql")
    done
    # A probe session that lives across the step: in per-backend mode the
    # state of a backend's generators is visible only to it.
    mkfifo "$dir/probe.in"
    psql_at "$port" -tA -F'|' <"$dir/probe.in" >"$dir/probe.out" 2>&1 &
    local probe=$!
    exec 7>"$dir/probe.in"
    local gen_all=""
    state() { echo "SELECT 'state', '$1', format, tick_tock, clock_lead FROM pg_flake_generator_state() ORDER BY format;"; }
    for f in "${FORMATS[@]}"; do gen_all+="SELECT step_insert('$(field 1 "$f")');"; done
    echo "$gen_all $(state 'before the step')" >&7

    # 6 sessions at 1200 statements per second in all (a fifth per
    # format): a load that leaves the machine room, so that latencies show
    # the generators, not the scheduler.
    local rc=0 seconds=6
    "$PG_BIN/pgbench" -n -h 127.0.0.1 -p "$port" -U postgres -c 6 -j 1 -T "$seconds" -R 1200 -l \
        --log-prefix="$dir/log" "${scripts[@]}" "$DB" >"$dir/out" 2>"$dir/err" &
    local bench=$!
    sleep 2
    local m1 m2 m3 mr step_at
    m1=$(value "$port" "SELECT nextval('row_order')")
    step_at=$(now)
    echo "$offset" >"$clockfile.new" && chmod 644 "$clockfile.new" && mv "$clockfile.new" "$clockfile"
    sleep 0.3
    m2=$(value "$port" "SELECT nextval('row_order')")
    echo "$gen_all $(state 'just after the step')" >&7
    echo "  clock stepped back by $label at +2 s; server clock now $(value "$port" "SELECT now()::timestamp(0)") (real $(date -u +%T))"
    if [ "$offset" != -10 ]; then
        sleep 2
        mr=$(value "$port" "SELECT nextval('row_order')")
        echo "+0" >"$clockfile.new" && chmod 644 "$clockfile.new" && mv "$clockfile.new" "$clockfile"
        sleep 0.3
        echo "  clock set right again at +4.3 s"
    fi
    m3=$(value "$port" "SELECT nextval('row_order')")
    [ "$offset" = -10 ] && m3=999999999999
    wait "$bench" || rc=$?
    echo "$gen_all $(state 'at the end')" >&7
    exec 7>&-
    wait "$probe" || true
    echo "  pgbench: $(grep -E '^number of transactions actually processed' "$dir/out" | sed 's/.*: //'), exit status $rc"
    check "pgbench: no session aborted (exit status 0)" "$(is [ "$rc" = 0 ])"
    [ "$rc" = 0 ] || sed 's/^/    /' "$dir/err" | head -n 5

    # Statement latency from pgbench's log (its own clock, the real one):
    # time minus schedule lag, per script (= format).
    local names
    names=$(for f in "${FORMATS[@]}"; do field 1 "$f"; done | paste -sd' ' -)
    awk -v names="$names" -v step="$step_at" '
        BEGIN { split(names, name, " ") }
        { f = name[$4 + 1]; lat = ($3 - ($7 == "" ? 0 : $7)) / 1000; at = $5 + $6 / 1e6
          n[f]++; if (lat > max[f]) max[f] = lat
          if (at >= step && at < step + 1) { ns[f]++; if (lat > maxs[f]) maxs[f] = lat } }
        END { for (f in n) printf "%s %d %.2f %d %.2f\n", f, n[f], max[f], ns[f], maxs[f] }' "$dir"/log* | sort >"$dir/latency"
    psql_at "$port" -c "CREATE TABLE latency (format text, statements int, max_ms numeric, in_step_second int, max_ms_in_step_second numeric)" \
        -c "\\copy latency FROM '$dir/latency' (DELIMITER ' ')"
    local unit_sql=""
    for f in "${FORMATS[@]}"; do unit_sql+="${unit_sql:+ UNION ALL }SELECT '$(field 1 "$f")' AS format, $(field 5 "$f")::numeric AS unit_ms"; done
    echo "  statement latency (ms; pgbench's log, schedule lag excluded; 'in step second': the second after the step):"
    psql_at "$port" -c "CREATE TABLE units AS $unit_sql" \
        -c "SELECT format, statements, max_ms, in_step_second, max_ms_in_step_second, unit_ms, unit_ms + $STEP_MARGIN_MS AS allowed_ms
            FROM latency JOIN units USING (format) ORDER BY format"
    check "no statement took longer than one time unit + $STEP_MARGIN_MS ms (no stall; the margin is for a shared 2-CPU machine)" \
        "$(value "$port" "SELECT count(*) = ${#FORMATS[@]} AND bool_and(max_ms <= unit_ms + $STEP_MARGIN_MS) FROM latency JOIN units USING (format)")"

    # Rows and errors before the step (n < m1), during it (m2 < n < m3 for
    # 2 h; after m2 for 10 s) and after the clock was set right (n > m3).
    local during="n > $m2" sql="" name ts
    [ "$offset" != -10 ] && during="n > $m2 AND n < $mr"
    for f in "${FORMATS[@]}"; do
        name=$(field 1 "$f") ts=$(field 4 "$f")
        sql+="${sql:+ UNION ALL }SELECT '$name' AS format, count(*) AS rows, count(DISTINCT id) AS distinct_ids,
            count(*) FILTER (WHERE n < $m1) AS before_step, count(*) FILTER (WHERE $during) AS during_step,
            count(*) FILTER (WHERE n > $m3) AS after_restore,
            (SELECT count(*) FROM step_errors e WHERE e.format = '$name') AS errors,
            (SELECT count(*) FROM step_errors e WHERE e.format = '$name' AND e.n > $m3) AS errors_after_restore,
            count(DISTINCT session) AS sessions,
            (SELECT count(*) FROM (SELECT id < lag(id) OVER w AS descends FROM t_$name WINDOW w AS (PARTITION BY session ORDER BY n)) d WHERE descends) AS descents,
            (SELECT count(*) FROM (SELECT id <= lag(id) OVER w AS bad FROM t_$name WINDOW w AS (PARTITION BY session ORDER BY n)) d WHERE bad) AS not_increasing,
            max($ts(id)) FILTER (WHERE n < $m1) AS latest_time_before,
            min($ts(id)) FILTER (WHERE $during) AS earliest_time_during
            FROM t_$name"
    done
    psql_at "$port" -c "CREATE TABLE step AS $sql" -c "TABLE step ORDER BY format"
    echo "  a probe session made an ID of each format before the step, just after it and at the end; its generators' tick_tock and clock_lead then:"
    awk -F'|' '$1 == "state" { if ($2 != m) { if (m != "") print line; m = $2; line = sprintf("    %-20s", m ":") }
            line = line sprintf("  %s tick_tock %s lead %s;", $3, $4, $5) }
        END { print line }' "$dir/probe.out"
    grep -v '^state|' "$dir/probe.out" | grep -v '^$' | sed 's/^/    probe: /' | head -n 5 || true
    psql_at "$port" -c "SELECT format, sqlstate, count(*), min(message) AS message FROM step_errors GROUP BY 1, 2 ORDER BY 1"

    check "no duplicate: rows = distinct IDs (and primary keys)" "$(value "$port" "SELECT bool_and(rows = distinct_ids) FROM step")"
    check "every format generated before the step" "$(value "$port" "SELECT bool_and(before_step > 0 AND sessions >= 6) FROM step")"
    check "every session's IDs strictly increase, except sno" \
        "$(value "$port" "SELECT bool_and(not_increasing = 0) FROM step WHERE format <> 'sno'")"
    # sno (docs/guarantees.md "Ordering", docs/formats/sno.md): the first regression
    # flips the tick-tock bit and continues at once at the earlier time, so
    # each session's IDs descend once, at the step, to IDs with the bit set;
    # unique, increasing again from there.
    check "sno: each session's IDs descend exactly once, at the step, to tick-tock IDs, and increase otherwise" \
        "$(value "$port" "WITH s AS (SELECT session, n, id, lag(id) OVER w AS prev, sno_tick_tock(id) AS tt, lag(sno_tick_tock(id)) OVER w AS prev_tt
                FROM t_sno WINDOW w AS (PARTITION BY session ORDER BY n)),
            d AS (SELECT session, count(*) FILTER (WHERE id < prev) AS descents,
                count(*) FILTER (WHERE id < prev AND NOT (tt AND NOT prev_tt AND n > $m1)) AS bad_descents,
                count(*) FILTER (WHERE id = prev) AS repeats,
                bool_or(n < $m1) AND bool_or(n > $m2) AS both_sides FROM s GROUP BY session)
            SELECT bool_and(bad_descents = 0 AND repeats = 0 AND descents = CASE WHEN both_sides THEN 1 ELSE descents END)
                AND bool_and(descents <= 1) AND count(*) FILTER (WHERE both_sides AND descents = 1) >= 6 FROM d")"
    check "sno: after the step it generated at the earlier time (tick-tock), no error" \
        "$(value "$port" "SELECT during_step > 0 AND errors = 0
            AND earliest_time_during < latest_time_before - interval '$([ "$offset" = -10 ] && echo 9 || echo 7100) s' FROM step WHERE format = 'sno'")"
    if [ "$offset" = -10 ]; then
        # Above each session's own IDs (checked above), so not back with
        # the clock: per backend, a session that last generated a while
        # before the step continues above that earlier unit.
        check "10 s: the other formats went on without an error, in logical time: no ID followed the clock 10 s back" \
            "$(value "$port" "SELECT bool_and(during_step > 0 AND errors = 0 AND earliest_time_during > latest_time_before - interval '8 s')
                FROM step WHERE format <> 'sno'")"
    else
        check "2 h: the other formats failed with 55000 (the bound), and made no ID while the clock was 2 h behind" \
            "$(value "$port" "SELECT bool_and(s.errors > 0 AND s.during_step = 0) AND bool_and(e.sqlstate = '55000'
                    AND e.message ~ 'generation stopped: the clock is 7[0-9]{3}(\.[0-9]+)? s behind')
                FROM step s JOIN step_errors e USING (format) WHERE format <> 'sno'")"
        check "2 h: once the clock was set right, every format generated again without an error" \
            "$(value "$port" "SELECT bool_and(after_restore > 0 AND errors_after_restore = 0) FROM step")"
    fi
    check_log "$server_name"
    stop "$server_name"
    echo "step $label ($mode): $(since "$t0") s"
}

# run PART_FUNCTION ARGS...: a part; the data directories of its servers
# are removed if all its checks passed, else kept (with server.log).
KEPT=()
run() {
    local before=$failures first=${#STARTED[@]} data
    "$@"
    for data in "${STARTED[@]:$first}"; do
        if [ "$failures" = "$before" ]; then
            scripts/pg-server.sh stop "$data" 2>/dev/null || true
            rm -rf "$data" "$data.clock"
        else
            KEPT+=("$data")
        fi
    done
}

total=$(now)
echo "test-clock: PostgreSQL $PG_MAJOR ($PG_BIN), ports $PORT-$((PORT + 1)), data $DATA-*"
for part in "${parts[@]}"; do
    case $part in
    restart | crash | databases | bound)
        for mode in "${MODES[@]}"; do run "part_$part" "$mode"; done
        ;;
    failover)
        run part_failover asynchronous
        run part_failover synchronous
        ;;
    step)
        for mode in "${MODES[@]}"; do
            run part_step "$mode" -10
            run part_step "$mode" -7200
        done
        ;;
    *)
        echo "unknown part: $part (${ALL_PARTS[*]})" >&2
        exit 2
        ;;
    esac
done
if [ "$failures" != 0 ]; then
    echo "test-clock: PostgreSQL $PG_MAJOR, $(since "$total") s, $failures failed check(s); data directories (server.log) kept: ${KEPT[*]}"
    exit 1
fi
echo "test-clock: PostgreSQL $PG_MAJOR, $(since "$total") s, every check passed"
