"""repmgr with pg_flake (docs/operations.md "repmgr"; issue 40): Debian 12's
repmgr 5.3 on PostgreSQL 15 (the module skips on the other versions).

A primary with pg_flake preloaded and ``pg_flake.node = 1`` registered with
``repmgr primary register``; a standby made by ``repmgr standby clone`` (a
pg_basebackup: the primary's settings) and registered; the primary makes it
synchronous. The standby refuses to generate (25006: its node is its
primary's). A writer inserts sno and Snowflake IDs through a multi-host
connection string while the primary is killed with SIGKILL; ``repmgr standby
promote`` promotes the standby, the writer goes on there, and the old
primary is cloned again from the new one (``repmgr standby clone --force``)
and registered as its standby, which refuses too. Every ID the writer saw
committed is distinct and on the new primary. Then a planned switchover back, with
repmgr's own steps (``repmgr standby switchover`` runs them over SSH, which
the test has not): node_b stopped cleanly, ``repmgr standby promote`` on
node_a, ``repmgr node rejoin`` of node_b; a second writer goes on across it,
and every ID of both writers is distinct and on node_a. ``repmgr node rejoin
--force-rewind`` after the kill is not run (the old primary's WAL runs past
the fork of the new timeline, and in this test pg_rewind through repmgr left
it there).
"""

from __future__ import annotations

import os
import subprocess
import time

import psycopg
import pytest
from components import DB, Writer, require_extension, skip_module, wait_until

from harness import PG_BIN, as_postgres, major_version

if major_version() != 15:
    skip_module("repmgr runs on PostgreSQL 15 (Debian 12's postgresql-15-repmgr) only")
REPMGR = require_extension("repmgr", {15: "postgresql-15-repmgr"})


def repmgr_conf(server, node_id: int) -> str:
    """The node's repmgr.conf, beside its data directory."""
    path = server.data.parent / f"{server.name}.repmgr.conf"
    path.write_text(
        f"node_id={node_id}\n"
        f"node_name='{server.name}'\n"
        f"conninfo='host=127.0.0.1 port={server.port} user=postgres dbname=repmgr"
        " connect_timeout=2'\n"
        f"data_directory='{server.data}'\n"
        f"pg_bindir='{PG_BIN}'\n"
        "use_replication_slots=yes\n"
    )
    subprocess.run(["chown", "postgres:postgres", str(path)], check=True)
    return str(path)


