"""Numbers as the report writes them, and the verdicts of its targets."""

import statistics

from benchlib.config import N_GEN
from benchlib.results import median


def ns_per_call(times, label):
    return (median(times[label]) - median(times["floor"])) * 1e6 / N_GEN


def fmt_n(x, digits=0):
    s = f"{x:,.{digits}f}"
    return s.replace(",", " ")


def verdict(ok, how):
    return f"**met** ({how})" if ok else f"**missed** ({how})"


def at_most(value, limit, unit="", digits=0):
    """Verdict of value ≤ limit, with the margin."""
    if value <= limit:
        return verdict(True, f"{(1 - value / limit) * 100:.0f} % under the limit {fmt_n(limit, digits)}{unit}")
    return verdict(False, f"{(value / limit - 1) * 100:.0f} % over the limit {fmt_n(limit, digits)}{unit}")


def paired_ratio(runs, base_runs):
    """Median of the ratios of runs of the same round."""
    return median([a / b for a, b in zip(runs, base_runs)])


def paired_noise(runs, base_runs):
    """Twice the standard error of the rounds' ratios: how far above 1 a
    paired ratio of equal speeds lands about one time in forty."""
    ratios = [a / b for a, b in zip(runs, base_runs)]
    if len(ratios) < 2:
        return 0.0
    return 2 * statistics.stdev(ratios) / len(ratios) ** 0.5


def at_most_paired(ratio, spread, noise):
    """Verdict of a paired ratio ≤ 1, where a ratio above 1 by no more than
    the measurement can show (uuid's own spread, or twice the standard
    error of the type's rounds, whichever is larger) is parity."""
    how = (f"uuid's own spread {spread * 100:.1f} %, twice the standard error of the rounds "
           f"{noise * 100:.1f} %")
    if ratio <= 1:
        return verdict(True, f"{(1 - ratio) * 100:.1f} % under uuid v4, paired")
    if ratio - 1 <= max(spread, noise):
        return verdict(True, f"parity: {(ratio - 1) * 100:.1f} % over uuid v4, paired, within the noise: {how}")
    return verdict(False, f"{(ratio - 1) * 100:.1f} % over uuid v4, paired, beyond the noise: {how}")


def at_least(value, limit, unit=""):
    if value >= limit:
        return verdict(True, f"{(value / limit - 1) * 100:.0f} % above the floor {fmt_n(limit)}{unit}")
    return verdict(False, f"{(1 - value / limit) * 100:.0f} % below the floor {fmt_n(limit)}{unit}")


def mib(n):
    return f"{n / 2**20:.0f} MiB"


def load_note(load, sections):
    """`mean x, max y CPUs (top programs)` of the other load during these sections, or None."""
    figures = [load[s] for s in sections if s in load]
    if not figures:
        return None
    mean = statistics.mean(f["mean"] for f in figures)
    peak = max(f["max"] for f in figures)
    top = {}
    for f in figures:
        for name, used in f["top"]:
            top[name] = max(top.get(name, 0), used)
    names = ", ".join(f"`{n}`" for n, _ in sorted(top.items(), key=lambda x: -x[1])[:3])
    return f"mean {mean:.2f}, peak {peak:.2f} of the 2 CPUs" + (f" (mostly {names})" if names else "")


# How each phase runs the generators (docs/operations.md "Shared mode"), by the mode
# pg_flake_generator_state() reported in it.
def phase_names(results):
    backend_mode = results.get("modes", {}).get("backend", "backend")
    if backend_mode == "backend":
        first = "per-backend mode"
        second = "shared mode"
    else:
        segment = "a named" if int(results.get("pg_major", 17)) >= 17 else "a pinned"
        first = f"shared mode (in {segment} DSM segment; marks in the data directory only)"
        second = "shared mode (marks in the data directory and the WAL)"
    suffix = " (shared mode)" if backend_mode == "backend" else " (preloaded)"
    return backend_mode, first, second, suffix
