"""A version's section of docs/BENCHMARKS.md while it is written: its lines,
and the verdict of every target, which its head sums up."""

from benchlib.config import PG_MAJOR
from benchlib.verdicts import load_note, phase_names


class Report:
    def __init__(self, results):
        self.results = results
        self.major = results.get("pg_major", PG_MAJOR)
        self.load = results.get("load", {})
        self.backend_mode, self.first_phase, self.second_phase, self.suffix = phase_names(results)
        self.per_backend = self.backend_mode == "backend"
        self.lines = []
        self.summary = []  # (measure, verdict, why a miss cannot be closed here, or None)

    def w(self, line):
        self.lines.append(line)

    def target(self, what, verdict, why=None):
        self.summary.append((what, verdict, why))

    def load_line(self, sections):
        """The other load during these measurements, when there was any to say."""
        note = load_note(self.load, sections)
        if note:
            self.w(f"*Other load on the machine during these measurements: {note}; see "
                   f"[other load](#other-load-during-the-postgresql-{self.major}-run).*")
            self.w("")
