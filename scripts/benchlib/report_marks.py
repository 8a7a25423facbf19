"""The durable marks part of a version's section: generation with fsync = on,
the latency of the calls that record a mark, the marks recorded under load."""

import statistics

from benchlib.config import (
    MARK_CALLS,
    MARK_FORMATS,
    MARK_LOAD_CLIENTS,
    MARK_PAUSE,
    MARKS_GEN_REPS,
)
from benchlib.report_tables import gen_table
from benchlib.verdicts import fmt_n

NAMES = {"plain": "not preloaded", "preloaded": "preloaded"}


def marks(r):
    w = r.w
    fs = r.results.get("fsync")
    w(f"### Durable marks (fsync = on, PostgreSQL {r.major})")
    w("")
    w("Every coordination-based generator records a mark (docs/guarantees.md \"Restarts, crashes and the clock\") about "
      "once per half second per format, never per ID: `pg_flake/<format>.marks` written and `fdatasync`'d, and "
      "preloaded also a WAL record of resource manager 188, flushed. The rest of this run has `fsync = off`, "
      "under which a mark is a plain write; here the server ran again with **`fsync = on`**, first not "
      "preloaded, then preloaded."
      + (f" `pg_test_fsync` on this file system: one 8 kB write + `fdatasync` {fs['us']:.0f} µs "
         f"({fmt_n(fs['ops'])} per second)." if fs else ""))
    w("")
    r.load_line([f"marks_{v}" for v in r.results["marks"]])
    marks_generation(r)
    marks_latency(r)
    marks_under_load(r)


def marks_generation(r):
    w = r.w
    w(f"**Generation with fsync = on** (as [above](#generation-cost-postgresql-{r.major}), median of "
      f"{MARKS_GEN_REPS}; a 2 M-call query runs for about as long as a lease, so some runs include a "
      "mark and some do not).")
    w("")
    for variant, m in r.results["marks"].items():
        w(f"*{NAMES[variant]}* ({m['mode']} mode):")
        w("")
        gen_table(r, m["generation"], m["mode"], f" (fsync on, {NAMES[variant]})")


def us(x):
    return "—" if x is None else fmt_n(x, 1 if x < 10 else 0)


def marks_latency(r):
    w = r.w
    w(f"**Latency of a call that records a mark.** `bench_mark_latency()` (`scripts/bench.py`): one session "
      f"calls `sno_generate()` {fmt_n(MARK_CALLS)} times, {MARK_PAUSE * 1000:.0f} ms apart, timing each call "
      "inside the server (`clock_timestamp()` before and after) and reading its mark "
      "(`pg_flake_generator_state()`) before and after: a call during which the mark moved recorded it.")
    w("")
    w("| server | calls | calls that recorded a mark | other calls: median µs | recording calls: median µs | p90 µs | max µs |")
    w("|---|---|---|---|---|---|---|")
    for variant, m in r.results["marks"].items():
        lat = m["latency"]
        p, k = lat["plain"], lat["marked"]
        w(f"| {NAMES[variant]} ({m['mode']} mode) | {fmt_n(lat['calls'])} | {lat['recorded']} | {us(p['median'])} | "
          f"{us(k['median'])} | {us(k['p90'])} | {us(k['max'])} |")
    w("")


def marks_under_load(r):
    w = r.w
    marks = r.results["marks"]
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
        w(f"| {NAMES[variant]} ({m['mode']} mode) | {fmt_n(ld['ids_per_s'])} | "
          + " | ".join(f"{x:.1f}" for x in per_format)
          + f" | {sum(per_format):.1f} | {wal} | {mean_sync} | {busy:.1f} | {busy * 1e6 / ld['ids_per_s']:.2f} |")
    w("")
