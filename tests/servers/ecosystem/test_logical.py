"""Built-in logical replication of tables keyed by pg_flake's IDs
(docs/operations.md "Logical replication"; issue 40), every version.

- **Every type**, one table per format keyed by its ID (the native types,
  and snowflake and kuid64 as bigint, distributed_id128 as uuid): rows made
  before the subscription (the initial copy), then inserts, updates and
  deletes that stream; two subscriber databases, one subscribing with
  ``binary = false`` (the types' text form) and one with ``binary = true``
  (their send/recv form; on 16+ the initial copy is binary too): both end
  with exactly the publisher's rows.
- **Bidirectional** (16+: ``origin = none``), two servers generating into
  one table each way. With different ``pg_flake.node`` settings every ID is
  distinct and both servers end with every row. With the default node on
  both (the same, 0; nothing in pg_flake tells them apart) they issue the
  same IDs when their clocks and marks meet: here both marks are set to one
  instant 10 s ahead, so both generate the same logical times, and the
  apply workers stop on the duplicate key (23505; ``disable_on_error``
  disables the subscriptions). The signal before that (0.4.0):
  ``pg_flake_node()``'s ``problem`` names it on both servers, for each
  format on the default node, from the moment the database both publishes
  and subscribes; it stays NULL with distinct nodes, and on a publisher or
  subscriber alone.
"""

from __future__ import annotations

import datetime

import pytest
from components import DB, TIME_FORMATS, digest, flake_server, wait_until

# name: (column type, generator).
TABLES = {name: (kind, generate) for name, (kind, generate, _) in TIME_FORMATS.items()}
ROWS = 300


def test_every_type_copied_and_streamed(servers, pg_major, figures):
    publisher = flake_server(servers, "publisher", "wal_level = logical")
    subscriber = flake_server(servers, "subscriber")
    for name, (kind, generate) in TABLES.items():
        publisher.sql(
            f"CREATE TABLE r_{name} (id {kind} PRIMARY KEY DEFAULT {generate}, v int NOT NULL)",
            dbname=DB,
        )
        publisher.sql(
            f"INSERT INTO r_{name} (v) SELECT g FROM generate_series(1, {ROWS}) g", dbname=DB
        )
    tables = ", ".join(f"r_{name}" for name in TABLES)
    publisher.sql(f"CREATE PUBLICATION every_type FOR TABLE {tables}", dbname=DB)
    for binary in ("false", "true"):
        dbname = f"sub_binary_{binary}"
        subscriber.create_database(dbname)
        for name, (kind, _) in TABLES.items():
            subscriber.sql(
                f"CREATE TABLE r_{name} (id {kind} PRIMARY KEY, v int NOT NULL)", dbname=dbname
            )
        subscriber.sql(
            f"""CREATE SUBSCRIPTION s_{binary}
                CONNECTION 'host=127.0.0.1 port={publisher.port} user=postgres dbname={DB}'
                PUBLICATION every_type WITH (binary = {binary})""",
            dbname=dbname,
        )

    def synced(dbname: str) -> bool:
        return subscriber.value(
            "SELECT count(*) = %s AND bool_and(srsubstate = 'r') FROM pg_subscription_rel",
            (len(TABLES),),
            dbname=dbname,
        )

    for binary in ("false", "true"):
        wait_until(
            lambda b=binary: synced(f"sub_binary_{b}"), what=f"initial copy, binary = {binary}"
        )
    for name in TABLES:
        expected = digest(publisher, f"r_{name}")
        for binary in ("false", "true"):
            got = digest(subscriber, f"r_{name}", f"sub_binary_{binary}")
            assert got == expected, f"r_{name}, binary = {binary}: the initial copy has the rows"

    # Streaming: new rows, updates and deletes found by the ID key.
    for name in TABLES:
        publisher.sql(
            f"INSERT INTO r_{name} (v) SELECT g FROM generate_series(1, {ROWS}) g", dbname=DB
        )
        publisher.sql(f"UPDATE r_{name} SET v = v + 1000 WHERE v % 3 = 0", dbname=DB)
        publisher.sql(f"DELETE FROM r_{name} WHERE v % 5 = 0", dbname=DB)
    expected = {name: digest(publisher, f"r_{name}") for name in TABLES}
    for binary in ("false", "true"):
        dbname = f"sub_binary_{binary}"
        wait_until(
            lambda d=dbname: all(digest(subscriber, f"r_{n}", d) == expected[n] for n in TABLES),
            what=f"streamed changes, binary = {binary}",
        )
    # One way only, on the default node: a publisher, and subscribers that
    # only receive, report no problem (pg_flake_node()).
    for server, dbname in ((publisher, DB), (subscriber, "sub_binary_false")):
        problems = server.value(
            "SELECT count(*) FROM pg_flake_node() WHERE problem IS NOT NULL", dbname=dbname
        )
        assert problems == 0, (server.name, dbname)
    figures(
        f"PostgreSQL {pg_major}: {len(TABLES)} tables ({', '.join(TABLES)}), {ROWS} rows copied,"
        f" {ROWS} inserted, a third updated, a fifth deleted, the same on both subscribers"
        " (binary = false, true)"
    )
    assert subscriber.unexpected_log_errors() == []


