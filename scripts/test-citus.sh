#!/usr/bin/env bash
# `make test-citus`: pg_flake in a Citus cluster, against an installed Citus
# (not part of `make test`: CI has no Citus). It skips, with exit status 0,
# when citus.control is not in the PostgreSQL's extension directory.
#
# A coordinator and two workers, each with `shared_preload_libraries =
# 'citus,pg_flake'` and no pg_flake setting at all: every server has the
# default node, so only what pg_flake learns from Citus (the group id in
# pg_dist_local_group) can keep their IDs apart. Citus evaluates column
# defaults on the workers in common paths, and this script goes through
# them for every coordination-based format (sno, siq, snowflake, kuid96):
#  - INSERT ... SELECT into a table whose distribution column defaults to
#    the generator (repartitioned: the workers scanning the source shards
#    evaluate the default);
#  - a table with a non-distribution column defaulting to the generator,
#    filled by INSERT ... SELECT and COPY through the coordinator, then
#    ALTER TABLE ... ADD COLUMN ... DEFAULT (each worker rewrites its
#    shards);
#  - pgbench clients writing through both workers directly at once.
# worker2 has used pg_flake before it joins the cluster, and one of its
# sessions stays open across citus_add_node: it must switch to worker2's new
# node. Every table has an `origin` column defaulting to the port of the server
# that evaluated the defaults, which shows where each ID was made. Then:
# every ID distinct, per table and across the tables of a format, with the
# figures per server; kuid64 (no node field) must refuse to generate in the
# cluster; pg_flake_node() on every node is printed and checked, when it
# exists. Exits non-zero if any check fails.
#
# Environment: PG_BIN or PG_CONFIG (PostgreSQL 15 at /usr/lib/postgresql/15
# by default), PG_FLAKE_CITUS_PORT (25590 for PostgreSQL 15, version V
# 25590 + 3 (V - 15): it uses this port and the next two, so that the
# versions can run side by side), PG_FLAKE_CITUS_DATA (/tmp/pgf-citus-V:
# data directories are $PG_FLAKE_CITUS_DATA-<server>), CITUS_ROWS (20000 rows per INSERT ...
# SELECT), CITUS_CLIENTS (4 pgbench clients per worker), CITUS_SECONDS (8).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${PG_BIN:-}" ]; then
    PG_BIN=$("${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}" --bindir)
fi
PG_CONFIG=${PG_CONFIG:-$PG_BIN/pg_config}
export PG_BIN PG_CONFIG
major=$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
PORT=${PG_FLAKE_CITUS_PORT:-$((25590 + 3 * (major - 15)))}
DATA=${PG_FLAKE_CITUS_DATA:-/tmp/pgf-citus-$major}
ROWS=${CITUS_ROWS:-20000}
CLIENTS=${CITUS_CLIENTS:-4}
SECONDS_DIRECT=${CITUS_SECONDS:-8}
COPY_ROWS=5000
DB=flake_citus

sharedir=$("$PG_CONFIG" --sharedir)
if [ ! -f "$sharedir/extension/citus.control" ]; then
    echo "test-citus: skipped: Citus is not installed in $sharedir"
    exit 0
fi

# name|SQL type|generator: the coordination-based formats with a node field.
# kuid64 has none and is checked apart: it must refuse to generate.
FORMATS=(
    "sno|sno|sno_generate()"
    "siq|siq|siq_generate('event')"
    "snowflake|bigint|snowflake_generate()"
    "kuid96|kuid96|kuid96_generate()"
)
SERVERS=(coordinator worker1 worker2)
WORKERS=(worker1 worker2)
port_of() {
    case $1 in
    coordinator) echo "$PORT" ;;
    worker1) echo $((PORT + 1)) ;;
    worker2) echo $((PORT + 2)) ;;
    esac
}

# Every server logs the SQLSTATE of each line (%e). No pg_flake setting.
# Eight shards per table (four per worker) keep the script quick; Citus's
# connections between the nodes need no TLS on loopback.
COMMON_CONF=(
    "shared_preload_libraries = 'citus,pg_flake'"
    "log_line_prefix = '%m [%p] %e '"
    "max_connections = 100"
    "citus.shard_count = 8"
    "citus.node_conninfo = 'sslmode=disable'"
)

source scripts/test-lib.sh

