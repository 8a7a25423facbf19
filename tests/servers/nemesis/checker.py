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
        # (lineage, format) -> the highest time (Unix s) of an ID issued there
        self.max_time: dict[tuple[str, str], float] = {}

    def add(self, fmt: str, lineage: str, issuer: str, at: float, rows) -> None:
        """``rows``: (id text, key, its time in Unix seconds or None)."""
        lines = []
        top = None
        for id_text, key, t in rows:
            lines.append(f"{id_text}\t{key}\t{issuer}\t{lineage}\t{at:.1f}\n")
            if t is not None and (top is None or t > top):
                top = t
        with self.lock:
            self.files[fmt].write("".join(lines))
            if top is not None:
                k = (lineage, fmt)
                if top > self.max_time.get(k, float("-inf")):
                    self.max_time[k] = top

    def highest(self, lineage: str, fmt: str) -> float | None:
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


class FormatCheck:
    """The issuances of one format, compared as they are read."""

    def __init__(self, fmt: str, result: CheckResult, shown: int):
        self.fmt = fmt
        self.result = result
        self.shown = shown
        self.seen: dict[tuple[str, str], tuple[str, str, str]] = {}
        self.sources: Counter = Counter()
        self.counted: set[tuple[str, str]] = set()  # (ID, key) of duplicates counted
        result.by_source[fmt] = self.sources

    def issue(self, ns: str, id_text: str, key: str, issuer: str, at: str, source: str) -> None:
        first = self.seen.get((ns, id_text))
        if first is None:
            self.seen[(ns, id_text)] = (key, issuer, at)
        elif first[0] == key or (id_text, key) in self.counted:
            # The same issuance again: a harvested copy of a recorded row.
            return
        else:
            self.counted.add((id_text, key))
            self.result.duplicate_count[self.fmt] += 1
            if self.result.duplicate_count[self.fmt] <= self.shown:
                self.result.duplicates.append(
                    Duplicate(self.fmt, id_text, first, (key, issuer, at))
                )
        self.result.issued[self.fmt] += 1
        self.sources[source] += 1


def check(store: Store, holders_dir: Path, shown_per_format: int = 20) -> CheckResult:
    result = CheckResult()
    store.close()
    for fmt in FORMATS:
        checking = FormatCheck(fmt, result, shown_per_format)
        with open(store.root / f"issued_{fmt}.tsv", errors="replace") as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) != 5:
                    continue
                id_text, key, issuer, lineage, at = parts
                ns = lineage if fmt == "kuid64" else ""
                source = "harvested" if issuer.startswith("harvest ") else "servers"
                checking.issue(ns, id_text, key, issuer, at, source)
        if fmt != "kuid64":
            for id_text, key, issuer in holder_lines(holders_dir, fmt):
                checking.issue("", id_text, key, issuer, "?", "holders")
    return result
