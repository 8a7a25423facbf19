"""An application process that makes its own IDs under a lease (pg_flake.lease)
and inserts them, for the multi-process lease tests (issue 23).

    PYTHONPATH=python tests/servers/.venv/bin/python tests/servers/lease_writer.py \\
        --dsn 'host=… port=… dbname=…' --format sno --holder py-1 --ttl-ms 3000 \\
        --table ids_sno --seconds 20

For ``--seconds`` it generates an ID and inserts it with
``INSERT INTO <table> (id, lease_id) VALUES (<id>::text::<type>, <lease_id>)``
(snowflake: bigint; siq: kind 'user'). stdout: one JSON line per lease taken,
``{"lease_id": …, "node": …, "process": …}``, flushed at once (so a kill -9
leaves every line). With ``--ids FILE`` it also appends ``<id> <lease_id>`` to
FILE for every ID it makes, written before the insert (the nemesis's checker
reads them: tests/servers/nemesis). On LeaseExpired it writes ``expired <lease_id>`` to stderr
and takes a new lease (never reuses the old one). Exit 0 after releasing its
lease at the end; 3 on a unique violation (a collision: the test fails);
1 on anything else.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import psycopg
from pg_flake.lease import LeasedGenerator, LeaseExpired, PsycopgLeases
from psycopg import errors

SQL_TYPE = {"sno": "sno", "siq": "siq", "kuid96": "kuid96", "snowflake": "bigint"}


def connect(dsn: str, deadline: float) -> psycopg.Connection:
    """A connection, retried while the server restarts or fails over (up to the deadline)."""
    while True:
        try:
            return psycopg.connect(dsn, autocommit=True, connect_timeout=5)
        except psycopg.OperationalError:
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.2)


def take(source: PsycopgLeases, args: argparse.Namespace, deadline: float):
    """A new lease; waits while every unit is held (53400) until the deadline."""
    while True:
        try:
            gen = LeasedGenerator.take(source, args.format, args.holder, args.ttl_ms / 1000)
        except errors.ProgramLimitExceeded:  # 53400: every unit held, wait for an expiry
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.1)
            continue
        except psycopg.OperationalError:
            source.conn = connect(args.dsn, deadline)
            continue
        lease = gen.lease
        line = {"lease_id": lease.lease_id, "node": lease.node, "process": lease.process}
        print(json.dumps(line), flush=True)
        return gen


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dsn", required=True)
    parser.add_argument("--format", required=True, choices=sorted(SQL_TYPE))
    parser.add_argument("--holder", required=True)
    parser.add_argument("--ttl-ms", type=int, required=True)
    parser.add_argument("--table", required=True)
    parser.add_argument("--seconds", type=float, required=True)
    parser.add_argument("--ids", help="append every ID made, with its lease, to this file")
    args = parser.parse_args()
    # Line-buffered: each ID reaches the file before its insert, so a kill -9
    # loses none the database may have.
    ids = open(args.ids, "a", buffering=1) if args.ids else None

    deadline = time.monotonic() + args.seconds
    source = PsycopgLeases(connect(args.dsn, deadline))
    insert = (
        f"INSERT INTO {args.table} (id, lease_id) VALUES (%s::text::{SQL_TYPE[args.format]}, %s)"
    )
    gen = take(source, args, deadline)
    inserted = 0
    while gen is not None and time.monotonic() < deadline:
        try:
            value = gen.generate()
        except LeaseExpired:
            print(f"expired {gen.lease.lease_id}", file=sys.stderr, flush=True)
            gen = take(source, args, deadline)
            continue
        except psycopg.OperationalError:  # a renewal lost the connection: reconnect
            source.conn = connect(args.dsn, deadline)
            continue
        if ids is not None:
            ids.write(f"{value} {gen.lease.lease_id}\n")
        try:
            source.conn.execute(insert, (str(value), gen.lease.lease_id))
            inserted += 1
        except errors.UniqueViolation as error:
            print(f"duplicate {value} of lease {gen.lease.lease_id}: {error}", file=sys.stderr)
            return 3
        except psycopg.OperationalError:
            # The server went away (restart, failover): that ID may or may not
            # be stored; the next one is new either way.
            source.conn = connect(args.dsn, deadline)
    if gen is not None:
        try:
            gen.release()
        except psycopg.OperationalError as error:
            print(f"release of lease {gen.lease.lease_id} failed: {error}", file=sys.stderr)
    print(f"inserted {inserted}", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
