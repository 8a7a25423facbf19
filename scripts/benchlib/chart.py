"""The insert chart of a version (docs/bench-insert-V.png), with gnuplot."""

import os
import subprocess

from benchlib.config import N_ROWS, OUT, PG_MAJOR, TABLES
from benchlib.results import median
from benchlib.verdicts import fmt_n, phase_names


def chart(results, path):
    """Insert time and sizes per type, with gnuplot (pngcairo)."""
    ins = results["insert"]
    limit = min(1.2 * median(ins["identity"]["ms"]), 0.4 * median(ins["uuid4"]["ms"])) / 1000
    dat = os.path.join(OUT, "insert.dat")
    with open(dat, "w") as f:
        for key, label, _, cls in TABLES:
            r = ins[key]
            f.write(f"\"{label}\" {median(r['ms']) / 1000:.2f} {r['table_bytes'] / 2**20:.0f} "
                    f"{r['index_bytes'] / 2**20:.0f} {1 if cls == 'baseline' else 2}\n")
    plot = f"""
set terminal pngcairo size 1400,620 font "DejaVu Sans,11"
set output "{path}"
set datafile separator " "
set style fill solid 0.85 border -1
set boxwidth 0.7
set grid ytics
set xtics rotate by -35 left noenhanced
set key noenhanced
set lmargin 9
set bmargin 11
set multiplot layout 1,2 title "pg_flake bulk insert on PostgreSQL {results.get('pg_major', PG_MAJOR)}: {fmt_n(N_ROWS)} rows, INSERT … SELECT, key DEFAULT + PRIMARY KEY (not preloaded: {phase_names(results)[0]} mode)" noenhanced
set title "time (s, lower is better; grey: PostgreSQL's own keys)"
set ylabel "s"
set yrange [0:*]
set key top left
plot "{dat}" using 0:2:($5 == 1 ? 0x888888 : 0x2a7ab0):xtic(1) with boxes lc rgb variable notitle, \\
     "" using 0:2:(sprintf("%.1f", $2)) with labels offset 0,0.7 notitle, \\
     {limit:.3f} with lines dt 2 lw 2 lc rgb "#c0392b" title "target: min(1.2× bigint identity, 0.4× uuid v4)"
set title "size on disk (MiB): table + primary key index"
set ylabel "MiB"
set style histogram rowstacked
set style data histograms
set key outside right top vertical
plot "{dat}" using 3:xtic(1) title "table" lc rgb "#9ecae1", "" using 4 title "index" lc rgb "#08519c"
unset multiplot
"""
    gp = os.path.join(OUT, "insert.gp")
    with open(gp, "w") as f:
        f.write(plot)
    subprocess.run(["gnuplot", gp], check=True)
