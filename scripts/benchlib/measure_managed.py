"""pg_flake_sql, the edition for managed PostgreSQL (docs/managed.md), against
the native extension and PostgreSQL's own UUIDs (phase `managed`): the cost
of one ID, pgbench single-row inserts by DEFAULT, and a 1 M-row
INSERT … SELECT by DEFAULT into a primary key. One database holds the native
extension (schema `native`), the domain edition installed by its psql -f
file (schema `flake`) and, where pg_tle is preloaded, the pg_tle edition
(schema `tle`), so that every comparison runs on the same server. Every
comparison is interleaved: each round measures every candidate once, in the
same order, and the report takes medians and per-round ratios (the machine
may be shared)."""

import os
import subprocess
import sys

from benchlib.config import PG_BIN, PG_MAJOR, PORT, QUICK, ROOT
from benchlib.loadwatch import LoadWatch
from benchlib.results import load, log, save
from benchlib.server import pgbench, psql, timed

DB = "bench_managed"
INSTALL_FILE = os.path.join(ROOT, "managed", "dist", "pg_flake_sql.sql")
TLE_FILE = os.path.join(ROOT, "managed", "dist", "pg_flake_sql--pg_tle.sql")

N_GEN = 20_000 if QUICK else 200_000          # calls per generation query
GEN_ROUNDS = 2 if QUICK else 5
# One client (each insert's latency) and four (the two CPUs' throughput).
PGBENCH_CLIENTS = [1, 4]
PGBENCH_SECONDS = 2 if QUICK else 6
PGBENCH_ROUNDS = 1 if QUICK else 3
N_ROWS = 50_000 if QUICK else 1_000_000       # rows of the INSERT … SELECT
INSERT_ROUNDS = 1 if QUICK else 3

# The PL/pgSQL UUIDv7 function that circulates widely (a v4 UUID whose first
# 48 bits are overwritten with the Unix milliseconds, version bits set to 7).
UUIDV7_PLPGSQL = """
CREATE OR REPLACE FUNCTION public.uuid_generate_v7() RETURNS uuid
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    RETURN encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
               PLACING substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
               FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid;
END
$$;
"""

# (key, label, generator expression, column type, class, what it needs)
CANDIDATES = [
    ("uuid4", "gen_random_uuid()", "gen_random_uuid()", "uuid", "baseline", None),
    ("uuid7", "uuidv7() (PostgreSQL 18)", "uuidv7()", "uuid", "baseline", "uuidv7"),
    ("uuid7_plpgsql", "PL/pgSQL uuid_generate_v7()", "public.uuid_generate_v7()", "uuid", "baseline", None),
    ("native_sno", "native sno_generate()", "native.sno_generate()", "native.sno", "native", None),
    ("sql_sno", "pg_flake_sql sno_generate()", "flake.sno_generate()", "flake.sno", "edition", None),
    ("sql_siq", "pg_flake_sql siq_generate('message')", "flake.siq_generate('message')", "flake.siq",
     "edition", None),
    ("sql_snowflake", "pg_flake_sql snowflake_generate()", "flake.snowflake_generate()", "bigint",
     "edition", None),
    ("sql_kuid64", "pg_flake_sql kuid64_generate()", "flake.kuid64_generate()", "bigint", "edition", None),
    ("sql_kuid96", "pg_flake_sql kuid96_generate()", "flake.kuid96_generate()", "flake.kuid96",
     "edition", None),
    ("sql_flaxid", "pg_flake_sql flaxid_generate()", "flake.flaxid_generate()", "flake.flaxid",
     "edition", None),
    ("sql_distributed_id", "pg_flake_sql distributed_id_generate()", "flake.distributed_id_generate()",
     "flake.distributed_id", "edition", None),
    ("sql_distributed_id128", "pg_flake_sql distributed_id128_generate()",
     "flake.distributed_id128_generate()", "uuid", "edition", None),
    ("tle_sno", "pg_flake_sql (pg_tle) sno_generate()", "tle.sno_generate()", "tle.sno", "edition",
     "pg_tle"),
]
# pgbench's single-row inserts: the baselines, native sno and the edition's
# coordination-based formats, flaxid, and pg_tle's sno.
PGBENCH_KEYS = ["uuid4", "uuid7", "uuid7_plpgsql", "native_sno", "sql_sno", "sql_siq", "sql_snowflake",
                "sql_kuid64", "sql_kuid96", "sql_flaxid", "tle_sno"]
# The INSERT … SELECT: the same (the distributed_id generators' cost is in
# the generation table).
INSERT_KEYS = PGBENCH_KEYS


def psql_file(path, db, *settings):
    cmd = [f"{PG_BIN}/psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", PORT,
           "-U", "postgres", "-d", db]
    for setting in settings:
        cmd += ["-c", setting]
    r = subprocess.run(cmd + ["-f", path], check=False, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"bench: psql -f {path} failed:\n{r.stderr}")


def features():
    have = {"uuidv7": psql("SELECT to_regprocedure('uuidv7()') IS NOT NULL;", db="postgres").strip() == "t",
            "pg_tle": "pg_tle" in psql("SHOW shared_preload_libraries;", db="postgres")}
    return [f for f, ok in have.items() if ok]