# Citus's NOTICEs (shard creation, metadata sync) would drown the figures.
export PGOPTIONS="-c client_min_messages=warning"
psql_at() { # SERVER [psql args...]: the test database on that server
    local port
    port=$(port_of "$1")
    shift
    "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -P pager=off -h 127.0.0.1 -p "$port" -U postgres -d "$DB" "$@"
}
value() { psql_at "$1" -tA -c "$2"; }
# coord SQL: a query on the coordinator, its result unaligned.
coord() { value coordinator "$1"; }

# server NAME: a fresh server with the test database and Citus.
server() {
    local name=$1 port
    port=$(port_of "$name")
    fresh_data "$name"
    scripts/pg-server.sh start "$DATA-$name" "$port" "${COMMON_CONF[@]}"
    "$PG_BIN/psql" -X -q -h 127.0.0.1 -p "$port" -U postgres -d postgres -c "CREATE DATABASE $DB"
    psql_at "$name" -c "CREATE EXTENSION citus"
}

server_case() {
    echo "CASE $1 WHEN $PORT THEN 'coordinator' WHEN $((PORT + 1)) THEN 'worker1' WHEN $((PORT + 2)) THEN 'worker2' ELSE ($1)::text END"
}

total=$(now)
echo "== Citus cluster: coordinator 127.0.0.1:$PORT, workers :$((PORT + 1)) and :$((PORT + 2)); no pg_flake setting"
for s in "${SERVERS[@]}"; do server "$s"; done
echo "Citus $(coord "SELECT extversion FROM pg_extension WHERE extname = 'citus'"), $(coord "SELECT version()")"
for s in "${SERVERS[@]}"; do
    echo "  $s: pg_dist_local_group.groupid = $(value "$s" 'SELECT groupid FROM pg_dist_local_group') before the cluster is formed"
done
# worker2 used pg_flake before it joined the cluster, and one of its
# sessions stays open across citus_add_node: the node that session puts
# into new IDs must follow the group id Citus gives worker2 (pg_flake must
# see the change of pg_dist_local_group in a running backend).
# NODE_FIELDS: one row, the node field of a new ID of each format.
NODE_FIELDS="SELECT sno_partition(sno_generate()) >> 8 AS sno, siq_domain_hash(siq_generate('event')) >> 24 AS siq,
    (snowflake_parts(snowflake_generate())).worker AS snowflake,
    kuid96_node(kuid96_generate(), current_setting('pg_flake.kuid_interval')::int) AS kuid96"
psql_at worker2 -c "CREATE EXTENSION pg_flake"
mkfifo "$OUT/session.in"
psql_at worker2 -tA -F ' ' <"$OUT/session.in" >"$OUT/session.out" 2>&1 &
session_pid=$!
exec 3>"$OUT/session.in"
# session LABEL SQL: runs SQL (one row) in worker2's long-lived session;
# prints the row's fields.
session() {
    local waited=0
    echo "SELECT '$1', * FROM ($2) q;" >&3
    until grep -q "^$1 " "$OUT/session.out"; do
        if ! kill -0 "$session_pid" 2>/dev/null || [ "$waited" -ge 300 ]; then
            echo "worker2's long-lived session did not answer: $(cat "$OUT/session.out")" >&2
            return 1
        fi
        sleep 0.1
        waited=$((waited + 1))
    done
    grep "^$1 " "$OUT/session.out" | cut -d' ' -f2-
}
before_join=$(session before "$NODE_FIELDS")

coord "SELECT citus_set_coordinator_host('127.0.0.1', $PORT)" >/dev/null
for s in "${WORKERS[@]}"; do coord "SELECT citus_add_node('127.0.0.1', $(port_of "$s"))" >/dev/null; done
psql_at coordinator -c "SELECT nodeid, groupid, nodename, nodeport, noderole, hasmetadata, metadatasynced, shouldhaveshards
    FROM pg_dist_node ORDER BY nodeid"
groups=()
for s in "${SERVERS[@]}"; do groups+=("$(value "$s" 'SELECT groupid FROM pg_dist_local_group')"); done
echo "pg_dist_local_group.groupid after citus_add_node: coordinator ${groups[0]}, worker1 ${groups[1]}, worker2 ${groups[2]}"
check "the three servers have distinct Citus group ids (coordinator 0)" \
    "$([ "${groups[0]}" = 0 ] && [ "$(printf '%s\n' "${groups[@]}" | sort -u | wc -l)" = 3 ] && echo t || echo f)"

