"""pg_auto_failover with pg_flake (docs/operations.md "pg_auto_failover"; issue
40): Debian's pg_auto_failover 2 (pg_autoctl, and the monitor's extension for
the version under test).

A monitor and a formation of two nodes on loopback. The first node's data
directory is made with pg_flake preloaded and ``pg_flake.node = 1``; the
secondary is its base backup (pg_autoctl's), so it has the same settings, as
every node of a formation made this way. A writer inserts sno and snowflake
IDs through the formation's multi-host connection string
(``target_session_attrs=read-write``) while the primary's pg_autoctl and
Postgres are killed with SIGKILL: the monitor promotes the secondary, the
writer goes on there, and the old primary's pg_autoctl, started again,
rejoins it as a secondary. Checked: the secondary refuses to generate while
a standby (25006: its node is its primary's), every ID the writer saw
committed is distinct and on the new primary (0 IDs reissued: the promoted
node continues above the marks it replayed, with synchronous replication,
which pg_auto_failover sets up), and the rejoined old primary refuses too.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time

import psycopg
import pytest
from components import DB, Writer, require_extension, wait_until

from harness import PG_BIN, Server, as_postgres

PGAF = require_extension(
    "pgautofailover", {15: "postgresql-15-auto-failover", 17: "postgresql-17-auto-failover"}
)
# The monitor decides quickly (the defaults take about 30 s to fail over).
FAST_MONITOR = {
    "pgautofailover.health_check_period": "1000",
    "pgautofailover.health_check_timeout": "1000",
    "pgautofailover.health_check_max_retries": "1",
    "pgautofailover.health_check_retry_delay": "500",
    "pgautofailover.node_considered_unhealthy_timeout": "3000",
    "pgautofailover.primary_demote_timeout": "5000",
}


def pg_autoctl_program() -> str:
    for candidate in (PG_BIN / "pg_autoctl", "/usr/bin/pg_autoctl"):
        if os.access(candidate, os.X_OK):
            return str(candidate)
    pytest.fail("pg_autoctl is not installed: scripts/ecosystem-prereqs.sh installs it")


class Autoctl:
    """pg_autoctl as the postgres user, its configuration and state in
    ``home`` (XDG directories), each node's service in a session of its own."""

    def __init__(self, home):
        # A run stopped midway leaves its nodes' configuration and state here,
        # which pg_autoctl create then takes up instead of making the node
        # afresh (a second run on the same machine waited for node_b in vain).
        shutil.rmtree(home, ignore_errors=True)
        home.mkdir(parents=True, exist_ok=True)
        subprocess.run(["chown", "postgres:postgres", str(home)], check=True)
        self.home = home
        self.env = {
            "XDG_CONFIG_HOME": str(home / "config"),
            "XDG_DATA_HOME": str(home / "data"),
            "XDG_RUNTIME_DIR": str(home / "run"),
            "PG_CONFIG": str(PG_BIN / "pg_config"),
            "PATH": f"{PG_BIN}:/usr/bin:/bin",
        }
        self.runs: dict[str, subprocess.Popen] = {}

    def __call__(self, *args) -> str:
        done = as_postgres(pg_autoctl_program(), *args, env=self.env, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"pg_autoctl {' '.join(map(str, args))}:\n{done.stderr[-3000:]}")
        return done.stdout

    def start(self, name: str, *args) -> None:
        """A pg_autoctl command that runs a node's service (``--run``, ``run``)."""
        command = ["runuser", "-u", "postgres", "--", "env"]
        command += [f"{k}={v}" for k, v in self.env.items()]
        command += [pg_autoctl_program(), *map(str, args)]
        log = open(self.home / f"{name}.log", "a")
        self.runs[name] = subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )

    def kill(self, name: str) -> None:
        run = self.runs.pop(name)
        os.killpg(run.pid, signal.SIGKILL)
        run.wait()

    def stop_all(self) -> None:
        for run in self.runs.values():
            try:
                os.killpg(run.pid, signal.SIGTERM)
                run.wait(timeout=30)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                os.killpg(run.pid, signal.SIGKILL)
        self.runs.clear()

    def log(self, name: str) -> str:
        path = self.home / f"{name}.log"
        return path.read_text(errors="replace")[-3000:] if path.exists() else ""


