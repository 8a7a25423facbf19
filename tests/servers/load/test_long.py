"""`make test-long`: the long-running tests (2-3 minutes), against servers of
one PostgreSQL version (the programs in PG_BIN) that run only for these
tests, each with a fresh data directory, all with pg_flake preloaded
(docs/operations.md "Shared mode"):

 load   pgbench, 32 clients for 60 s, a mix of every generator, each
        inserting into its own table whose primary key defaults to it
        (test_load).
 nodes  three servers with different node settings generate 100 000 IDs of
        every coordination-based format, concurrently; a fourth server
        subscribes to all three (logical replication)
        (test_nodes_different_settings). Then two servers with the same
        (default) settings generate bursts at the same moment: their IDs must
        collide, which proves the settings matter
        (test_nodes_same_settings_collide).

Every part prints its figures. One part: ``scripts/test-servers.sh load -k
test_load`` (or ``-k nodes``).

Environment: PG_BIN; PG_FLAKE_SERVERS_PORT (``make test-long-V``: test-long's
port of version V in scripts/ports.txt; a test uses at most the first four
ports from there: the load server, the subscriber and three publishers, the
two servers with the same settings); PG_FLAKE_SERVERS_DATA; LOAD_CLIENTS (32), LOAD_SECONDS (60),
NODE_IDS (100000 per format per server), NODE_CONNECTIONS (4).
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor

import psycopg

DB = "flake_long"
LOAD_CLIENTS = int(os.environ.get("LOAD_CLIENTS", "32"))
LOAD_SECONDS = int(os.environ.get("LOAD_SECONDS", "60"))
NODE_IDS = int(os.environ.get("NODE_IDS", "100000"))
NODE_CONNECTIONS = int(os.environ.get("NODE_CONNECTIONS", "4"))
NODE_BATCH = 2500
BURST_IDS = 100000
BURST_ATTEMPTS = 10


def since(started: float) -> str:
    return f"{time.time() - started:.1f}"


def long_server(servers, name: str, *conf: str):
    """A fresh server (pg_flake preloaded) with the test database."""
    server = servers(name).init(*conf)
    server.start()
    server.create_database(DB)
    return server


def catalog_formats(server, figures) -> tuple[list[tuple[str, str, str]], list]:
    """(name, SQL type, generator call) of every generator of the installed
    extension, read from its catalog (so a new format is loaded and checked
    without an edit here), and those with a node to coordinate, i.e. the
    formats pg_flake_node() lists. A generator's arguments all have
    defaults, except siq's kind (text), which is 'event' here."""
    formats = server.sql(
        r"""SELECT regexp_replace(p.proname, '_generate$', ''), format_type(p.prorettype, NULL),
                   p.proname || CASE WHEN p.pronargs = p.pronargdefaults THEN '()'
                                     ELSE '(''event'')' END
            FROM pg_proc p
            JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
                            AND d.deptype = 'e'
            JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'pg_flake'
            WHERE p.proname LIKE '%\_generate' ORDER BY p.proname""",
        dbname=DB,
    )
    with_node = {r[0] for r in server.sql("SELECT format FROM pg_flake_node()", dbname=DB)}
    coordinated = [f for f in formats if f[0] in with_node]
    figures(
        f"generators in the catalog: {len(formats)} ({' '.join(f[0] for f in formats)});"
        f" with a node: {len(coordinated)}"
    )
    return formats, coordinated


def check_log(server, *allowed: str) -> None:
    """No ERROR/FATAL/PANIC line in the server's log but of the SQLSTATEs
    ``allowed`` (those the test provokes; a PANIC never passes). On failure
    it shows the first such lines with what follows each (DETAIL, CONTEXT,
    STATEMENT), so that a run which only leaves its output behind (CI) still
    says what went wrong."""
    shown: list[str] = []
    following = False
    for line in server.log().splitlines():
        parts = line.split(" ", 6)
        level = parts[5] if len(parts) > 5 else ""
        if level in ("ERROR:", "FATAL:", "PANIC:"):
            following = parts[4] not in allowed or level == "PANIC:"
        elif level not in ("DETAIL:", "HINT:", "CONTEXT:", "STATEMENT:", "QUERY:") and re.match(
            r"\d{4}-", line
        ):
            following = False
        if following and len(shown) < 40:
            shown.append("        " + line)
    assert not shown, (
        f"{server.name}: server log without unexpected errors (by SQLSTATE:"
        f" {server.errors_by_sqlstate()}; expected: {' '.join(allowed) or 'none'}):\n"
        + "\n".join(shown)
    )