psql_at coordinator -c "CREATE EXTENSION pg_flake"
flake_version=$(coord "SELECT extversion FROM pg_extension WHERE extname = 'pg_flake'")
for s in "${WORKERS[@]}"; do
    v=$(value "$s" "SELECT coalesce((SELECT extversion FROM pg_extension WHERE extname = 'pg_flake'), 'missing')")
    how="CREATE EXTENSION pg_flake on the coordinator reached $s"
    [ "$s" = worker2 ] && how="worker2 kept the pg_flake it had before joining (Citus sends IF NOT EXISTS)"
    check "$how (pg_flake $v, coordinator $flake_version)" "$(is [ "$v" = "$flake_version" ])"
done

after_join=$(session after "$NODE_FIELDS")
exec 3>&-
wait "$session_pid" || true
new_session=$(psql_at worker2 -tA -F ' ' -c "$NODE_FIELDS")
echo "worker2, node fields of new IDs (sno, siq, snowflake, kuid96): open session before joining: $before_join;" \
    "same session after joining: $after_join; a new session: $new_session"
check "worker2: a session open across citus_add_node makes IDs with the node of a new session" \
    "$(is [ "$after_join" = "$new_session" ])"
read -r -a was <<<"$before_join"
read -r -a now <<<"$new_session"
changed=t
for i in 0 1 2 3; do [ "${was[i]}" != "${now[i]}" ] || changed=f; done
check "worker2: joining the cluster changed the node field of every format" "$changed"

# --- pg_flake_node() on every node ---------------------------------------
if [ "$(coord "SELECT to_regprocedure('pg_flake_node()') IS NOT NULL")" = t ]; then
    echo "pg_flake_node() on every node (run_command_on_all_nodes):"
    psql_at coordinator -c "SELECT nodeid, success, result
        FROM run_command_on_all_nodes(\$\$SELECT json_agg(n) FROM pg_flake_node() n\$\$) ORDER BY nodeid"
    psql_at coordinator -c "CREATE TABLE flake_node (server text, format text, node bigint, source text, problem text)"
    for s in "${SERVERS[@]}"; do
        psql_at "$s" -c "\\copy (SELECT '$s', format, node, source, problem FROM pg_flake_node()) TO STDOUT" |
            psql_at coordinator -c "\\copy flake_node FROM STDIN"
    done
    for f in "${FORMATS[@]}"; do
        name=$(field 1 "$f")
        check "pg_flake_node(): $name allowed on all three servers, node from Citus, three distinct nodes" \
            "$(coord "SELECT count(*) = 3 AND bool_and(problem IS NULL AND source = 'citus') AND count(DISTINCT node) = 3
                FROM flake_node WHERE format = '$name'")"
    done
    check "pg_flake_node(): kuid64 has a problem on all three servers" \
        "$(coord "SELECT count(*) = 3 AND bool_and(problem IS NOT NULL) FROM flake_node WHERE format = 'kuid64'")"
else
    echo "pg_flake_node() does not exist in pg_flake $flake_version: its check is skipped"
fi

# --- the tables ------------------------------------------------------------
# For each format: src_F (the rows to copy), pk_F (the generator is the
# distribution column and primary key), col_F (the generator is an ordinary
# column; c2 is added later). `origin`: the port of the server that
# evaluated the row's defaults.
origin_default="DEFAULT current_setting('port')::int"
for f in "${FORMATS[@]}"; do
    name=$(field 1 "$f")
    type=$(field 2 "$f")
    gen=$(field 3 "$f")
    psql_at coordinator \
        -c "CREATE TABLE src_$name (k bigint NOT NULL)" \
        -c "SELECT create_distributed_table('src_$name', 'k')" \
        -c "INSERT INTO src_$name SELECT generate_series(1, $ROWS)" \
        -c "CREATE TABLE pk_$name (id $type PRIMARY KEY DEFAULT $gen, k bigint NOT NULL, origin int NOT NULL $origin_default)" \
        -c "SELECT create_distributed_table('pk_$name', 'id')" \
        -c "CREATE TABLE col_$name (k bigint NOT NULL, c $type DEFAULT $gen, origin int NOT NULL $origin_default)" \
        -c "SELECT create_distributed_table('col_$name', 'k', colocate_with => 'src_$name')" >/dev/null
