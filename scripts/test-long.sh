#!/usr/bin/env bash
# `make test-long`: the long-running tests (2-3 minutes), against servers
# of one PostgreSQL version (the programs in PG_BIN, default PostgreSQL
# 15's) that run only for this script, each with a fresh data directory, all
# with pg_flake preloaded (docs/operations.md "Shared mode"):
#  load   pgbench, 32 clients for 60 s, a mix of every generator, each
#         inserting into its own table whose primary key defaults to it.
#  nodes  three servers with different node settings generate 100 000 IDs of
#         every coordination-based format, concurrently; a fourth server
#         subscribes to all three (logical replication). Then two servers
#         left with the same (default) settings generate bursts at the same
#         moment: their IDs must collide, which proves the settings matter.
# Every part prints its figures; the script exits non-zero if any check
# fails. Arguments: the parts to run (default: load nodes).
#
# Environment: PG_BIN; PG_FLAKE_LONG_PORT (25460, PostgreSQL 15's: version V
# uses five ports from PG_FLAKE_LONG_PORT + 5 (V - 15): the load server the
# first, the four servers of the nodes part the next four, the two with the
# same settings the first two again, once the others have stopped);
# PG_FLAKE_LONG_DATA ($PG_FLAKE_TMP/pg_flake-long-V, PG_FLAKE_TMP defaulting
# to /tmp: data directories are $PG_FLAKE_LONG_DATA-<server>); LOAD_CLIENTS
# (32), LOAD_SECONDS (60), NODE_IDS (100000 per format per server),
# NODE_CONNECTIONS (4).
set -euo pipefail
cd "$(dirname "$0")/.."
export PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
# The version's own client programs (psql, pgbench) before any other.
export PATH="$PG_BIN:$PATH"
major=$("$PG_BIN/pg_config" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
PORT=$((${PG_FLAKE_LONG_PORT:-25460} + 5 * (major - 15)))
DATA=${PG_FLAKE_LONG_DATA:-${PG_FLAKE_TMP:-/tmp}/pg_flake-long-$major}
mkdir -p "$(dirname "$DATA")"
LOAD_CLIENTS=${LOAD_CLIENTS:-32}
LOAD_SECONDS=${LOAD_SECONDS:-60}
NODE_IDS=${NODE_IDS:-100000}
NODE_CONNECTIONS=${NODE_CONNECTIONS:-4}
NODE_BATCH=2500
BURST_IDS=100000
BURST_ATTEMPTS=10
DB=flake_long
if [ $# -gt 0 ]; then parts=("$@"); else parts=(load nodes); fi

# name|SQL type|generator call, one line per generator of the installed
# extension (catalog_formats below reads them from the catalog, so a new
# format is loaded and checked without an edit here); COORDINATED: those
# with a node to coordinate, i.e. the formats pg_flake_node() lists.
FORMATS=()
COORDINATED=()
# catalog_formats PORT: fills FORMATS and COORDINATED from that server's
# catalog. A generator's arguments all have defaults, except siq's kind
# (text), which is 'event' here.
catalog_formats() {
    mapfile -t FORMATS < <(value "$1" "SELECT regexp_replace(p.proname, '_generate$', '') || '|' || format_type(p.prorettype, NULL)
            || '|' || p.proname || CASE WHEN p.pronargs = p.pronargdefaults THEN '()' ELSE '(''event'')' END
        FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
        JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'pg_flake'
        WHERE p.proname LIKE '%\_generate' ORDER BY p.proname")
    mapfile -t COORDINATED < <(printf '%s\n' "${FORMATS[@]}" | grep -E "^($(value "$1" "SELECT string_agg(format, '|') FROM pg_flake_node()"))\|")
    echo "generators in the catalog: ${#FORMATS[@]} ($(printf '%s\n' "${FORMATS[@]}" | cut -d'|' -f1 | paste -sd' ' -)); with a node: ${#COORDINATED[@]}"
}

# Every server logs the SQLSTATE of each line (%e), so errors can be counted
# by SQLSTATE from its log.
COMMON_CONF=(
    "shared_preload_libraries = 'pg_flake'"
    "log_line_prefix = '%m [%p] %e '"
    "max_connections = 100"
)

source scripts/test-lib.sh

psql_at() { # PORT [psql args...]: the test database on that server
    local port=$1
    shift
    psql -X -q -v ON_ERROR_STOP=1 -P pager=off -h 127.0.0.1 -p "$port" -U postgres -d "$DB" "$@"
}
value() { psql_at "$1" -tA -c "$2"; }

# server NAME PORT [CONF_LINE...]: a fresh server with the test database.
server() {
    local name=$1 port=$2
    shift 2
    fresh_data "$name"
    scripts/pg-server.sh start "$DATA-$name" "$port" "${COMMON_CONF[@]}" "$@"
    psql -X -q -h 127.0.0.1 -p "$port" -U postgres -d postgres -c "CREATE DATABASE $DB"
    psql_at "$port" -c "CREATE EXTENSION pg_flake"
}

# --- load ---------------------------------------------------------------
part_load() {
    local t0 f name port=$PORT dir=$OUT/load
    t0=$(now)
    echo "== load: $LOAD_CLIENTS clients for $LOAD_SECONDS s, every generator (PostgreSQL $major, server 127.0.0.1:$port, shared mode)"
    server load "$port"
    catalog_formats "$port"
    mkdir -p "$dir"
    local scripts=()
    for f in "${FORMATS[@]}"; do
        name=$(field 1 "$f")
        psql_at "$port" -c "CREATE TABLE load_$name (id $(field 2 "$f") PRIMARY KEY DEFAULT $(field 3 "$f"))"
        echo "INSERT INTO load_$name DEFAULT VALUES;" >"$dir/$name.sql"
        scripts+=(-f "$dir/$name.sql@1")
    done
    check "max_connections ($(value "$port" 'SHOW max_connections')) leaves room for $LOAD_CLIENTS clients" \
        "$(value "$port" "SELECT current_setting('max_connections')::int > $LOAD_CLIENTS")"

    # One pgbench thread (-j 1): pgbench adds up its per-script counts
    # without a lock ("XXX could use a mutex here, but we choose not to"), so
    # with several threads they lose increments and no longer match the rows.
    local rc=0 t1
    t1=$(now)
    "$PG_BIN/pgbench" -n -r -P 10 -h 127.0.0.1 -p "$port" -U postgres -c "$LOAD_CLIENTS" -j 1 \
        -T "$LOAD_SECONDS" "${scripts[@]}" "$DB" >"$dir/pgbench.out" 2> >(tee "$dir/pgbench.err" >&2) || rc=$?
    echo "pgbench finished in $(since "$t1") s, exit status $rc"
    sed -n '/^number of clients/,/^tps/p' "$dir/pgbench.out"
    check "pgbench exit status 0 (no client aborted)" "$(is [ "$rc" = 0 ])"
    check "pgbench reports 0 failed transactions" \
        "$(is grep -q '^number of failed transactions: 0 ' "$dir/pgbench.out")"

    # Per script: name, transactions, tps, failed, latency (ms). A script's
    # tps is on its transactions line in PostgreSQL 15's pgbench, on the line
    # "number of transactions actually processed" in 18's.
    awk '/^SQL script [0-9]+: / { n = $4; sub(/.*\//, "", n); sub(/\.sql$/, "", n) }
         /^ - [0-9]+ transactions/ { tx[n] = $2 }
         /^ - ([0-9]+ transactions|number of transactions actually processed: ).*tps = / {
             t = $0; sub(/.*tps = /, "", t); sub(/\).*/, "", t); tps[n] = t }
         /^ - number of failed transactions: / { failed[n] = $6 }
         /^ - latency average = / { lat[n] = $5 }
         END { for (n in tx) print n "\t" tx[n] "\t" tps[n] "\t" failed[n] "\t" lat[n] }' \
        "$dir/pgbench.out" >"$dir/scripts.tsv"

    # The statistics of a backend reach pg_stat_user_tables when it exits:
    # wait for pgbench's backends to be gone and every table's count to be in.
    psql_at "$port" -c "DO \$\$
        DECLARE deadline timestamptz := clock_timestamp() + interval '60 s';
        BEGIN
            LOOP
                PERFORM pg_stat_clear_snapshot();
                EXIT WHEN NOT EXISTS (SELECT FROM pg_stat_activity
                                      WHERE backend_type = 'client backend' AND pid <> pg_backend_pid())
                      AND (SELECT count(*) FROM pg_stat_user_tables WHERE relname LIKE 'load\_%') = ${#FORMATS[@]}
                      AND (SELECT min(n_tup_ins) FROM pg_stat_user_tables WHERE relname LIKE 'load\_%') > 0;
                IF clock_timestamp() > deadline THEN RAISE EXCEPTION 'statistics did not arrive'; END IF;
                PERFORM pg_sleep(0.2);
            END LOOP;
        END \$\$"

    # pgbench's transactions against what the server holds (pgbench -T
    # waits for the transactions in flight at the deadline and counts them).
    # n_tup_ins counts every insert, rolled back or not: n_tup_ins = rows
    # means no insert failed on the server.
    local rows_sql=""
    for f in "${FORMATS[@]}"; do
        name=$(field 1 "$f")
        rows_sql+="${rows_sql:+ UNION ALL }SELECT '$name', (SELECT count(*) FROM load_$name), (SELECT count(DISTINCT id) FROM load_$name)"
    done
    psql_at "$port" -c "CREATE TABLE pgbench_scripts (generator text, transactions bigint, tps numeric, failed bigint, latency_ms numeric)" \
        -c "\\copy pgbench_scripts FROM '$dir/scripts.tsv'" \
        -c "CREATE TABLE load_result AS
            SELECT s.generator, s.transactions, round(s.tps) AS tps, s.latency_ms, s.failed AS errors,
                   r.rows, t.n_tup_ins - r.rows AS rolled_back,
                   r.rows - r.distinct_ids AS duplicates, g.issued
            FROM pgbench_scripts s
            JOIN ($rows_sql) r (generator, rows, distinct_ids) USING (generator)
            JOIN pg_stat_user_tables t ON t.relname = 'load_' || s.generator
            LEFT JOIN pg_flake_generator_state() g ON g.format = s.generator" \
        -c "SELECT * FROM load_result ORDER BY generator"
    echo "(tps: the script's share of the mixed run, equal weights; rolled_back: n_tup_ins - rows;"
    echo " issued: IDs the server-wide generator handed out, coordination-based formats only)"
    echo "server errors by SQLSTATE: $(errors_by_sqlstate load | paste -sd, -)"

    check "one pgbench script per generator (${#FORMATS[@]})" \
        "$(value "$port" "SELECT count(*) = ${#FORMATS[@]} FROM load_result")"
    check "0 failed transactions in every script" "$(value "$port" "SELECT bool_and(errors = 0) FROM load_result")"
    check "every script ran (transactions > 0)" "$(value "$port" "SELECT bool_and(transactions > 0) FROM load_result")"
    local total
    total=$(awk '/^number of transactions actually processed: / { print $6 }' "$dir/pgbench.out")
    check "rows = pgbench's committed transactions, per table and in total ($total)" \
        "$(value "$port" "SELECT bool_and(rows = transactions) AND sum(rows) = ${total:-0} FROM load_result")"
    check "no insert rolled back (n_tup_ins = rows per table)" \
        "$(value "$port" "SELECT bool_and(rolled_back = 0) FROM load_result")"
    check "no duplicate IDs" "$(value "$port" "SELECT bool_and(duplicates = 0) FROM load_result")"
    check "issued = rows for the coordination-based formats (no ID lost to a failed insert)" \
        "$(value "$port" "SELECT bool_and(issued = rows) AND count(issued) = ${#COORDINATED[@]} FROM load_result")"
    check_log load
    scripts/pg-server.sh stop "$DATA-load"
    echo "load: $(since "$t0") s"
}

# --- nodes --------------------------------------------------------------
# The three publishers, and node_conf NAME: their node settings as
# |-separated configuration lines (edge values of every range included:
# node3 takes the nodes reserved for leases by default, so it frees them
# with pg_flake.lease_nodes, docs/sql-reference.md "Leases").
NODE_NAMES=(node1 node2 node3)
node_conf() {
    case $1 in
    node1) echo "pg_flake.sno_node = 1|pg_flake.siq_node = 1|pg_flake.snowflake_worker = 1|pg_flake.kuid_node = 'alpha@127.0.0.1'" ;;
    node2) echo "pg_flake.sno_node = 128|pg_flake.siq_node = 128|pg_flake.snowflake_worker = 16|pg_flake.kuid_node = 'beta@127.0.0.1'" ;;
    node3) echo "pg_flake.sno_node = 255|pg_flake.siq_node = 255|pg_flake.snowflake_worker = 31|pg_flake.kuid_node = 'gamma@127.0.0.1'|pg_flake.lease_nodes = 'sno=none, siq=none, snowflake=none'" ;;
    esac
}

# How each node-aware format decodes: name|decoded node|expected (from the
# publisher's settings in table nodes n)|process field, 0 in shared mode
# (the server is slot 0 of 1)|other fields that must hold|the ID with its
# node field cleared (what a server without a node setting would have made).
# kuid64 has no node field: only its last field is used.
DECODE=(
    "sno|sno_partition(id) >> 8|n.sno_node|sno_partition(id) & 255|sno_meta(id) = 0|sno_from_parts(sno_timestamp(id), sno_meta(id), sno_partition(id) & 255, sno_sequence(id), sno_tick_tock(id))"
    "siq|siq_domain_hash(id) >> 24|n.siq_node|siq_shard(id)|siq_domain_hash(id) & 16777215 = siq_domain_name_hash(n.siq_domain) & 16777215 AND siq_kind(id) = 'event'|siq_from_tick_parts((siq_parts(id)).ticks, siq_shard(id), siq_domain_hash(id) & 16777215, siq_kind(id), siq_serial(id))"
    "snowflake|(snowflake_parts(id)).worker|n.snowflake_worker|(snowflake_parts(id)).process|true|id & ~(31::bigint << 17)"
    "kuid96|kuid96_node(id, n.kuid_interval)|kuid_node_fingerprint(n.kuid_node)|0|true|kuid96_localize(id, n.kuid_interval)"
    "kuid64|NULL|NULL|0|true|id"
)

# generate TABLE COUNT PORT...: COUNT IDs into TABLE (its default) on each
# server, NODE_CONNECTIONS connections per server, all at once, in batches.
generate() {
    local table=$1 count=$2 port c b pids=() rc=0
    shift 2
    for port in "$@"; do
        for ((c = 0; c < NODE_CONNECTIONS; c++)); do
            for ((b = 0; b < count / NODE_CONNECTIONS / NODE_BATCH; b++)); do
                echo "INSERT INTO $table SELECT FROM generate_series(1, $NODE_BATCH);"
            done | psql_at "$port" &
            pids+=($!)
        done
    done
    for c in "${pids[@]}"; do wait "$c" || rc=1; done
    return $rc
}

part_nodes() {
    local t0 t1 f name n i port sub_port=$((PORT + 4))
    t0=$(now)
    echo "== nodes: three servers with different node settings, a fourth subscribing to all three (PostgreSQL $major)"
    server sub "$sub_port"
    catalog_formats "$sub_port"
    # The node settings and decoders below are per format: a format this
    # script does not know yet fails here, not silently unchecked.
    check "every format with a node has its decoder in DECODE" "$(
        diff <(printf '%s\n' "${COORDINATED[@]}" | cut -d'|' -f1 | sort) \
            <(printf '%s\n' "${DECODE[@]}" | cut -d'|' -f1 | sort) >/dev/null && echo t || echo f)"
    for f in "${COORDINATED[@]}"; do
        name=$(field 1 "$f")
        # kuid64 has no node field (it is for IDs that stay on one server),
        # so servers may repeat each other's: keyed by (origin, id) here.
        local key=id
        [ "$name" = kuid64 ] && key="origin, id"
        psql_at "$sub_port" -c "CREATE TABLE ids_$name (id $(field 2 "$f") NOT NULL, origin int NOT NULL, PRIMARY KEY ($key))"
    done
    local tables=""
    for f in "${COORDINATED[@]}"; do tables+="${tables:+, }ids_$(field 1 "$f")"; done
    psql_at "$sub_port" -c "CREATE TABLE nodes (origin int PRIMARY KEY, port int, sno_node int, siq_node int,
        siq_domain text, snowflake_worker int, kuid_node text, kuid_interval int)"

    for i in 1 2 3; do
        n=${NODE_NAMES[i - 1]}
        port=$((PORT + i))
        local conf=()
        IFS='|' read -r -a conf <<<"$(node_conf "$n")"
        server "$n" "$port" "wal_level = logical" "pg_flake.siq_domain = 'example.com'" "${conf[@]}"
        for f in "${COORDINATED[@]}"; do
            psql_at "$port" -c "CREATE TABLE ids_$(field 1 "$f") (id $(field 2 "$f") PRIMARY KEY DEFAULT $(field 3 "$f"),
                origin int NOT NULL DEFAULT $i)"
        done
        psql_at "$port" -c "CREATE PUBLICATION ids FOR TABLE $tables"
        # What the server itself says its settings are.
        psql_at "$port" -tA -c "SELECT $i, current_setting('port'), current_setting('pg_flake.sno_node'),
            current_setting('pg_flake.siq_node'), current_setting('pg_flake.siq_domain'),
            current_setting('pg_flake.snowflake_worker'), current_setting('pg_flake.kuid_node'),
            current_setting('pg_flake.kuid_interval')" |
            psql_at "$sub_port" -c "\\copy nodes FROM STDIN (DELIMITER '|')"
        # The tables are empty: nothing to copy, changes stream from here on.
        # Binary mode: the rows travel in the types' send/recv form.
        psql_at "$sub_port" -c "CREATE SUBSCRIPTION sub_$n CONNECTION 'host=127.0.0.1 port=$port user=postgres dbname=$DB'
            PUBLICATION ids WITH (copy_data = false, binary = true)"
    done
    echo "node settings, as each publisher reports them:"
    psql_at "$sub_port" -c "SELECT *, kuid_node_fingerprint(kuid_node) AS kuid_fingerprint FROM nodes ORDER BY origin"
    check "the three servers' settings differ for every format" "$(value "$sub_port" "SELECT count(DISTINCT sno_node) = 3
        AND count(DISTINCT siq_node) = 3 AND count(DISTINCT snowflake_worker) = 3
        AND count(DISTINCT kuid_node_fingerprint(kuid_node)) = 3 FROM nodes")"

    # One format at a time, on all three servers at once: the servers'
    # IDs share time units, and only the node settings keep them apart.
    echo "generating $NODE_IDS IDs of each of ${#COORDINATED[@]} formats on each server, $NODE_CONNECTIONS connections each, the servers concurrently"
    local rc=0 gen_s
    t1=$(now)
    for f in "${COORDINATED[@]}"; do
        generate "ids_$(field 1 "$f")" "$NODE_IDS" $((PORT + 1)) $((PORT + 2)) $((PORT + 3)) || rc=1
    done
    gen_s=$(since "$t1")
    check "every generating connection succeeded" "$(is [ "$rc" = 0 ])"
    echo "generated $((3 * NODE_IDS * ${#COORDINATED[@]})) IDs in $gen_s s"

    # Publisher counts and a digest of each table, to compare with what
    # arrives (the same query runs on the subscriber below).
    local digest_sql=""
    for f in "${COORDINATED[@]}"; do
        name=$(field 1 "$f")
        digest_sql+="${digest_sql:+ UNION ALL }SELECT '$name', origin, count(*), md5(string_agg(id::text, ',' ORDER BY id)) FROM ids_$name GROUP BY origin"
    done
    psql_at "$sub_port" -c "CREATE TABLE published (format text, origin int, rows bigint, digest text)"
    for i in 1 2 3; do
        psql_at $((PORT + i)) -tA -F'|' -c "$digest_sql" | psql_at "$sub_port" -c "\\copy published FROM STDIN (DELIMITER '|')"
    done

    # Wait for every row to arrive; an apply error (a conflict) fails at once.
    local expected_rows=$((3 * NODE_IDS * ${#COORDINATED[@]})) count_sql="" arrived=0 errors=0 deadline=$(($(date +%s) + 600))
    for f in "${COORDINATED[@]}"; do count_sql+="${count_sql:+ + }(SELECT count(*) FROM ids_$(field 1 "$f"))"; done
    t1=$(now)
    while :; do
        arrived=$(value "$sub_port" "SELECT $count_sql")
        errors=$(value "$sub_port" "SELECT coalesce(sum(apply_error_count + sync_error_count), 0) FROM pg_stat_subscription_stats")
        if [ "$arrived" -ge "$expected_rows" ] || [ "$errors" -gt 0 ] || [ "$(date +%s)" -gt "$deadline" ]; then
            break
        fi
        sleep 2
    done
    echo "replication: $arrived of $expected_rows rows on the subscriber $(since "$t1") s after generation ended"
    echo "subscriptions:"
    psql_at "$sub_port" -c "SELECT s.subname, st.pid IS NOT NULL AS worker_running, st.received_lsn,
            ss.apply_error_count, ss.sync_error_count
        FROM pg_subscription s JOIN pg_stat_subscription_stats ss ON ss.subid = s.oid
        LEFT JOIN pg_stat_subscription st ON st.subid = s.oid AND st.relid IS NULL ORDER BY 1"

    echo "rows per format and origin (publisher / subscriber, digests of the sorted IDs):"
    psql_at "$sub_port" -c "CREATE TABLE arrived AS SELECT * FROM ($digest_sql) a (format, origin, rows, digest)" \
        -c "SELECT format, origin, p.rows AS published, a.rows AS arrived, p.digest = a.digest AS same_ids
            FROM published p FULL JOIN arrived a USING (format, origin) ORDER BY format, origin"
    check "each publisher made $NODE_IDS IDs of each format" \
        "$(value "$sub_port" "SELECT count(*) = 3 * ${#COORDINATED[@]} AND bool_and(rows = $NODE_IDS) FROM published")"
    check "every row arrived: 3 x $NODE_IDS per format, the same IDs as published" \
        "$(value "$sub_port" "SELECT count(*) = 3 * ${#COORDINATED[@]} AND bool_and(p.rows = a.rows AND p.digest = a.digest)
            FROM published p JOIN arrived a USING (format, origin)")"
    check "no apply or sync error in pg_stat_subscription_stats" "$(is [ "$errors" = 0 ])"
    local conflicts
    conflicts=$(grep -ciE 'duplicate key|conflict' "$DATA-sub/server.log" || true)
    echo "subscriber log: $conflicts 'duplicate key'/'conflict' lines; errors by SQLSTATE: $(errors_by_sqlstate sub)"
    check "no conflict in the subscriber log" "$(is [ "$conflicts" = 0 ])"
    for n in sub "${NODE_NAMES[@]}"; do
        check_log "$n"
    done

    echo "decoded node per format and origin (subscriber):"
    local d decode_sql="" apart_sql=""
    for d in "${DECODE[@]}"; do
        # IDs that differ only in their node field, i.e. would have been
        # the same without the node settings.
        apart_sql+="${apart_sql:+ UNION ALL }SELECT '$(field 1 "$d")', count(*) - count(DISTINCT $(field 6 "$d"))
            FROM ids_$(field 1 "$d") JOIN nodes n USING (origin)"
        [ "$(field 1 "$d")" = kuid64 ] && continue
        decode_sql+="${decode_sql:+ UNION ALL }SELECT '$(field 1 "$d")' AS format, n.origin, ($(field 3 "$d"))::bigint AS setting,
            min($(field 2 "$d"))::bigint AS decoded_min, max($(field 2 "$d"))::bigint AS decoded_max,
            max($(field 4 "$d"))::int AS max_process, count(*) AS rows,
            count(*) FILTER (WHERE ($(field 2 "$d")) IS DISTINCT FROM ($(field 3 "$d"))
                             OR ($(field 4 "$d")) <> 0 OR NOT ($(field 5 "$d"))) AS wrong
            FROM ids_$(field 1 "$d") i JOIN nodes n ON n.origin = i.origin GROUP BY n.origin"
    done
    psql_at "$sub_port" -c "CREATE TABLE decoded AS $decode_sql" -c "SELECT * FROM decoded ORDER BY format, origin"
    check "every ID decodes to its origin's node (sno node, siq node, snowflake worker, kuid96 node; process field 0)" \
        "$(value "$sub_port" "SELECT count(*) = 3 * (${#DECODE[@]} - 1) AND bool_and(wrong = 0 AND rows = $NODE_IDS) FROM decoded")"
    echo "IDs that another server made too, apart from the node field (kuid64 has none: the same value):"
    psql_at "$sub_port" -c "CREATE TABLE apart_from_node AS SELECT * FROM ($apart_sql) a (format, same_but_node)" \
        -c "SELECT * FROM apart_from_node ORDER BY format"
    # Without this the zero conflicts above would prove little: the servers
    # did make the same (time unit, sequence) pairs, told apart by the node.
    check "the servers generated in the same time units: IDs equal apart from the node field, for every format" \
        "$(value "$sub_port" "SELECT count(*) = ${#DECODE[@]} AND bool_and(same_but_node > 0) FROM apart_from_node")"

    # kuid64 carries no node (it is for IDs that stay on one server): adding
    # each server's node (kuid96_globalize) separates the repeated values.
    check "kuid64 values made unique by kuid96_globalize with each server's node" \
        "$(value "$sub_port" "SELECT count(*) = count(DISTINCT kuid96_globalize(id, kuid_node_fingerprint(n.kuid_node), n.kuid_interval))
            FROM ids_kuid64 JOIN nodes n USING (origin)")"
    for n in sub "${NODE_NAMES[@]}"; do scripts/pg-server.sh stop "$DATA-$n"; done
    echo "nodes, different settings: $(since "$t0") s"

    part_same_settings
    echo "nodes: $(since "$t0") s"
}

# Two servers left with the same (default) node settings. In shared mode
# each server is slot 0 of 1 and every format's sequence restarts at 0 in
# each time unit, so two such servers generating at the same moment make
# the same (time unit, sequence) pairs: the same IDs.
part_same_settings() {
    local t0 a=$PORT b=$((PORT + 1)) f n name port attempt start found
    t0=$(now)
    echo "== nodes: two servers with the same (default) node settings, bursts of $BURST_IDS IDs at the same moment"
    server same-a "$a"
    server same-b "$b"
    for f in "${COORDINATED[@]}"; do
        name=$(field 1 "$f")
        for port in "$a" "$b"; do
            psql_at "$port" -c "CREATE TABLE burst_$name (id $(field 2 "$f") PRIMARY KEY DEFAULT $(field 3 "$f"))"
        done
        psql_at "$a" -c "CREATE TABLE from_b_$name (id $(field 2 "$f") NOT NULL)" \
            -c "CREATE TABLE merged_$name (id $(field 2 "$f") PRIMARY KEY)"
    done
    psql_at "$a" -c "CREATE TABLE collisions (format text, attempt int, rows_a bigint, rows_b bigint,
        collisions bigint, rejected_by_pk bigint, example text, start_skew_ms numeric, overlap_ms numeric)"

    for f in "${COORDINATED[@]}"; do
        name=$(field 1 "$f")
        found=0
        for ((attempt = 1; attempt <= BURST_ATTEMPTS && found == 0; attempt++)); do
            for port in "$a" "$b"; do psql_at "$port" -c "TRUNCATE burst_$name"; done
            psql_at "$a" -c "TRUNCATE from_b_$name, merged_$name"
            # Both sessions sleep until the same wall-clock instant (one
            # clock: both servers run on this machine), then burst.
            # Each session prints when its burst started and ended.
            start=$(python3 -c 'import time; print(f"{time.time() + 2.0:.6f}")')
            local pids=() rc=0
            for port in "$a" "$b"; do
                psql_at "$port" -tA -c "SELECT pg_sleep($start - extract(epoch FROM clock_timestamp()))" \
                    -c "SELECT extract(epoch FROM clock_timestamp())" \
                    -c "INSERT INTO burst_$name SELECT FROM generate_series(1, $BURST_IDS)" \
                    -c "SELECT extract(epoch FROM clock_timestamp())" >"$OUT/burst-$port" &
                pids+=($!)
            done
            for pid in "${pids[@]}"; do wait "$pid" || rc=1; done
            [ "$rc" = 0 ] || { check "$name bursts ran" f; break; }
            local times
            times=$(grep -h '^[0-9]' "$OUT/burst-$a" "$OUT/burst-$b" | paste -sd, -)
            # Copy B's IDs next to A's; merge both into a table keyed by id.
            psql_at "$b" -c "\\copy burst_$name TO STDOUT" | psql_at "$a" -c "\\copy from_b_$name FROM STDIN"
            psql_at "$a" -c "INSERT INTO merged_$name SELECT id FROM burst_$name" \
                -c "WITH ins AS (INSERT INTO merged_$name SELECT id FROM from_b_$name ON CONFLICT DO NOTHING RETURNING 1)
                    INSERT INTO collisions SELECT '$name', $attempt, (SELECT count(*) FROM burst_$name),
                        (SELECT count(*) FROM from_b_$name),
                        (SELECT count(*) FROM burst_$name JOIN from_b_$name USING (id)),
                        (SELECT count(*) FROM from_b_$name) - (SELECT count(*) FROM ins),
                        (SELECT min(id)::text FROM burst_$name JOIN from_b_$name USING (id)),
                        (SELECT round(1000 * (b_start - a_start)) FROM (VALUES ($times)) t (a_start, a_end, b_start, b_end)),
                        (SELECT round(1000 * (least(a_end, b_end) - greatest(a_start, b_start)))
                            FROM (VALUES ($times)) t (a_start, a_end, b_start, b_end))"
            found=$(value "$a" "SELECT (collisions > 0)::int FROM collisions WHERE format = '$name' AND attempt = $attempt")
        done
        if [ "$found" = 1 ]; then
            # The same merge without ON CONFLICT: the primary key refuses it.
            local refused
            refused=$(psql -X -q -h 127.0.0.1 -p "$a" -U postgres -d "$DB" -v VERBOSITY=sqlstate \
                -c "TRUNCATE merged_$name" -c "INSERT INTO merged_$name SELECT id FROM burst_$name UNION ALL SELECT id FROM from_b_$name" 2>&1 || true)
            echo "  $name: plain INSERT of both servers' IDs into one primary key: $refused"
            check "$name: the merge is refused with 23505 (unique_violation)" \
                "$(is grep -q 'ERROR:  23505' <<<"$refused")"
        fi
    done
    psql_at "$a" -c "SELECT format, attempt, start_skew_ms, overlap_ms, rows_a, rows_b, collisions, rejected_by_pk,
            collisions > 0 AS collided, example
        FROM collisions ORDER BY format, attempt"
    echo "(start_skew_ms: B's burst start - A's; overlap_ms: how long both bursts ran at once)"
    local name2
    for f in "${COORDINATED[@]}"; do
        name2=$(field 1 "$f")
        check "$name2: same settings collide (observed within $BURST_ATTEMPTS attempts; rejected by the key = collisions)" \
            "$(value "$a" "SELECT coalesce(bool_or(collisions > 0 AND rejected_by_pk = collisions), false)
                FROM collisions WHERE format = '$name2'")"
    done
    echo "server errors by SQLSTATE: same-a: $(errors_by_sqlstate same-a) (the refused merges); same-b: $(errors_by_sqlstate same-b)"
    for n in same-a same-b; do scripts/pg-server.sh stop "$DATA-$n"; done
    echo "nodes, same settings: $(since "$t0") s"
}

total=$(now)
for part in "${parts[@]}"; do
    case $part in
    load) part_load ;;
    nodes) part_nodes ;;
    *)
        echo "unknown part: $part (load, nodes)" >&2
        exit 2
        ;;
    esac
done
finish "test-long (PostgreSQL $major)" "$total"