# --- load -----------------------------------------------------------------------


def pgbench(server, scripts: list[str]) -> tuple[int, str, str]:
    """LOAD_CLIENTS clients for LOAD_SECONDS s, one script per generator in
    equal weights: (exit status, output, errors). One pgbench thread (-j 1):
    pgbench adds up its per-script counts without a lock ("XXX could use a
    mutex here, but we choose not to"), so with several threads they lose
    increments and no longer match the rows."""
    args = [str(server.bin / "pgbench"), "-n", "-r", "-P", "10", "-h", "127.0.0.1"]
    args += ["-p", str(server.port), "-U", "postgres", "-c", str(LOAD_CLIENTS), "-j", "1"]
    args += ["-T", str(LOAD_SECONDS)]
    for script in scripts:
        args += ["-f", f"{script}@1"]
    done = subprocess.run([*args, DB], capture_output=True, text=True)
    return done.returncode, done.stdout, done.stderr


def pgbench_scripts(out: str) -> list[tuple]:
    """Per script: name, transactions, tps, failed, latency (ms). A script's
    tps is on its transactions line in PostgreSQL 15's pgbench, on the line
    "number of transactions actually processed" in 18's."""
    found: dict[str, dict] = {}
    name = None
    for line in out.splitlines():
        if m := re.match(r"SQL script \d+: (\S+)", line):
            name = os.path.basename(m.group(1)).removesuffix(".sql")
            found[name] = {}
        elif name is None:
            continue
        if m := re.match(r" - (\d+) transactions", line):
            found[name]["transactions"] = int(m.group(1))
        if re.match(r" - (\d+ transactions|number of transactions actually processed: )", line):
            if m := re.search(r"tps = ([0-9.]+)", line):
                found[name]["tps"] = m.group(1)
        if m := re.match(r" - number of failed transactions: (\d+)", line):
            found[name]["failed"] = int(m.group(1))
        if m := re.match(r" - latency average = ([0-9.]+)", line):
            found[name]["latency"] = m.group(1)
    return [
        (n, s.get("transactions"), s.get("tps"), s.get("failed"), s.get("latency"))
        for n, s in found.items()
    ]


def wait_for_statistics(server, tables: int) -> None:
    """The statistics of a backend reach pg_stat_user_tables when it exits:
    wait for pgbench's backends to be gone and every table's count to be in."""
    server.sql(
        f"""DO $$
        DECLARE deadline timestamptz := clock_timestamp() + interval '60 s';
        BEGIN
            LOOP
                PERFORM pg_stat_clear_snapshot();
                EXIT WHEN NOT EXISTS (SELECT FROM pg_stat_activity
                                      WHERE backend_type = 'client backend'
                                        AND pid <> pg_backend_pid())
                      AND (SELECT count(*) FROM pg_stat_user_tables
                           WHERE relname LIKE 'load\\_%') = {tables}
                      AND (SELECT min(n_tup_ins) FROM pg_stat_user_tables
                           WHERE relname LIKE 'load\\_%') > 0;
                IF clock_timestamp() > deadline THEN
                    RAISE EXCEPTION 'statistics did not arrive';
                END IF;
                PERFORM pg_sleep(0.2);
            END LOOP;
        END $$""",
        dbname=DB,
    )


def load_result(server, formats, scripts: list[tuple]) -> None:
    """pgbench's transactions against what the server holds, in a table
    load_result (pgbench -T waits for the transactions in flight at the
    deadline and counts them). n_tup_ins counts every insert, rolled back
    or not: n_tup_ins = rows means no insert failed on the server."""
    rows_sql = " UNION ALL ".join(
        f"SELECT '{name}', (SELECT count(*) FROM load_{name}),"
        f" (SELECT count(DISTINCT id) FROM load_{name})"
        for name, _, _ in formats
    )
    with server.connect(DB) as conn:
        conn.execute(
            "CREATE TABLE pgbench_scripts (generator text, transactions bigint, tps numeric,"
            " failed bigint, latency_ms numeric)"
        )
        conn.cursor().executemany(
            "INSERT INTO pgbench_scripts VALUES (%s, %s, %s, %s, %s)", scripts
        )
        conn.execute(
            f"""CREATE TABLE load_result AS
            SELECT s.generator, s.transactions, round(s.tps) AS tps, s.latency_ms,
                   s.failed AS errors, r.rows, t.n_tup_ins - r.rows AS rolled_back,
                   r.rows - r.distinct_ids AS duplicates, g.issued
            FROM pgbench_scripts s
            JOIN ({rows_sql}) r (generator, rows, distinct_ids) USING (generator)
            JOIN pg_stat_user_tables t ON t.relname = 'load_' || s.generator
            LEFT JOIN pg_flake_generator_state() g ON g.format = s.generator"""
        )


