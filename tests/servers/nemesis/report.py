"""The nemesis's figures (printed after the run) and, when it found
something, the failure: the findings, the duplicates with both issuances,
how to replay, and the numbered, timestamped operation history."""

from __future__ import annotations

from collections import Counter

from checker import CheckResult
from registry import off_by_default

# Counted elsewhere in the figures.
QUIET = ("long waits cancelled",)


def grouped(counter: Counter) -> str:
    """ "25006 120 (standby 100, clone1 20), ..." from keys "code where"."""
    by_code: dict[str, Counter] = {}
    for key, n in counter.items():
        code, _, where = key.partition(" ")
        by_code.setdefault(code, Counter())[where or "?"] += n
    parts = []
    for code, wheres in sorted(by_code.items(), key=lambda kv: -sum(kv[1].values())):
        inner = ", ".join(f"{w} {n}" for w, n in wheres.most_common())
        parts.append(f"{code} {sum(wheres.values())} ({inner})")
    return "; ".join(parts) or "none"


def figures_of(world, result: CheckResult, pg_major: int) -> list[str]:
    h = world.history
    ran = sum(h.ops.values())
    kinds = sorted(set(h.ops) | set(h.skipped) | set(h.failed))
    per_op = ", ".join(
        f"{k} {h.ops[k]}"
        + (f" (+{h.skipped[k]} skipped)" if h.skipped[k] else "")
        + (f" (+{h.failed[k]} failed)" if h.failed[k] else "")
        for k in kinds
    )
    ids = ", ".join(
        f"{fmt} {n} ({', '.join(f'{s} {c}' for s, c in result.by_source[fmt].most_common())})"
        for fmt, n in result.issued.items()
    )
    holders = Counter()
    by_kind = Counter()
    for holder in world.holders:
        holders.update(holder.exits)
        by_kind.update({f"{holder.kind} {c}": n for c, n in holder.exits.items()})
    starts = sum(h.incarnation for h in world.holders)
    lost = ", ".join(f"{k} {n}" for k, n in h.lost.most_common()) or "none"
    return [
        f"seed {world.seed}, {world.minutes:g} min on PostgreSQL {pg_major}: {world.step} steps,"
        f" {ran} operations run, {sum(h.skipped.values())} skipped,"
        f" {sum(h.failed.values())} failed",
        f"operations: {per_op}",
        f"IDs checked: {sum(result.issued.values())}: {ids}",
        f"refusals by SQLSTATE (where): {grouped(h.refusals)}",
        f"connections lost (by SQLSTATE): {lost}",
        f"holders: {starts} started; exits by code: "
        + (", ".join(f"{c} x{n}" for c, n in sorted(holders.items())) or "none")
        + f" (by kind: {', '.join(f'{k} x{n}' for k, n in sorted(by_kind.items())) or 'none'})",
        f"holder IDs by kind: {holder_ids(world)}",
        f"waits: longest statement {world.watchdog.longest:.1f} s; cancelled at the bound"
        f" {world.watchdog.cancelled}; uncancellable {count(h, 'uncancellable')}",
        f"duplicates: {sum(result.duplicate_count.values())}"
        + (f" ({dict(result.duplicate_count)})" if result.duplicate_count else ""),
        f"other findings: {len(h.findings) - count(h, 'uncancellable') - count(h, 'duplicate')}",
        "events: "
        + (", ".join(f"{k} {n}" for k, n in sorted(h.notes.items()) if k not in QUIET) or "none"),
        f"operations off: {', '.join(sorted(set(world.all_ops) - set(world.ops))) or 'none'}",
    ]


def holder_ids(world) -> str:
    """The IDs in the holders' --ids files, by holder kind (rust, python, …)."""
    counts = Counter()
    kinds = {h.name: h.kind for h in world.holders}
    for path in (world.root / "holders").glob("*.ids"):
        kind = kinds.get(path.name.split(".", 1)[0], "other")
        with open(path, "rb") as f:
            counts[kind] += sum(1 for line in f if line.endswith(b"\n"))
    return ", ".join(f"{k} {n}" for k, n in sorted(counts.items())) or "none"


def count(history, kind: str) -> int:
    return sum(1 for f in history.findings if f.kind == kind)


def failure(world, result: CheckResult, replay: str) -> str | None:
    h = world.history
    if not h.findings and not result.duplicates:
        return None
    lines = [
        f"nemesis, seed {world.seed}: {len(h.findings)} findings,"
        f" {sum(result.duplicate_count.values())} duplicate IDs",
        f"replay: {replay}",
        "",
    ]
    lines += [f.line() for f in h.findings]
    for d in result.duplicates:
        lines.append(
            f"[duplicate] {d.format} {d.id}: first {d.first[1]} ({d.first[0]}, at {d.first[2]} s);"
            f" again {d.second[1]} ({d.second[0]}, at {d.second[2]} s)"
        )
    lines += ["", f"operation history ({world.root / 'history.txt'}):", h.text()]
    lines += ["", "off by default: " + "; ".join(off_by_default())]
    return "\n".join(lines)
