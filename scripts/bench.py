#!/usr/bin/env python3
"""The driver of `make bench` (scripts/bench.sh starts and stops the servers).

One PostgreSQL version per run (the server bench.sh started, BENCH_PG_MAJOR):

    bench.py backend   measurements against the server not preloaded
                       (per-backend generators on 15 and 16, shared from 17)
    bench.py shared    the preloaded rows (server restarted with preloading)
    bench.py marks plain|preloaded
                       the cost of durable marks, with fsync = on
    bench.py report    docs/BENCHMARKS.md (this version's section, between
                       its markers) and this version's insert chart
    bench.py profile plain|preloaded
                       the cost of one generated ID against the physical
                       floor, and a perf profile of sno_generate()
    bench.py report-profile
                       their section of docs/BENCHMARKS.md

and, with no server, once for all versions:

    bench.py codecs         the criterion benchmarks of the core crate
    bench.py report-codecs  their section of docs/BENCHMARKS.md

Raw results accumulate in $BENCH_OUT/results.json. Only the standard library
is used; every connection goes to 127.0.0.1.
"""

import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PG_BIN = os.environ.get("PG_BIN", "/usr/lib/postgresql/15/bin")
PORT = os.environ.get("BENCH_PORT", "25440")
OUT = os.environ.get("BENCH_OUT", "/tmp/pg_flake-bench")
DATA = os.environ.get("BENCH_DATA", "")
PG_MAJOR = os.environ.get("BENCH_PG_MAJOR", "15")
QUICK = os.environ.get("BENCH_QUICK") == "1"
RESULTS = os.path.join(OUT, "results.json")
DB = "bench"

# Sizes and repetitions. BENCH_QUICK=1 is a smoke test of the script itself.
N_GEN = 20_000 if QUICK else 2_000_000          # calls per generation query
GEN_REPS = 2 if QUICK else 5                     # median of
N_ROWS = 50_000 if QUICK else 5_000_000          # rows inserted and sorted
INSERT_REPS = int(os.environ.get("BENCH_INSERT_REPS", "1"))
SORT_REPS = 2 if QUICK else 9
SORT_WORK_MEM = "2GB"
LOOKUP_KEYS = min(100_000, N_ROWS)               # keys pgbench picks from
LOOKUP_CLIENTS = 4
LOOKUP_SECONDS = 2 if QUICK else 8
LOOKUP_ROUNDS = 1 if QUICK else 3                # median of, types alternating
CONC_CLIENTS = 8
CONC_SECONDS = 2 if QUICK else 5
CONC_ROUNDS = 1 if QUICK else 3
PGBENCH_SEED = 42
SORT_SEED = 0.42
CODEC_TARGET_NS = 30.0
# Durable marks (bench.py marks): generation again with fsync = on, the
# latency of the calls that record a mark, and the marks recorded under load.
MARKS_GEN_REPS = 2 if QUICK else 3
MARK_CALLS = 200 if QUICK else 2000              # single calls, MARK_PAUSE apart
MARK_PAUSE = 0.005                               # s
MARK_LOAD_CLIENTS = 8
MARK_LOAD_SECONDS = 3 if QUICK else 10
MARK_FORMATS = ["sno", "siq", "snowflake", "kuid64", "kuid96"]
ARGUMENTS = {"siq": "'message'"}

# Generation: (label, SQL expression, class). Classes: floor, baseline,
# coordination (sno, siq, snowflake, kuid64, kuid96) and random.
GENERATORS = [
    ("floor", "1", "floor"),
    ("gen_random_uuid()", "gen_random_uuid()", "baseline"),
    ("uuidv7()", "uuidv7()", "baseline"),
    ("uuid_generate_v1mc()", "uuid_generate_v1mc()", "baseline"),
    ("nextval", "nextval('bench_seq')", "baseline"),
    ("sno_generate()", "sno_generate()", "coordination"),
    ("siq_generate('message')", "siq_generate('message')", "coordination"),
    ("snowflake_generate()", "snowflake_generate()", "coordination"),
    ("kuid64_generate()", "kuid64_generate()", "coordination"),
    ("kuid96_generate()", "kuid96_generate()", "coordination"),
    ("distributed_id_generate()", "distributed_id_generate()", "random"),
    ("distributed_id128_generate()", "distributed_id128_generate()", "random"),
    ("flaxid_generate()", "flaxid_generate()", "random"),
]
SHARED_GENERATORS = [g for g in GENERATORS if g[2] != "random" and g[0] not in ("uuid_generate_v1mc()", "uuidv7()")]

# Bulk insert: (key, label, column definition, class).
TABLES = [
    ("identity", "bigint identity", "bigint GENERATED ALWAYS AS IDENTITY", "baseline"),
    ("uuid4", "uuid v4 (gen_random_uuid)", "uuid DEFAULT gen_random_uuid()", "baseline"),
    ("uuid7", "uuid v7 (uuidv7)", "uuid DEFAULT uuidv7()", "baseline"),
    ("uuid1mc", "uuid v1mc (uuid_generate_v1mc)", "uuid DEFAULT uuid_generate_v1mc()", "baseline"),
    ("sno", "sno", "sno DEFAULT sno_generate()", "flake"),
    ("siq", "siq", "siq DEFAULT siq_generate('message')", "flake"),
    ("flaxid", "flaxid", "flaxid DEFAULT flaxid_generate()", "flake"),
    ("distributed_id", "distributed_id", "distributed_id DEFAULT distributed_id_generate()", "flake"),
    ("kuid96", "kuid96", "kuid96 DEFAULT kuid96_generate()", "flake"),
    ("snowflake", "bigint (snowflake_generate)", "bigint DEFAULT snowflake_generate()", "flake"),
    ("kuid64", "bigint (kuid64_generate)", "bigint DEFAULT kuid64_generate()", "flake"),
    ("distributed_id128", "uuid (distributed_id128_generate)", "uuid DEFAULT distributed_id128_generate()", "flake"),
]
TABLE = {t[0]: t for t in TABLES}
SHARED_TABLES = ["identity", "sno", "snowflake", "kuid64", "kuid96"]
# Sort and lookups: every native type against uuid and bigint. snowflake and
# kuid64 are bigint values (the identity row), distributed_id128 a uuid.
KEYED = ["identity", "uuid4", "uuid7", "uuid1mc", "sno", "siq", "flaxid", "distributed_id", "kuid96"]
NATIVE = ["sno", "siq", "flaxid", "distributed_id", "kuid96"]

# Baselines a server may not have: PostgreSQL's own uuidv7() (18+), and
# uuid-ossp's uuid_generate_v1mc() (a contrib module: the PostgreSQL 18
# build from PyPI has none).
REQUIRES = {"uuidv7()": "uuidv7", "uuid7": "uuidv7",
            "uuid_generate_v1mc()": "uuid-ossp", "uuid1mc": "uuid-ossp"}


def detect_features():
    row = psql("SELECT to_regprocedure('uuidv7()') IS NOT NULL, "
               "EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'uuid-ossp');", db="postgres")
    uuidv7, ossp = row.strip().split("|")
    return [f for f, have in (("uuidv7", uuidv7), ("uuid-ossp", ossp)) if have == "t"]


def restrict_to(features):
    """Drops the baselines this server does not have from every list."""
    global GENERATORS, SHARED_GENERATORS, TABLES, TABLE, KEYED

    def have(name):
        return REQUIRES.get(name) is None or REQUIRES[name] in features
    GENERATORS = [g for g in GENERATORS if have(g[0])]
    SHARED_GENERATORS = [g for g in SHARED_GENERATORS if have(g[0])]
    TABLES = [t for t in TABLES if have(t[0])]
    TABLE = {t[0]: t for t in TABLES}
    KEYED = [k for k in KEYED if have(k)]