def test_load(servers, pg_major, tmp_path, figures):
    started = time.time()
    server = long_server(servers, "load")
    figures(
        f"== load: {LOAD_CLIENTS} clients for {LOAD_SECONDS} s, every generator (PostgreSQL"
        f" {pg_major}, server 127.0.0.1:{server.port}, shared mode)"
    )
    formats, coordinated = catalog_formats(server, figures)
    scripts = []
    for name, kind, call in formats:
        server.sql(f"CREATE TABLE load_{name} (id {kind} PRIMARY KEY DEFAULT {call})", dbname=DB)
        script = tmp_path / f"{name}.sql"
        script.write_text(f"INSERT INTO load_{name} DEFAULT VALUES;\n")
        scripts.append(str(script))
    max_connections = server.value("SELECT current_setting('max_connections')::int")
    assert max_connections > LOAD_CLIENTS, (
        f"max_connections ({max_connections}) leaves room for {LOAD_CLIENTS} clients"
    )

    ran = time.time()
    rc, out, err = pgbench(server, scripts)
    figures(f"pgbench finished in {since(ran)} s, exit status {rc}")
    summary = re.search(r"^number of clients.*?^tps[^\n]*", out, re.M | re.S)
    for line in (summary.group(0) if summary else out).splitlines():
        figures(line)
    assert rc == 0, f"pgbench exit status 0 (no client aborted):\n{err[-3000:]}"
    assert re.search(r"^number of failed transactions: 0 ", out, re.M), (
        f"pgbench reports 0 failed transactions:\n{out}"
    )

    wait_for_statistics(server, len(formats))
    load_result(server, formats, pgbench_scripts(out))
    for line in server.table("SELECT * FROM load_result ORDER BY generator", dbname=DB):
        figures(line)
    figures(
        "(tps: the script's share of the mixed run, equal weights; rolled_back: n_tup_ins - rows;"
    )
    figures(" issued: IDs the server-wide generator handed out, coordination-based formats only)")
    figures(f"server errors by SQLSTATE: {server.errors_by_sqlstate()}")

    def holds(condition: str) -> bool:
        return server.value(f"SELECT {condition} FROM load_result", dbname=DB)

    assert holds(f"count(*) = {len(formats)}"), f"one pgbench script per generator ({len(formats)})"
    assert holds("bool_and(errors = 0)"), "0 failed transactions in every script"
    assert holds("bool_and(transactions > 0)"), "every script ran (transactions > 0)"
    total = re.search(r"^number of transactions actually processed: (\d+)", out, re.M)
    total = int(total.group(1)) if total else 0
    assert holds(f"bool_and(rows = transactions) AND sum(rows) = {total}"), (
        f"rows = pgbench's committed transactions, per table and in total ({total})"
    )
    assert holds("bool_and(rolled_back = 0)"), "no insert rolled back (n_tup_ins = rows per table)"
    assert holds("bool_and(duplicates = 0)"), "no duplicate IDs"
    assert holds(f"bool_and(issued = rows) AND count(issued) = {len(coordinated)}"), (
        "issued = rows for the coordination-based formats (no ID lost to a failed insert)"
    )
    check_log(server)
    server.stop()
    figures(f"load: {since(started)} s")


# --- nodes: different settings -----------------------------------------------------

