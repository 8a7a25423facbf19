"""The benchmark suite of `make bench` (scripts/bench.sh starts and stops the
servers; scripts/bench.py is the driver, one phase per call).

Measuring and reporting are apart: the measuring phases write raw results
into $BENCH_OUT/results.json and the reporting phases read only that file,
so a report can be written again from a run's results without a server.

    config.py          the environment, sizes, generators, tables, targets' caps
    results.py         results.json, the log, the median
    server.py          psql and pgbench against the benchmark's server
    loadwatch.py       the CPU use of other programs during each measurement
    measure.py         the server suites: generation, insert, sort, lookups,
                       concurrent generation (phases backend and shared)
    measure_marks.py   durable marks with fsync = on (phase marks)
    measure_holders.py leased generators' IDs per second per language (phase holders)
    measure_profile.py the generation profile (phase profile)
    measure_codecs.py  the core crate's codec benchmarks (phase codecs)
    measure_holders.py the leased generators' IDs per second per language (phase holders)
    verdicts.py        numbers, targets and their verdicts, as the report words them
    doc.py             the machine's description, docs/BENCHMARKS.md's sections
    report.py          a version's section of docs/BENCHMARKS.md (phase report)
    writer.py          that section while it is written: lines, targets' verdicts
    report_tables.py   its measurement tables
    report_marks.py    its durable marks part
    report_holders.py  its leased generators' part
    report_profile.py  the generation profile's section (phase report-profile)
    report_codecs.py   the codecs' section (phase report-codecs)
    chart.py           the insert chart (gnuplot)

Only the standard library is used; every connection goes to 127.0.0.1.
"""
