"""The core crate's codec benchmarks (phase `codecs`, no server): criterion's
median per benchmark, into results.json."""

import json
import os
import shutil
import subprocess
import sys

from benchlib.config import OUT, PIN_CPU, QUICK, ROOT
from benchlib.loadwatch import LoadWatch
from benchlib.results import log, save


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
        r = subprocess.run(cmd, cwd=ROOT, env=env, check=False, capture_output=True, text=True)
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