# The three publishers' node settings (edge values of every range included:
# node3 takes the nodes reserved for leases by default, so it frees them
# with pg_flake.lease_nodes, docs/sql-reference.md "Leases").
NODE_CONF = {
    "node1": [
        "pg_flake.sno_node = 1",
        "pg_flake.siq_node = 1",
        "pg_flake.snowflake_worker = 1",
        "pg_flake.kuid_node = 'alpha@127.0.0.1'",
    ],
    "node2": [
        "pg_flake.sno_node = 128",
        "pg_flake.siq_node = 128",
        "pg_flake.snowflake_worker = 16",
        "pg_flake.kuid_node = 'beta@127.0.0.1'",
    ],
    "node3": [
        "pg_flake.sno_node = 255",
        "pg_flake.siq_node = 255",
        "pg_flake.snowflake_worker = 31",
        "pg_flake.kuid_node = 'gamma@127.0.0.1'",
        "pg_flake.lease_nodes = 'sno=none, siq=none, snowflake=none'",
    ],
}

# How each node-aware format decodes: name: (decoded node, expected (from
# the publisher's settings in table nodes n), process field, 0 in shared
# mode (the server is slot 0 of 1), other fields that must hold, the ID
# with its node field cleared (what a server without a node setting would
# have made)). kuid64 has no node field: only its last field is used.
DECODE = {
    "sno": (
        "sno_partition(id) >> 8",
        "n.sno_node",
        "sno_partition(id) & 255",
        "sno_meta(id) = 0",
        "sno_from_parts(sno_timestamp(id), sno_meta(id), sno_partition(id) & 255,"
        " sno_sequence(id), sno_tick_tock(id))",
    ),
    "siq": (
        "siq_domain_hash(id) >> 24",
        "n.siq_node",
        "siq_shard(id)",
        "siq_domain_hash(id) & 16777215 = siq_domain_name_hash(n.siq_domain) & 16777215"
        " AND siq_kind(id) = 'event'",
        "siq_from_tick_parts((siq_parts(id)).ticks, siq_shard(id),"
        " siq_domain_hash(id) & 16777215, siq_kind(id), siq_serial(id))",
    ),
    "snowflake": (
        "(snowflake_parts(id)).worker",
        "n.snowflake_worker",
        "(snowflake_parts(id)).process",
        "true",
        "id & ~(31::bigint << 17)",
    ),
    "kuid96": (
        "kuid96_node(id, n.kuid_interval)",
        "kuid_node_fingerprint(n.kuid_node)",
        "0",
        "true",
        "kuid96_localize(id, n.kuid_interval)",
    ),
    "kuid64": ("NULL", "NULL", "0", "true", "id"),
}


def subscriber_tables(sub, coordinated) -> None:
    """A table per format (kuid64 has no node field, it is for IDs that stay
    on one server, so servers may repeat each other's: keyed by (origin,
    id) there) and the table of the publishers' settings."""
    for name, kind, _ in coordinated:
        key = "origin, id" if name == "kuid64" else "id"
        sub.sql(
            f"CREATE TABLE ids_{name} (id {kind} NOT NULL, origin int NOT NULL,"
            f" PRIMARY KEY ({key}))",
            dbname=DB,
        )
    sub.sql(
        """CREATE TABLE nodes (origin int PRIMARY KEY, port int, sno_node int, siq_node int,
           siq_domain text, snowflake_worker int, kuid_node text, kuid_interval int)""",
        dbname=DB,
    )


def publisher(servers, sub, origin: int, name: str, coordinated):
    """A server with node settings ``NODE_CONF[name]``, a table per format
    and a publication of them; the subscriber records its settings (as the
    server itself says they are) and subscribes. The tables are empty:
    nothing to copy, changes stream from here on. Binary mode: the rows
    travel in the types' send/recv form."""
    server = long_server(
        servers,
        name,
        "wal_level = logical",
        "pg_flake.siq_domain = 'example.com'",
        *NODE_CONF[name],
    )
    for fmt, kind, call in coordinated:
        server.sql(
            f"CREATE TABLE ids_{fmt} (id {kind} PRIMARY KEY DEFAULT {call},"
            f" origin int NOT NULL DEFAULT {origin})",
            dbname=DB,
        )
    tables = ", ".join(f"ids_{fmt}" for fmt, _, _ in coordinated)
    server.sql(f"CREATE PUBLICATION ids FOR TABLE {tables}", dbname=DB)
    settings = server.sql(
        """SELECT current_setting('port')::int, current_setting('pg_flake.sno_node')::int,
                  current_setting('pg_flake.siq_node')::int, current_setting('pg_flake.siq_domain'),
                  current_setting('pg_flake.snowflake_worker')::int,
                  current_setting('pg_flake.kuid_node'),
                  current_setting('pg_flake.kuid_interval')::int""",
        dbname=DB,
    )[0]
    sub.sql(
        "INSERT INTO nodes VALUES (%s, %s, %s, %s, %s, %s, %s, %s)", (origin, *settings), dbname=DB
    )
    sub.sql(
        f"""CREATE SUBSCRIPTION sub_{name}
            CONNECTION 'host=127.0.0.1 port={server.port} user=postgres dbname={DB}'
            PUBLICATION ids WITH (copy_data = false, binary = true)""",
        dbname=DB,
    )
    return server


