"""pg_flake in a Citus cluster (``make test-citus``), on the Citus that
scripts/citus-build.sh builds from the vendored tarball (or any installed
Citus); it skips, or fails where the tarball is there, as
``citus_cluster.require_citus`` says.

A coordinator and two workers, each with ``shared_preload_libraries =
'citus,pg_flake'`` and no pg_flake setting at all: every server has the
default node, so only what pg_flake learns from Citus (the group id in
pg_dist_local_group) can keep their IDs apart (docs/operations.md "Several
servers"). Citus evaluates column defaults on the workers in common paths,
and this test goes through them for every coordination-based format (sno,
siq, snowflake, kuid96):

- INSERT ... SELECT into a table whose distribution column defaults to the
  generator (repartitioned: the workers scanning the source shards evaluate
  the default);
- a table with a non-distribution column defaulting to the generator,
  filled by INSERT ... SELECT and COPY through the coordinator, then ALTER
  TABLE ... ADD COLUMN ... DEFAULT (each worker rewrites its shards);
- pgbench clients writing through both workers directly at once.

worker2 has used pg_flake before it joins the cluster, and one of its
sessions stays open across citus_add_node: it must switch to worker2's new
node. Every table has an ``origin`` column defaulting to the port of the
server that evaluated the defaults, which shows where each ID was made.
Then: every ID distinct, per table and across the tables of a format, with
the figures per server; kuid64 (no node field) must refuse to generate in
the cluster; pg_flake_node() on every node is printed and checked, when it
exists.

The cluster is formed once for the module (``module_servers``): each step
is a module fixture, run when the first test that needs it asks for it, and
the tests check its results in the order of the steps.

Environment: ``CITUS_ROWS`` (20000 rows per INSERT ... SELECT),
``CITUS_CLIENTS`` (4 pgbench clients per worker), ``CITUS_SECONDS`` (8).
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import pytest
from citus_cluster import (
    DB,
    FORMATS,
    NODE_FIELDS,
    ORIGIN_DEFAULT,
    RELEASE,
    Cluster,
    require_citus,
    since,
    start_server,
)

from harness import PG_BIN, Server, aligned

require_citus()

ROWS = int(os.environ.get("CITUS_ROWS", "20000"))
CLIENTS = int(os.environ.get("CITUS_CLIENTS", "4"))
SECONDS_DIRECT = int(os.environ.get("CITUS_SECONDS", "8"))
COPY_ROWS = 5000
SERVERS = ("coordinator", "worker1", "worker2")
WORKERS = ("worker1", "worker2")


# --- the cluster ---------------------------------------------------------


@dataclass
class Joined:
    """What forming the cluster showed."""

    cluster: Cluster
    citus_version: str = ""
    citus_release: str = ""
    postgres_version: str = ""
    groups_before: dict = field(default_factory=dict)
    pg_dist_node: list = field(default_factory=list)
    groups_after: dict = field(default_factory=dict)
    flake_version: str = ""
    worker_versions: dict = field(default_factory=dict)
    # Node fields of new IDs in worker2 (sno, siq, snowflake, kuid96).
    before_join: tuple = ()
    after_join: tuple = ()
    new_session: tuple = ()


def local_group(cluster: Cluster, name: str) -> int:
    return cluster.value(name, "SELECT groupid FROM pg_dist_local_group")


def form_cluster(cluster: Cluster) -> None:
    coordinator = cluster.port("coordinator")
    cluster.coord(f"SELECT citus_set_coordinator_host('127.0.0.1', {coordinator})")
    for s in WORKERS:
        cluster.coord(f"SELECT citus_add_node('127.0.0.1', {cluster.port(s)})")


@pytest.fixture(scope="module")
def joined(module_servers) -> Joined:
    """The three servers joined into a cluster, pg_flake created through the
    coordinator; worker2 used pg_flake before it joined, and one of its
    sessions stays open across citus_add_node: the node that session puts
    into new IDs must follow the group id Citus gives worker2 (pg_flake must
    see the change of pg_dist_local_group in a running backend)."""
    cluster = Cluster({s: start_server(module_servers, s) for s in SERVERS})
    j = Joined(cluster)
    j.citus_version = cluster.coord("SELECT extversion FROM pg_extension WHERE extname = 'citus'")
    j.citus_release = cluster.coord("SELECT citus_version()")
    j.postgres_version = cluster.coord("SELECT version()")
    j.groups_before = {s: local_group(cluster, s) for s in SERVERS}
    cluster.sql("worker2", "CREATE EXTENSION pg_flake")
    with cluster.servers["worker2"].connect(DB) as session:
        j.before_join = session.execute(NODE_FIELDS).fetchone()
        form_cluster(cluster)
        j.pg_dist_node = cluster.table(
            "coordinator",
            "SELECT nodeid, groupid, nodename, nodeport, noderole, hasmetadata,"
            " metadatasynced, shouldhaveshards FROM pg_dist_node ORDER BY nodeid",
        )
        j.groups_after = {s: local_group(cluster, s) for s in SERVERS}
        cluster.coord("CREATE EXTENSION pg_flake")
        j.flake_version = cluster.coord(
            "SELECT extversion FROM pg_extension WHERE extname = 'pg_flake'"
        )
        for s in WORKERS:
            j.worker_versions[s] = cluster.value(
                s,
                "SELECT coalesce((SELECT extversion FROM pg_extension"
                " WHERE extname = 'pg_flake'), 'missing')",
            )
        j.after_join = session.execute(NODE_FIELDS).fetchone()
    j.new_session = tuple(cluster.sql("worker2", NODE_FIELDS)[0])
    return j


def fields(row) -> str:
    return " ".join(map(str, row))


def test_the_citus_release_built(joined, figures):
    """With the vendored tarball, the servers run the release
    scripts/citus-build.sh built (13.2.2 on 15, 14.0.1 on 16-18)."""
    figures(f"citus_version(): {joined.citus_release}")
    if not RELEASE:
        pytest.skip("no PG_FLAKE_CITUS_RELEASE: an installed Citus of any release")
    assert joined.citus_release.startswith(f"Citus {RELEASE} "), joined.citus_release


def test_the_servers_get_distinct_citus_groups(joined, figures):
    c = joined.cluster
    figures(
        f"Citus cluster: coordinator 127.0.0.1:{c.port('coordinator')}, workers"
        f" :{c.port('worker1')} and :{c.port('worker2')}; no pg_flake setting"
    )
    figures(f"Citus {joined.citus_version}, {joined.postgres_version}")
    for s, group in joined.groups_before.items():
        figures(f"  {s}: pg_dist_local_group.groupid = {group} before the cluster is formed")
    for line in joined.pg_dist_node:
        figures(line)
    after = joined.groups_after
    figures(
        f"pg_dist_local_group.groupid after citus_add_node: coordinator"
        f" {after['coordinator']}, worker1 {after['worker1']}, worker2 {after['worker2']}"
    )
    assert after["coordinator"] == 0 and len(set(after.values())) == 3, after


def test_create_extension_reaches_the_workers(joined):
    """CREATE EXTENSION pg_flake on the coordinator reached worker1; worker2
    kept the pg_flake it had before joining (Citus sends IF NOT EXISTS)."""
    assert joined.worker_versions == {s: joined.flake_version for s in WORKERS}


def test_an_open_session_takes_the_node_of_the_join(joined, figures):
    figures(
        "worker2, node fields of new IDs (sno, siq, snowflake, kuid96): open session"
        f" before joining: {fields(joined.before_join)}; same session after joining:"
        f" {fields(joined.after_join)}; a new session: {fields(joined.new_session)}"
    )
    # A session open across citus_add_node makes IDs with the node of a new session.
    assert tuple(joined.after_join) == joined.new_session
    # Joining the cluster changed the node field of every format.
    unchanged = [
        name
        for name, was, now in zip(FORMATS, joined.before_join, joined.new_session)
        if was == now
    ]
    assert not unchanged, (joined.before_join, joined.new_session)


# --- pg_flake_node() on every node -----------------------------------------


def node_from_citus_on_each(rows) -> bool:
    """pg_flake_node()'s rows of a format, one per server: allowed, its node
    from Citus, three distinct nodes."""
    return (
        len(rows) == 3
        and all(problem is None and source == "citus" for _, source, problem in rows)
        and len({node for node, _, _ in rows}) == 3
    )


def test_pg_flake_node_on_every_node(joined, figures):
    """Every format with a node field is allowed on all three servers, its
    node from Citus, three distinct nodes; kuid64 has a problem on all
    three."""
    c = joined.cluster
    if not c.coord("SELECT to_regprocedure('pg_flake_node()') IS NOT NULL"):
        pytest.skip(f"pg_flake_node() does not exist in pg_flake {joined.flake_version}")
    figures("pg_flake_node() on every node (run_command_on_all_nodes):")
    for line in c.table(
        "coordinator",
        "SELECT nodeid, success, result FROM run_command_on_all_nodes("
        "$$SELECT json_agg(n) FROM pg_flake_node() n$$) ORDER BY nodeid",
    ):
        figures(line)
    # format: (node, source, problem) on each server
    by_format: dict[str, list] = {}
    for s in SERVERS:
        for fmt, *row in c.sql(s, "SELECT format, node, source, problem FROM pg_flake_node()"):
            by_format.setdefault(fmt, []).append(tuple(row))
    wrong = {
        name: by_format.get(name)
        for name in FORMATS
        if not node_from_citus_on_each(by_format.get(name, []))
    }
    assert not wrong, wrong
    kuid64 = by_format.get("kuid64", [])
    assert len(kuid64) == 3 and all(problem is not None for *_, problem in kuid64), kuid64


# --- the tables --------------------------------------------------------------


@dataclass
class Filled:
    # (format, target, method, error) of each INSERT ... SELECT
    insert_select: list
    seconds: str


def create_tables(c: Cluster, name: str) -> None:
    """src_F (the rows to copy), pk_F (the generator is the distribution
    column and primary key), col_F (the generator is an ordinary column; c2
    is added later)."""
    kind, gen = FORMATS[name]
    for statement in (
        f"CREATE TABLE src_{name} (k bigint NOT NULL)",
        f"SELECT create_distributed_table('src_{name}', 'k')",
        f"INSERT INTO src_{name} SELECT generate_series(1, {ROWS})",
        f"CREATE TABLE pk_{name} (id {kind} PRIMARY KEY DEFAULT {gen}, k bigint NOT NULL,"
        f" origin int NOT NULL {ORIGIN_DEFAULT})",
        f"SELECT create_distributed_table('pk_{name}', 'id')",
        f"CREATE TABLE col_{name} (k bigint NOT NULL, c {kind} DEFAULT {gen},"
        f" origin int NOT NULL {ORIGIN_DEFAULT})",
        f"SELECT create_distributed_table('col_{name}', 'k', colocate_with => 'src_{name}')",
    ):
        c.sql("coordinator", statement)


def insert_select(c: Cluster, name: str, target: str) -> tuple:
    """INSERT ... SELECT from src_F through the coordinator: the method
    EXPLAIN shows and the error, if any."""
    statement = f"INSERT INTO {target}_{name} (k) SELECT k FROM src_{name}"
    plan = [row[0] for row in c.sql("coordinator", f"EXPLAIN (COSTS OFF) {statement}")]
    methods = [
        m.group(1) for m in map(re.compile(r"INSERT/SELECT method: *(.*)").search, plan) if m
    ]
    method = methods[0] if methods else "none shown (pushed down or routed)"
    error = None
    try:
        c.sql("coordinator", statement)
    except psycopg.Error as e:
        error = f"ERROR:  {e.sqlstate}: {e.diag.message_primary}"
    return (name, f"{target}_{name}", method, error)


def copy_rows(c: Cluster, name: str) -> None:
    """COPY through the coordinator (it evaluates the defaults itself)."""
    with c.servers["coordinator"].connect(DB) as conn:
        with conn.cursor().copy(f"COPY col_{name} (k) FROM STDIN") as copy:
            for k in range(ROWS + 1, ROWS + COPY_ROWS + 1):
                copy.write_row((k,))


def add_columns(c: Cluster, name: str) -> None:
    """Both columns in one statement: every worker rewrites its shards and
    evaluates both defaults for the rows already there."""
    kind, gen = FORMATS[name]
    c.sql(
        "coordinator",
        f"ALTER TABLE col_{name} ADD COLUMN c2 {kind} DEFAULT {gen},"
        f" ADD COLUMN c2_origin int NOT NULL {ORIGIN_DEFAULT}",
    )


@pytest.fixture(scope="module")
def filled(joined) -> Filled:
    """INSERT ... SELECT through the coordinator (ROWS rows each), COPY
    (COPY_ROWS rows), ADD COLUMN ... DEFAULT, for every format."""
    c = joined.cluster
    for name in FORMATS:
        create_tables(c, name)
    start = time.monotonic()
    results = []
    for name in FORMATS:
        results.append(insert_select(c, name, "pk"))
        results.append(insert_select(c, name, "col"))
        copy_rows(c, name)
        add_columns(c, name)
    return Filled(sorted(results, key=lambda r: (r[0], r[1])), since(start))


def test_insert_select_copy_and_add_column(filled, figures):
    figures(
        f"INSERT ... SELECT through the coordinator ({ROWS} rows each), COPY"
        f" ({COPY_ROWS} rows), ADD COLUMN ... DEFAULT: {filled.seconds} s"
    )
    for line in aligned(("format", "target", "method", "error"), filled.insert_select):
        figures(line)
    # Every INSERT ... SELECT succeeded (no duplicate key in a primary key
    # made of generated IDs).
    failed = [r for r in filled.insert_select if r[3] is not None]
    assert not failed, failed
    # INSERT ... SELECT into the generated distribution column is
    # repartitioned (EXPLAIN).
    not_repartitioned = [
        r for r in filled.insert_select if r[1].startswith("pk_") and r[2] != "repartition"
    ]
    assert not not_repartitioned, not_repartitioned


# --- writes through both workers ------------------------------------------


@dataclass
class Pgbench:
    returncode: int
    summary: str
    stderr: list
    # script name (pk_sno, col_sno, ...): (transactions, failed)
    scripts: dict


@dataclass
class Direct:
    pgbench: dict  # worker: Pgbench
    # (format, transactions, rows_added, dropped_as_duplicates)
    pk: list
    seconds: str


def pk_counts(c: Cluster) -> dict:
    """The rows in each pk_ table, by format."""
    query = " UNION ALL ".join(
        f"SELECT '{name}', (SELECT count(*) FROM pk_{name})" for name in FORMATS
    )
    return dict(c.sql("coordinator", query))


def write_pgbench_scripts(directory: Path) -> list[str]:
    """pgbench's -f arguments: for each format an insert into pk_F and one
    into col_F, of equal weight. A duplicate ID would abort a pgbench client:
    ON CONFLICT keeps it running, and the rows that did not arrive are
    counted."""
    args = []
    for name in FORMATS:
        for target, conflict in (("pk", " ON CONFLICT DO NOTHING"), ("col", "")):
            path = directory / f"{target}_{name}.sql"
            path.write_text(
                "\\set k random(1000000, 1000000000)\n"
                f"INSERT INTO {target}_{name} (k) VALUES (:k){conflict};\n"
            )
            args += ["-f", f"{path}@1"]
    return args


def per_script(out: str) -> dict:
    """(transactions, failed) of each script in pgbench -r's report."""
    scripts, current = {}, None
    for line in out.splitlines():
        if m := re.match(r"SQL script \d+: (\S+)", line):
            current = Path(m.group(1)).stem
            scripts[current] = [0, 0]
        elif current and (m := re.match(r" - (\d+) transactions", line)):
            scripts[current][0] = int(m.group(1))
        elif current and (m := re.match(r" - number of failed transactions: (\d+)", line)):
            scripts[current][1] = int(m.group(1))
    return {name: tuple(v) for name, v in scripts.items()}