def bidirectional(servers, conf_a: tuple, conf_b: tuple, enabled: bool = True):
    """Two servers, each publishing its tables ``ids_*`` and subscribing to
    the other's with origin = none (only changes made there travel); the
    subscriptions enabled or not."""
    pair = [
        flake_server(servers, name, "wal_level = logical", *conf)
        for name, conf in (("east", conf_a), ("west", conf_b))
    ]
    for server in pair:
        for name in ("sno", "snowflake"):
            kind, generate = TABLES[name]
            server.sql(
                f"CREATE TABLE ids_{name} (id {kind} PRIMARY KEY DEFAULT {generate},"
                f" origin int NOT NULL DEFAULT current_setting('port')::int)",
                dbname=DB,
            )
        server.sql("CREATE PUBLICATION ids FOR TABLE ids_sno, ids_snowflake", dbname=DB)
    for server, other in ((pair[0], pair[1]), (pair[1], pair[0])):
        server.sql(
            f"""CREATE SUBSCRIPTION from_{other.name}
                CONNECTION 'host=127.0.0.1 port={other.port} user=postgres dbname={DB}'
                PUBLICATION ids WITH (origin = none, copy_data = false, disable_on_error = true,
                                      enabled = {str(enabled).lower()})""",
            dbname=DB,
        )
    for server in pair if enabled else ():
        wait_until(
            lambda s=server: s.value(
                "SELECT count(*) = 1 FROM pg_stat_subscription WHERE pid IS NOT NULL", dbname=DB
            ),
            what=f"{server.name}: apply worker running",
        )
    return pair


def generate_on_both(pair, rows: int) -> None:
    for server in pair:
        for name in ("sno", "snowflake"):
            server.sql(f"INSERT INTO ids_{name} SELECT FROM generate_series(1, {rows})", dbname=DB)


def test_bidirectional_distinct_nodes(servers, pg_major, figures):
    if pg_major < 16:
        pytest.skip("test-ecosystem: skipped: origin = none (bidirectional) needs PostgreSQL 16")
    pair = bidirectional(servers, ("pg_flake.node = 1",), ("pg_flake.node = 2",))
    for server in pair:
        problems = server.sql(
            "SELECT format, problem FROM pg_flake_node() WHERE problem IS NOT NULL", dbname=DB
        )
        assert problems == [], (server.name, problems)
    generate_on_both(pair, 2000)
    for name in ("sno", "snowflake"):
        wait_until(
            lambda n=name: all(
                s.value(f"SELECT count(*) FROM ids_{n}", dbname=DB) == 4000 for s in pair
            ),
            what=f"ids_{name}: every row on both",
        )
        assert digest_ids(pair[0], name) == digest_ids(pair[1], name)
    for server in pair:
        assert server.unexpected_log_errors() == [], server.name
    figures(
        f"PostgreSQL {pg_major}: nodes 1 and 2, 2000 sno and snowflake IDs each way: 4000 on both"
    )


def digest_ids(server, name: str) -> tuple:
    return server.sql(
        f"SELECT count(*), md5(string_agg(id::text || ':' || origin, ',' ORDER BY id))"
        f" FROM ids_{name}",
        dbname=DB,
    )[0]


def test_bidirectional_same_node(servers, pg_major, figures):
    if pg_major < 16:
        pytest.skip("test-ecosystem: skipped: origin = none (bidirectional) needs PostgreSQL 16")
    pair = bidirectional(servers, (), (), enabled=False)
    for server in pair:
        rows = server.sql(
            "SELECT format, node, source, problem FROM pg_flake_node()"
            " WHERE format IN ('sno', 'snowflake')",
            dbname=DB,
        )
        assert [row[:3] for row in rows] == [("sno", 0, "default"), ("snowflake", 0, "default")]
        assert all(
            "subscribes and publishes" in (problem or "") and "pg_flake.node" in problem
            for *_, problem in rows
        ), rows
        # In another database of the server, which neither publishes nor
        # subscribes: no problem.
        server.create_database("elsewhere")
        problems = server.value(
            "SELECT count(*) FROM pg_flake_node() WHERE problem IS NOT NULL", dbname="elsewhere"
        )
        assert problems == 0, server.name
    figures(f"PostgreSQL {pg_major}: pg_flake_node() on the default node: {rows[0][3]}")
    ahead = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=10)
    for server in pair:
        for name in ("sno", "snowflake"):
            server.sql("SELECT pg_flake_set_mark(%s, %s)", (name, ahead), dbname=DB)
    generate_on_both(pair, 100)
    same = set(
        pair[0].sql("SELECT id::text FROM ids_sno WHERE origin = %s", (pair[0].port,), dbname=DB)
    )
    same &= set(
        pair[1].sql("SELECT id::text FROM ids_sno WHERE origin = %s", (pair[1].port,), dbname=DB)
    )
    figures(
        f"PostgreSQL {pg_major}: both on node 0, marks at one instant:"
        f" {len(same)} of 100 sno IDs the same"
    )
    assert len(same) > 0, "the same IDs on both servers"
    # Generated on both before either replicates: then the subscriptions start.
    for server, other in ((pair[0], pair[1]), (pair[1], pair[0])):
        server.sql(f"ALTER SUBSCRIPTION from_{other.name} ENABLE", dbname=DB)
    for server in pair:
        wait_until(
            lambda s=server: s.value(
                "SELECT count(*) > 0 FROM pg_subscription WHERE NOT subenabled", dbname=DB
            ),
            what=f"{server.name}: the subscription disabled on a duplicate key",
        )
        states = {state for state, _, _ in server.log_errors()}
        assert "23505" in states, server.log_tail()
