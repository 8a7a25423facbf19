"""psql and pgbench against the benchmark's server (127.0.0.1:PORT): plain
statements, timed statements in a session pinned to one CPU, pgbench runs."""

import os
import re
import shutil
import subprocess
import sys

from benchlib.config import DB, OUT, PG_BIN, PGBENCH_SEED, PIN_CPU, PORT


def psql_command(db=DB):
    return [f"{PG_BIN}/psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1",
            "-h", "127.0.0.1", "-p", PORT, "-U", "postgres", "-d", db]


def psql(sql, db=DB):
    r = subprocess.run(psql_command(db), input=sql, check=False, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"bench: psql failed:\n{r.stderr}\nSQL:\n{sql}")
    return r.stdout


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


def timed(statement, setup="", db=DB):
    """Milliseconds of `statement` by psql's \\timing, after `setup` in the same
    session, its backend on PIN_CPU."""
    session = pinned_session(db)
    out, err = session.communicate(f"{setup}\n\\timing on\n{statement}\n")
    if session.returncode != 0:
        sys.exit(f"bench: psql failed:\n{err}\nSQL:\n{statement}")
    times = re.findall(r"^Time: ([0-9.]+) ms", out, re.MULTILINE)
    if not times:
        sys.exit(f"bench: no timing for {statement}:\n{out}")
    return float(times[-1])


def pgbench(script_name, script, clients, seconds, db=DB):
    path = os.path.join(OUT, script_name)
    with open(path, "w") as f:
        f.write(script)
    cmd = [f"{PG_BIN}/pgbench", "-h", "127.0.0.1", "-p", PORT, "-U", "postgres", "-n",
           "-M", "prepared", "-c", str(clients), "-j", str(clients), "-T", str(seconds),
           f"--random-seed={PGBENCH_SEED}", "-f", path, db]
    r = subprocess.run(cmd, check=False, capture_output=True, text=True)
    m = re.search(r"tps = ([0-9.]+) \(without initial connection time\)", r.stdout)
    if r.returncode != 0 or not m:
        sys.exit(f"bench: pgbench failed:\n{r.stdout}\n{r.stderr}")
    return float(m.group(1))