def test_formation_failover(servers, pg_major, figures):
    monitor, first, second = (servers(name) for name in ("monitor", "node_a", "node_b"))
    autoctl = Autoctl(first.data.parent / "autoctl")
    pgctl = PG_BIN / "pg_ctl"

    def nudge(server) -> None:
        """pg_autoctl's pg_basebackup of the primary waits for a spread
        checkpoint (minutes): a CHECKPOINT there ends it at once."""
        if server is second:
            first.sql("CHECKPOINT")

    passed = False
    monitor.make_data_directory()
    second.make_data_directory()
    # pg_autoctl makes a node's backup directory beside its data directory.
    subprocess.run(["chown", "postgres:postgres", str(first.data.parent)], check=True)
    try:
        autoctl.start(
            "monitor", "create", "monitor", "--pgdata", monitor.data, "--pgport", monitor.port,
            "--hostname", "127.0.0.1", "--auth", "trust", "--no-ssl", "--pgctl", pgctl, "--run",
        )  # fmt: skip
        wait_until(
            lambda: monitor.value(
                "SELECT count(*) FROM pg_extension WHERE extname = 'pgautofailover'",
                dbname="pg_auto_failover",
            ),
            60,
            f"the monitor:\n{autoctl.log('monitor')}",
        )
        for name, value in FAST_MONITOR.items():
            monitor.sql(f"ALTER SYSTEM SET {name} = {value}")
        monitor.sql("SELECT pg_reload_conf()")
        uri = f"postgres://autoctl_node@127.0.0.1:{monitor.port}/pg_auto_failover?sslmode=disable"

        # The first node: pg_flake preloaded, its node, a Unix socket for pg_autoctl.
        first.init("pg_flake.node = 1", "unix_socket_directories = '/var/run/postgresql'")
        for server, name in ((first, "node_a"), (second, "node_b")):
            autoctl.start(
                name, "create", "postgres", "--pgdata", server.data, "--pgport", server.port,
                "--hostname", "127.0.0.1", "--name", name, "--auth", "trust", "--no-ssl",
                "--pgctl", pgctl, "--monitor", uri, "--run",
            )  # fmt: skip
            wait_until(
                lambda s=server: (nudge(s), s.value("SELECT pg_is_in_recovery() IS NOT NULL"))[1],
                120,
                f"{name}:\n{autoctl.log(name)}",
            )
            if server is first:
                wait_until(
                    lambda: not first.value("SELECT pg_is_in_recovery()"), 60, "node_a primary"
                )
                first.create_database(DB)
                for fmt, kind, call in (
                    ("sno", "sno", "sno_generate()"),
                    ("snowflake", "bigint", "snowflake_generate()"),
                ):
                    first.sql(
                        f"CREATE TABLE ids_{fmt} (id {kind} PRIMARY KEY DEFAULT {call})", dbname=DB
                    )
        wait_until(
            lambda: first.value(
                "SELECT count(*) = 1 FROM pg_stat_replication WHERE state = 'streaming'"
            ),
            120,
            f"node_b streaming:\n{autoctl.log('node_b')}",
        )
        # The monitor makes the secondary synchronous once it has caught up.
        wait_until(
            lambda: first.value("SHOW synchronous_standby_names") != "",
            120,
            f"synchronous replication:\n{autoctl.log('node_a')}",
        )
        sync = first.value("SHOW synchronous_standby_names")
        settings = second.sql(
            "SELECT current_setting('shared_preload_libraries'), current_setting('pg_flake.node')"
        )[0]
        with pytest.raises(psycopg.Error) as refused:
            second.sql("SELECT sno_generate()", dbname=DB)
        assert refused.value.sqlstate == "25006", refused.value

        conninfo = (
            f"host=127.0.0.1,127.0.0.1 port={first.port},{second.port} user=postgres"
            f" dbname={DB} target_session_attrs=read-write"
        )
        writer = Writer(conninfo)
        writer.start()
        time.sleep(3)
        before = len(writer.committed["sno"])
        killed = time.time()
        autoctl.kill("node_a")
        if first.running():
            first.kill9()
        wait_until(
            lambda: second.value("SELECT NOT pg_is_in_recovery()"),
            90,
            f"node_b promoted:\n{autoctl.log('node_b')}",
        )
        promoted = time.time() - killed
        wait_until(lambda: len(writer.committed["sno"]) > before + 200, 60, "writes on node_b")
        writer.stopping.set()
        writer.join()

        # The old primary rejoins as a secondary of node_b.
        autoctl.start("node_a", "run", "--pgdata", first.data)
        wait_until(
            lambda: second.value(
                "SELECT count(*) = 1 FROM pg_stat_replication WHERE state = 'streaming'"
            ),
            180,
            f"node_a rejoined:\n{autoctl.log('node_a')}",
        )
        # Streaming is seen on node_b before pg_autoctl is done with node_a:
        # it may still restart that server (CI saw "connection refused" here),
        # so the refusal is asked for once node_a answers as a standby.
        wait_until(lambda: first.value("SELECT pg_is_in_recovery()"), 120, "node_a a standby")
        refusal = {}

        def refused_on_old() -> bool:
            try:
                first.sql("SELECT sno_generate()", dbname=DB)
            except psycopg.OperationalError as error:
                if error.sqlstate is None:  # not connected: restarting
                    return False
                refusal["error"] = error
            except psycopg.Error as error:
                refusal["error"] = error
            return True

        wait_until(refused_on_old, 60, "node_a reachable")
        assert refusal, "the old primary, now a standby, generated an sno"
        assert refusal["error"].sqlstate == "25006", refusal["error"]

        for fmt, ids in writer.committed.items():
            assert len(set(ids)) == len(ids), f"{fmt}: every committed ID distinct"
            stored = {row[0] for row in second.sql(f"SELECT id::text FROM ids_{fmt}", dbname=DB)}
            missing = set(ids) - stored
            assert not missing, f"{fmt}: committed IDs missing on the new primary: {len(missing)}"
        figures(
            f"PostgreSQL {pg_major}, pg_auto_failover {PGAF}: synchronous_standby_names"
            f" {sync!r}; secondary's shared_preload_libraries, pg_flake.node {settings};"
            f" primary killed after {before} sno IDs, node_b promoted in {promoted:.1f} s;"
            f" {len(writer.committed['sno'])} sno and {len(writer.committed['snowflake'])}"
            f" snowflake IDs committed, every one distinct and on node_b; {writer.errors}"
            " failed attempts during the failover; both standbys refused (25006)"
        )
        passed = True
    finally:
        autoctl.stop_all()
        for server in (first, second, monitor):
            Server.stop(server, mode="immediate", check=False)
        if passed:
            # What pg_autoctl made beside the data directories (the servers'
            # fixture removes those).
            shutil.rmtree(autoctl.home, ignore_errors=True)
            shutil.rmtree(first.data.parent / "backup", ignore_errors=True)
