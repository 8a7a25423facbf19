"""How many IDs one Python leased generator (pg_flake.lease) makes per second:
``lease_bench.py --dsn DSN --format F --seconds S`` prints ``{"ids": N, "seconds": T}``
(scripts/benchlib/measure_holders.py; PYTHONPATH=python, psycopg 3)."""

import argparse
import json
import time

import psycopg
from pg_flake.lease import LeasedGenerator

parser = argparse.ArgumentParser()
parser.add_argument("--dsn", required=True)
parser.add_argument("--format", required=True)
parser.add_argument("--seconds", type=float, required=True)
args = parser.parse_args()
conn = psycopg.connect(args.dsn, autocommit=True)
gen = LeasedGenerator.take(conn, args.format, "bench-python", 30)
generate = gen.generate
start = time.monotonic()
end = start + args.seconds
n = 0
while time.monotonic() < end:
    for _ in range(1024):
        generate()
    n += 1024
elapsed = time.monotonic() - start
gen.release()
print(json.dumps({"ids": n, "seconds": elapsed}))
