"""The server suites (phases `backend` and `shared`): generation cost, bulk
insert, sort, lookups and concurrent generation, into results.json."""

import re
import sys

from benchlib.config import (
    CONC_CLIENTS,
    CONC_ROUNDS,
    CONC_SECONDS,
    GEN_REPS,
    GENERATORS,
    INSERT_REPS,
    KEYED,
    LOOKUP_CLIENTS,
    LOOKUP_KEYS,
    LOOKUP_ROUNDS,
    LOOKUP_SECONDS,
    N_GEN,
    N_ROWS,
    PG_MAJOR,
    QUICK,
    SHARED_GENERATORS,
    SHARED_TABLES,
    SORT_REPS,
    SORT_SEED,
    SORT_WORK_MEM,
    TABLE,
    TABLES,
    concurrent_generators,
    lookup_script,
    restrict_to,
)
from benchlib.loadwatch import LoadWatch
from benchlib.results import load, log, save
from benchlib.server import pgbench, psql, timed


def detect_features():
    row = psql("SELECT to_regprocedure('uuidv7()') IS NOT NULL, "
               "EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'uuid-ossp');", db="postgres")
    uuidv7, ossp = row.strip().split("|")
    return [f for f, have in (("uuidv7", uuidv7), ("uuid-ossp", ossp)) if have == "t"]


def setup_database():
    if not psql("SELECT 1 FROM pg_database WHERE datname = 'bench'", db="postgres").strip():
        psql("CREATE DATABASE bench", db="postgres")
    psql('CREATE EXTENSION IF NOT EXISTS pg_flake;\n'
         + ('CREATE EXTENSION IF NOT EXISTS "uuid-ossp";\n' if TABLE.get("uuid1mc") else "")
         + 'CREATE SEQUENCE IF NOT EXISTS bench_seq;\n')


def generator_mode():
    """`backend` or `shared`: how this server runs the generators (docs/operations.md
    "Shared mode"), as pg_flake_generator_state() says after one ID."""
    return psql("SELECT sno_generate();\nSELECT DISTINCT mode FROM pg_flake_generator_state();")\
        .strip().splitlines()[-1]


def generation_query(expr):
    return f"SELECT count({expr}) FROM generate_series(1, {N_GEN});"


def measure_generation(generators, reps=GEN_REPS):
    """`reps` rounds over every generator, one fresh session per measurement
    (warmed up with 1000 calls first, so library loading is not timed)."""
    times = {g[0]: [] for g in generators}
    for rep in range(reps):
        for label, expr, _ in generators:
            ms = timed(generation_query(expr),
                       setup=f"SELECT count({expr}) FROM generate_series(1, 1000);")
            times[label].append(ms)
            log(f"generation {rep + 1}/{reps}: {label}: {ms:.1f} ms")
    return times


def measure_insert(keys, prefix="ins"):
    """INSERT … SELECT of N_ROWS rows into a fresh table whose key is the
    DEFAULT and the primary key; a CHECKPOINT before each."""
    out = {k: {"ms": []} for k in keys}
    for rep in range(INSERT_REPS):
        for key in keys:
            _, label, column, _ = TABLE[key]
            table = f"{prefix}_{key}"
            psql(f"DROP TABLE IF EXISTS {table};\n"
                 f"CREATE TABLE {table} (id {column} PRIMARY KEY, n int NOT NULL);\n"
                 "CHECKPOINT;\n")
            ms = timed(f"INSERT INTO {table} (n) SELECT g FROM generate_series(1, {N_ROWS}) g;")
            out[key]["ms"].append(ms)
            log(f"insert {rep + 1}/{INSERT_REPS}: {label}: {ms / 1000:.1f} s")
    for key in keys:
        table = f"{prefix}_{key}"
        sizes = psql(f"SELECT pg_table_size('{table}'), pg_indexes_size('{table}'), count(*) FROM {table};")
        table_bytes, index_bytes, rows = (int(x) for x in sizes.strip().split("|"))
        if rows != N_ROWS:
            sys.exit(f"bench: {table} has {rows} rows, expected {N_ROWS}")
        out[key].update(table_bytes=table_bytes, index_bytes=index_bytes)
    return out


def prepare_keyed():
    """VACUUM ANALYZE the inserted tables, then the sort tables (same data
    order for every type: position p holds the value of rank perm(p)) and the
    lookup keys (the same LOOKUP_KEYS row numbers of every table)."""
    setup = f"SET work_mem = '{SORT_WORK_MEM}'; SET max_parallel_workers_per_gather = 0;"
    psql(f"DROP TABLE IF EXISTS perm;\nSELECT setseed({SORT_SEED});\n"
         f"CREATE TABLE perm AS SELECT g AS rk, random() AS r FROM generate_series(1, {N_ROWS}) g;\n"
         "VACUUM ANALYZE perm;\n")
    for key in [t[0] for t in TABLES]:
        psql(f"VACUUM ANALYZE ins_{key};")
        log(f"vacuum analyze ins_{key}")
    for key in KEYED:
        psql(f"{setup}\nDROP TABLE IF EXISTS sort_{key};\n"
             f"CREATE TABLE sort_{key} AS SELECT s.id AS v FROM "
             f"(SELECT id, row_number() OVER (ORDER BY id) AS rk FROM ins_{key}) s "
             f"JOIN perm USING (rk) ORDER BY perm.r;\n"
             f"VACUUM ANALYZE sort_{key};\n"
             f"DROP TABLE IF EXISTS keys_{key};\n"
             f"CREATE TABLE keys_{key} AS SELECT k.i, t.id FROM "
             f"(SELECT i, (i::bigint * 2654435761 % {N_ROWS}) + 1 AS n "
             f"FROM generate_series(1, {LOOKUP_KEYS}) i) k JOIN ins_{key} t USING (n);\n"
             f"ALTER TABLE keys_{key} ADD PRIMARY KEY (i);\n"
             f"VACUUM ANALYZE keys_{key};\n")
        log(f"prepared sort_{key} and keys_{key}")
    # Same data order: the rank of every position agrees across the tables.
    check = " UNION ALL ".join(
        f"(SELECT '{k}', md5(string_agg(rk::text, ',' ORDER BY pos)) FROM "
        f"(SELECT pos, rank() OVER (ORDER BY v) AS rk FROM "
        f"(SELECT row_number() OVER () AS pos, v FROM (SELECT v FROM sort_{k} LIMIT 1000) x) y) z)"
        for k in KEYED)
    digests = {line.split("|")[1] for line in psql(check).strip().splitlines()}
    if len(digests) != 1:
        sys.exit("bench: the sort tables do not share one data order")