# Why a target can be out of reach, whatever the code does: stated next to
# the rows concerned (capacities from the formats' layouts and the slot rule).
WHY = {
    "snowflake_generate()": "format cap: 12-bit sequence per ms; per backend the slot rule leaves 1024 per ms "
    "(≈ 977 ns per ID) with 122 slots, shared mode 4096 per ms for the server (≈ 244 ns)",
    "kuid64_generate()": "format cap: 14-bit sequence per 1024 µs unit, split by the slot rule into 122 ranges "
    "of 134 per backend (≈ 7.6 µs per ID); shared mode has the whole 16 384 per unit",
    "kuid96_generate()": "as kuid64: 134 IDs per 1024 µs per backend; shared mode 16 384",
    "distributed_id_generate()": "reference algorithm: each further ID of a millisecond adds up to 2^41 to a "
    "48-bit field (≈ 128–256 IDs per ms), bursts may run 999 ms ahead, then it sleeps 1 ms per "
    "millisecond (the reference's wait)",
}
# In shared mode only snowflake's cap lies above the target (kuid's 16 384
# per 1024 µs is 62.5 ns per ID): a miss of another generator is the code's.
WHY_SHARED = {
    "snowflake_generate()": "format cap: 12-bit sequence per ms, 4096 per ms for the server (≈ 244 ns per ID)",
}
WHY_INSERT = {
    "distributed_id": WHY["distributed_id_generate()"],
    "kuid96": "generation capped per backend (kuid: 134 IDs per 1024 µs per backend, see generation)",
    "kuid64": "generation capped per backend (kuid: 134 IDs per 1024 µs per backend, see generation)",
    "snowflake": "generation capped per backend (1024 IDs per ms, see generation)",
}

T0 = time.time()


def log(msg):
    print(f"[{time.time() - T0:7.1f} s] {msg}", flush=True)


def load():
    if os.path.exists(RESULTS):
        with open(RESULTS) as f:
            return json.load(f)
    return {}


def save(results):
    os.makedirs(OUT, exist_ok=True)
    with open(RESULTS + ".tmp", "w") as f:
        json.dump(results, f, indent=1)
    os.replace(RESULTS + ".tmp", RESULTS)


def psql_command(db=DB):
    return [f"{PG_BIN}/psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1",
            "-h", "127.0.0.1", "-p", PORT, "-U", "postgres", "-d", db]


def psql(sql, db=DB):
    r = subprocess.run(psql_command(db), input=sql, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"bench: psql failed:\n{r.stderr}\nSQL:\n{sql}")
    return r.stdout


# The vCPUs of a virtual machine need not run at the same speed (on the
# machine of the published run one was up to a third slower than the other,
# by turns): every timed session's backend runs on the same CPU, so that a
# function and the baselines it is compared with are timed on the same one.
PIN_CPU = os.environ.get("BENCH_CPU", "0")


def pinned_session(db=DB):
    """A psql session whose backend is pinned to PIN_CPU (where taskset exists)."""
    session = subprocess.Popen(psql_command(db), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    session.stdin.write("SELECT pg_backend_pid();\n")
    session.stdin.flush()
    pid = session.stdout.readline().strip()
    session.backend_pid = pid
    if shutil.which("taskset"):
        subprocess.run(["taskset", "-pc", PIN_CPU, pid], check=True, capture_output=True)
    return session


def timed(statement, setup=""):
    """Milliseconds of `statement` by psql's \\timing, after `setup` in the same
    session, its backend on PIN_CPU."""
    session = pinned_session()
    out, err = session.communicate(f"{setup}\n\\timing on\n{statement}\n")
    if session.returncode != 0:
        sys.exit(f"bench: psql failed:\n{err}\nSQL:\n{statement}")
    times = re.findall(r"^Time: ([0-9.]+) ms", out, re.M)
    if not times:
        sys.exit(f"bench: no timing for {statement}:\n{out}")
    return float(times[-1])


def pgbench(script_name, script, clients, seconds):
    path = os.path.join(OUT, script_name)
    with open(path, "w") as f:
        f.write(script)
    cmd = [f"{PG_BIN}/pgbench", "-h", "127.0.0.1", "-p", PORT, "-U", "postgres", "-n",
           "-M", "prepared", "-c", str(clients), "-j", str(clients), "-T", str(seconds),
           f"--random-seed={PGBENCH_SEED}", "-f", path, DB]
    r = subprocess.run(cmd, capture_output=True, text=True)
    m = re.search(r"tps = ([0-9.]+) \(without initial connection time\)", r.stdout)
    if r.returncode != 0 or not m:
        sys.exit(f"bench: pgbench failed:\n{r.stdout}\n{r.stderr}")
    return float(m.group(1))


def median(xs):
    return statistics.median(xs)


# Other load. The machine may be shared (other users, builds, test servers):
# a thread samples /proc every LOAD_SAMPLE s and counts the CPU time of every
# process that is neither this run's (descendants of bench.sh) nor its
# server's (descendants of its postmaster). Processes that live for less
# than one sample are missed: the figure is a lower bound.
LOAD_SAMPLE = 2.0
CLK_TCK = os.sysconf("SC_CLK_TCK")


def process_table():
    """{pid: (ppid, name, cpu ticks)} of every process."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        table[int(entry)] = (int(fields[1]), name, int(fields[11]) + int(fields[12]))
    return table


def postmaster_pid():
    try:
        with open(os.path.join(DATA, "postmaster.pid")) as f:
            return int(f.readline())
    except (OSError, ValueError):
        return None


class LoadWatch:
    """Samples other processes' CPU use; `section(name)` brackets a measurement."""

    def __init__(self):
        self.samples = []          # (time, CPUs used by others, {name: CPUs})
        self.sections = {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def ours(self, table):
        roots = {os.getpid(), os.getppid()} | ({postmaster_pid()} - {None})
        mine = set()
        for pid in table:
            p, seen = pid, 0
            while p > 1 and seen < 64:
                if p in roots:
                    mine.add(pid)
                    break
                p, seen = table.get(p, (0, "", 0))[0], seen + 1
        return mine

    def run(self):
        before, t0 = process_table(), time.time()
        while not self.stop.wait(LOAD_SAMPLE):
            now, t1 = process_table(), time.time()
            mine = self.ours(now)
            names = {}
            for pid, (_, name, ticks) in now.items():
                if pid in mine or pid not in before or before[pid][1] != name:
                    continue
                used = (ticks - before[pid][2]) / CLK_TCK / (t1 - t0)
                if used > 0:
                    names[name] = names.get(name, 0) + used
            self.samples.append((t1, sum(names.values()), names))
            before, t0 = now, t1

    def section(self, name):
        watch = self

        class Section:
            def __enter__(self):
                self.start = time.time()

            def __exit__(self, *exc):
                watch.sections[name] = (self.start, time.time())
        return Section()

    def summary(self):
        """{section: {"mean", "max" (CPUs), "top" (busiest other programs)}}."""
        self.stop.set()
        self.thread.join()
        out = {}
        for name, (start, end) in self.sections.items():
            inside = [s for s in self.samples if start < s[0] <= end + LOAD_SAMPLE / 2]
            if not inside:
                continue
            by_name = {}
            for _, _, names in inside:
                for n, used in names.items():
                    by_name[n] = by_name.get(n, 0) + used / len(inside)
            top = sorted(by_name.items(), key=lambda x: -x[1])[:3]
            out[name] = {"mean": statistics.mean(s[1] for s in inside), "max": max(s[1] for s in inside),
                         "top": [[n, round(u, 2)] for n, u in top if u >= 0.05]}
        return out


# --------------------------------------------------------------- measurements

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


def lookup_script(key):
    return (f"\\set r random(1, {LOOKUP_KEYS})\n"
            f"SELECT n FROM ins_{key} WHERE id = (SELECT id FROM keys_{key} WHERE i = :r);\n")


def measure_lookups():
    out = {k: [] for k in KEYED}
    for rnd in range(LOOKUP_ROUNDS):
        for key in KEYED:
            tps = pgbench(f"lookup_{key}.sql", lookup_script(key), LOOKUP_CLIENTS, LOOKUP_SECONDS)
            out[key].append(tps)
            log(f"lookups {rnd + 1}/{LOOKUP_ROUNDS}: {key}: {tps:.0f} TPS")
    return out


def concurrent_generators():
    return [("SELECT 1" if c == "floor" else f"SELECT {e}", l, c) for l, e, c in GENERATORS]


def measure_concurrent():
    out = {label: [] for _, label, _ in concurrent_generators()}
    for rnd in range(CONC_ROUNDS):
        for i, (statement, label, _) in enumerate(concurrent_generators()):
            tps = pgbench(f"select_{i}.sql", statement + ";\n", CONC_CLIENTS, CONC_SECONDS)
            out[label].append(tps)
            log(f"concurrent {rnd + 1}/{CONC_ROUNDS}: {label}: {tps:.0f} TPS")
    return out


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
    results["server"] = {
        "version": psql("SELECT version();").strip(),
        "settings": psql("SELECT name || ' = ' || setting || coalesce(' ' || unit, '') FROM pg_settings "
                         "WHERE name IN ('shared_buffers', 'work_mem', 'maintenance_work_mem', 'max_wal_size', "
                         "'min_wal_size', 'checkpoint_timeout', 'synchronous_commit', 'fsync', 'autovacuum', "
                         "'jit', 'max_parallel_workers_per_gather', 'max_connections', 'wal_level', "
                         "'shared_preload_libraries', 'data_checksums', 'io_method') ORDER BY name;")
        .strip().splitlines(),
    }
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


# ------------------------------------------------------------- durable marks

# The latency of single calls, some of which record a mark: each call timed
# inside the server (clock_timestamp() around it, so the client round trip
# does not blur it), with whether the generator's mark moved during it.
MARK_LATENCY_FUNCTION = """
CREATE OR REPLACE FUNCTION bench_mark_latency(calls int, pause float8)
RETURNS TABLE (us float8, recorded boolean) LANGUAGE plpgsql AS $$
DECLARE
    t0 timestamptz;
    t1 timestamptz;
    m0 numeric;
    m1 numeric;
BEGIN
    PERFORM sno_generate();
    FOR i IN 1 .. calls LOOP
        SELECT mark_unit INTO m0 FROM pg_flake_generator_state() WHERE format = 'sno';
        t0 := clock_timestamp();
        PERFORM sno_generate();
        t1 := clock_timestamp();
        SELECT mark_unit INTO m1 FROM pg_flake_generator_state() WHERE format = 'sno';
        us := extract(epoch FROM t1 - t0) * 1e6;
        recorded := m1 <> m0;
        RETURN NEXT;
        PERFORM pg_sleep(pause);
    END LOOP;
END $$;
"""


def percentile(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))] if xs else None