def repmgr(*args) -> str:
    done = as_postgres(PG_BIN / "repmgr", *args, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"repmgr {' '.join(map(str, args))}:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def test_repmgr_failover(servers, pg_major, figures):
    first, second = servers("node_a"), servers("node_b")
    first.init("pg_flake.node = 1", "wal_log_hints = on", "hot_standby = on")
    first.start()
    first.sql("CREATE DATABASE repmgr")
    first.create_database(DB)
    for fmt, kind, call in (
        ("sno", "sno", "sno_generate()"),
        ("snowflake", "bigint", "snowflake_generate()"),
    ):
        first.sql(f"CREATE TABLE ids_{fmt} (id {kind} PRIMARY KEY DEFAULT {call})", dbname=DB)
    first.value("SELECT sno_generate()", dbname=DB)
    conf_a, conf_b = repmgr_conf(first, 1), repmgr_conf(second, 2)
    repmgr("-f", conf_a, "primary", "register")

    second.make_data_directory()
    repmgr(
        "-h", "127.0.0.1", "-p", first.port, "-U", "postgres", "-d", "repmgr",
        "-f", conf_b, "standby", "clone", "--fast-checkpoint", "--force",
    )  # fmt: skip
    second.append_conf()  # its own port, after the primary's copied settings
    second.start()
    repmgr("-f", conf_b, "standby", "register")
    wait_until(
        lambda: first.value(
            "SELECT count(*) = 1 FROM pg_stat_replication WHERE state = 'streaming'"
        ),
        60,
        "node_b streaming",
    )
    first.sql("ALTER SYSTEM SET synchronous_standby_names = 'node_b'")
    first.sql("SELECT pg_reload_conf()")
    wait_until(
        lambda: first.value("SELECT sync_state = 'sync' FROM pg_stat_replication"),
        30,
        "node_b synchronous",
    )
    first.value("SELECT sno_generate(), snowflake_generate()", dbname=DB)
    wait_until(
        lambda: first.value("SELECT replay_lsn = sent_lsn FROM pg_stat_replication"), 30, "replay"
    )
    standby_of(first, second, "node_b streaming")

    writer = Writer(
        f"host=127.0.0.1,127.0.0.1 port={first.port},{second.port} user=postgres"
        f" dbname={DB} target_session_attrs=read-write"
    )
    writer.start()
    time.sleep(3)
    before = len(writer.committed["sno"])
    first.kill9()
    repmgr("-f", conf_b, "standby", "promote")
    wait_until(lambda: len(writer.committed["sno"]) > before + 200, 60, "writes on node_b")
    writer.stopping.set()
    writer.join()

    # The old primary comes back as a standby of the new one: cloned again
    # from it (repmgr standby clone --force over its data directory).
    repmgr(
        "-h", "127.0.0.1", "-p", second.port, "-U", "postgres", "-d", "repmgr",
        "-f", conf_a, "standby", "clone", "--fast-checkpoint", "--force",
    )  # fmt: skip
    first.append_conf()  # its own port again
    first.start()
    repmgr("-f", conf_a, "standby", "register", "--force")
    standby_of(second, first, "node_a rejoined")
    all_committed_on(second, writer)

    switched = switchover(first, second, conf_a, conf_b)
    cluster = repmgr("-f", conf_a, "cluster", "show", "--compact")
    all_committed_on(first, writer, switched)
    figures(
        f"PostgreSQL {pg_major}, repmgr {REPMGR}: primary killed after {before} sno IDs;"
        f" {len(writer.committed['sno'])} sno and {len(writer.committed['snowflake'])} snowflake"
        f" IDs committed, every one distinct and on node_b; {writer.errors} failed attempts;"
        " both standbys refused (25006)"
    )
    figures(
        f"switchover back to node_a (node_b stopped cleanly, node_a promoted, node_b rejoined):"
        f" {len(switched.committed['sno'])} sno and {len(switched.committed['snowflake'])}"
        f" snowflake IDs committed across it, every ID of both writers distinct and on node_a;"
        f" {switched.errors} failed attempts; node_b refused (25006)"
    )
    for line in cluster.splitlines():
        figures(line)
    for conf in (conf_a, conf_b):
        os.unlink(conf)


def switchover(first, second, conf_a, conf_b) -> Writer:
    """A planned switchover from node_b back to node_a with repmgr's own
    steps, as ``repmgr standby switchover`` runs them over SSH: the primary
    stopped cleanly (its last WAL, the shutdown checkpoint, reaches the
    standby), the standby promoted, the old primary rejoined as its standby
    (``repmgr node rejoin``: no rewind after a clean stop). A writer inserts
    throughout; the rejoined node refuses to generate (25006)."""
    writer = Writer(
        f"host=127.0.0.1,127.0.0.1 port={second.port},{first.port} user=postgres"
        f" dbname={DB} target_session_attrs=read-write"
    )
    writer.start()
    wait_until(lambda: len(writer.committed["sno"]) > 200, 60, "writes on node_b")
    wait_until(
        lambda: second.value("SELECT replay_lsn = sent_lsn FROM pg_stat_replication"), 30, "replay"
    )
    before = len(writer.committed["sno"])
    second.stop("fast")
    repmgr("-f", conf_a, "standby", "promote")
    wait_until(lambda: len(writer.committed["sno"]) > before + 200, 60, "writes on node_a")
    writer.stopping.set()
    writer.join()
    repmgr(
        "-f", conf_b, "node", "rejoin",
        "-d", f"host=127.0.0.1 port={first.port} user=postgres dbname=repmgr",
    )  # fmt: skip
    standby_of(first, second, "node_b rejoined")
    return writer


def standby_of(primary, standby, what: str) -> None:
    """``standby`` streams from ``primary`` and refuses to generate (25006:
    its node is its primary's)."""
    wait_until(
        lambda: primary.value(
            "SELECT count(*) = 1 FROM pg_stat_replication WHERE state = 'streaming'"
        ),
        60,
        what,
    )
    with pytest.raises(psycopg.Error) as refused:
        standby.sql("SELECT sno_generate()", dbname=DB)
    assert refused.value.sqlstate == "25006", refused.value


def all_committed_on(server, *writers: Writer) -> None:
    """Every ID the writers saw committed is distinct and on ``server``."""
    for fmt in writers[0].committed:
        ids = [i for writer in writers for i in writer.committed[fmt]]
        assert len(set(ids)) == len(ids), f"{fmt}: every committed ID distinct"
        stored = {row[0] for row in server.sql(f"SELECT id::text FROM ids_{fmt}", dbname=DB)}
        missing = set(ids) - stored
        assert not missing, f"{fmt}: committed IDs missing on {server.name}: {len(missing)}"