done

psql_at coordinator -c "CREATE TABLE insert_select (format text, target text, method text, error text)"
# insert_select FORMAT TABLE: INSERT ... SELECT from src_FORMAT through the
# coordinator; records the method EXPLAIN shows and the error, if any.
insert_select() {
    local name=$1 table=$2 method err=""
    method=$(coord "EXPLAIN (COSTS OFF) INSERT INTO ${table}_$name (k) SELECT k FROM src_$name" |
        sed -n 's/.*INSERT\/SELECT method: *//p' | head -1)
    [ -n "$method" ] || method="none shown (pushed down or routed)"
    if ! err=$(psql_at coordinator -v VERBOSITY=verbose -c "INSERT INTO ${table}_$name (k) SELECT k FROM src_$name" 2>&1); then
        err=$(head -1 <<<"$err")
    else
        err=""
    fi
    psql_at coordinator -c "INSERT INTO insert_select VALUES ('$name', '${table}_$name', '$method', nullif('${err//\'/\'\'}', ''))"
}

t0=$(now)
echo "== INSERT ... SELECT through the coordinator ($ROWS rows each), COPY ($COPY_ROWS rows), ADD COLUMN ... DEFAULT"
for f in "${FORMATS[@]}"; do
    name=$(field 1 "$f")
    insert_select "$name" pk
    insert_select "$name" col
    seq $((ROWS + 1)) $((ROWS + COPY_ROWS)) | psql_at coordinator -c "\\copy col_$name (k) FROM STDIN"
    # Both columns in one statement: every worker rewrites its shards and
    # evaluates both defaults for the rows already there.
    psql_at coordinator -c "ALTER TABLE col_$name ADD COLUMN c2 $(field 2 "$f") DEFAULT $(field 3 "$f"),
        ADD COLUMN c2_origin int NOT NULL $origin_default"
done
psql_at coordinator -c "SELECT * FROM insert_select ORDER BY format, target"
echo "($(since "$t0") s)"
check "every INSERT ... SELECT succeeded (no duplicate key in a primary key made of generated IDs)" \
    "$(coord "SELECT bool_and(error IS NULL) FROM insert_select")"
check "INSERT ... SELECT into the generated distribution column is repartitioned (EXPLAIN)" \
    "$(coord "SELECT bool_and(method = 'repartition') FROM insert_select WHERE target LIKE 'pk\_%'")"

# --- writes through both workers ----------------------------------------
# pk_counts: a query of the rows in each pk_ table (format, pk_rows).
pk_counts() {
    local f sql=""
    for f in "${FORMATS[@]}"; do
        sql+="${sql:+ UNION ALL }SELECT '$(field 1 "$f")' AS format, (SELECT count(*) FROM pk_$(field 1 "$f")) AS pk_rows"
    done
    echo "$sql"
}
t0=$(now)
echo "== writes through both workers at once: $CLIENTS pgbench clients per worker for $SECONDS_DIRECT s"
scripts=()
for f in "${FORMATS[@]}"; do
    name=$(field 1 "$f")
    # A duplicate ID would abort a pgbench client: ON CONFLICT keeps it
    # running, and the rows that did not arrive are counted below.
    printf '%s\n' '\set k random(1000000, 1000000000)' \
        "INSERT INTO pk_$name (k) VALUES (:k) ON CONFLICT DO NOTHING;" >"$OUT/pk_$name.sql"
    printf '%s\n' '\set k random(1000000, 1000000000)' "INSERT INTO col_$name (k) VALUES (:k);" >"$OUT/col_$name.sql"
    scripts+=(-f "$OUT/pk_$name.sql@1" -f "$OUT/col_$name.sql@1")
done
psql_at coordinator -c "CREATE TABLE before_direct AS $(pk_counts)"
pids=()
for s in "${WORKERS[@]}"; do
    "$PG_BIN/pgbench" -n -r -h 127.0.0.1 -p "$(port_of "$s")" -U postgres -c "$CLIENTS" -j 1 -T "$SECONDS_DIRECT" \
        "${scripts[@]}" "$DB" >"$OUT/pgbench-$s.out" 2>"$OUT/pgbench-$s.err" &
    pids+=($!)