def measure_mark_latency():
    psql(MARK_LATENCY_FUNCTION)
    rows = psql(f"SELECT us, recorded FROM bench_mark_latency({MARK_CALLS}, {MARK_PAUSE});")
    marked, plain = [], []
    for line in rows.strip().splitlines():
        us, recorded = line.split("|")
        (marked if recorded == "t" else plain).append(float(us))
    out = {"calls": len(marked) + len(plain), "recorded": len(marked)}
    for name, xs in (("plain", plain), ("marked", marked)):
        out[name] = {"median": percentile(xs, 50), "p90": percentile(xs, 90), "max": max(xs) if xs else None}
    log(f"mark latency: {out}")
    return out


def fsync_latency():
    """pg_test_fsync's open_datasync/fdatasync figure for one 8 kB write on
    the file system of $BENCH_OUT (the data directory's here)."""
    test_file = os.path.join(OUT, "pg_test_fsync.tmp")
    r = subprocess.run([f"{PG_BIN}/pg_test_fsync", "-s", "1" if QUICK else "2", "-f", test_file],
                       capture_output=True, text=True)
    with open(os.path.join(OUT, "pg_test_fsync.log"), "w") as f:
        f.write(r.stdout + r.stderr)
    m = re.search(r"^\s*fdatasync\s+([0-9.]+) ops/sec\s+([0-9]+) usecs/op", r.stdout, re.M)
    return {"ops": float(m.group(1)), "us": float(m.group(2))} if m else None


def measure_mark_load(preloaded):
    """pgbench flat out (1000 IDs per statement, the five formats at random)
    while strace counts the fdatasync of every marks file (and of the WAL)
    in the server's processes; preloaded, pg_waldump also counts pg_flake's
    WAL records (resource manager 188) written meanwhile."""
    scripts = []
    for fmt in MARK_FORMATS:
        path = os.path.join(OUT, f"marks_{fmt}.sql")
        with open(path, "w") as f:
            f.write(f"SELECT count({fmt}_generate({ARGUMENTS.get(fmt, '')})) FROM generate_series(1, 1000);\n")
        scripts += ["-f", path]
    trace = os.path.join(OUT, f"marks-{'preloaded' if preloaded else 'plain'}.strace")
    lsn0 = psql("SELECT pg_current_wal_insert_lsn();").strip()
    strace = subprocess.Popen(["strace", "-f", "-qq", "-T", "-y", "-e", "trace=fdatasync,fsync",
                               "-o", trace, "-p", str(postmaster_pid())],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1)
    cmd = [f"{PG_BIN}/pgbench", "-h", "127.0.0.1", "-p", PORT, "-U", "postgres", "-n", "-M", "prepared",
           "-c", str(MARK_LOAD_CLIENTS), "-j", str(MARK_LOAD_CLIENTS), "-T", str(MARK_LOAD_SECONDS)]
    r = subprocess.run(cmd + scripts + [DB], capture_output=True, text=True)
    strace.send_signal(2)
    strace.wait()
    lsn1 = psql("SELECT pg_current_wal_insert_lsn();").strip()
    m = re.search(r"tps = ([0-9.]+) \(without initial connection time\)", r.stdout)
    if r.returncode != 0 or not m:
        sys.exit(f"bench: pgbench failed:\n{r.stdout}\n{r.stderr}")
    out = {"tps": float(m.group(1)), "ids_per_s": float(m.group(1)) * 1000, "seconds": MARK_LOAD_SECONDS,
           "clients": MARK_LOAD_CLIENTS, "syncs": {}, "wal_syncs": 0, "wal_sync_ms": []}
    # A call another process interrupts is split in two lines: the file on
    # the "<unfinished ...>" one, the duration on the "resumed" one.
    pending = {}
    with open(trace) as f:
        for line in f:
            pid, _, rest = line.partition(" ")
            if "<unfinished ...>" in rest:
                pending[pid] = rest
                continue
            if "resumed>" in rest:
                rest = pending.pop(pid, "") + rest
            d = re.search(r"<([0-9.]+)>\s*$", rest)
            fmt = re.search(r"pg_flake/([a-z0-9]+)\.marks>", rest)
            if fmt and d:
                out["syncs"].setdefault(fmt.group(1), []).append(float(d.group(1)) * 1000)
            elif "pg_wal/" in rest and d:
                out["wal_syncs"] += 1
                out["wal_sync_ms"].append(float(d.group(1)) * 1000)
    if preloaded:
        dump = subprocess.run(["runuser", "-u", "postgres", "--", f"{PG_BIN}/pg_waldump", "-p",
                               os.path.join(DATA, "pg_wal"), "-s", lsn0, "-e", lsn1, "-r", "custom188"],
                              capture_output=True, text=True)
        out["wal_records"] = sum(1 for line in dump.stdout.splitlines() if line.startswith("rmgr: custom188"))
    log(f"marks under load: {MARK_LOAD_CLIENTS} clients, {out['tps']:.0f} TPS, marks "
        + ", ".join(f"{k} {len(v)}" for k, v in out["syncs"].items())
        + (f", WAL records {out['wal_records']}" if preloaded else ""))
    return out


def phase_marks(variant):
    """The cost of durable marks on a server with fsync = on (docs/guarantees.md
    "Restarts, crashes and the clock"): `plain` (not preloaded: marks in the
    data directory) or `preloaded` (also a WAL record, flushed)."""
    results = load()
    restrict_to(results["features"])
    fsync = psql("SHOW fsync;").strip()
    preload = psql("SHOW shared_preload_libraries;").strip()
    if fsync != "on" or (preload == "pg_flake") != (variant == "preloaded"):
        sys.exit(f"bench: marks {variant} needs fsync = on (have {fsync}) and the right preload (have {preload!r})")
    watch = LoadWatch()
    out = {"mode": generator_mode()}
    if variant == "plain":
        results["fsync"] = fsync_latency()
    log(f"marks ({variant}, {out['mode']} mode, fsync on): generation")
    with watch.section(f"marks_{variant}"):
        out["generation"] = measure_generation(SHARED_GENERATORS, MARKS_GEN_REPS)
        out["latency"] = measure_mark_latency()
        out["load"] = measure_mark_load(variant == "preloaded")
    results.setdefault("marks", {})[variant] = out
    results["load"].update(watch.summary())
    save(results)


def phase_codecs():
    results = {"quick": QUICK}
    watch = LoadWatch()
    home = os.path.join(OUT, "criterion")
    shutil.rmtree(home, ignore_errors=True)
    env = dict(os.environ, CRITERION_HOME=home)
    cmd = ["cargo", "bench", "-p", "flake-core", "--bench", "codecs", "--",
           "--warm-up-time", "1", "--measurement-time", "1" if QUICK else "3", "--noplot"]
    # Built first, then run on PIN_CPU like the SQL sessions.
    subprocess.run(cmd[:cmd.index("--")] + ["--no-run"], cwd=ROOT, env=env, capture_output=True, check=True)
    if shutil.which("taskset"):
        cmd = ["taskset", "-c", PIN_CPU] + cmd
    log("running: " + " ".join(cmd))
    with watch.section("codecs"):
        r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    with open(os.path.join(OUT, "codecs.log"), "w") as f:
        f.write(r.stdout + r.stderr)
    if r.returncode != 0:
        sys.exit(f"bench: cargo bench failed, see {OUT}/codecs.log")
    codecs = {}
    for d in sorted(os.listdir(home)):
        bench_json = os.path.join(home, d, "new", "benchmark.json")
        estimates = os.path.join(home, d, "new", "estimates.json")
        if os.path.exists(bench_json) and os.path.exists(estimates):
            with open(bench_json) as f:
                name = json.load(f)["full_id"]
            with open(estimates) as f:
                codecs[name] = json.load(f)["median"]["point_estimate"]
    log(f"{len(codecs)} codec benchmarks")
    results["codecs"] = codecs
    results["load"] = watch.summary()
    save(results)