def setup(have):
    psql(f"DROP DATABASE IF EXISTS {DB};\nCREATE DATABASE {DB};", db="postgres")
    psql("CREATE SCHEMA native;\nCREATE EXTENSION pg_flake SCHEMA native;\n" + UUIDV7_PLPGSQL, db=DB)
    psql_file(INSTALL_FILE, DB, "SET pg_flake_sql.schema = 'flake'")
    if "pg_tle" in have:
        psql("CREATE EXTENSION pg_tle;", db=DB)
        psql_file(TLE_FILE, DB)
        psql("CREATE SCHEMA tle;\nCREATE EXTENSION pg_flake_sql SCHEMA tle;", db=DB)


def generation_query(expr):
    return f"SELECT count({expr}) FROM generate_series(1, {N_GEN});"


def measure_generation(candidates):
    """ms per N_GEN calls, a fresh session each (1000 calls of warm-up first)."""
    rows = [("floor", "1")] + [(c[0], c[2]) for c in candidates]
    times = {key: [] for key, _ in rows}
    for rnd in range(GEN_ROUNDS):
        for key, expr in rows:
            ms = timed(generation_query(expr), setup=f"SELECT count({expr}) FROM generate_series(1, 1000);",
                       db=DB)
            times[key].append(ms)
            log(f"managed generation {rnd + 1}/{GEN_ROUNDS}: {key}: {ms:.0f} ms")
    return times


def measure_pgbench(candidates):
    """Transactions per second of `INSERT INTO t (n) VALUES (1)`, the key the
    DEFAULT and primary key, for each number of clients in PGBENCH_CLIENTS:
    {clients: {key: [tps per round]}}."""
    keys = [c[0] for c in candidates if c[0] in PGBENCH_KEYS]
    by_key = {c[0]: c for c in candidates}
    for key in keys:
        _, _, expr, column, _, _ = by_key[key]
        psql(f"DROP TABLE IF EXISTS pgb_{key};\n"
             f"CREATE TABLE pgb_{key} (id {column} PRIMARY KEY DEFAULT {expr}, n int NOT NULL);", db=DB)
    out = {str(c): {key: [] for key in keys} for c in PGBENCH_CLIENTS}
    for rnd in range(PGBENCH_ROUNDS):
        for clients in PGBENCH_CLIENTS:
            for key in keys:
                psql(f"TRUNCATE pgb_{key};\nCHECKPOINT;", db=DB)
                tps = pgbench(f"managed_insert_{key}.sql", f"INSERT INTO pgb_{key} (n) VALUES (1);\n",
                              clients, PGBENCH_SECONDS, db=DB)
                out[str(clients)][key].append(tps)
                log(f"managed pgbench {rnd + 1}/{PGBENCH_ROUNDS}, {clients} clients: {key}: {tps:.0f} TPS")
    return out


def measure_insert(candidates):
    """ms of INSERT … SELECT of N_ROWS rows into a fresh table keyed by the
    DEFAULT (primary key); a CHECKPOINT before each; sizes of the last."""
    candidates = [c for c in candidates if c[0] in INSERT_KEYS]
    out = {c[0]: {"ms": []} for c in candidates}
    for rnd in range(INSERT_ROUNDS):
        for key, label, expr, column, _, _ in candidates:
            psql(f"DROP TABLE IF EXISTS ins_{key};\n"
                 f"CREATE TABLE ins_{key} (id {column} PRIMARY KEY DEFAULT {expr}, n int NOT NULL);\n"
                 "CHECKPOINT;", db=DB)
            ms = timed(f"INSERT INTO ins_{key} (n) SELECT g FROM generate_series(1, {N_ROWS}) g;", db=DB)
            out[key]["ms"].append(ms)
            log(f"managed insert {rnd + 1}/{INSERT_ROUNDS}: {label}: {ms / 1000:.2f} s")
    for key, *_ in candidates:
        sizes = psql(f"SELECT pg_table_size('ins_{key}'), pg_indexes_size('ins_{key}'), count(*) FROM ins_{key};",
                     db=DB)
        table_bytes, index_bytes, rows = (int(x) for x in sizes.strip().split("|"))
        if rows != N_ROWS:
            sys.exit(f"bench: ins_{key} has {rows} rows, expected {N_ROWS}")
        out[key].update(table_bytes=table_bytes, index_bytes=index_bytes)
        psql(f"DROP TABLE ins_{key};", db=DB)
    return out


def phase_managed():
    results = load()
    results.setdefault("pg_major", PG_MAJOR)
    results.setdefault("quick", QUICK)
    have = features()
    candidates = [c for c in CANDIDATES if c[5] is None or c[5] in have]
    watch = LoadWatch()
    setup(have)
    managed = {"quick": QUICK, "features": have, "candidates": [list(c) for c in candidates], "n_gen": N_GEN,
               "n_rows": N_ROWS, "pgbench": {"clients": PGBENCH_CLIENTS, "seconds": PGBENCH_SECONDS},
               "version": psql("SELECT version();", db="postgres").strip()}
    log("pg_flake_sql: generation cost")
    with watch.section("managed_generation"):
        managed["generation"] = measure_generation(candidates)
    results["managed"] = managed
    save(results)
    log("pg_flake_sql: pgbench single-row inserts")
    with watch.section("managed_pgbench"):
        managed["pgbench_tps"] = measure_pgbench(candidates)
    save(results)
    log("pg_flake_sql: INSERT … SELECT")
    with watch.section("managed_insert"):
        managed["insert"] = measure_insert(candidates)
    managed["load"] = watch.summary()
    save(results)
    psql(f"DROP DATABASE {DB};", db="postgres")
