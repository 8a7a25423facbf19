"""The nemesis's checker: every ID issued anywhere, per format, and the
duplicates among them.

An *issuance* is one ID handed out once: a row a writer inserted (its key
``origin:ord``, the writer's statement and the row's number in it, which the
row also carries in its table, so that the same row harvested from a
standby or an old primary is the same issuance), an ID a writer selected on
a standby or clone (``writer:statement:row``), a line of a lease holder's
``--ids`` file (``holder.incarnation:line``). Two issuances of one ID are a
duplicate; the same issuance seen twice (a row and its replicated copy) is
not. kuid64 has no node field and is unique per server lineage only
(docs/operations.md "Several servers"), so its IDs are compared within
their lineage.

Issuances are appended to one file per format as they come (a long run
makes millions), and compared at the end.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import threading
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from cluster import FORMATS


@dataclass
class Duplicate:
    format: str
    id: str
    first: tuple[str, str, str]  # (key, issuer, at)
    second: tuple[str, str, str]


@dataclass
class CheckResult:
    issued: Counter = field(default_factory=Counter)  # format -> issuances
    by_source: dict = field(default_factory=dict)  # format -> Counter(source kind)
    duplicates: list[Duplicate] = field(default_factory=list)
    duplicate_count: Counter = field(default_factory=Counter)  # format -> count


class Store:
    """Issuances as they come, one tab-separated file per format: ID, key,
    issuer, lineage, seconds since the run began."""

    def __init__(self, root: Path):
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.lock = threading.Lock()
        self.files = {f: open(root / f"issued_{f}.tsv", "a", buffering=1 << 16) for f in FORMATS}
        # (lineage, format) -> the highest time (Unix us) of an ID issued there
        self.max_time: dict[tuple[str, str], int] = {}

    def add(self, fmt: str, lineage: str, issuer: str, at: float, rows) -> None:
        """``rows``: (ID text, key, its time in Unix microseconds or None[,
        when it was issued in the run, else ``at``])."""
        lines = []
        top = None
        for id_text, key, t, *when in rows:
            when = when[0] if when and when[0] is not None else at
            lines.append(f"{id_text}\t{key}\t{issuer}\t{lineage}\t{when:.1f}\n")
            if t is not None and (top is None or t > top):
                top = t
        with self.lock:
            self.files[fmt].write("".join(lines))
            if top is not None:
                k = (lineage, fmt)
                if top > self.max_time.get(k, float("-inf")):
                    self.max_time[k] = top

    def highest(self, lineage: str, fmt: str) -> int | None:
        with self.lock:
            return self.max_time.get((lineage, fmt))

    def close(self) -> None:
        with self.lock:
            for f in self.files.values():
                f.close()


def holder_lines(holders_dir: Path, fmt: str):
    """(id, key, issuer) of every line of the holders' --ids files of ``fmt``
    (files ``<holder>.<incarnation>.<format>.ids``)."""
    for path in sorted(holders_dir.glob(f"*.{fmt}.ids")):
        issuer = path.name[: -len(f".{fmt}.ids")]
        with open(path, errors="replace") as f:
            for n, line in enumerate(f, 1):
                parts = line.split()
                # A holder killed mid-write may leave a last line cut short.
                if len(parts) != 2 or not line.endswith("\n"):
                    continue
                yield parts[0], f"{issuer}:{n}", f"{issuer} (lease {parts[1]})"


def merged_lines(store: Store, holders_dir: Path, fmt: str):
    """Every issuance of ``fmt`` as a line ``ns|ID, key, issuer, at, source``
    (ns: the lineage for kuid64, else empty)."""
    with open(store.root / f"issued_{fmt}.tsv", errors="replace") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 5:
                continue
            id_text, key, issuer, lineage, at = parts
            ns = lineage if fmt == "kuid64" else ""
            source = "harvested" if issuer.startswith("harvest ") else "servers"
            yield f"{ns}|{id_text}\t{key}\t{issuer}\t{at}\t{source}\n"
    if fmt != "kuid64":
        for id_text, key, issuer in holder_lines(holders_dir, fmt):
            yield f"|{id_text}\t{key}\t{issuer}\t?\tholders\n"


def seconds(at: str) -> float:
    """An issuance's time in the run ("?" for a holder's: last)."""
    try:
        return float(at)
    except ValueError:
        return float("inf")


def check(store: Store, holders_dir: Path, shown_per_format: int = 20) -> CheckResult:
    """Per format, the issuances sorted by ID on disk (a long run makes tens
    of millions), then each ID's issuances compared: distinct keys are
    distinct issuances, and more than one of an ID is a duplicate."""
    result = CheckResult()
    store.close()
    for fmt in FORMATS:
        merged = store.root / f"all_{fmt}.tsv"
        ordered = store.root / f"sorted_{fmt}.tsv"
        with open(merged, "w") as out:
            out.writelines(merged_lines(store, holders_dir, fmt))
        subprocess.run(
            ["sort", "-t", "\t", "-k1,1", "-S", "256M", "-o", str(ordered), str(merged)],
            env={**os.environ, "LC_ALL": "C"},
            check=True,
        )
        merged.unlink()
        sources: Counter = Counter()
        result.by_source[fmt] = sources
        with open(ordered) as f:
            for id_key, group in itertools.groupby(f, key=lambda line: line.split("\t", 1)[0]):
                issuances: dict[str, tuple[str, str, str]] = {}
                for line in group:
                    _, key, issuer, at, source = line.rstrip("\n").split("\t")
                    # A row's harvested copy counts as the issuance its writer saw.
                    if key not in issuances or issuances[key][2] == "harvested":
                        issuances[key] = (issuer, at, source)
                result.issued[fmt] += len(issuances)
                sources.update(source for _, _, source in issuances.values())
                if len(issuances) > 1:
                    result.duplicate_count[fmt] += len(issuances) - 1
                    first, *again = sorted(issuances.items(), key=lambda kv: seconds(kv[1][1]))
                    for key, (issuer, at, _) in again:
                        if sum(d.format == fmt for d in result.duplicates) < shown_per_format:
                            result.duplicates.append(
                                Duplicate(
                                    fmt,
                                    id_key.split("|", 1)[1],
                                    (first[0], first[1][0], first[1][1]),
                                    (key, issuer, at),
                                )
                            )
        ordered.unlink()
    return result