def measure_sort():
    setup = f"SET work_mem = '{SORT_WORK_MEM}'; SET max_parallel_workers_per_gather = 0;"
    out = {k: {"ms": [], "scan_ms": []} for k in KEYED}
    for key in KEYED:
        plan = psql(f"{setup}\nEXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) "
                    f"SELECT v FROM sort_{key} ORDER BY v OFFSET {N_ROWS};")
        m = re.search(r"Sort Method: (.*)", plan)
        out[key]["method"] = m.group(1).strip() if m else "?"
    for rep in range(SORT_REPS):
        for key in KEYED:
            ms = timed(f"SELECT v FROM sort_{key} ORDER BY v OFFSET {N_ROWS};", setup)
            scan = timed(f"SELECT v FROM sort_{key} OFFSET {N_ROWS};", setup)
            out[key]["ms"].append(ms)
            out[key]["scan_ms"].append(scan)
            log(f"sort {rep + 1}/{SORT_REPS}: {key}: {ms:.0f} ms (scan {scan:.0f} ms)")
    return out


def measure_lookups():
    out = {k: [] for k in KEYED}
    for rnd in range(LOOKUP_ROUNDS):
        for key in KEYED:
            tps = pgbench(f"lookup_{key}.sql", lookup_script(key), LOOKUP_CLIENTS, LOOKUP_SECONDS)
            out[key].append(tps)
            log(f"lookups {rnd + 1}/{LOOKUP_ROUNDS}: {key}: {tps:.0f} TPS")
    return out


def measure_concurrent():
    out = {label: [] for _, label, _ in concurrent_generators()}
    for rnd in range(CONC_ROUNDS):
        for i, (statement, label, _) in enumerate(concurrent_generators()):
            tps = pgbench(f"select_{i}.sql", statement + ";\n", CONC_CLIENTS, CONC_SECONDS)
            out[label].append(tps)
            log(f"concurrent {rnd + 1}/{CONC_ROUNDS}: {label}: {tps:.0f} TPS")
    return out


def server_description():
    """The server's version and the settings the report lists."""
    return {
        "version": psql("SELECT version();").strip(),
        "settings": psql("SELECT name || ' = ' || setting || coalesce(' ' || unit, '') FROM pg_settings "
                         "WHERE name IN ('shared_buffers', 'work_mem', 'maintenance_work_mem', 'max_wal_size', "
                         "'min_wal_size', 'checkpoint_timeout', 'synchronous_commit', 'fsync', 'autovacuum', "
                         "'jit', 'max_parallel_workers_per_gather', 'max_connections', 'wal_level', "
                         "'shared_preload_libraries', 'data_checksums', 'io_method') ORDER BY name;")
        .strip().splitlines(),
    }


def phase_backend():
    features = detect_features()
    restrict_to(features)
    results = {"quick": QUICK, "pg_major": PG_MAJOR, "features": features}
    watch = LoadWatch()
    setup_database()
    results["modes"] = {"backend": generator_mode()}
    log(f"generation cost (not preloaded: {results['modes']['backend']} mode)")
    with watch.section("generation"):
        results["generation"] = measure_generation(GENERATORS)
    save(results)
    log("bulk insert")
    with watch.section("insert"):
        results["insert"] = measure_insert([t[0] for t in TABLES])
    save(results)
    log("preparing sort and lookup tables")
    prepare_keyed()
    log("sort")
    with watch.section("sort"):
        results["sort"] = measure_sort()
    save(results)
    log("lookups")
    with watch.section("lookups"):
        results["lookups"] = measure_lookups()
    save(results)
    log("concurrent generation")
    with watch.section("concurrent"):
        results["concurrent"] = measure_concurrent()
    results["server"] = server_description()
    results["load"] = watch.summary()
    save(results)


def phase_shared():
    results = load()
    restrict_to(results["features"])
    preload = psql("SHOW shared_preload_libraries;").strip()
    if preload != "pg_flake":
        sys.exit(f"bench: shared phase needs pg_flake preloaded (have {preload!r})")
    watch = LoadWatch()
    results["modes"]["preloaded"] = generator_mode()
    log("generation cost (preloaded)")
    with watch.section("shared_generation"):
        results["shared_generation"] = measure_generation(SHARED_GENERATORS)
    save(results)
    log("bulk insert (preloaded)")
    with watch.section("shared_insert"):
        results["shared_insert"] = measure_insert(SHARED_TABLES, prefix="shared")
    psql("".join(f"DROP TABLE shared_{k};\n" for k in SHARED_TABLES))
    results["load"].update(watch.summary())
    save(results)