done
rcs=()
for p in "${pids[@]}"; do
    rc=0
    wait "$p" || rc=$?
    rcs+=("$rc")
done
psql_at coordinator -c "CREATE TABLE pgbench_scripts (worker text, target text, transactions bigint, failed bigint)"
for i in 0 1; do
    s=${WORKERS[i]}
    echo "pgbench through $s: exit status ${rcs[i]}; $(grep -E '^(number of transactions actually processed|number of failed transactions|tps)' "$OUT/pgbench-$s.out" | paste -sd ';' -)"
    grep -v '^pgbench: ' "$OUT/pgbench-$s.err" | head -5 || true
    check "pgbench through $s: exit status 0" "$(is [ "${rcs[i]}" = 0 ])"
    awk -v w="$s" '/^SQL script [0-9]+: / { n = $4; sub(/.*\//, "", n); sub(/\.sql$/, "", n) }
         /^ - [0-9]+ transactions/ { tx[n] = $2 }
         /^ - number of failed transactions: / { failed[n] = $6 }
         END { for (n in tx) print w "\t" n "\t" tx[n] "\t" failed[n] + 0 }' "$OUT/pgbench-$s.out" |
        psql_at coordinator -c "\\copy pgbench_scripts FROM STDIN"
done
echo "($(since "$t0") s)"
psql_at coordinator -c "CREATE TABLE direct_pk AS
    SELECT b.format, sum(p.transactions) AS transactions, a.pk_rows - b.pk_rows AS rows_added
    FROM before_direct b
    JOIN pgbench_scripts p ON p.target = 'pk_' || b.format
    JOIN ($(pk_counts)) a
        ON a.format = b.format
    GROUP BY b.format, a.pk_rows, b.pk_rows" \
    -c "SELECT format, transactions, rows_added, transactions - rows_added AS dropped_as_duplicates FROM direct_pk ORDER BY format"
check "direct writes into pk_*: every insert added a row (no generated ID taken already)" \
    "$(coord "SELECT count(*) = ${#FORMATS[@]} AND bool_and(rows_added = transactions AND transactions > 0) FROM direct_pk")"

# --- the figures --------------------------------------------------------
# Every generated ID of every table, with the path that made it (told by k:
# 1..ROWS came by INSERT ... SELECT, the next COPY_ROWS by COPY, the rest by
# the direct writes) and where its default was evaluated (origin), collected
# on the coordinator, in text form (canonical: equal IDs, equal texts).
path_of() { # COLUMN: the path that made a row's ID in that column
    case $1 in
    c2) echo "CASE WHEN k <= $((ROWS + COPY_ROWS)) THEN 'ADD COLUMN' ELSE 'direct' END" ;;
    *) echo "CASE WHEN k <= $ROWS THEN 'INSERT ... SELECT' WHEN k <= $((ROWS + COPY_ROWS)) THEN 'COPY' ELSE 'direct' END" ;;
    esac
}
psql_at coordinator -c "CREATE TABLE collected (format text, source text, path text, origin int, id text)"
for f in "${FORMATS[@]}"; do
    name=$(field 1 "$f")
    psql_at coordinator \
        -c "INSERT INTO collected SELECT '$name', 'pk.id', $(path_of id), origin, id::text FROM pk_$name" \
        -c "INSERT INTO collected SELECT '$name', 'col.c', $(path_of c), origin, c::text FROM col_$name" \
        -c "INSERT INTO collected SELECT '$name', 'col.c2', $(path_of c2), c2_origin, c2::text FROM col_$name"
done
echo "where each path evaluated the defaults (rows of all formats):"
psql_at coordinator -c "SELECT path, string_agg(made_on || ' ' || rows, ', ' ORDER BY made_on) AS made_on
    FROM (SELECT path, $(server_case origin) AS made_on, count(*) AS rows FROM collected GROUP BY path, origin) p
    GROUP BY path ORDER BY path"
check "INSERT ... SELECT, ADD COLUMN and the direct writes evaluated the defaults on both workers, COPY on the coordinator" \
    "$(coord "SELECT (SELECT array_agg(x ORDER BY x) FROM (SELECT DISTINCT path || '@' || origin AS x FROM collected) d) =
        (SELECT array_agg(x ORDER BY x) FROM unnest(array['INSERT ... SELECT@$((PORT + 1))', 'INSERT ... SELECT@$((PORT + 2))',
            'COPY@$PORT', 'ADD COLUMN@$((PORT + 1))', 'ADD COLUMN@$((PORT + 2))', 'direct@$((PORT + 1))', 'direct@$((PORT + 2))']) x)")"