def run_pgbench(c: Cluster, script_args: list[str]) -> dict:
    """CLIENTS pgbench clients on each worker at once for SECONDS_DIRECT s."""
    running = {
        s: subprocess.Popen(
            [str(PG_BIN / "pgbench"), "-n", "-r", "-h", "127.0.0.1", "-p", str(c.port(s))]
            + ["-U", "postgres", "-c", str(CLIENTS), "-j", "1", "-T", str(SECONDS_DIRECT)]
            + script_args
            + [DB],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for s in WORKERS
    }
    results = {}
    for s, process in running.items():
        out, err = process.communicate()
        summary = ";".join(
            line
            for line in out.splitlines()
            if re.match(
                r"(number of transactions actually processed|number of failed transactions|tps)",
                line,
            )
        )
        stderr = [line for line in err.splitlines() if not line.startswith("pgbench: ")][:5]
        results[s] = Pgbench(process.returncode, summary, stderr, per_script(out))
    return results


@pytest.fixture(scope="module")
def direct(joined, filled, tmp_path_factory) -> Direct:
    """Writes through both workers at once (pgbench), and what of them
    reached the pk_ tables."""
    c = joined.cluster
    script_args = write_pgbench_scripts(tmp_path_factory.mktemp("citus-pgbench"))
    before = pk_counts(c)
    start = time.monotonic()
    results = run_pgbench(c, script_args)
    seconds = since(start)
    after = pk_counts(c)
    pk = []
    for name in FORMATS:
        transactions = sum(r.scripts.get(f"pk_{name}", (0, 0))[0] for r in results.values())
        added = after[name] - before[name]
        pk.append((name, transactions, added, transactions - added))
    return Direct(results, pk, seconds)


def test_direct_writes_through_both_workers(direct, figures):
    figures(
        f"writes through both workers at once: {CLIENTS} pgbench clients per worker for"
        f" {SECONDS_DIRECT} s: {direct.seconds} s"
    )
    for s, r in direct.pgbench.items():
        figures(f"pgbench through {s}: exit status {r.returncode}; {r.summary}")
        for line in r.stderr:
            figures(f"  {line}")
        for script, (transactions, failed) in sorted(r.scripts.items()):
            figures(f"  {script}: {transactions} transactions, {failed} failed")
    names = ("format", "transactions", "rows_added", "dropped_as_duplicates")
    for line in aligned(names, sorted(direct.pk)):
        figures(line)
    codes = {s: r.returncode for s, r in direct.pgbench.items()}
    assert codes == {s: 0 for s in WORKERS}, (
        codes,
        {s: r.stderr for s, r in direct.pgbench.items()},
    )
    # Direct writes into pk_*: every insert added a row (no generated ID
    # taken already).
    assert len(direct.pk) == len(FORMATS)
    short = [row for row in direct.pk if not (row[2] == row[1] and row[1] > 0)]
    assert not short, short


# --- the figures ---------------------------------------------------------------


def path_of(column: str) -> str:
    """SQL: the path that made a row's ID in that column (told by k: 1..ROWS
    came by INSERT ... SELECT, the next COPY_ROWS by COPY, the rest by the
    direct writes)."""
    copied = ROWS + COPY_ROWS
    if column == "c2":
        return f"CASE WHEN k <= {copied} THEN 'ADD COLUMN' ELSE 'direct' END"
    return (
        f"CASE WHEN k <= {ROWS} THEN 'INSERT ... SELECT' WHEN k <= {copied} THEN 'COPY'"
        " ELSE 'direct' END"
    )


@pytest.fixture(scope="module")
def collected(joined, direct) -> Cluster:
    """Every generated ID of every table, with the path that made it and
    where its default was evaluated (origin), collected on the coordinator,
    in text form (canonical: equal IDs, equal texts)."""
    c = joined.cluster
    c.sql(
        "coordinator",
        "CREATE TABLE collected (format text, source text, path text, origin int, id text)",
    )
    for name in FORMATS:
        for source, column, origin, table_name in (
            ("pk.id", "id", "origin", f"pk_{name}"),
            ("col.c", "c", "origin", f"col_{name}"),
            ("col.c2", "c2", "c2_origin", f"col_{name}"),
        ):
            c.sql(
                "coordinator",
                f"INSERT INTO collected SELECT '{name}', '{source}', {path_of(column)},"
                f" {origin}, {column}::text FROM {table_name}",
            )
    return c


def test_defaults_are_evaluated_where_expected(collected, figures):
    """INSERT ... SELECT, ADD COLUMN and the direct writes evaluated the
    defaults on both workers, COPY on the coordinator."""
    c = collected
    figures("where each path evaluated the defaults (rows of all formats):")
    for line in c.table(
        "coordinator",
        "SELECT path, string_agg(made_on || ' ' || rows, ', ' ORDER BY made_on) AS made_on"
        f" FROM (SELECT path, {c.server_case('origin')} AS made_on, count(*) AS rows"
        " FROM collected GROUP BY path, origin) p GROUP BY path ORDER BY path",
    ):
        figures(line)
    seen = set(c.sql("coordinator", "SELECT DISTINCT path, origin FROM collected"))
    w1, w2 = c.port("worker1"), c.port("worker2")
    expected = {
        (path, port) for path in ("INSERT ... SELECT", "ADD COLUMN", "direct") for port in (w1, w2)
    }
    expected.add(("COPY", c.port("coordinator")))
    assert seen == expected


def test_every_generated_id_is_distinct(collected, figures):
    """Per format: every generated ID distinct, per column and across the
    three columns."""
    c = collected
    made_on = c.server_case("origin")
    figures(
        "generated IDs per format: by column, by the server that made them, in all"
        " (rows - distinct = duplicates):"
    )
    for line in c.table(
        "coordinator",
        "SELECT format, coalesce(source, CASE WHEN origin IS NULL THEN 'all' END, '') AS source,"
        f" coalesce({made_on}, CASE WHEN source IS NULL THEN 'all' END, '') AS made_on,"
        " count(*) AS rows, count(DISTINCT id) AS distinct_ids,"
        " count(*) - count(DISTINCT id) AS duplicates"
        " FROM collected GROUP BY GROUPING SETS ((format, source), (format, origin), (format))"
        " ORDER BY format, grouping(source, origin), source, origin",
    ):
        figures(line)
    figures(
        "duplicated IDs, made on one server (several times) or on several;"
        " an example of each format:"
    )
    c.sql(
        "coordinator",
        "CREATE TABLE duplicated AS SELECT format, id, count(*) AS copies,"
        " count(DISTINCT origin) AS servers,"
        f" string_agg({made_on} || ' ' || source || ' ' || path, ', ' ORDER BY origin, source)"
        " AS made FROM collected GROUP BY format, id HAVING count(*) > 1",
    )
    for line in c.table(
        "coordinator",
        "SELECT format, count(*) AS duplicated_ids,"
        " count(*) FILTER (WHERE servers = 1) AS on_one_server,"
        " count(*) FILTER (WHERE servers > 1) AS across_servers, sum(copies) AS rows_involved,"
        " (array_agg(id || ': ' || made ORDER BY copies DESC, id))[1] AS example"
        " FROM duplicated GROUP BY format ORDER BY format",
    ):
        figures(line)
    counts = {
        name: (rows, distinct)
        for name, rows, distinct in c.sql(
            "coordinator",
            "SELECT format, count(*), count(DISTINCT id) FROM collected GROUP BY format",
        )
    }
    # format: (rows, distinct IDs), for a format without rows or with a repeated ID
    not_distinct = {
        name: (rows, ids)
        for name in FORMATS
        for rows, ids in [counts.get(name, (0, 0))]
        if rows == 0 or rows != ids
    }
    assert not not_distinct, not_distinct


# --- kuid64 ------------------------------------------------------------------------


@dataclass
class Kuid64:
    generate: dict  # server: what kuid64_generate() did
    insert_select: str  # what INSERT ... SELECT into pk_kuid64 did
    error: psycopg.Error | None
    rows: int


def try_kuid64(server: Server) -> str:
    """kuid64_generate() on ``server``: the error comes back as a NOTICE, so
    that the expected refusal leaves no ERROR line in the server's log."""
    notices = []
    with server.connect(DB) as conn:
        conn.add_notice_handler(lambda d: notices.append(d.message_primary))
        conn.execute("SET client_min_messages = notice")
        conn.execute(
            "DO $$ BEGIN PERFORM kuid64_generate(); RAISE NOTICE 'generated';"
            " EXCEPTION WHEN OTHERS THEN RAISE NOTICE 'refused: % %', SQLSTATE, SQLERRM; END $$"
        )
    return "; ".join(notices)


def describe(e: psycopg.Error) -> str:
    """An error as psql prints it with VERBOSITY verbose (but LOCATION)."""
    lines = [f"ERROR:  {e.sqlstate}: {e.diag.message_primary}"]
    for label, text in (
        ("DETAIL", e.diag.message_detail),
        ("HINT", e.diag.message_hint),
        ("CONTEXT", e.diag.context),
    ):
        if text:
            lines.append(f"{label}:  {text}")
    return " ".join(lines)


@pytest.fixture(scope="module")
def kuid64(joined, collected) -> Kuid64:
    """kuid64 (no node field) in the cluster: generating must be refused,
    on every server and in the defaults the workers evaluate."""
    c = joined.cluster
    c.sql(
        "coordinator",
        "CREATE TABLE pk_kuid64"
        " (id bigint PRIMARY KEY DEFAULT kuid64_generate(), k bigint NOT NULL)",
    )
    c.sql("coordinator", "SELECT create_distributed_table('pk_kuid64', 'id')")
    generate = {s: try_kuid64(c.servers[s]) for s in SERVERS}
    error = None
    try:
        c.sql("coordinator", "INSERT INTO pk_kuid64 (k) SELECT k FROM src_sno")
    except psycopg.Error as e:
        error = e
    rows = c.coord("SELECT count(*) FROM pk_kuid64")
    outcome = describe(error) if error else f"succeeded, {rows} rows"
    return Kuid64(generate, outcome, error, rows)


def test_kuid64_refused_on_every_server(kuid64, figures):
    """kuid64_generate() refused on every server, naming Citus."""
    for s, out in kuid64.generate.items():
        figures(f"  {s}: kuid64_generate(): {out}")
    not_refused = {
        s: out for s, out in kuid64.generate.items() if not re.match(r"refused: .*citus", out, re.I)
    }
    assert not not_refused, not_refused


def test_kuid64_insert_select_refused(kuid64, figures):
    """INSERT ... SELECT with DEFAULT kuid64_generate() refused, naming Citus
    (not a duplicate key)."""
    figures(f"  INSERT ... SELECT into pk_kuid64 (defaults on the workers): {kuid64.insert_select}")
    e = kuid64.error
    assert e is not None and re.search("citus", e.diag.message_primary or "", re.I), (
        kuid64.insert_select
    )
    assert e.sqlstate != "23505" and "23505" not in kuid64.insert_select, kuid64.insert_select
    assert kuid64.rows == 0


# --- the servers' logs ---------------------------------------------------------


def test_no_unique_violation_in_any_log(joined, kuid64, figures):
    """After every step: no unique_violation (23505) in any server's log."""
    servers = joined.cluster.servers
    for s in SERVERS:
        figures(f"{s}: server errors by SQLSTATE: {servers[s].errors_by_sqlstate()}")
    duplicates = [
        (s, message)
        for s in SERVERS
        for code, level, message in servers[s].log_errors()
        if code == "23505" and level == "ERROR"
    ]
    assert not duplicates, duplicates[:5]
