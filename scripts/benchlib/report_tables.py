"""The measurement parts of a version's section: generation cost, bulk insert,
sort, lookups, concurrent generation; each a function of the Report."""

from benchlib.config import (
    CONC_CLIENTS,
    CONC_ROUNDS,
    CONC_SECONDS,
    GEN_REPS,
    GENERATORS,
    INSERT_REPS,
    KEYED,
    LOOKUP_CLIENTS,
    LOOKUP_KEYS,
    LOOKUP_ROUNDS,
    LOOKUP_SECONDS,
    N_GEN,
    N_ROWS,
    NATIVE,
    PGBENCH_SEED,
    SAME_CODE_AS_UUID4,
    SORT_REPS,
    SORT_SEED,
    SORT_WORK_MEM,
    TABLE,
    TABLES,
    WHY,
    WHY_INSERT,
    WHY_SHARED,
    concurrent_generators,
    lookup_script,
)
from benchlib.results import median
from benchlib.verdicts import (
    at_least,
    at_most,
    at_most_paired,
    fmt_n,
    mib,
    ns_per_call,
    paired_noise,
    paired_ratio,
)


def gen_table(r, times, mode, name_suffix):
    """The generation table of one phase; `mode` decides which caps apply."""
    w = r.w
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
            r.target(f"generation {label}{name_suffix}", target, why_for.get(label) if ns > limit else None)
        else:
            limit = 0.2 * u
            target = at_most(ns, limit, " ns")
            r.target(f"generation {label}{name_suffix}", target, WHY.get(label) if ns > limit else None)
        w(f"| `{label}` | {runs} | {median(times[label]):.0f} | {fmt_n(ns)} | {ns / u:.2f} | {ns / nv:.2f} | {target} |")
    w("")


def generation(r):
    w = r.w
    w(f"### Generation cost (PostgreSQL {r.major})")
    w("")
    w(f"`SELECT count(f()) FROM generate_series(1, {fmt_n(N_GEN)})`, timed by psql (`\\timing`) in a fresh "
      f"session after 1 000 warm-up calls; median of {GEN_REPS} (the generators take turns in each round); "
      "ns per call = (median − median of the floor) / "
      f"{fmt_n(N_GEN)}. Floor: `SELECT count(1) FROM generate_series(1, {fmt_n(N_GEN)})`. "
      "`nextval` is `nextval('bench_seq')` on a plain sequence, what an identity column calls. "
      "Targets: coordination-based generators ≤ 0.1× `gen_random_uuid()` and ≤ 0.5× `nextval`; "
      "random-based ≤ 0.2× `gen_random_uuid()`.")
    w("")
    r.load_line(["generation", "shared_generation"])
    w(f"**Not preloaded**: {r.first_phase}.")
    w("")
    gen_table(r, r.results["generation"], r.backend_mode, "")
    if "shared_generation" in r.results:
        w(f"**Preloaded**: {r.second_phase}; the baselines measured again on the restarted server.")
        w("")
        gen_table(r, r.results["shared_generation"], "shared", r.suffix)
    caps = WHY if r.per_backend else {**WHY_SHARED, "distributed_id_generate()": WHY["distributed_id_generate()"]}
    notes = [(label, caps[label]) for label, _, _ in GENERATORS if label in caps]
    w("Caps that no code change can lift (the formats' layouts and the slot rule of docs/guarantees.md \"Guarantees\"):")
    w("")
    for label, why in notes:
        w(f"- `{label}`: {why}.")
    w("")


def insert_rows(r, data, shared):
    """The rows of one phase's inserts, against the first phase's baselines."""
    ident_ms = median(r.results["insert"]["identity"]["ms"])
    uuid_ms = median(r.results["insert"]["uuid4"]["ms"])
    suffix = r.suffix
    for key in [t[0] for t in TABLES]:
        if key not in data:
            continue
        _, label, _, cls = TABLE[key]
        row = data[key]
        t = median(row["ms"])
        if cls == "baseline":
            target = "baseline"
        else:
            limit = min(1.2 * ident_ms, 0.4 * uuid_ms)
            target = at_most(t / 1000, limit / 1000, " s", 1)
            capped = t > limit and not shared and (r.per_backend or key == "distributed_id")
            r.target(f"insert {label}" + (suffix if shared else ""), target,
                     WHY_INSERT.get(key) if capped else None)
        name = f"{label} — {suffix.strip(' ()')}" if shared else label
        r.w(f"| {name} | {', '.join(f'{x / 1000:.1f}' for x in row['ms'])} | {t / 1000:.1f} | {t / ident_ms:.2f} | "
            f"{t / uuid_ms:.2f} | {mib(row['table_bytes'])} | {mib(row['index_bytes'])} | {target} |")


