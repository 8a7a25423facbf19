"""What a benchmark run measures and with what: the environment bench.sh
sets, the sizes and repetitions, the generators and tables compared, and
the formats' caps a report states beside a missed target."""

import os
import re
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PG_BIN = os.environ.get("PG_BIN", "/usr/lib/postgresql/15/bin")
PG_MAJOR = os.environ.get("BENCH_PG_MAJOR", "15")


def table_port(major):
    """bench's port of PostgreSQL `major` in the one port table (scripts/ports.txt)."""
    return subprocess.run([os.path.join(ROOT, "scripts", "ports.sh"), "bench", str(major)],
                          capture_output=True, text=True, check=True).stdout.strip()


# bench.sh sets BENCH_PORT and BENCH_OUT; the defaults are for a run by hand.
PORT = os.environ.get("BENCH_PORT") or table_port(PG_MAJOR)
OUT = os.environ.get("BENCH_OUT") or os.path.join(os.environ.get("PG_FLAKE_TMP") or "/tmp", "pg_flake-bench")
DATA = os.environ.get("BENCH_DATA", "")
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

# The vCPUs of a virtual machine need not run at the same speed (on the
# machine of the published run one was up to a third slower than the other,
# by turns): every timed session's backend runs on the same CPU, so that a
# function and the baselines it is compared with are timed on the same one.
PIN_CPU = os.environ.get("BENCH_CPU", "0")

# Other load (loadwatch.py): a sample of /proc every LOAD_SAMPLE s.
LOAD_SAMPLE = 2.0

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
# The baselines of the same type and code as uuid v4 (other values only):
# how far their sorts lie from v4's is what the machine alone moves.
SAME_CODE_AS_UUID4 = ["uuid7", "uuid1mc"]

# Baselines a server may not have: PostgreSQL's own uuidv7() (18+), and
# uuid-ossp's uuid_generate_v1mc() (a contrib module: the PostgreSQL 18
# build from PyPI has none).
REQUIRES = {"uuidv7()": "uuidv7", "uuid7": "uuidv7",
            "uuid_generate_v1mc()": "uuid-ossp", "uuid1mc": "uuid-ossp"}


def restrict_to(features):
    """Drops the baselines this server does not have from every list (in
    place: the modules that imported the lists see the change)."""
    def have(name):
        return REQUIRES.get(name) is None or REQUIRES[name] in features
    GENERATORS[:] = [g for g in GENERATORS if have(g[0])]
    SHARED_GENERATORS[:] = [g for g in SHARED_GENERATORS if have(g[0])]
    TABLES[:] = [t for t in TABLES if have(t[0])]
    TABLE.clear()
    TABLE.update({t[0]: t for t in TABLES})
    KEYED[:] = [k for k in KEYED if have(k)]


def lookup_script(key):
    """The pgbench script of the lookups of one type (measured, and quoted by the report)."""
    return (f"\\set r random(1, {LOOKUP_KEYS})\n"
            f"SELECT n FROM ins_{key} WHERE id = (SELECT id FROM keys_{key} WHERE i = :r);\n")


def concurrent_generators():
    """(statement, label, class) of concurrent generation: `SELECT f()` per generator."""
    return [("SELECT 1" if c == "floor" else f"SELECT {e}", l, c) for l, e, c in GENERATORS]


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

# The generation profile: what one generated ID costs above what no SQL
# function can avoid: a C function returning a constant 16-byte value
# (scripts/bench-floor/floor.c, built against the server's headers) and a
# vDSO clock read (scripts/bench-floor/clock.c); and where sno_generate()'s
# time goes, by perf's samples of the backend.
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
    ("clock read (vDSO)", re.compile(r"vdso|clock_gettime", re.IGNORECASE)),
    ("spinlock", re.compile(r"spin|s_lock|tas\b", re.IGNORECASE)),
    ("palloc (the result)", re.compile(r"palloc|AllocSet|MemoryContextAlloc", re.IGNORECASE)),
    ("pg_flake: node, generator, datum", re.compile(r"^pg_flake\.so ")),
    ("executor: generate_series, count(), fmgr", re.compile(r"^postgres ")),
    ("kernel", re.compile(r"kernel|^\[")),
]
