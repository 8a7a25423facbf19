"""The leased generators' part of a version's section (phase `report`):
IDs per second per holder, each language against the Rust reference
(measure_holders.py)."""


def holders(r):
    h = r.results.get("holders")
    if not h:
        return
    w = r.w
    by = h["by_language"]
    reference = {row["format"]: row["ids_per_second"] for row in by.get("rust") or [] if row["threads"] == 1}
    w(f"### Leased generators: IDs per second per holder (PostgreSQL {r.major})")
    w("")
    w(f"Each holder program takes a lease of the format on this server, then calls its generator in a loop "
      f"for {h['seconds']} s (no I/O but the lease's own; one thread on CPU pinned like the SQL sessions, "
      "several sharing one generator unpinned), and releases it. The Rust holder "
      "(`core/examples/lease_bench.rs`, `Leased::generate`) is the reference. A format's units bound the rate: "
      "Snowflake 4096 IDs per millisecond, sno 65 536 per 4 ms, kuid96 16 384 per 1024 µs, SIQ (user) 2048 per "
      "1/65536 s.")
    w("")
    w("| holder | threads | " + " | ".join(row for row in ("sno", "snowflake", "kuid96", "siq")) + " |")
    w("|---|---|---|---|---|---|")
    for language, rows in by.items():
        if rows is None:
            w(f"| {language} | — | toolchain missing | | | |")
            continue
        for n in sorted({row["threads"] for row in rows}):
            cells = []
            for fmt in ("sno", "snowflake", "kuid96", "siq"):
                row = next((x for x in rows if x["format"] == fmt and x["threads"] == n), None)
                if row is None:
                    cells.append("—")
                    continue
                rate = row["ids_per_second"]
                ratio = f" ({rate / reference[fmt]:.2f}x)" if fmt in reference and language != "rust" else ""
                cells.append(f"{rate / 1e6:.2f} M/s{ratio}")
            w(f"| {language} | {n} | " + " | ".join(cells) + " |")
    w("")


def holders_alone():
    """`bench.py report-holders` (`make bench-holders-V`): the table alone, in its own
    section of docs/BENCHMARKS.md (a quick run's into the output directory), and on stdout."""
    import os
    import time
    from types import SimpleNamespace

    from benchlib.config import OUT, PG_MAJOR
    from benchlib.doc import machine, write_doc
    from benchlib.results import load, log

    results = load()
    major = results.get("pg_major", PG_MAJOR)
    lines = []
    holders(SimpleNamespace(results=results, w=lines.append, major=major))
    lines.insert(1, "")
    m = machine()
    lines.insert(2, f"`make bench-holders-{major}` alone ({m['cpu']}, {m['os']}; {m['rust']}),"
                    f" {time.strftime('%Y-%m-%d', time.gmtime())}.")
    text = "\n".join(lines)
    print(text)
    if results.get("quick"):
        with open(os.path.join(OUT, "BENCHMARKS-holders.md"), "w") as f:
            f.write(text)
        return
    write_doc(text, f"bench-holders-{major}")
    log("wrote docs/BENCHMARKS.md (leased generators)")
