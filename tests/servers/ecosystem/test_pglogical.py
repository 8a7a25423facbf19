"""pglogical replication of tables keyed by pg_flake's IDs (docs/operations.md
"Logical replication"; issue 40): Debian's pglogical 2 on PostgreSQL 15 and
17 (no package for the PyPI builds of 16 and 18: the module skips there).

A provider with a table per format (the native types, snowflake and kuid64
as bigint, distributed_id128 as uuid) and rows made before the
subscription; a subscriber node with the same tables subscribes to the
default replication set: the initial copy, then inserts, updates and
deletes that stream, found on the subscriber by the ID key. Both end with
exactly the same rows.
"""

from __future__ import annotations

from components import DB, TIME_FORMATS, digest, flake_server, require_extension, wait_until

PGLOGICAL = require_extension(
    "pglogical", {15: "postgresql-15-pglogical", 17: "postgresql-17-pglogical"}
)
TABLES = {name: (kind, generate) for name, (kind, generate, _) in TIME_FORMATS.items()}
ROWS = 300
CONF = (
    "wal_level = logical",
    "track_commit_timestamp = on",
    "shared_preload_libraries = 'pglogical,pg_flake'",
)


def dsn(server) -> str:
    return f"host=127.0.0.1 port={server.port} dbname={DB} user=postgres"


def test_every_type(servers, pg_major, figures):
    provider = flake_server(servers, "provider", *CONF)
    subscriber = flake_server(servers, "subscriber", *CONF)
    # Debian's 15.20 and 17.12 let a walsender load only the output plugins
    # that output_plugin_libraries names (pgoutput and test_decoding by
    # default): the provider's must name pglogical's.
    if provider.value("SELECT count(*) FROM pg_settings WHERE name = 'output_plugin_libraries'"):
        plugins = provider.value("SELECT current_setting('output_plugin_libraries')")
        names = [*(p.strip() for p in plugins.split(",") if p.strip()), "pglogical_output"]
        provider.sql(
            "ALTER SYSTEM SET output_plugin_libraries = " + ", ".join(f"'{n}'" for n in names)
        )
        provider.sql("SELECT pg_reload_conf()")
    for server in (provider, subscriber):
        server.sql("CREATE EXTENSION pglogical", dbname=DB)
        for name, (kind, generate) in TABLES.items():
            server.sql(
                f"CREATE TABLE r_{name} (id {kind} PRIMARY KEY DEFAULT {generate}, v int NOT NULL)",
                dbname=DB,
            )
        server.sql(
            "SELECT pglogical.create_node(node_name := %s, dsn := %s)",
            (server.name, dsn(server)),
            dbname=DB,
        )
    for name in TABLES:
        provider.sql(
            f"INSERT INTO r_{name} (v) SELECT g FROM generate_series(1, {ROWS}) g", dbname=DB
        )
    # The application's tables only: replication_set_add_all_tables('default',
    # ARRAY['public']) would take pg_flake's own tables in public too (the
    # lease state, a row per server), whose copy fails on the subscriber's.
    for name in TABLES:
        provider.sql(
            f"SELECT pglogical.replication_set_add_table('default', 'r_{name}')", dbname=DB
        )
    subscriber.sql(
        "SELECT pglogical.create_subscription(subscription_name := 'ids', provider_dsn := %s)",
        (dsn(provider),),
        dbname=DB,
    )
    wait_until(
        lambda: subscriber.value(
            "SELECT status = 'replicating' FROM pglogical.show_subscription_status('ids')",
            dbname=DB,
        ),
        what="the subscription replicating",
    )
    expected = {name: digest(provider, f"r_{name}") for name in TABLES}
    wait_until(
        lambda: all(digest(subscriber, f"r_{n}") == expected[n] for n in TABLES),
        what="the initial copy",
    )
    for name in TABLES:
        provider.sql(
            f"INSERT INTO r_{name} (v) SELECT g FROM generate_series(1, {ROWS}) g", dbname=DB
        )
        provider.sql(f"UPDATE r_{name} SET v = v + 1000 WHERE v % 3 = 0", dbname=DB)
        provider.sql(f"DELETE FROM r_{name} WHERE v % 5 = 0", dbname=DB)
    expected = {name: digest(provider, f"r_{name}") for name in TABLES}
    wait_until(
        lambda: all(digest(subscriber, f"r_{n}") == expected[n] for n in TABLES),
        what="the streamed changes",
    )
    figures(
        f"PostgreSQL {pg_major}, pglogical {PGLOGICAL}: {len(TABLES)} tables, {ROWS} rows copied,"
        f" {ROWS} inserted, a third updated, a fifth deleted: the same rows on the subscriber"
    )
    assert subscriber.unexpected_log_errors() == []