def insert(r):
    w = r.w
    w(f"### Bulk insert (PostgreSQL {r.major})")
    w("")
    w(f"`CREATE TABLE t (id <type> DEFAULT <generator> PRIMARY KEY, n int NOT NULL); CHECKPOINT;` then, timed, "
      f"`INSERT INTO t (n) SELECT g FROM generate_series(1, {fmt_n(N_ROWS)}) g` "
      f"({INSERT_REPS} run{'s' if INSERT_REPS > 1 else ''} per type"
      + ("" if INSERT_REPS > 1 else ": one 5 M-row run per type keeps each version's bench near half an hour on "
         "this 2-CPU machine; `BENCH_INSERT_REPS=3 make bench` takes the median of three")
      + "). Sizes: `pg_table_size`, `pg_indexes_size` after the insert. Target: every pg_flake type ≤ 1.2× "
      "bigint identity and ≤ 0.4× uuid v4.")
    w("")
    r.load_line(["insert", "shared_insert"])
    w(f"![bulk insert on PostgreSQL {r.major}: time and sizes per key type](bench-insert-{r.major}.png)")
    w("")
    w("| key | runs (s) | median (s) | × bigint identity | × uuid v4 | table | index | target |")
    w("|---|---|---|---|---|---|---|---|")
    insert_rows(r, r.results["insert"], False)
    if "shared_insert" in r.results:
        insert_rows(r, r.results["shared_insert"], True)
    w("")
    w(f"The *{r.suffix.strip(' ()')}* rows ran on the restarted, preloaded server (ratios against the first run's "
      "baselines; its own bigint identity row shows how much the restart moved).")
    w("")


def sort(r):
    w = r.w
    srt = r.results["sort"]
    w(f"### Sort (PostgreSQL {r.major})")
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
    r.load_line(["sort"])
    w("| type | runs (ms) | median (ms) | scan (ms) | sort only (ms) | × uuid v4 | paired × uuid v4 "
      "| sort method | target |")
    w("|---|---|---|---|---|---|---|---|---|")
    u_sort = median(srt["uuid4"]["ms"])
    paired = {key: paired_ratio(srt[key]["ms"], srt["uuid4"]["ms"]) for key in KEYED}
    spread = max([abs(paired[k] - 1) for k in SAME_CODE_AS_UUID4 if k in paired], default=0.0)
    for key in KEYED:
        row = srt[key]
        t = median(row["ms"])
        scan = median(row["scan_ms"])
        if key in NATIVE:
            target = at_most_paired(paired[key], spread, paired_noise(row["ms"], srt["uuid4"]["ms"]))
            r.target(f"sort {key}", target)
        else:
            target = "baseline"
        label = TABLE[key][1]
        w(f"| {label} | {', '.join(f'{x:.0f}' for x in row['ms'])} | {t:.0f} | {scan:.0f} | {t - scan:.0f} | "
          f"{t / u_sort:.3f} | {paired[key]:.3f} | {row['method']} | {target} |")
    w("")


def lookups(r):
    w = r.w
    lk = r.results["lookups"]
    w(f"### Lookups (PostgreSQL {r.major})")
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
    r.load_line(["lookups"])
    w("| type | TPS runs | median TPS | × uuid v4 | target |")
    w("|---|---|---|---|---|")
    u_tps = median(lk["uuid4"])
    for key in KEYED:
        tps = median(lk[key])
        if key in NATIVE:
            target = at_least(tps, 0.95 * u_tps, " TPS")
            r.target(f"lookups {key}", target)
        else:
            target = "baseline"
        w(f"| {TABLE[key][1]} | {', '.join(fmt_n(x) for x in lk[key])} | {fmt_n(tps)} | {tps / u_tps:.2f} | {target} |")
    w("")


def concurrent(r):
    w = r.w
    cc = r.results["concurrent"]
    w(f"### Concurrent generation (PostgreSQL {r.major})")
    w("")
    w(f"pgbench `SELECT f()`, {CONC_CLIENTS} clients and threads, {CONC_ROUNDS} × {CONC_SECONDS} s per "
      f"function (functions alternate), median TPS, `-M prepared`; floor: `SELECT 1`; {r.first_phase}. With 2 "
      "CPUs the statement round trip dominates. Target: ≥ 1.0× `SELECT gen_random_uuid()`.")
    w("")
    r.load_line(["concurrent"])
    w("| statement | TPS runs | median TPS | × gen_random_uuid | target |")
    w("|---|---|---|---|---|")
    u_cc = median(cc["gen_random_uuid()"])
    for statement, label, cls in concurrent_generators():
        tps = median(cc[label])
        if cls in ("floor", "baseline"):
            target = "baseline"
        else:
            target = at_least(tps, u_cc, " TPS")
            r.target(f"concurrent {label}", target)
        w(f"| `{statement}` | {', '.join(fmt_n(x) for x in cc[label])} | {fmt_n(tps)} | {tps / u_cc:.2f} | {target} |")
    w("")