echo "generated IDs per format: by column, by the server that made them, in all (rows - distinct = duplicates):"
psql_at coordinator -c "SELECT format, coalesce(source, CASE WHEN origin IS NULL THEN 'all' END, '') AS source,
        coalesce($(server_case origin), CASE WHEN source IS NULL THEN 'all' END, '') AS made_on,
        count(*) AS rows, count(DISTINCT id) AS distinct_ids, count(*) - count(DISTINCT id) AS duplicates
    FROM collected GROUP BY GROUPING SETS ((format, source), (format, origin), (format))
    ORDER BY format, grouping(source, origin), source, origin"
echo "duplicated IDs, made on one server (several times) or on several; an example of each format:"
psql_at coordinator -c "CREATE TABLE duplicated AS
        SELECT format, id, count(*) AS copies, count(DISTINCT origin) AS servers,
               string_agg($(server_case origin) || ' ' || source || ' ' || path, ', ' ORDER BY origin, source) AS made
        FROM collected GROUP BY format, id HAVING count(*) > 1" \
    -c "SELECT format, count(*) AS duplicated_ids, count(*) FILTER (WHERE servers = 1) AS on_one_server,
            count(*) FILTER (WHERE servers > 1) AS across_servers, sum(copies) AS rows_involved,
            (array_agg(id || ': ' || made ORDER BY copies DESC, id))[1] AS example
        FROM duplicated GROUP BY format ORDER BY format"
for f in "${FORMATS[@]}"; do
    name=$(field 1 "$f")
    check "$name: every generated ID distinct, per column and across the three columns" \
        "$(coord "SELECT count(*) > 0 AND count(*) = count(DISTINCT id) FROM collected WHERE format = '$name'")"
done

# --- kuid64 -----------------------------------------------------------------
echo "== kuid64 (no node field) in the cluster: generating must be refused"
psql_at coordinator -c "CREATE TABLE pk_kuid64 (id bigint PRIMARY KEY DEFAULT kuid64_generate(), k bigint NOT NULL)" \
    -c "SELECT create_distributed_table('pk_kuid64', 'id')" >/dev/null
for s in "${SERVERS[@]}"; do
    # The error as a NOTICE, so that the expected refusal leaves no ERROR
    # line in the server's log.
    out=$(psql_at "$s" -c "SET client_min_messages = notice" -c "DO \$\$ BEGIN PERFORM kuid64_generate(); RAISE NOTICE 'generated';
        EXCEPTION WHEN OTHERS THEN RAISE NOTICE 'refused: % %', SQLSTATE, SQLERRM; END \$\$" 2>&1 | sed 's/^NOTICE: *//' || true)
    echo "  $s: kuid64_generate(): $out"
    check "kuid64_generate() refused on $s, naming Citus" "$(is grep -qi '^refused: .*citus' <<<"$out")"
done
out=$(psql_at coordinator -v VERBOSITY=verbose -c "INSERT INTO pk_kuid64 (k) SELECT k FROM src_sno" 2>&1 | grep -v '^LOCATION:' || true)
echo "  INSERT ... SELECT into pk_kuid64 (defaults on the workers): ${out:-succeeded, $(coord 'SELECT count(*) FROM pk_kuid64') rows}"
check "INSERT ... SELECT with DEFAULT kuid64_generate() refused, naming Citus (not a duplicate key)" \
    "$(grep -qi '^ERROR: .*citus' <<<"$out" && ! grep -q '23505' <<<"$out" && [ "$(coord "SELECT count(*) FROM pk_kuid64")" = 0 ] && echo t || echo f)"

for s in "${SERVERS[@]}"; do
    echo "$s: server errors by SQLSTATE: $(errors_by_sqlstate "$s")"
done
dups=$(cat "${STARTED[@]/%//server.log}" | grep -c ' 23505 ERROR: ' || true)
check "no unique_violation (23505) in any server's log" "$(is [ "$dups" = 0 ])"

finish test-citus "$total"
