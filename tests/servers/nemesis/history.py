"""What the nemesis did and saw: the numbered, timestamped history of its
operations, the findings (a duplicate, a wait that cancel could not end, a
refusal the documentation promises that did not come, a server that did not
come back), and the counters its figures print."""

from __future__ import annotations

import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Entry:
    step: int
    at: float  # seconds since the run began
    op: str
    params: str
    outcome: str = ""
    took: float = 0.0

    def line(self) -> str:
        return (
            f"{self.step:5d} {self.at:8.1f}s {self.op:<20} {self.params}"
            f" -> {self.outcome} ({self.took:.1f} s)"
        )


@dataclass
class Finding:
    kind: str  # duplicate, uncancellable, unrefused, server-failed, panic
    at: float
    step: int
    detail: str

    def line(self) -> str:
        return f"[{self.kind}] at {self.at:.1f}s (after step {self.step}): {self.detail}"


class History:
    def __init__(self, path: Path):
        self.began = time.monotonic()
        self.entries: list[Entry] = []
        self.findings: list[Finding] = []
        self.lock = threading.Lock()
        self.path = path
        self.file = open(path, "a", buffering=1)
        # Counters: refusals by SQLSTATE, connections lost, operations, ...
        self.refusals: Counter = Counter()
        self.lost: Counter = Counter()
        self.ops: Counter = Counter()
        self.skipped: Counter = Counter()
        self.failed: Counter = Counter()
        self.notes: Counter = Counter()

    def now(self) -> float:
        return time.monotonic() - self.began

    @property
    def step(self) -> int:
        return self.entries[-1].step if self.entries else 0

    def begin(self, step: int, op: str, params: str) -> Entry:
        entry = Entry(step, self.now(), op, params)
        with self.lock:
            self.entries.append(entry)
        self.file.write(f"{entry.step:5d} {entry.at:8.1f}s {op:<20} {params} ...\n")
        return entry

    def end(self, entry: Entry, outcome: str) -> None:
        entry.outcome = outcome
        entry.took = self.now() - entry.at
        self.file.write(entry.line() + "\n")

    def find(self, kind: str, detail: str) -> None:
        finding = Finding(kind, self.now(), self.step, detail)
        with self.lock:
            self.findings.append(finding)
        self.file.write("FINDING " + finding.line() + "\n")

    def refused(self, sqlstate: str) -> None:
        with self.lock:
            self.refusals[sqlstate] += 1

    def note(self, what: str, n: int = 1) -> None:
        with self.lock:
            self.notes[what] += n

    def text(self) -> str:
        return "\n".join(e.line() for e in self.entries)

    def close(self) -> None:
        self.file.close()