def generate(table: str, count: int, publishers) -> list[BaseException]:
    """``count`` IDs into ``table`` (its default) on each server,
    NODE_CONNECTIONS connections per server, all at once, in batches; the
    errors of the connections that failed."""

    def insert(server) -> None:
        with server.connect(DB) as conn:
            for _ in range(count // NODE_CONNECTIONS // NODE_BATCH):
                conn.execute(f"INSERT INTO {table} SELECT FROM generate_series(1, {NODE_BATCH})")

    with ThreadPoolExecutor(len(publishers) * NODE_CONNECTIONS) as pool:
        done = [pool.submit(insert, s) for s in publishers for _ in range(NODE_CONNECTIONS)]
    return [f.exception() for f in done if f.exception()]


def wait_for_rows(sub, coordinated, expected: int) -> tuple[int, int]:
    """Waits (up to 600 s) for every row to arrive; an apply error (a
    conflict) ends the wait at once. Returns (rows arrived, errors)."""
    count_sql = " + ".join(f"(SELECT count(*) FROM ids_{name})" for name, _, _ in coordinated)
    deadline = time.time() + 600
    while True:
        arrived = sub.value(f"SELECT {count_sql}", dbname=DB)
        errors = sub.value(
            "SELECT coalesce(sum(apply_error_count + sync_error_count), 0)"
            " FROM pg_stat_subscription_stats",
            dbname=DB,
        )
        if arrived >= expected or errors > 0 or time.time() > deadline:
            return arrived, errors
        time.sleep(2)


def decode_sql() -> str:
    """Per format (but kuid64) and origin: the setting, the decoded node's
    range, the process field, and the rows that decode wrong."""
    return " UNION ALL ".join(
        f"""SELECT '{name}' AS format, n.origin, ({expected})::bigint AS setting,
                   min({node})::bigint AS decoded_min, max({node})::bigint AS decoded_max,
                   max({process})::int AS max_process, count(*) AS rows,
                   count(*) FILTER (WHERE ({node}) IS DISTINCT FROM ({expected})
                                    OR ({process}) <> 0 OR NOT ({other})) AS wrong
            FROM ids_{name} i JOIN nodes n ON n.origin = i.origin GROUP BY n.origin"""
        for name, (node, expected, process, other, _) in DECODE.items()
        if name != "kuid64"
    )


def apart_sql() -> str:
    """Per format: the IDs that differ only in their node field, i.e. would
    have been the same without the node settings."""
    return " UNION ALL ".join(
        f"SELECT '{name}', count(*) - count(DISTINCT {cleared})"
        f" FROM ids_{name} JOIN nodes n USING (origin)"
        for name, (*_, cleared) in DECODE.items()
    )


def test_nodes_different_settings(servers, pg_major, figures):
    started = time.time()
    figures(
        "== nodes: three servers with different node settings, a fourth subscribing to all"
        f" three (PostgreSQL {pg_major})"
    )
    sub = long_server(servers, "sub")
    _, coordinated = catalog_formats(sub, figures)
    # The node settings and decoders are per format: a format this test
    # does not know yet fails here, not silently unchecked.
    assert sorted(f[0] for f in coordinated) == sorted(DECODE), (
        "every format with a node has its decoder in DECODE"
    )
    subscriber_tables(sub, coordinated)
    publishers = [
        publisher(servers, sub, origin, name, coordinated)
        for origin, name in enumerate(NODE_CONF, start=1)
    ]
    figures("node settings, as each publisher reports them:")
    for line in sub.table(
        "SELECT *, kuid_node_fingerprint(kuid_node) AS kuid_fingerprint FROM nodes ORDER BY origin",
        dbname=DB,
    ):
        figures(line)

    def holds(condition: str) -> bool:
        return sub.value(f"SELECT {condition}", dbname=DB)

    assert holds(
        """count(DISTINCT sno_node) = 3 AND count(DISTINCT siq_node) = 3
           AND count(DISTINCT snowflake_worker) = 3
           AND count(DISTINCT kuid_node_fingerprint(kuid_node)) = 3 FROM nodes"""
    ), "the three servers' settings differ for every format"

    # One format at a time, on all three servers at once: the servers' IDs
    # share time units, and only the node settings keep them apart.
    figures(
        f"generating {NODE_IDS} IDs of each of {len(coordinated)} formats on each server,"
        f" {NODE_CONNECTIONS} connections each, the servers concurrently"
    )
    ran = time.time()
    failed = [
        e for name, _, _ in coordinated for e in generate(f"ids_{name}", NODE_IDS, publishers)
    ]
    generated_in = since(ran)
    assert not failed, f"every generating connection succeeded: {failed}"
    expected = 3 * NODE_IDS * len(coordinated)
    figures(f"generated {expected} IDs in {generated_in} s")

    # Publisher counts and a digest of each table, to compare with what
    # arrives (the same query runs on the subscriber below).
    digest_sql = " UNION ALL ".join(
        f"SELECT '{name}', origin, count(*), md5(string_agg(id::text, ',' ORDER BY id))"
        f" FROM ids_{name} GROUP BY origin"
        for name, _, _ in coordinated
    )
    sub.sql("CREATE TABLE published (format text, origin int, rows bigint, digest text)", dbname=DB)
    for server in publishers:
        for row in server.sql(digest_sql, dbname=DB):
            sub.sql("INSERT INTO published VALUES (%s, %s, %s, %s)", row, dbname=DB)

    waited = time.time()
    arrived, errors = wait_for_rows(sub, coordinated, expected)
    figures(
        f"replication: {arrived} of {expected} rows on the subscriber {since(waited)} s after"
        " generation ended"
    )
    figures("subscriptions:")
    for line in sub.table(
        """SELECT s.subname, st.pid IS NOT NULL AS worker_running, st.received_lsn,
                  ss.apply_error_count, ss.sync_error_count
           FROM pg_subscription s JOIN pg_stat_subscription_stats ss ON ss.subid = s.oid
           LEFT JOIN pg_stat_subscription st ON st.subid = s.oid AND st.relid IS NULL
           ORDER BY 1""",
        dbname=DB,
    ):
        figures(line)

    figures("rows per format and origin (publisher / subscriber, digests of the sorted IDs):")
    sub.sql(
        f"CREATE TABLE arrived AS SELECT * FROM ({digest_sql}) a (format, origin, rows, digest)",
        dbname=DB,
    )
    for line in sub.table(
        """SELECT format, origin, p.rows AS published, a.rows AS arrived,
                  p.digest = a.digest AS same_ids
           FROM published p FULL JOIN arrived a USING (format, origin) ORDER BY format, origin""",
        dbname=DB,
    ):
        figures(line)
    assert holds(
        f"count(*) = 3 * {len(coordinated)} AND bool_and(rows = {NODE_IDS}) FROM published"
    ), f"each publisher made {NODE_IDS} IDs of each format"
    assert holds(
        f"""count(*) = 3 * {len(coordinated)} AND bool_and(p.rows = a.rows AND p.digest = a.digest)
            FROM published p JOIN arrived a USING (format, origin)"""
    ), f"every row arrived: 3 x {NODE_IDS} per format, the same IDs as published"
    assert errors == 0, "no apply or sync error in pg_stat_subscription_stats"
    conflicts = len(re.findall(r"duplicate key|conflict", sub.log(), re.I | re.M))
    figures(
        f"subscriber log: {conflicts} 'duplicate key'/'conflict' lines; errors by SQLSTATE:"
        f" {sub.errors_by_sqlstate()}"
    )
    assert conflicts == 0, "no conflict in the subscriber log"
    for server in (sub, *publishers):
        check_log(server)

    figures("decoded node per format and origin (subscriber):")
    sub.sql(f"CREATE TABLE decoded AS {decode_sql()}", dbname=DB)
    for line in sub.table("SELECT * FROM decoded ORDER BY format, origin", dbname=DB):
        figures(line)
    assert holds(
        f"count(*) = 3 * ({len(DECODE)} - 1) AND bool_and(wrong = 0 AND rows = {NODE_IDS})"
        " FROM decoded"
    ), (
        "every ID decodes to its origin's node (sno node, siq node, snowflake worker, kuid96"
        " node; process field 0)"
    )
    figures("IDs that another server made too, apart from the node field (kuid64 has none: the")
    figures("same value):")
    sub.sql(
        f"CREATE TABLE apart_from_node AS SELECT * FROM ({apart_sql()}) a (format, same_but_node)",
        dbname=DB,
    )
    for line in sub.table("SELECT * FROM apart_from_node ORDER BY format", dbname=DB):
        figures(line)
    # Without this the zero conflicts above would prove little: the servers
    # did make the same (time unit, sequence) pairs, told apart by the node.
    assert holds(
        f"count(*) = {len(DECODE)} AND bool_and(same_but_node > 0) FROM apart_from_node"
    ), (
        "the servers generated in the same time units: IDs equal apart from the node field,"
        " for every format"
    )
    # kuid64 carries no node (it is for IDs that stay on one server): adding
    # each server's node (kuid96_globalize) separates the repeated values.
    assert holds(
        """count(*) = count(DISTINCT kuid96_globalize(id, kuid_node_fingerprint(n.kuid_node),
                                                      n.kuid_interval))
           FROM ids_kuid64 JOIN nodes n USING (origin)"""
    ), "kuid64 values made unique by kuid96_globalize with each server's node"
    for server in (sub, *publishers):
        server.stop()
    figures(f"nodes, different settings: {since(started)} s")


# --- nodes: the same settings -------------------------------------------------------


def burst_tables(a, b, coordinated) -> None:
    """On both servers a table per format keyed by the generated ID; on A
    also B's IDs (from_b_*), both merged (merged_*), and the collisions."""
    for name, kind, call in coordinated:
        for server in (a, b):
            server.sql(
                f"CREATE TABLE burst_{name} (id {kind} PRIMARY KEY DEFAULT {call})", dbname=DB
            )
        a.sql(f"CREATE TABLE from_b_{name} (id {kind} NOT NULL)", dbname=DB)
        a.sql(f"CREATE TABLE merged_{name} (id {kind} PRIMARY KEY)", dbname=DB)
    a.sql(
        """CREATE TABLE collisions (format text, attempt int, rows_a bigint, rows_b bigint,
           collisions bigint, rejected_by_pk bigint, example text, start_skew_ms numeric,
           overlap_ms numeric)""",
        dbname=DB,
    )


def bursts(a, b, name: str) -> list[tuple]:
    """Both sessions sleep until the same wall-clock instant (one clock:
    both servers run on this machine), then insert BURST_IDS rows; (start,
    end) of each burst, as its server's clock_timestamp()."""
    start = time.time() + 2.0

    def burst(server) -> tuple:
        with server.connect(DB) as conn:
            conn.execute("SELECT pg_sleep(%s - extract(epoch FROM clock_timestamp()))", (start,))
            began = conn.execute("SELECT extract(epoch FROM clock_timestamp())").fetchone()[0]
            conn.execute(f"INSERT INTO burst_{name} SELECT FROM generate_series(1, {BURST_IDS})")
            ended = conn.execute("SELECT extract(epoch FROM clock_timestamp())").fetchone()[0]
        return began, ended

    with ThreadPoolExecutor(2) as pool:
        done = [pool.submit(burst, s) for s in (a, b)]
    return [f.result() for f in done]


def copy_ids(source, target, table_from: str, table_to: str) -> None:
    with source.connect(DB) as src, target.connect(DB) as dst:
        with src.cursor().copy(f"COPY {table_from} TO STDOUT") as out:
            with dst.cursor().copy(f"COPY {table_to} FROM STDIN") as into:
                for data in out:
                    into.write(data)


def record_collisions(a, name: str, attempt: int, times: list[tuple]) -> int:
    """Merges B's IDs with A's into a table keyed by id and records the
    attempt in collisions: rows, IDs both made, those the key rejected, one
    of them, B's start - A's and how long both bursts ran at once. Returns
    the number of collisions."""
    (a_start, a_end), (b_start, b_end) = times
    skew = round(1000 * (b_start - a_start))
    overlap = round(1000 * (min(a_end, b_end) - max(a_start, b_start)))
    with a.connect(DB) as conn:
        conn.execute(f"INSERT INTO merged_{name} SELECT id FROM burst_{name}")
        conn.execute(
            f"""WITH ins AS (INSERT INTO merged_{name} SELECT id FROM from_b_{name}
                             ON CONFLICT DO NOTHING RETURNING 1)
                INSERT INTO collisions SELECT %s, %s, (SELECT count(*) FROM burst_{name}),
                    (SELECT count(*) FROM from_b_{name}),
                    (SELECT count(*) FROM burst_{name} JOIN from_b_{name} USING (id)),
                    (SELECT count(*) FROM from_b_{name}) - (SELECT count(*) FROM ins),
                    (SELECT min(id)::text FROM burst_{name} JOIN from_b_{name} USING (id)),
                    %s, %s""",
            (name, attempt, skew, overlap),
        )
        return conn.execute(
            "SELECT collisions FROM collisions WHERE format = %s AND attempt = %s",
            (name, attempt),
        ).fetchone()[0]


def plain_merge_refused(a, name: str, figures) -> None:
    """The same merge without ON CONFLICT: the primary key refuses it."""
    try:
        a.sql(f"TRUNCATE merged_{name}", dbname=DB)
        a.sql(
            f"INSERT INTO merged_{name} SELECT id FROM burst_{name}"
            f" UNION ALL SELECT id FROM from_b_{name}",
            dbname=DB,
        )
        refused = None
    except psycopg.Error as e:
        refused = e
    said = f"ERROR:  {refused.sqlstate}: {refused.diag.message_primary}" if refused else "INSERT"
    figures(f"  {name}: plain INSERT of both servers' IDs into one primary key: {said}")
    assert refused and refused.sqlstate == "23505", (
        f"{name}: the merge is refused with 23505 (unique_violation)"
    )


def test_nodes_same_settings_collide(servers, pg_major, figures):
    """Two servers with the same (default) node settings. In shared mode
    each server is slot 0 of 1 and every format's sequence restarts at 0 in
    each time unit, so two such servers generating at the same moment make
    the same (time unit, sequence) pairs: the same IDs."""
    started = time.time()
    figures(
        f"== nodes: two servers with the same (default) node settings, bursts of {BURST_IDS}"
        f" IDs at the same moment (PostgreSQL {pg_major})"
    )
    a = long_server(servers, "same-a")
    b = long_server(servers, "same-b")
    _, coordinated = catalog_formats(a, figures)
    burst_tables(a, b, coordinated)
    for name, _, _ in coordinated:
        for attempt in range(1, BURST_ATTEMPTS + 1):
            for server in (a, b):
                server.sql(f"TRUNCATE burst_{name}", dbname=DB)
            a.sql(f"TRUNCATE from_b_{name}, merged_{name}", dbname=DB)
            times = bursts(a, b, name)
            copy_ids(b, a, f"burst_{name}", f"from_b_{name}")
            if record_collisions(a, name, attempt, times) > 0:
                plain_merge_refused(a, name, figures)
                break
    for line in a.table(
        """SELECT format, attempt, start_skew_ms, overlap_ms, rows_a, rows_b, collisions,
                  rejected_by_pk, collisions > 0 AS collided, example
           FROM collisions ORDER BY format, attempt""",
        dbname=DB,
    ):
        figures(line)
    figures("(start_skew_ms: B's burst start - A's; overlap_ms: how long both bursts ran at once)")
    for name, _, _ in coordinated:
        assert a.value(
            """SELECT coalesce(bool_or(collisions > 0 AND rejected_by_pk = collisions), false)
               FROM collisions WHERE format = %s""",
            (name,),
            dbname=DB,
        ), (
            f"{name}: same settings collide (observed within {BURST_ATTEMPTS} attempts;"
            " rejected by the key = collisions)"
        )
    figures(
        f"server errors by SQLSTATE: same-a: {a.errors_by_sqlstate()} (the refused merges);"
        f" same-b: {b.errors_by_sqlstate()}"
    )
    for server in (a, b):
        server.stop()
    figures(f"nodes, same settings: {since(started)} s")
