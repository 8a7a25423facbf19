#!/usr/bin/env python3
"""The driver of `make bench` (scripts/bench.sh starts and stops the servers).

One PostgreSQL version per run (the server bench.sh started, BENCH_PG_MAJOR):

    bench.py backend   measurements against the server not preloaded
                       (per-backend generators on 15 and 16, shared from 17)
    bench.py shared    the preloaded rows (server restarted with preloading)
    bench.py marks plain|preloaded
                       the cost of durable marks, with fsync = on
    bench.py holders   the leased generators' IDs per second in each
                       language (Rust the reference), preloaded
    bench.py report    docs/BENCHMARKS.md (this version's section, between
                       its markers) and this version's insert chart
    bench.py profile plain|preloaded
                       the cost of one generated ID against the physical
                       floor, and a perf profile of sno_generate()
    bench.py report-profile
                       their section of docs/BENCHMARKS.md
    bench.py report-holders
                       the holders' table alone: its section of
                       docs/BENCHMARKS.md, and stdout (`bench.sh holders`)
    bench.py managed   pg_flake_sql (docs/managed.md) against the native
                       extension and PostgreSQL's UUIDs
    bench.py report-managed
                       its section of docs/BENCHMARKS.md

and, with no server, once for all versions:

    bench.py codecs         the criterion benchmarks of the core crate
    bench.py report-codecs  their section of docs/BENCHMARKS.md

Raw results accumulate in $BENCH_OUT/results.json: the measuring phases
write it, the report phases read only it (so `bench.py report` writes a
section again from a run's results, without a server). The code is in
scripts/benchlib/ (its __init__.py lists the modules). Only the standard
library is used; every connection goes to 127.0.0.1.
"""

import os
import sys

from benchlib.config import RESULTS


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    phase = sys.argv[1]
    if phase == "backend":
        from benchlib.measure import phase_backend
        if os.path.exists(RESULTS):
            os.remove(RESULTS)
        phase_backend()
    elif phase == "shared":
        from benchlib.measure import phase_shared
        phase_shared()
    elif phase == "holders":
        from benchlib.measure_holders import phase_holders
        phase_holders()
    elif phase == "marks" and len(sys.argv) > 2 and sys.argv[2] in ("plain", "preloaded"):
        from benchlib.measure_marks import phase_marks
        phase_marks(sys.argv[2])
    elif phase == "profile" and len(sys.argv) > 2 and sys.argv[2] in ("plain", "preloaded"):
        from benchlib.measure_profile import phase_profile
        phase_profile(sys.argv[2])
    elif phase == "managed":
        from benchlib.measure_managed import phase_managed
        phase_managed()
    elif phase == "report-managed":
        from benchlib.report_managed import phase_report_managed
        phase_report_managed()
    elif phase == "report-holders":
        from benchlib.report_holders import holders_alone
        holders_alone()
    elif phase == "report-profile":
        from benchlib.report_profile import phase_report_profile
        phase_report_profile()
    elif phase == "codecs":
        from benchlib.measure_codecs import phase_codecs
        if os.path.exists(RESULTS):
            os.remove(RESULTS)
        phase_codecs()
    elif phase in ("report", "report-codecs"):
        from benchlib.report import phase_report
        from benchlib.report_codecs import phase_report_codecs
        elapsed = float(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[2] == "--elapsed" else 0
        (phase_report if phase == "report" else phase_report_codecs)(elapsed)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
