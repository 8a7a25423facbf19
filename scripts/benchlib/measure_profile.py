"""The generation profile (phase `profile plain|preloaded`): one generated ID
against the physical floor (a C function returning 16 constant bytes, a
vDSO clock read) and perf's samples of sno_generate(), into results.json."""

import os
import re
import shutil
import subprocess
import time

from benchlib.config import (
    FLOOR_DIR,
    OUT,
    PG_BIN,
    PG_MAJOR,
    PIN_CPU,
    PROFILE_CALLS,
    PROFILE_GENERATORS,
    QUICK,
    RESULTS,
    restrict_to,
)
from benchlib.loadwatch import LoadWatch
from benchlib.measure import (
    detect_features,
    generator_mode,
    measure_generation,
    setup_database,
)
from benchlib.results import load, log, save
from benchlib.server import pinned_session, psql


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
                             "--sort", "dso,symbol"], check=False, capture_output=True, text=True).stdout
    rows = []
    for line in report.splitlines():
        m = re.match(r"\s*([0-9.]+)%\s+(\S+)\s+\[[.k]\]\s+(.*)$", line)
        if m:
            symbol = re.sub(r"(\s+-)+\s*$", "", m.group(3)).strip()
            rows.append((float(m.group(1)), f"{m.group(2)} {symbol}"))
    return rows


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
