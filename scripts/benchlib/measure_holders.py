"""The leased generators' speed in each language (phase `holders`, on the
preloaded server): each holder program takes a lease of the benchmark's
database, calls its generator in a loop for a few seconds with no I/O
beyond the lease's (docs/applications.md "Generating IDs in your
application"), releases it and prints its count. The Rust holder
(core/examples/lease_bench.rs) is the reference; every holder has its
command line: `--dsn DSN --format F --seconds S [--threads N]`.

HOLDERS: a language's build (a function returning its command, or None
when the language's toolchain is missing: the table says so) and the
goroutine/thread counts it is measured with. A holder prints at least
`{"ids": N, "seconds": T}`; the rest of its row is filled in here."""

import json
import os
import shutil
import subprocess
import sys

from benchlib.config import DB, OUT, PIN_CPU, PORT, QUICK, ROOT
from benchlib.loadwatch import LoadWatch
from benchlib.results import load, log, save

FORMATS = ["sno", "snowflake", "kuid96", "siq"]
SECONDS = 1 if QUICK else 3


def build_rust():
    subprocess.run(["cargo", "build", "--release", "--quiet", "-p", "flake-core", "--features", "lease",
                    "--example", "lease_bench"], cwd=ROOT, check=True)
    return [os.path.join(ROOT, "target", "release", "examples", "lease_bench")]


def build_go():
    # build.sh installs Debian's Go and pgx when missing.
    out = subprocess.run([os.path.join(ROOT, "clients", "go", "build.sh"), "pgflake-bench"],
                         check=True, capture_output=True, text=True)
    return [out.stdout.strip()]


HOLDER_PROGRAMS = os.path.join(ROOT, "scripts", "benchlib", "holders")


def python_with_psycopg():
    """A Python that has psycopg 3: the tests' environments, else one made under $BENCH_OUT."""
    for venv in (os.path.join(ROOT, "python", ".venv"), os.path.join(ROOT, "tests", "servers", ".venv"),
                 os.path.join(OUT, "venv")):
        python = os.path.join(venv, "bin", "python")
        if os.path.exists(python) and subprocess.run([python, "-c", "import psycopg"],
                                                     capture_output=True).returncode == 0:
            return python
    venv = os.path.join(OUT, "venv")
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    constraints = os.path.join(ROOT, "python", "tests", "constraints.txt")
    subprocess.run([os.path.join(venv, "bin", "pip"), "install", "-q", "-c", constraints, "psycopg[binary]"],
                   check=True)
    return os.path.join(venv, "bin", "python")


def build_python():
    return ["env", f"PYTHONPATH={os.path.join(ROOT, 'python')}", python_with_psycopg(),
            os.path.join(HOLDER_PROGRAMS, "lease_bench.py")]


def build_typescript():
    if not shutil.which("node"):
        return None
    subprocess.run([os.path.join(ROOT, "scripts", "build-typescript.sh")], check=True, stdout=subprocess.DEVNULL)
    return ["node", os.path.join(HOLDER_PROGRAMS, "lease_bench.mjs")]


# language: (build, [threads]); one thread is the per-holder figure, more
# share one generator (where the language shares one).
def build_java():
    # build.sh (cached) compiles the jar and the test classes, LeaseRate among them.
    if not shutil.which("javac"):
        return None
    subprocess.run([os.path.join(ROOT, "clients", "java", "build.sh")], check=True, stdout=subprocess.DEVNULL)
    return [os.path.join(ROOT, "clients", "java", "lease-rate.sh")]


HOLDERS = {
    "rust": (build_rust, [1]),
    "python": (build_python, [1]),
    "typescript": (build_typescript, [1]),
    "go": (build_go, [1, 2]),
    "java": (build_java, [1]),
}


def phase_holders():
    results = load()
    watch = LoadWatch()
    dsn = f"host=127.0.0.1 port={PORT} user=postgres dbname={DB}"
    holders = {}
    for language, (build, threads) in HOLDERS.items():
        command = build()
        if command is None:
            log(f"holders: no {language} toolchain, skipped")
            holders[language] = None
            continue
        rows = []
        for fmt in FORMATS:
            for n in threads:
                cmd = command + ["--dsn", dsn, "--format", fmt, "--seconds", str(SECONDS)]
                if n > 1:
                    cmd += ["--threads", str(n)]
                elif shutil.which("taskset"):  # one thread: on PIN_CPU like the SQL sessions
                    cmd = ["taskset", "-c", PIN_CPU] + cmd
                log(f"holders: {language} {fmt}, {n} thread(s)")
                with watch.section(f"holders_{language}"):
                    r = subprocess.run(cmd, check=True, capture_output=True, text=True)
                row = json.loads(r.stdout.strip().splitlines()[-1])
                row.update(language=language, format=fmt, threads=n)
                row.setdefault("ids_per_second", row["ids"] / row["seconds"])
                rows.append(row)
        holders[language] = rows
    results["holders"] = {"seconds": SECONDS, "by_language": holders}
    results.setdefault("load", {}).update(watch.summary())
    save(results)