# ------------------------------------------------------------ generation profile

# What one generated ID costs above what no SQL function can avoid: a C
# function returning a constant 16-byte value (scripts/bench-floor/floor.c,
# built here against this server's headers) and a vDSO clock read
# (scripts/bench-floor/clock.c); and where sno_generate()'s time goes, by
# perf's samples of the backend.
PROFILE_GENERATORS = [
    ("floor", "1", "floor"),
    ("C function, constant 16 bytes", "bench_floor16()", "floor"),
    ("nextval", "nextval('bench_seq')", "baseline"),
    ("sno_generate()", "sno_generate()", "coordination"),
    ("siq_generate('message')", "siq_generate('message')", "coordination"),
    ("kuid64_generate()", "kuid64_generate()", "coordination"),
    ("kuid96_generate()", "kuid96_generate()", "coordination"),
]
PROFILE_CALLS = 200_000 if QUICK else 10_000_000  # calls of sno_generate() under perf
FLOOR_DIR = os.path.join(ROOT, "scripts", "bench-floor")

# perf's symbols, by what they are: the first category whose pattern matches.
PROFILE_CATEGORIES = [
    ("clock read (vDSO)", re.compile(r"vdso|clock_gettime", re.I)),
    ("spinlock", re.compile(r"spin|s_lock|tas\b", re.I)),
    ("palloc (the result)", re.compile(r"palloc|AllocSet|MemoryContextAlloc", re.I)),
    ("pg_flake: node, generator, datum", re.compile(r"^pg_flake\.so ")),
    ("executor: generate_series, count(), fmgr", re.compile(r"^postgres ")),
    ("kernel", re.compile(r"kernel|^\[")),
]


def build_floor():
    """The floor function's library and the clock program, in OUT."""
    includes = subprocess.run([f"{PG_BIN}/pg_config", "--includedir-server"], capture_output=True,
                              text=True, check=True).stdout.strip()
    library = os.path.join(OUT, "bench_floor.so")
    subprocess.run(["gcc", "-O2", "-fPIC", "-shared", f"-I{includes}", "-o", library,
                    os.path.join(FLOOR_DIR, "floor.c")], check=True)
    os.chmod(library, 0o755)
    clock = os.path.join(OUT, "bench_clock")
    subprocess.run(["gcc", "-O2", "-o", clock, os.path.join(FLOOR_DIR, "clock.c")], check=True)
    psql(f"CREATE OR REPLACE FUNCTION bench_floor16() RETURNS uuid VOLATILE LANGUAGE c "
         f"AS '{library[:-3]}', 'bench_floor16';\n"
         "CREATE SEQUENCE IF NOT EXISTS bench_seq;")
    return clock


def clock_read_ns(program):
    """The vDSO clock read, on PIN_CPU."""
    cmd = ["taskset", "-c", PIN_CPU, program] if shutil.which("taskset") else [program]
    return float(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)


