"""pgbouncer in transaction mode in front of pg_flake (docs/operations.md
"pgbouncer"; issue 40): Debian's pgbouncer, a program of the machine, so
every version.

Two servers behind one pgbouncer (``pool_mode = transaction``, 3 server
connections per database): one without pg_flake preloaded (shared mode in
a DSM segment: pinned on 15 and 16, named from 17) and one preloaded
(shared mode). 8 clients each run 150 transactions through
pgbouncer, each generating one ID of every coordination-based format and
reading its backend's process ID. Checked, in both:

- every ID distinct (uniqueness never depends on the session);
- each client's transactions ran on more than one server backend (the
  pooler moves a client between them);
- in shared mode, each client's IDs strictly increase in the order of its
  transactions (one counter per format for the server); the figures count
  a client's steps back (an ID below its previous one), which only the
  per-backend generators of earlier versions made.
"""

from __future__ import annotations

import shutil
import subprocess
import threading
import time

import psycopg
import pytest
from components import DB, flake_server, program

from conftest import BASE_PORT
from harness import as_postgres

PGBOUNCER_PORT = BASE_PORT + 19
CLIENTS = 8
TRANSACTIONS = 150
# name: generator: the coordination-based formats (siq: of one kind), each
# ID in a form whose Python order is its sort order (a native type's bytes
# are in its sort order; the bigints as numbers).
GENERATORS = {
    "sno": "sno_generate()::bytea",
    "siq": "siq_generate('event')::bytea",
    "snowflake": "snowflake_generate()",
    "kuid64": "kuid64_generate()",
    "kuid96": "kuid96_generate()::bytea",
}


class Pgbouncer:
    """A pgbouncer run as the postgres user, on 127.0.0.1:PGBOUNCER_PORT, in
    ``directory`` (its configuration, log and pid file)."""

    def __init__(self, directory, databases: dict[str, int]):
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)
        self.config = directory / "pgbouncer.ini"
        (directory / "userlist.txt").write_text('"postgres" ""\n')
        lines = ["[databases]"]
        lines += [
            f"{name} = host=127.0.0.1 port={port} dbname={DB}" for name, port in databases.items()
        ]
        lines += [
            "[pgbouncer]",
            "listen_addr = 127.0.0.1",
            f"listen_port = {PGBOUNCER_PORT}",
            "unix_socket_dir =",
            "auth_type = trust",
            f"auth_file = {directory / 'userlist.txt'}",
            "pool_mode = transaction",
            "default_pool_size = 3",
            # The next transaction to the least recently used connection.
            "server_round_robin = 1",
            "max_client_conn = 100",
            f"logfile = {directory / 'pgbouncer.log'}",
            f"pidfile = {directory / 'pgbouncer.pid'}",
            "admin_users = postgres",
        ]
        self.config.write_text("\n".join(lines) + "\n")
        subprocess.run(["chown", "-R", "postgres:postgres", str(directory)], check=True)
        self.pid = None

    def start(self) -> None:
        as_postgres(program("pgbouncer"), "-d", self.config)
        deadline = time.time() + 10
        pidfile = self.directory / "pgbouncer.pid"
        while time.time() < deadline and not pidfile.exists():
            time.sleep(0.05)
        self.pid = int(pidfile.read_text().split()[0])

    def stop(self) -> None:
        if self.pid:
            subprocess.run(["kill", str(self.pid)], check=False)
            self.pid = None

    def log(self) -> str:
        path = self.directory / "pgbouncer.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def connect(self, dbname: str) -> psycopg.Connection:
        # No server-side prepared statements: a transaction pooler hands the
        # next statement to another backend.
        return psycopg.connect(
            host="127.0.0.1",
            port=PGBOUNCER_PORT,
            user="postgres",
            dbname=dbname,
            autocommit=True,
            prepare_threshold=None,
        )


@pytest.fixture
def pooled(servers, request):
    plain = flake_server(servers, "not_preloaded", preload=False)
    preloaded = flake_server(servers, "preloaded")
    # Beside the servers' data directories (readable by the postgres user).
    directory = plain.data.parent / "pgbouncer"
    bouncer = Pgbouncer(directory, {"not_preloaded": plain.port, "preloaded": preloaded.port})
    bouncer.start()
    yield bouncer, {"not_preloaded": plain, "preloaded": preloaded}
    bouncer.stop()
    if not getattr(request.node, "test_failed", False):
        shutil.rmtree(directory, ignore_errors=True)


def run_clients(bouncer, dbname: str) -> list[list[tuple]]:
    """Every client's transactions in order: (backend pid, ID of each format)."""
    select = ", ".join(GENERATORS.values())
    results: list[list[tuple]] = [[] for _ in range(CLIENTS)]
    errors: list[BaseException] = []

    def client(i: int) -> None:
        try:
            with bouncer.connect(dbname) as conn:
                for _ in range(TRANSACTIONS):
                    results[i].append(conn.execute(f"SELECT pg_backend_pid(), {select}").fetchone())
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(CLIENTS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [], f"clients failed: {errors[:3]}\n{bouncer.log()[-2000:]}"
    return results


def steps_back(ids: list) -> int:
    """How often an ID is not above the one before it."""
    return sum(1 for a, b in zip(ids, ids[1:]) if b <= a)


def test_transaction_pooling(pooled, pg_major, figures):
    bouncer, servers = pooled
    for dbname, server in servers.items():
        mode = server.value(
            "SELECT coalesce((SELECT mode FROM pg_flake_generator_state() LIMIT 1), 'none')"
            " FROM (SELECT sno_generate()) g",
            dbname=DB,
        )
        results = run_clients(bouncer, dbname)
        backends = [len({row[0] for row in rows}) for rows in results]
        back = {}
        for i, name in enumerate(GENERATORS, start=1):
            ids = [row[i] for rows in results for row in rows]
            assert len(set(ids)) == len(ids) == CLIENTS * TRANSACTIONS, (
                f"{dbname}: {name} IDs distinct"
            )
            back[name] = sum(steps_back([row[i] for row in rows]) for rows in results)
        figures(
            f"PostgreSQL {pg_major}, {dbname} server ({mode} mode): {CLIENTS} clients x"
            f" {TRANSACTIONS} transactions through pgbouncer (transaction pooling, 3 server"
            f" connections): backends per client {backends}; steps back per format {back};"
            " every ID distinct"
        )
        assert all(n > 1 for n in backends), "each client moved between server backends"
        if mode == "shared":
            assert all(n == 0 for n in back.values()), (
                f"{dbname}: each client's IDs increase: {back}"
            )
