"""Durable marks (phase `marks plain|preloaded`): on a server with fsync = on,
generation again, the latency of the calls that record a mark, and the marks
recorded under load, into results.json."""

import os
import re
import subprocess
import sys
import time

from benchlib.config import (
    ARGUMENTS,
    DATA,
    DB,
    MARK_CALLS,
    MARK_FORMATS,
    MARK_LOAD_CLIENTS,
    MARK_LOAD_SECONDS,
    MARK_PAUSE,
    MARKS_GEN_REPS,
    OUT,
    PG_BIN,
    PORT,
    QUICK,
    SHARED_GENERATORS,
    restrict_to,
)
from benchlib.loadwatch import LoadWatch, postmaster_pid
from benchlib.measure import generator_mode, measure_generation
from benchlib.results import load, log, save
from benchlib.server import psql

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
    return xs[min(len(xs) - 1, round(p / 100 * (len(xs) - 1)))] if xs else None


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
                       check=False, capture_output=True, text=True)
    with open(os.path.join(OUT, "pg_test_fsync.log"), "w") as f:
        f.write(r.stdout + r.stderr)
    m = re.search(r"^\s*fdatasync\s+([0-9.]+) ops/sec\s+([0-9]+) usecs/op", r.stdout, re.MULTILINE)
    return {"ops": float(m.group(1)), "us": float(m.group(2))} if m else None


def count_syncs(trace, out):
    """Adds strace's fdatasync/fsync calls to `out`: per marks file, and the WAL's."""
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
    r = subprocess.run(cmd + scripts + [DB], check=False, capture_output=True, text=True)
    strace.send_signal(2)
    strace.wait()
    lsn1 = psql("SELECT pg_current_wal_insert_lsn();").strip()
    m = re.search(r"tps = ([0-9.]+) \(without initial connection time\)", r.stdout)
    if r.returncode != 0 or not m:
        sys.exit(f"bench: pgbench failed:\n{r.stdout}\n{r.stderr}")
    out = {"tps": float(m.group(1)), "ids_per_s": float(m.group(1)) * 1000, "seconds": MARK_LOAD_SECONDS,
           "clients": MARK_LOAD_CLIENTS, "syncs": {}, "wal_syncs": 0, "wal_sync_ms": []}
    count_syncs(trace, out)
    if preloaded:
        dump = subprocess.run(["runuser", "-u", "postgres", "--", f"{PG_BIN}/pg_waldump", "-p",
                               os.path.join(DATA, "pg_wal"), "-s", lsn0, "-e", lsn1, "-r", "custom188"],
                              check=False, capture_output=True, text=True)
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