def perf_profile(variant):
    """perf's samples of one backend running sno_generate() PROFILE_CALLS
    times: [(share %, "dso symbol")], or None without perf."""
    if not shutil.which("perf"):
        return None
    data = os.path.join(OUT, f"perf-{variant}.data")
    session = pinned_session()
    session.stdin.write("SELECT count(sno_generate()) FROM generate_series(1, 1000);\n")
    session.stdin.flush()
    session.stdout.readline()
    record = subprocess.Popen(["perf", "record", "-q", "-F", "4999", "-p", session.backend_pid, "-o", data],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    session.communicate(f"SELECT count(sno_generate()) FROM generate_series(1, {PROFILE_CALLS});\n")
    record.send_signal(2)
    record.wait()
    # PostgreSQL 17 from the Debian 13 chroot (scripts/pg17-chroot.sh): the
    # backend's files (postgres, pg_flake.so, libc) are the chroot's, which
    # perf finds by their paths only under the chroot's root.
    chroot = os.environ.get("PG_FLAKE_CHROOT", "").rstrip("/")
    symfs = ["--symfs", chroot] if chroot and PG_BIN.startswith(chroot + "/") else []
    report = subprocess.run(["perf", "report", "-i", data, "--stdio", "--no-children", *symfs,
                             "--sort", "dso,symbol"], capture_output=True, text=True).stdout
    rows = []
    for line in report.splitlines():
        m = re.match(r"\s*([0-9.]+)%\s+(\S+)\s+\[[.k]\]\s+(.*)$", line)
        if m:
            symbol = re.sub(r"(\s+-)+\s*$", "", m.group(3)).strip()
            rows.append((float(m.group(1)), f"{m.group(2)} {symbol}"))
    return rows


def categorize(rows):
    shares = {name: 0.0 for name, _ in PROFILE_CATEGORIES}
    shares["other"] = 0.0
    for share, symbol in rows:
        name = next((n for n, pattern in PROFILE_CATEGORIES if pattern.search(symbol)), "other")
        shares[name] += share
    return shares


def phase_profile(variant):
    results = load() if os.path.exists(RESULTS) else {"quick": QUICK, "pg_major": PG_MAJOR}
    restrict_to(detect_features())
    setup_database()
    clock = build_floor()
    profile = results.setdefault("profile", {})
    mode = generator_mode()
    log(f"generation profile ({variant}: {mode} mode)")
    # Per backend, kuid's slot rule caps a backend far above the target
    # (WHY): those rows would measure the format, not the code.
    generators = [g for g in PROFILE_GENERATORS if mode == "shared" or not g[0].startswith("kuid")]
    watch = LoadWatch()
    with watch.section("generation"):
        times = measure_generation(generators)
    profile[variant] = {
        "mode": mode,
        "times": times,
        "load": watch.summary().get("generation"),
        "clock_ns": clock_read_ns(clock),
        "perf": perf_profile(variant),
        "version": psql("SELECT version();").strip(),
    }
    save(results)


def report_profile(results):
    L = []
    w = L.append
    major = results.get("pg_major", PG_MAJOR)
    w(f"## Generation profile (PostgreSQL {major})")
    w("")
    w(f"Generated by `make bench-profile-{major}` (also part of `make bench-{major}`) on "
      f"{time.strftime('%Y-%m-%d')}"
      + (" (**BENCH_QUICK smoke run**)" if results.get("quick") else "")
      + ". ns per call as in the generation tables (median of 5 runs of "
      f"{fmt_n(N_GEN)} calls, minus the `count(1)` floor), the backend pinned to CPU {PIN_CPU}. "
      "The physical floor: a C function returning a constant 16-byte value (what any by-reference "
      "result costs: the call through fmgr and a `palloc`), and one vDSO read of the real-time clock "
      "(which a generator takes once per time unit, and between readings a read of the CPU's "
      "time-stamp counter, docs/guarantees.md \"What an ID's time is\"). Targets (issue \"generation back to 0.1.0's speed\"): "
      "sno, siq, kuid96, kuid64 ≤ 45 ns on 15 and ≤ 0.3× `nextval`.")
    w("")
    for variant, profile in results.get("profile", {}).items():
        times = profile["times"]
        floor_ns = ns_per_call(times, "C function, constant 16 bytes")
        nextval_ns = ns_per_call(times, "nextval")
        w(f"**{'Preloaded' if variant == 'preloaded' else 'Not preloaded'}** ({profile['mode']} mode). "
          f"vDSO clock read: {profile['clock_ns']:.1f} ns. The `count(1)` floor: "
          f"{median(times['floor']):.0f} ms. {profile_load(profile.get('load'))}")
        if floor_ns < 0:
            # The C function cannot cost less than count(1) alone: the
            # machine ran faster for it than for the floor's runs.
            w("")
            w(f"The C function came out {-floor_ns:.0f} ns per call *below* `count(1)`: the machine's "
              "speed changed between the runs, so compare only the ratios of this run.")
        w("")
        w("| function | median (ms) | ns per call | above the C floor | × nextval | target |")
        w("|---|---|---|---|---|---|")
        for label, _, kind in PROFILE_GENERATORS:
            if label == "floor" or label not in times:
                continue
            ns = ns_per_call(times, label)
            target = "—"
            if kind == "coordination":
                limit = min(45.0, 0.3 * nextval_ns) if major == "15" else 0.3 * nextval_ns
                target = at_most(ns, limit, " ns")
            w(f"| `{label}` | {median(times[label]):.0f} | {ns:.0f} | {ns - floor_ns:+.0f} | "
              f"{ns / nextval_ns:.2f} | {target} |")
        w("")
        rows = profile.get("perf")
        if rows:
            shares = categorize(rows)
            w(f"Where `SELECT count(sno_generate()) FROM generate_series(1, {fmt_n(PROFILE_CALLS)})` spends "
              "its time (perf samples of the backend, by symbol):")
            w("")
            w("| part | share of samples |")
            w("|---|---|")
            for name, share in sorted(shares.items(), key=lambda x: -x[1]):
                if share >= 0.05:
                    w(f"| {name} | {share:.1f} % |")
            w("")
            w("<details><summary>the top symbols</summary>")
            w("")
            w("| share | dso and symbol |")
            w("|---|---|")
            for share, symbol in rows[:15]:
                w(f"| {share:.1f} % | `{symbol}` |")
            w("")
            w("</details>")
            w("")
    return "\n".join(L)


def profile_load(load):
    """The other programs' CPU use while the profile's generation ran."""
    if not load:
        return ""
    top = ", ".join(f"{n} {u:.2f}" for n, u in load["top"])
    return (f"Other programs used {load['mean']:.2f} CPUs on average (at most {load['max']:.2f})"
            + (f": {top}." if top else "."))


def phase_report_profile():
    results = load()
    text = report_profile(results)
    if results.get("quick"):
        with open(os.path.join(OUT, "BENCHMARKS-profile.md"), "w") as f:
            f.write(text)
        log(f"quick run: report in {OUT}/BENCHMARKS-profile.md, docs/ untouched")
        return
    write_doc(text, f"bench-profile-{results.get('pg_major', PG_MAJOR)}")
    log("wrote docs/BENCHMARKS.md (generation profile)")


# --------------------------------------------------------------------- report

def ns_per_call(times, label):
    return (median(times[label]) - median(times["floor"])) * 1e6 / N_GEN


def fmt_n(x, digits=0):
    s = f"{x:,.{digits}f}"
    return s.replace(",", " ")


def verdict(ok, how):
    return f"**met** ({how})" if ok else f"**missed** ({how})"


def at_most(value, limit, unit="", digits=0):
    """Verdict of value ≤ limit, with the margin."""
    if value <= limit:
        return verdict(True, f"{(1 - value / limit) * 100:.0f} % under the limit {fmt_n(limit, digits)}{unit}")
    return verdict(False, f"{(value / limit - 1) * 100:.0f} % over the limit {fmt_n(limit, digits)}{unit}")


# The baselines of the same type and code as uuid v4 (other values only):
# how far their sorts lie from v4's is what the machine alone moves.
SAME_CODE_AS_UUID4 = ["uuid7", "uuid1mc"]


def paired_ratio(runs, base_runs):
    """Median of the ratios of runs of the same round."""
    return median([a / b for a, b in zip(runs, base_runs)])


def paired_noise(runs, base_runs):
    """Twice the standard error of the rounds' ratios: how far above 1 a
    paired ratio of equal speeds lands about one time in forty."""
    ratios = [a / b for a, b in zip(runs, base_runs)]
    if len(ratios) < 2:
        return 0.0
    return 2 * statistics.stdev(ratios) / len(ratios) ** 0.5


def at_most_paired(ratio, spread, noise):
    """Verdict of a paired ratio ≤ 1, where a ratio above 1 by no more than
    the measurement can show (uuid's own spread, or twice the standard
    error of the type's rounds, whichever is larger) is parity."""
    how = (f"uuid's own spread {spread * 100:.1f} %, twice the standard error of the rounds "
           f"{noise * 100:.1f} %")
    if ratio <= 1:
        return verdict(True, f"{(1 - ratio) * 100:.1f} % under uuid v4, paired")
    if ratio - 1 <= max(spread, noise):
        return verdict(True, f"parity: {(ratio - 1) * 100:.1f} % over uuid v4, paired, within the noise: {how}")
    return verdict(False, f"{(ratio - 1) * 100:.1f} % over uuid v4, paired, beyond the noise: {how}")


def at_least(value, limit, unit=""):
    if value >= limit:
        return verdict(True, f"{(value / limit - 1) * 100:.0f} % above the floor {fmt_n(limit)}{unit}")
    return verdict(False, f"{(1 - value / limit) * 100:.0f} % below the floor {fmt_n(limit)}{unit}")


def mib(n):
    return f"{n / 2**20:.0f} MiB"


def machine():
    def run(*cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True).stdout.strip()
        except OSError:
            return "?"
    cpu = "?"
    hypervisor = ""
    for line in run("lscpu").splitlines():
        if line.startswith("Model name:"):
            cpu = line.split(":", 1)[1].strip()
        if line.startswith("Hypervisor vendor:"):
            hypervisor = line.split(":", 1)[1].strip() + " guest, "
    mem = "?"
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                mem = f"{int(line.split()[1]) / 2**20:.1f} GiB"
    distro = "?"
    if os.path.exists("/etc/debian_version"):
        with open("/etc/debian_version") as f:
            distro = "Debian " + f.read().strip()
    return {
        "cpu": f"{hypervisor}{run('nproc')} CPUs ({cpu})",
        "memory": mem,
        "os": f"{distro}, Linux {platform.release()}",
        "rust": run("rustc", "--version"),
        "pgrx": run("cargo", "pgrx", "--version"),
        "clocksource": run("cat", "/sys/devices/system/clocksource/clocksource0/current_clocksource"),
    }


def chart(results, path):
    """Insert time and sizes per type, with gnuplot (pngcairo)."""
    ins = results["insert"]
    limit = min(1.2 * median(ins["identity"]["ms"]), 0.4 * median(ins["uuid4"]["ms"])) / 1000
    dat = os.path.join(OUT, "insert.dat")
    with open(dat, "w") as f:
        for key, label, _, cls in TABLES:
            r = ins[key]
            f.write(f"\"{label}\" {median(r['ms']) / 1000:.2f} {r['table_bytes'] / 2**20:.0f} "
                    f"{r['index_bytes'] / 2**20:.0f} {1 if cls == 'baseline' else 2}\n")
    plot = f"""
set terminal pngcairo size 1400,620 font "DejaVu Sans,11"
set output "{path}"
set datafile separator " "
set style fill solid 0.85 border -1
set boxwidth 0.7
set grid ytics
set xtics rotate by -35 left noenhanced
set key noenhanced
set lmargin 9
set bmargin 11
set multiplot layout 1,2 title "pg_flake bulk insert on PostgreSQL {results.get('pg_major', PG_MAJOR)}: {fmt_n(N_ROWS)} rows, INSERT … SELECT, key DEFAULT + PRIMARY KEY (not preloaded: {phase_names(results)[0]} mode)" noenhanced
set title "time (s, lower is better; grey: PostgreSQL's own keys)"
set ylabel "s"
set yrange [0:*]
set key top left
plot "{dat}" using 0:2:($5 == 1 ? 0x888888 : 0x2a7ab0):xtic(1) with boxes lc rgb variable notitle, \\
     "" using 0:2:(sprintf("%.1f", $2)) with labels offset 0,0.7 notitle, \\
     {limit:.3f} with lines dt 2 lw 2 lc rgb "#c0392b" title "target: min(1.2× bigint identity, 0.4× uuid v4)"
set title "size on disk (MiB): table + primary key index"
set ylabel "MiB"
set style histogram rowstacked
set style data histograms
set key outside right top vertical
plot "{dat}" using 3:xtic(1) title "table" lc rgb "#9ecae1", "" using 4 title "index" lc rgb "#08519c"
unset multiplot
"""
    gp = os.path.join(OUT, "insert.gp")
    with open(gp, "w") as f:
        f.write(plot)
    subprocess.run(["gnuplot", gp], check=True)


def markers(name):
    """The markers of one generated section: `make bench-15`, `make bench-18`, `make bench-codecs`."""
    return (f"<!-- BEGIN GENERATED BY make {name} (scripts/bench.py): edits between these markers are overwritten -->",
            f"<!-- END GENERATED BY make {name} -->")


# How each phase runs the generators (docs/operations.md "Shared mode"), by the mode
# pg_flake_generator_state() reported in it.
def phase_names(results):
    backend_mode = results.get("modes", {}).get("backend", "backend")
    if backend_mode == "backend":
        first = "per-backend mode"
        second = "shared mode"
    else:
        first = "shared mode (in a named DSM segment; marks in the data directory only)"
        second = "shared mode (marks in the data directory and the WAL)"
    suffix = " (shared mode)" if backend_mode == "backend" else " (preloaded)"
    return backend_mode, first, second, suffix


def load_note(load, sections):
    """`mean x, max y CPUs (top programs)` of the other load during these sections, or None."""
    figures = [load[s] for s in sections if s in load]
    if not figures:
        return None
    mean = statistics.mean(f["mean"] for f in figures)
    peak = max(f["max"] for f in figures)
    top = {}
    for f in figures:
        for name, used in f["top"]:
            top[name] = max(top.get(name, 0), used)
    names = ", ".join(f"`{n}`" for n, _ in sorted(top.items(), key=lambda x: -x[1])[:3])
    return f"mean {mean:.2f}, peak {peak:.2f} of the 2 CPUs" + (f" (mostly {names})" if names else "")


def report(results, elapsed):
    m = machine()
    major = results.get("pg_major", PG_MAJOR)
    backend_mode, first_phase, second_phase, suffix = phase_names(results)
    per_backend = backend_mode == "backend"
    gen = results["generation"]
    ins = results["insert"]
    ident_ms = median(ins["identity"]["ms"])
    uuid_ms = median(ins["uuid4"]["ms"])
    load = results.get("load", {})
    L = []
    w = L.append
    summary = []

    def load_line(sections):
        note = load_note(load, sections)
        if note:
            w(f"*Other load on the machine during these measurements: {note}; see "
              f"[other load](#other-load-during-the-postgresql-{major}-run).*")
            w("")

    w(f"### Machine and settings (PostgreSQL {major})")
    w("")
    w(f"- **Machine.** {m['cpu']}, {m['memory']} RAM, {m['os']}, clock source `{m['clocksource']}`.")
    w(f"- **PostgreSQL.** {results['server']['version']}.")
    w(f"- **pg_flake.** release build (`make install-{major}`: `cargo pgrx install --release`, opt-level 3, "
      f"thin LTO), {m['rust']}, {m['pgrx']}.")
    w("- **Server.** `scripts/pg-server.sh` with a fresh data directory "
      f"(`$BENCH_DATA`, default `$PG_FLAKE_TMP/pg_flake-bench-{major}`), 127.0.0.1:{PORT}, as the `postgres` user. "
      f"First **not preloaded** ({first_phase}: every row unless it says *{suffix.strip(' ()')}*), then "
      f"restarted with `shared_preload_libraries = 'pg_flake'` ({second_phase}), then with `fsync = on` for "
      "[durable marks](#durable-marks-fsync--on-postgresql-" + str(major) + "). pgbench and psql run on the same "
      "machine and share its CPUs with the server. Every single-session measurement (generation, insert, sort) "
      f"pins its backend to CPU {PIN_CPU} (`taskset`; `BENCH_CPU`): "
      "the two vCPUs of this machine differ in speed by up to a third, by turns, and a function and its "
      "baselines should be timed on the same one. Settings as the server reported them:")
    w("")
    w("  ```")
    for s in results["server"]["settings"]:
        w(f"  {s}")
    w("  ```")
    w("")
    w("  These are PostgreSQL's defaults (written out by `scripts/bench.sh`, the same for 15, 16 and 18) except "
      "`autovacuum = off` (it would otherwise run during the next measurement; the script runs `VACUUM ANALYZE` "
      "itself) and `fsync = off` (`scripts/pg-server.sh`; on for the durable marks). The sort alone raises "
      "`work_mem` and turns parallelism off in its session."
      + (" `data_checksums` and `io_method` are initdb's and PostgreSQL 18's defaults." if int(major) >= 18 else ""))
    w("")

    # ---------------------------------------------------------- generation
    w(f"### Generation cost (PostgreSQL {major})")
    w("")
    w(f"`SELECT count(f()) FROM generate_series(1, {fmt_n(N_GEN)})`, timed by psql (`\\timing`) in a fresh "
      f"session after 1 000 warm-up calls; median of {GEN_REPS} (the generators take turns in each round); "
      "ns per call = (median − median of the floor) / "
      f"{fmt_n(N_GEN)}. Floor: `SELECT count(1) FROM generate_series(1, {fmt_n(N_GEN)})`. "
      "`nextval` is `nextval('bench_seq')` on a plain sequence, what an identity column calls. "
      "Targets: coordination-based generators ≤ 0.1× `gen_random_uuid()` and ≤ 0.5× `nextval`; "
      "random-based ≤ 0.2× `gen_random_uuid()`.")
    w("")
    load_line(["generation", "shared_generation"])

    def gen_table(times, mode, name_suffix, reps_note=""):
        """The generation table of one phase; `mode` decides which caps apply."""
        u = ns_per_call(times, "gen_random_uuid()")
        nv = ns_per_call(times, "nextval")
        why_for = WHY if mode == "backend" else WHY_SHARED
        w("| function | runs (ms) | median (ms) | ns per call | × gen_random_uuid | × nextval | target |")
        w("|---|---|---|---|---|---|---|")
        for label, _, cls in GENERATORS:
            if label not in times:
                continue
            runs = ", ".join(f"{x:.0f}" for x in times[label])
            if cls == "floor":
                w(f"| floor `count(1)` | {runs} | {median(times[label]):.0f} | — | — | — | baseline |")
                continue
            ns = ns_per_call(times, label)
            if cls == "baseline":
                target = "baseline"
            elif cls == "coordination":
                limit = min(0.1 * u, 0.5 * nv)
                target = at_most(ns, limit, " ns")
                summary.append((f"generation {label}{name_suffix}", target, why_for.get(label) if ns > limit else None))
            else:
                limit = 0.2 * u
                target = at_most(ns, limit, " ns")
                summary.append((f"generation {label}{name_suffix}", target, WHY.get(label) if ns > limit else None))
            w(f"| `{label}` | {runs} | {median(times[label]):.0f} | {fmt_n(ns)} | {ns / u:.2f} | {ns / nv:.2f} | {target} |")
        w("")

    w(f"**Not preloaded**: {first_phase}.")
    w("")
    gen_table(gen, backend_mode, "")
    if "shared_generation" in results:
        w(f"**Preloaded**: {second_phase}; the baselines measured again on the restarted server.")
        w("")
        gen_table(results["shared_generation"], "shared", suffix)
    caps = WHY if per_backend else {**WHY_SHARED, "distributed_id_generate()": WHY["distributed_id_generate()"]}
    notes = [(label, caps[label]) for label, _, _ in GENERATORS if label in caps]
    w("Caps that no code change can lift (the formats' layouts and the slot rule of docs/guarantees.md \"Guarantees\"):")
    w("")
    for label, why in notes:
        w(f"- `{label}`: {why}.")
    w("")

    # -------------------------------------------------------------- insert
    w(f"### Bulk insert (PostgreSQL {major})")
    w("")
    w(f"`CREATE TABLE t (id <type> DEFAULT <generator> PRIMARY KEY, n int NOT NULL); CHECKPOINT;` then, timed, "
      f"`INSERT INTO t (n) SELECT g FROM generate_series(1, {fmt_n(N_ROWS)}) g` "
      f"({INSERT_REPS} run{'s' if INSERT_REPS > 1 else ''} per type"
      + ("" if INSERT_REPS > 1 else ": one 5 M-row run per type keeps each version's bench near half an hour on "
         "this 2-CPU machine; `BENCH_INSERT_REPS=3 make bench` takes the median of three")
      + "). Sizes: `pg_table_size`, `pg_indexes_size` after the insert. Target: every pg_flake type ≤ 1.2× "
      "bigint identity and ≤ 0.4× uuid v4.")
    w("")
    load_line(["insert", "shared_insert"])
    w(f"![bulk insert on PostgreSQL {major}: time and sizes per key type](bench-insert-{major}.png)")
    w("")
    w("| key | runs (s) | median (s) | × bigint identity | × uuid v4 | table | index | target |")
    w("|---|---|---|---|---|---|---|---|")

    def insert_rows(data, shared):
        for key in [t[0] for t in TABLES]:
            if key not in data:
                continue
            _, label, _, cls = TABLE[key]
            r = data[key]
            t = median(r["ms"])
            if cls == "baseline":
                target = "baseline"
            else:
                limit = min(1.2 * ident_ms, 0.4 * uuid_ms)
                target = at_most(t / 1000, limit / 1000, " s", 1)
                capped = t > limit and not shared and (per_backend or key == "distributed_id")
                summary.append((f"insert {label}" + (suffix if shared else ""), target,
                                WHY_INSERT.get(key) if capped else None))
            name = f"{label} — {suffix.strip(' ()')}" if shared else label
            w(f"| {name} | {', '.join(f'{x / 1000:.1f}' for x in r['ms'])} | {t / 1000:.1f} | {t / ident_ms:.2f} | "
              f"{t / uuid_ms:.2f} | {mib(r['table_bytes'])} | {mib(r['index_bytes'])} | {target} |")

    insert_rows(ins, False)
    if "shared_insert" in results:
        insert_rows(results["shared_insert"], True)
    w("")
    w(f"The *{suffix.strip(' ()')}* rows ran on the restarted, preloaded server (ratios against the first run's "
      "baselines; its own bigint identity row shows how much the restart moved).")
    w("")

    # ---------------------------------------------------------------- sort
    srt = results["sort"]
    w(f"### Sort (PostgreSQL {major})")
    w("")
    w(f"`SELECT v FROM sort_<type> ORDER BY v OFFSET {fmt_n(N_ROWS)}` (a full sort that returns nothing) with "
      f"`work_mem = '{SORT_WORK_MEM}'` and `max_parallel_workers_per_gather = 0`; median of {SORT_REPS}. "
      f"Every `sort_<type>` holds the {fmt_n(N_ROWS)} values of the insert table in one fixed random order "
      f"(`setseed({SORT_SEED})`): position p holds the value of the same rank in every table (checked). "
      "*scan* is the same query without `ORDER BY`; *sort only* = median − scan. "
      "The types take turns, so each round has a run of every type close in time: *paired × uuid v4* is "
      "the median of the rounds' ratios to uuid v4's run of the same round, which the machine's drift "
      "moves less than the ratio of medians. Target: ≤ 1.0× uuid v4's time, paired. A ratio above 1 by "
      "no more than the measurement can show is parity: by no more than uuid's own spread (how far the "
      "paired ratio of uuid v7 or v1mc, the same type and code as v4 with other values, lies from 1) or "
      "twice the standard error of the type's rounds, whichever is larger.")
    w("")
    load_line(["sort"])
    w("| type | runs (ms) | median (ms) | scan (ms) | sort only (ms) | × uuid v4 | paired × uuid v4 "
      "| sort method | target |")
    w("|---|---|---|---|---|---|---|---|---|")
    u_sort = median(srt["uuid4"]["ms"])
    paired = {key: paired_ratio(srt[key]["ms"], srt["uuid4"]["ms"]) for key in KEYED}
    spread = max([abs(paired[k] - 1) for k in SAME_CODE_AS_UUID4 if k in paired], default=0.0)
    for key in KEYED:
        r = srt[key]
        t = median(r["ms"])
        scan = median(r["scan_ms"])
        if key in NATIVE:
            target = at_most_paired(paired[key], spread, paired_noise(r["ms"], srt["uuid4"]["ms"]))
            summary.append((f"sort {key}", target, None))
        else:
            target = "baseline"
        label = TABLE[key][1]
        w(f"| {label} | {', '.join(f'{x:.0f}' for x in r['ms'])} | {t:.0f} | {scan:.0f} | {t - scan:.0f} | "
          f"{t / u_sort:.3f} | {paired[key]:.3f} | {r['method']} | {target} |")
    w("")

    # ------------------------------------------------------------- lookups
    lk = results["lookups"]
    w(f"### Lookups (PostgreSQL {major})")
    w("")
    w(f"pgbench, {LOOKUP_CLIENTS} clients, {LOOKUP_ROUNDS} × {LOOKUP_SECONDS} s per type (types alternate), "
      f"median TPS; `-M prepared --random-seed={PGBENCH_SEED}`. Each transaction looks up one of "
      f"{fmt_n(LOOKUP_KEYS)} keys (the same row numbers in every table) in the {fmt_n(N_ROWS)}-row insert "
      "table by primary key:")
    w("")
    w("```")
    w(lookup_script("<type>").strip())
    w("```")
    w("")
    w("Target: ≥ 0.95× uuid v4's TPS.")
    w("")
    load_line(["lookups"])
    w("| type | TPS runs | median TPS | × uuid v4 | target |")
    w("|---|---|---|---|---|")
    u_tps = median(lk["uuid4"])
    for key in KEYED:
        tps = median(lk[key])
        if key in NATIVE:
            target = at_least(tps, 0.95 * u_tps, " TPS")
            summary.append((f"lookups {key}", target, None))
        else:
            target = "baseline"
        w(f"| {TABLE[key][1]} | {', '.join(fmt_n(x) for x in lk[key])} | {fmt_n(tps)} | {tps / u_tps:.2f} | {target} |")
    w("")

    # ---------------------------------------------------------- concurrent
    cc = results["concurrent"]
    w(f"### Concurrent generation (PostgreSQL {major})")
    w("")
    w(f"pgbench `SELECT f()`, {CONC_CLIENTS} clients and threads, {CONC_ROUNDS} × {CONC_SECONDS} s per "
      f"function (functions alternate), median TPS, `-M prepared`; floor: `SELECT 1`; {first_phase}. With 2 "
      "CPUs the statement round trip dominates. Target: ≥ 1.0× `SELECT gen_random_uuid()`.")
    w("")
    load_line(["concurrent"])
    w("| statement | TPS runs | median TPS | × gen_random_uuid | target |")
    w("|---|---|---|---|---|")
    u_cc = median(cc["gen_random_uuid()"])
    for statement, label, cls in concurrent_generators():
        tps = median(cc[label])
        if cls in ("floor", "baseline"):
            target = "baseline"
        else:
            target = at_least(tps, u_cc, " TPS")
            summary.append((f"concurrent {label}", target, None))
        w(f"| `{statement}` | {', '.join(fmt_n(x) for x in cc[label])} | {fmt_n(tps)} | {tps / u_cc:.2f} | {target} |")
    w("")

    # ------------------------------------------------------- durable marks
    if "marks" in results:
        marks_report(results, w, summary, gen_table, load_line)

    # ---------------------------------------------------------------- load
    w(f"### Other load during the PostgreSQL {major} run")
    w("")
    w(f"The machine is shared. A thread of `scripts/bench.py` samples `/proc` every {LOAD_SAMPLE:.0f} s and sums "
      "the CPU time of every process that belongs neither to this run nor to its server (a lower bound: "
      "processes that live less than a sample are missed). In CPUs, of 2:")
    w("")
    w("| measurements | mean | peak | busiest other programs (mean CPUs) |")
    w("|---|---|---|---|")
    for section, f in load.items():
        top = ", ".join(f"`{n}` {u:.2f}" for n, u in f["top"]) or "—"
        w(f"| {section.replace('_', ' ')} | {f['mean']:.2f} | {f['max']:.2f} | {top} |")
    w("")

    # ------------------------------------------------------------- summary
    head = []
    h = head.append
    met = sum(1 for _, t, _ in summary if t.startswith("**met"))
    h(f"## PostgreSQL {major}")
    h("")
    h(f"Generated by `make bench-{major}` on {time.strftime('%Y-%m-%d')}, in {elapsed / 60:.0f} minutes"
      + (" (**BENCH_QUICK smoke run: sizes are not the real ones**)" if results.get("quick") else "") + ".")
    h("")
    h(f"### Targets on PostgreSQL {major}: {met} of {len(summary)} met")
    h("")
    missed = [(what, target, why) for what, target, why in summary if target.startswith("**missed")]
    if missed:
        h("Missed (every other target is met; the tables below give each verdict):")
        h("")
        h("| measure | result | why a miss cannot be closed here |")
        h("|---|---|---|")
        for what, target, why in missed:
            h(f"| {what} | {target} | {why or ''} |")
    else:
        h("Every target is met.")
    h("")
    return "\n".join(head + L)


def marks_report(results, w, summary, gen_table, load_line):
    """The durable marks section: generation with fsync = on, the latency of
    the calls that record a mark, the marks recorded under load."""
    major = results.get("pg_major", PG_MAJOR)
    marks = results["marks"]
    fs = results.get("fsync")
    w(f"### Durable marks (fsync = on, PostgreSQL {major})")
    w("")
    w("Every coordination-based generator records a mark (docs/guarantees.md \"Restarts, crashes and the clock\") about "
      "once per half second per format, never per ID: `pg_flake/<format>.marks` written and `fdatasync`'d, and "
      "preloaded also a WAL record of resource manager 188, flushed. The rest of this run has `fsync = off`, "
      "under which a mark is a plain write; here the server ran again with **`fsync = on`**, first not "
      "preloaded, then preloaded."
      + (f" `pg_test_fsync` on this file system: one 8 kB write + `fdatasync` {fs['us']:.0f} µs "
         f"({fmt_n(fs['ops'])} per second)." if fs else ""))
    w("")
    load_line([f"marks_{v}" for v in marks])
    names = {"plain": "not preloaded", "preloaded": "preloaded"}
    w(f"**Generation with fsync = on** (as [above](#generation-cost-postgresql-{major}), median of "
      f"{MARKS_GEN_REPS}; a 2 M-call query runs for about as long as a lease, so some runs include a "
      "mark and some do not).")
    w("")
    for variant, m in marks.items():
        w(f"*{names[variant]}* ({m['mode']} mode):")
        w("")
        gen_table(m["generation"], m["mode"], f" (fsync on, {names[variant]})")
    w(f"**Latency of a call that records a mark.** `bench_mark_latency()` (`scripts/bench.py`): one session "
      f"calls `sno_generate()` {fmt_n(MARK_CALLS)} times, {MARK_PAUSE * 1000:.0f} ms apart, timing each call "
      "inside the server (`clock_timestamp()` before and after) and reading its mark "
      "(`pg_flake_generator_state()`) before and after: a call during which the mark moved recorded it.")
    w("")
    w("| server | calls | calls that recorded a mark | other calls: median µs | recording calls: median µs | p90 µs | max µs |")
    w("|---|---|---|---|---|---|---|")
    for variant, m in marks.items():
        lat = m["latency"]
        p, k = lat["plain"], lat["marked"]

        def us(x):
            return "—" if x is None else fmt_n(x, 1 if x < 10 else 0)
        w(f"| {names[variant]} ({m['mode']} mode) | {fmt_n(lat['calls'])} | {lat['recorded']} | {us(p['median'])} | "
          f"{us(k['median'])} | {us(k['p90'])} | {us(k['max'])} |")
    w("")
    w(f"**Marks under load.** pgbench, {MARK_LOAD_CLIENTS} clients, {marks[next(iter(marks))]['load']['seconds']} s, "
      "`-M prepared`, each transaction `SELECT count(f()) FROM generate_series(1, 1000)` for one of the five "
      "formats at random (flat out). `strace -f -T -y -e trace=fdatasync,fsync` on the postmaster counts "
      "every `fdatasync` of a marks file in the backends (one per mark recorded) and times it (strace adds "
      "some µs); preloaded, `pg_waldump -r custom188` counts pg_flake's WAL records over the same interval. "
      "*ms per s in mark syncs* adds up the time backends spent in the marks' `fdatasync` (preloaded, and in "
      "their WAL flushes) per second of the run; *cost per ID* divides it by the IDs made per second: an upper "
      "bound, since the other backends go on generating while one waits for its disk.")
    w("")
    w("| server | IDs/s | marks/s: " + " | ".join(MARK_FORMATS) + " | all | WAL records/s | mean fdatasync (ms) | "
      "ms per s in mark syncs | cost per ID (ns) |")
    w("|---|---|" + "---|" * len(MARK_FORMATS) + "---|---|---|---|---|")
    for variant, m in marks.items():
        ld = m["load"]
        secs = ld["seconds"]
        per_format = [len(ld["syncs"].get(f, [])) / secs for f in MARK_FORMATS]
        durations = [d for f in MARK_FORMATS for d in ld["syncs"].get(f, [])]
        wal_ms = sum(ld["wal_sync_ms"]) if variant == "preloaded" else 0
        busy = (sum(durations) + wal_ms) / secs
        wal = f"{ld['wal_records'] / secs:.1f}" if "wal_records" in ld else "—"
        mean_sync = f"{statistics.mean(durations):.2f}" if durations else "—"
        w(f"| {names[variant]} ({m['mode']} mode) | {fmt_n(ld['ids_per_s'])} | "
          + " | ".join(f"{x:.1f}" for x in per_format)
          + f" | {sum(per_format):.1f} | {wal} | {mean_sync} | {busy:.1f} | {busy * 1e6 / ld['ids_per_s']:.2f} |")
    w("")


def write_doc(text, name):
    """Replaces the section `name` (e.g. bench-15) of docs/BENCHMARKS.md; a
    section not there yet goes before the hand-written "Shared mode"."""
    path = os.path.join(ROOT, "docs", "BENCHMARKS.md")
    with open(path) as f:
        doc = f.read()
    begin, end = markers(name)
    block = f"{begin}\n\n{text}\n{end}"
    if begin in doc and end in doc:
        before = doc[:doc.index(begin)]
        after = doc[doc.index(end) + len(end):]
        doc = before + block + after
    else:
        at = doc.find("\n## Shared mode")
        at = len(doc) if at < 0 else at + 1
        doc = doc[:at] + block + "\n\n" + doc[at:]
    with open(path, "w") as f:
        f.write(doc)


def phase_report(elapsed):
    results = load()
    restrict_to(results["features"])
    major = results.get("pg_major", PG_MAJOR)
    text = report(results, elapsed)
    chart_name = f"bench-insert-{major}.png"
    if results.get("quick"):
        with open(os.path.join(OUT, "BENCHMARKS.md"), "w") as f:
            f.write(text)
        chart(results, os.path.join(OUT, chart_name))
        log(f"quick run: report in {OUT}/BENCHMARKS.md, docs/ untouched")
        return
    write_doc(text, f"bench-{major}")
    chart(results, os.path.join(ROOT, "docs", chart_name))
    log(f"wrote docs/BENCHMARKS.md (PostgreSQL {major}) and docs/{chart_name}")


def report_codecs(results, elapsed):
    L = []
    w = L.append
    codecs = results.get("codecs", {})
    verdicts = {name: at_most(ns, CODEC_TARGET_NS, " ns", 0) for name, ns in codecs.items()}
    met = sum(1 for v in verdicts.values() if v.startswith("**met"))
    w("## Codecs")
    w("")
    w(f"Generated by `make bench-codecs` on {time.strftime('%Y-%m-%d')}, in {elapsed / 60:.0f} minutes"
      + (" (**BENCH_QUICK smoke run**)" if results.get("quick") else "")
      + f": **{met} of {len(codecs)} targets met**. The core crate's text codecs, no server: the same on "
      "every PostgreSQL version.")
    w("")
    w("`cargo bench -p flake-core --bench codecs -- --warm-up-time 1 --measurement-time 3` (criterion, "
      "`core/benches/codecs.rs`), pinned to CPU " + PIN_CPU + ": criterion's median time per value. `encode` is "
      "`Display` into a reused `String`, `encode_text` the stack-buffer encoder the extension's output functions "
      f"use, `decode` the strict `FromStr`. Target: text encode/decode ≤ {CODEC_TARGET_NS:.0f} ns per value.")
    w("")
    note = load_note(results.get("load", {}), ["codecs"])
    if note:
        w(f"*Other load on the machine meanwhile: {note}.*")
        w("")
    w("| benchmark | ns per value | target |")
    w("|---|---|---|")
    for name, ns in sorted(codecs.items()):
        w(f"| `{name}` | {ns:.1f} | {verdicts[name]} |")
    w("")
    return "\n".join(L)


def phase_report_codecs(elapsed):
    results = load()
    text = report_codecs(results, elapsed)
    if results.get("quick"):
        with open(os.path.join(OUT, "BENCHMARKS-codecs.md"), "w") as f:
            f.write(text)
        log(f"quick run: report in {OUT}/BENCHMARKS-codecs.md, docs/ untouched")
        return
    write_doc(text, "bench-codecs")
    log("wrote docs/BENCHMARKS.md (codecs)")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    phase = sys.argv[1]
    if phase == "backend":
        if os.path.exists(RESULTS):
            os.remove(RESULTS)
        phase_backend()
    elif phase == "shared":
        phase_shared()
    elif phase == "marks" and len(sys.argv) > 2 and sys.argv[2] in ("plain", "preloaded"):
        phase_marks(sys.argv[2])
    elif phase == "profile" and len(sys.argv) > 2 and sys.argv[2] in ("plain", "preloaded"):
        phase_profile(sys.argv[2])
    elif phase == "report-profile":
        phase_report_profile()
    elif phase == "codecs":
        if os.path.exists(RESULTS):
            os.remove(RESULTS)
        phase_codecs()
    elif phase in ("report", "report-codecs"):
        elapsed = float(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[2] == "--elapsed" else 0
        (phase_report if phase == "report" else phase_report_codecs)(elapsed)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
