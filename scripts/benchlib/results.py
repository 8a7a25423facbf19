"""The raw results of a run ($BENCH_OUT/results.json: the measuring phases
add to it, the reporting phases read it), the log, and the median."""

import json
import os
import statistics
import time

from benchlib.config import OUT, RESULTS

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


def median(xs):
    return statistics.median(xs)
