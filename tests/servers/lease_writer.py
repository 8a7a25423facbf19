"""An application process that makes its own IDs under a lease (pg_flake.lease)
and inserts them, for the multi-process lease tests (issue 23) and the nemesis.

    PYTHONPATH=python tests/servers/.venv/bin/python tests/servers/lease_writer.py \\
        --dsn 'host=… port=… dbname=…' --format sno --holder py-1 --ttl-ms 3000 \\
        --table ids_sno --seconds 20 [--threads N] [--fork N]

For ``--seconds`` it generates an ID and inserts it with
``INSERT INTO <table> (id, lease_id) VALUES (<id>::text::<type>, <lease_id>)``
(snowflake: bigint; siq: kind 'user'). stdout: one JSON line per lease taken,
``{"lease_id": …, "node": …, "process": …, "pid": …}``, flushed at once (so a
kill -9 leaves every line). On LeaseExpired it writes ``expired <lease_id>`` to
stderr and takes a new lease (never reuses the old one). Exit 0 after
releasing its lease at the end; 3 on a unique violation (a collision: the test
fails); 1 on anything else.

``--threads N`` (default 1): N threads share the process's one generator,
each inserting over a connection of its own (issue 36: a generator shared by
threads). ``--fork N`` (default 0): the generator is taken, then N children
are forked, each inheriting it: a child takes a lease of its own on its first
ID (it prints that lease's line) and runs N threads too; the parent waits for
its children and exits with the worst of their codes and its own.

``--ids FILE``: every ID made, with its lease, appended to FILE as a line
``<id> <lease_id>``, written before the insert, one write per line (threads
and forked children share the file): the nemesis's checker reads them
(tests/servers/nemesis).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time

import psycopg
from pg_flake.lease import LeasedGenerator, LeaseExpired, PsycopgLeases
from psycopg import errors

SQL_TYPE = {"sno": "sno", "siq": "siq", "kuid96": "kuid96", "snowflake": "bigint"}


def say(text: str) -> None:
    """A line on stderr in one write: processes and threads share it."""
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def connect(dsn: str, deadline: float) -> psycopg.Connection:
    """A connection, retried while the server restarts or fails over (up to the deadline)."""
    while True:
        try:
            return psycopg.connect(dsn, autocommit=True, connect_timeout=5)
        except psycopg.OperationalError:
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.2)


class Holder:
    """This process's generator, replaced by a new lease when it expires;
    shared by the process's threads."""

    def __init__(self, args: argparse.Namespace, deadline: float):
        self.args = args
        self.deadline = deadline
        # A connection factory: a forked child's generator connects anew.
        self.source = PsycopgLeases(connect=lambda: connect(args.dsn, deadline))
        self.lock = threading.Lock()
        self.printed: int | None = None
        # One write per line with O_APPEND: threads and children never mix
        # their lines, and a kill -9 loses none the database may have.
        self.ids = (
            os.open(args.ids, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644) if args.ids else None
        )
        self.gen = self.take()

    def take(self) -> LeasedGenerator | None:
        """A new lease; waits while every unit is held (53400) until the deadline."""
        args = self.args
        while True:
            try:
                gen = LeasedGenerator.take(
                    self.source, args.format, args.holder, args.ttl_ms / 1000
                )
            except errors.ProgramLimitExceeded:  # 53400: every unit held, wait for an expiry
                if time.monotonic() >= self.deadline:
                    return None
                time.sleep(0.1)
                continue
            except psycopg.OperationalError:
                self.source.conn = connect(args.dsn, self.deadline)
                continue
            self.note(gen)
            return gen

    def note(self, gen: LeasedGenerator) -> None:
        """Prints the lease's line once (a forked child's lease is taken on its first ID)."""
        lease = gen.lease
        if lease.lease_id == self.printed:
            return
        self.printed = lease.lease_id
        line = {
            "lease_id": lease.lease_id,
            "node": lease.node,
            "process": lease.process,
            "pid": os.getpid(),
        }
        print(json.dumps(line), flush=True)

    def after_expiry(self, gen: LeasedGenerator) -> LeasedGenerator | None:
        """The generator to use once ``gen`` expired: the next lease, taken once."""
        with self.lock:
            if self.gen is gen:
                say(f"expired {gen.lease.lease_id}")
                self.gen = self.take()
            return self.gen


def write(holder: Holder, codes: list[int], n: int) -> None:
    """One thread's loop: generate, insert; codes[n] is its exit code."""
    args, deadline = holder.args, holder.deadline
    insert = (
        f"INSERT INTO {args.table} (id, lease_id) VALUES (%s::text::{SQL_TYPE[args.format]}, %s)"
    )
    conn = connect(args.dsn, deadline)
    gen = holder.gen
    inserted = 0
    while gen is not None and time.monotonic() < deadline:
        try:
            value = gen.generate()
        except LeaseExpired:
            gen = holder.after_expiry(gen)
            continue
        except errors.ProgramLimitExceeded:  # a forked child's first lease: every unit held
            time.sleep(0.1)
            continue
        except psycopg.OperationalError:  # a forked child's first lease: the server is away
            time.sleep(0.2)
            continue
        lease_id = gen.lease.lease_id
        if lease_id != holder.printed:
            with holder.lock:
                holder.note(gen)
        if holder.ids is not None:
            os.write(holder.ids, f"{value} {lease_id}\n".encode())
        try:
            conn.execute(insert, (str(value), lease_id))
            inserted += 1
        except errors.UniqueViolation as error:
            say(f"duplicate {value} of lease {lease_id}: {error}")
            codes[n] = 3
            return
        except psycopg.OperationalError:
            # The server went away (restart, failover): that ID may or may not
            # be stored; the next one is new either way.
            conn = connect(args.dsn, deadline)
    say(f"inserted {inserted}")
    codes[n] = 0


def run(holder: Holder, threads: int) -> int:
    """The process's threads, then the release of its lease; the worst exit code."""
    codes = [1] * threads
    workers = [threading.Thread(target=write, args=(holder, codes, n)) for n in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    gen = holder.gen
    if gen is not None:
        try:
            gen.release()
        except psycopg.OperationalError as error:
            say(f"release of lease {gen.lease.lease_id} failed: {error}")
    return max(codes)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dsn", required=True)
    parser.add_argument("--format", required=True, choices=sorted(SQL_TYPE))
    parser.add_argument("--holder", required=True)
    parser.add_argument("--ttl-ms", type=int, required=True)
    parser.add_argument("--table", required=True)
    parser.add_argument("--seconds", type=float, required=True)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--fork", type=int, default=0)
    parser.add_argument("--ids", help="append every ID made, with its lease, to this file")
    args = parser.parse_args()

    deadline = time.monotonic() + args.seconds
    holder = Holder(args, deadline)
    children = []
    for _ in range(args.fork):
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                # The parent's connection stays the parent's: later leases
                # of this child go over one of its own.
                holder.source = holder.source.for_child() or holder.source
                code = run(holder, args.threads)
            finally:
                sys.stdout.flush()
                os._exit(code)
        children.append(pid)
    code = run(holder, args.threads)
    for pid in children:
        _, status = os.waitpid(pid, 0)
        code = max(code, os.waitstatus_to_exitcode(status))
    return code


if __name__ == "__main__":
    sys.exit(main())
