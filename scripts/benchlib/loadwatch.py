"""Other load. The machine may be shared (other users, builds, test servers):
a thread samples /proc every LOAD_SAMPLE s and counts the CPU time of every
process that is neither this run's (descendants of bench.sh) nor its
server's (descendants of its postmaster). Processes that live for less
than one sample are missed: the figure is a lower bound."""

import os
import statistics
import threading
import time

from benchlib.config import DATA, LOAD_SAMPLE

CLK_TCK = os.sysconf("SC_CLK_TCK")


def process_table():
    """{pid: (ppid, name, cpu ticks)} of every process."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        table[int(entry)] = (int(fields[1]), name, int(fields[11]) + int(fields[12]))
    return table


def postmaster_pid():
    try:
        with open(os.path.join(DATA, "postmaster.pid")) as f:
            return int(f.readline())
    except (OSError, ValueError):
        return None


class LoadWatch:
    """Samples other processes' CPU use; `section(name)` brackets a measurement."""

    def __init__(self):
        self.samples = []          # (time, CPUs used by others, {name: CPUs})
        self.sections = {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def ours(self, table):
        roots = {os.getpid(), os.getppid()} | ({postmaster_pid()} - {None})
        mine = set()
        for pid in table:
            p, seen = pid, 0
            while p > 1 and seen < 64:
                if p in roots:
                    mine.add(pid)
                    break
                p, seen = table.get(p, (0, "", 0))[0], seen + 1
        return mine

    def run(self):
        before, t0 = process_table(), time.time()
        while not self.stop.wait(LOAD_SAMPLE):
            now, t1 = process_table(), time.time()
            mine = self.ours(now)
            names = {}
            for pid, (_, name, ticks) in now.items():
                if pid in mine or pid not in before or before[pid][1] != name:
                    continue
                used = (ticks - before[pid][2]) / CLK_TCK / (t1 - t0)
                if used > 0:
                    names[name] = names.get(name, 0) + used
            self.samples.append((t1, sum(names.values()), names))
            before, t0 = now, t1

    def section(self, name):
        watch = self

        class Section:
            def __enter__(self):
                self.start = time.time()

            def __exit__(self, *exc):
                watch.sections[name] = (self.start, time.time())
        return Section()

    def summary(self):
        """{section: {"mean", "max" (CPUs), "top" (busiest other programs)}}."""
        self.stop.set()
        self.thread.join()
        out = {}
        for name, (start, end) in self.sections.items():
            inside = [s for s in self.samples if start < s[0] <= end + LOAD_SAMPLE / 2]
            if not inside:
                continue
            by_name = {}
            for _, _, names in inside:
                for n, used in names.items():
                    by_name[n] = by_name.get(n, 0) + used / len(inside)
            top = sorted(by_name.items(), key=lambda x: -x[1])[:3]
            out[name] = {"mean": statistics.mean(s[1] for s in inside), "max": max(s[1] for s in inside),
                         "top": [[n, round(u, 2)] for n, u in top if u >= 0.05]}
        return out
