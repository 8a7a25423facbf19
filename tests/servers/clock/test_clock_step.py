"""step: 6 sessions generate every format while the clock steps back 10 s,
and (on another fresh server) 2 h then forward again: no statement waits
longer than a unit (plus a margin for the machine, STEP_MARGIN_MS), no
duplicate, every session's IDs increase (sno: one tick-tock flip), 2 h:
55000 except for sno (docs/guarantees.md "Guarantees", its ordering; docs/formats/sno.md);
pg_flake_stats saw the step and counted every refusal the sessions got
(docs/sql-reference.md "Statistics").
Both modes, every coordination-based format. ``-k step`` runs this part
alone (``-k "step and 2h"`` the 2 h steps)."""

import time
from dataclasses import dataclass
from datetime import datetime, timezone

import psycopg
import pytest
from clock_lib import (
    DB,
    FORMATS,
    MODES,
    STEP_MARGIN_MS,
    check_log,
    clock_server,
    mode_label,
    pgbench_scripts,
    table,
    value,
)

# Each statement generates one ID into its format's table; the 55000 of the
# bound is recorded rather than ending the session.
STEP_SETUP = [
    """CREATE TABLE step_errors (format text, session int DEFAULT pg_backend_pid(),
        n bigint DEFAULT nextval('row_order'), sqlstate text, message text)""",
    """CREATE FUNCTION step_insert(fmt text) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
        EXECUTE format('INSERT INTO t_%s (phase) VALUES (1)', fmt);
    EXCEPTION WHEN object_not_in_prerequisite_state THEN
        INSERT INTO step_errors (format, sqlstate, message) VALUES (fmt, SQLSTATE, SQLERRM);
    END $$""",
]
# When the rows were made, by row_order: before the step (n < before),
# just after it (n > after) and, for 2 h, before the clock was set right
# (n < restored) and after (n > back).
NEVER = 999999999999


@dataclass
class Marks:
    before: int = 0
    after: int = 0
    restored: int = NEVER
    back: int = NEVER
    step_at: float = 0.0


@pytest.mark.parametrize("offset", [-10, -7200], ids=["10s", "2h"])
@pytest.mark.parametrize("mode", MODES)
def test_step(servers, mode, offset, pg_major, figures, tmp_path):
    label = "10s" if offset == -10 else "2h"
    server = clock_server(servers, f"step{label}", mode, clock=0)
    figures(
        f"live step back by {label} ({mode_label(mode, pg_major)}): 127.0.0.1:{server.port},"
        " 6 sessions generating every format"
    )
    with server.connect(DB) as conn:
        for statement in STEP_SETUP:
            conn.execute(statement)
    probe = Probe(server)
    probe.generate_and_note("before the step")
    bench = start_load(server, tmp_path)
    marks = step_while_generating(server, offset, probe, figures)
    out, err = bench.communicate()
    probe.generate_and_note("at the end")
    probe.close()
    figures(f"pgbench: {transactions_of(out)}, exit status {bench.returncode}")
    assert bench.returncode == 0, (
        "pgbench: no session aborted (exit status 0)",
        err.splitlines()[:5],
    )
    check_latency(tmp_path, marks, figures)
    count_rows(server, offset, marks, figures)
    probe.show(figures)
    with server.connect(DB) as conn:
        table(
            figures,
            conn.execute(
                "SELECT format, sqlstate, count(*), min(message) AS message"
                " FROM step_errors GROUP BY 1, 2 ORDER BY 1"
            ),
        )
    check_rows(server, offset, marks)
    check_stats(server, offset, figures)
    check_log(server)


class Probe:
    """A session that lives across the step, making an ID of each format
    and noting its generators' tick_tock and clock_lead: in per-backend mode
    the state of a backend's generators is visible only to it."""

    def __init__(self, server):
        self.conn = server.connect(DB)
        self.noted: list[tuple[str, list]] = []
        self.errors: list[str] = []

    def generate_and_note(self, moment: str) -> None:
        try:
            for f in FORMATS:
                self.conn.execute(f"SELECT step_insert('{f.name}')")
            rows = self.conn.execute(
                "SELECT format, tick_tock, clock_lead FROM pg_flake_generator_state()"
                " ORDER BY format"
            ).fetchall()
            self.noted.append((moment, rows))
        except psycopg.Error as e:
            self.errors.append(f"{moment}: {e.sqlstate} {e.diag.message_primary}")

    def close(self) -> None:
        self.conn.close()

    def show(self, figures) -> None:
        figures(
            "a probe session made an ID of each format before the step, just after it and at"
            " the end; its generators' tick_tock and clock_lead then:"
        )
        for moment, rows in self.noted:
            states = "".join(f"  {f} tick_tock {tt} lead {lead};" for f, tt, lead in rows)
            figures(f"  {moment + ':':<20}{states}")
        for error in self.errors[:5]:
            figures(f"  probe: {error}")


def start_load(server, directory):
    """6 sessions at 1200 statements per second in all (a fifth per
    format): a load that leaves the machine room, so that latencies show
    the generators, not the scheduler. pgbench logs every statement."""
    scripts = pgbench_scripts(directory, "SELECT step_insert('{name}');")
    args = ["-c", 6, "-j", 1, "-T", 6, "-R", 1200, "-l", f"--log-prefix={directory}/log"]
    return server.pgbench(*args, *scripts, dbname=DB)


def next_row(server) -> int:
    return value(server, "SELECT nextval('row_order')")


def step_while_generating(server, offset, probe, figures) -> Marks:
    """At +2 s the clock steps back by ``offset``; 2 h: set right again at +4.3 s."""
    marks = Marks()
    time.sleep(2)
    marks.before = next_row(server)
    marks.step_at = time.time()
    server.set_clock(offset)
    time.sleep(0.3)
    marks.after = next_row(server)
    probe.generate_and_note("just after the step")
    server_clock = value(server, "SELECT now()::timestamp(0)")
    real = datetime.now(timezone.utc).strftime("%H:%M:%S")
    label = "10s" if offset == -10 else "2h"
    figures(f"clock stepped back by {label} at +2 s; server clock now {server_clock} (real {real})")
    if offset != -10:
        time.sleep(2)
        marks.restored = next_row(server)
        server.set_clock(0)
        time.sleep(0.3)
        figures("clock set right again at +4.3 s")
        marks.back = next_row(server)
    return marks


def transactions_of(out: str) -> str:
    for line in out.splitlines():
        if line.startswith("number of transactions actually processed"):
            return line.split(": ", 1)[1]
    return "?"


def check_latency(directory, marks, figures) -> None:
    """Statement latency from pgbench's log (its own clock, the real one):
    time minus schedule lag, per script (= format); and in the second after
    the step."""
    statements = {f.name: [] for f in FORMATS}
    in_step_second = {f.name: [] for f in FORMATS}
    for log in directory.glob("log.*"):
        for line in log.read_text().splitlines():
            # client, transaction, time (us), script, epoch, us[, schedule lag (us)]
            fields = line.split()
            if len(fields) < 6 or not fields[2].isdigit():
                continue
            name = FORMATS[int(fields[3])].name
            lag = int(fields[6]) if len(fields) > 6 and fields[6].isdigit() else 0
            latency_ms = (int(fields[2]) - lag) / 1000
            at = int(fields[4]) + int(fields[5]) / 1e6
            statements[name].append(latency_ms)
            if marks.step_at <= at < marks.step_at + 1:
                in_step_second[name].append(latency_ms)
    figures(
        "statement latency (ms; pgbench's log, schedule lag excluded;"
        " 'in step second': the second after the step):"
    )
    rows = [
        (
            f.name,
            len(statements[f.name]),
            round(max(statements[f.name], default=0), 2),
            len(in_step_second[f.name]),
            round(max(in_step_second[f.name], default=0), 2),
            f.unit_ms,
            f.unit_ms + STEP_MARGIN_MS,
        )
        for f in sorted(FORMATS, key=lambda f: f.name)
    ]
    columns = [
        "format",
        "statements",
        "max_ms",
        "in_step_second",
        "max_ms_in_step_second",
        "unit_ms",
        "allowed_ms",
    ]
    table(figures, rows, columns)
    assert all(r[1] > 0 and r[2] <= r[6] for r in rows), (
        f"no statement took longer than one time unit + {STEP_MARGIN_MS:g} ms"
        " (no stall; the margin is for a shared 2-CPU machine)",
        rows,
    )


def count_rows(server, offset, marks, figures) -> None:
    """Per format, table step: rows and errors before the step, during it
    and after the clock was set right; descents in each session's IDs; the
    latest time before the step and the earliest during it."""
    during = f"n > {marks.after}"
    if offset != -10:
        during += f" AND n < {marks.restored}"
    sql = " UNION ALL ".join(
        f"""SELECT '{f.name}' AS format, count(*) AS rows, count(DISTINCT id) AS distinct_ids,
            count(*) FILTER (WHERE n < {marks.before}) AS before_step,
            count(*) FILTER (WHERE {during}) AS during_step,
            count(*) FILTER (WHERE n > {marks.back}) AS after_restore,
            (SELECT count(*) FROM step_errors e WHERE e.format = '{f.name}') AS errors,
            (SELECT count(*) FROM step_errors e WHERE e.format = '{f.name}' AND e.n > {marks.back})
                AS errors_after_restore,
            count(DISTINCT session) AS sessions,
            (SELECT count(*) FROM (SELECT id < lag(id) OVER w AS descends FROM t_{f.name}
                WINDOW w AS (PARTITION BY session ORDER BY n)) d WHERE descends) AS descents,
            (SELECT count(*) FROM (SELECT id <= lag(id) OVER w AS bad FROM t_{f.name}
                WINDOW w AS (PARTITION BY session ORDER BY n)) d WHERE bad) AS not_increasing,
            max({f.timestamp}(id)) FILTER (WHERE n < {marks.before}) AS latest_time_before,
            min({f.timestamp}(id)) FILTER (WHERE {during}) AS earliest_time_during
            FROM t_{f.name}"""
        for f in FORMATS
    )
    with server.connect(DB) as conn:
        conn.execute(f"CREATE TABLE step AS {sql}")
        table(figures, conn.execute("TABLE step ORDER BY format"))


def check_rows(server, offset, marks) -> None:
    def holds(query):
        return value(server, query)

    assert holds("SELECT bool_and(rows = distinct_ids) FROM step"), (
        "no duplicate: rows = distinct IDs (and primary keys)"
    )
    assert holds("SELECT bool_and(before_step > 0 AND sessions >= 6) FROM step"), (
        "every format generated before the step"
    )
    assert holds("SELECT bool_and(not_increasing = 0) FROM step WHERE format <> 'sno'"), (
        "every session's IDs strictly increase, except sno"
    )
    # sno (docs/guarantees.md "Guarantees", its ordering; docs/formats/sno.md): the first
    # regression flips the tick-tock bit and continues at once at the
    # earlier time, so each session's IDs descend once, at the step, to IDs
    # with the bit set; unique, increasing again from there.
    assert holds(
        f"""WITH s AS (SELECT session, n, id, lag(id) OVER w AS prev, sno_tick_tock(id) AS tt,
                lag(sno_tick_tock(id)) OVER w AS prev_tt
                FROM t_sno WINDOW w AS (PARTITION BY session ORDER BY n)),
            d AS (SELECT session, count(*) FILTER (WHERE id < prev) AS descents,
                count(*) FILTER (WHERE id < prev
                    AND NOT (tt AND NOT prev_tt AND n > {marks.before})) AS bad_descents,
                count(*) FILTER (WHERE id = prev) AS repeats,
                bool_or(n < {marks.before}) AND bool_or(n > {marks.after}) AS both_sides
                FROM s GROUP BY session)
            SELECT bool_and(bad_descents = 0 AND repeats = 0
                    AND descents = CASE WHEN both_sides THEN 1 ELSE descents END)
                AND bool_and(descents <= 1)
                AND count(*) FILTER (WHERE both_sides AND descents = 1) >= 6 FROM d"""
    ), (
        "sno: each session's IDs descend exactly once, at the step, to tick-tock IDs,"
        " and increase otherwise"
    )
    back_by = 9 if offset == -10 else 7100
    assert holds(
        f"""SELECT during_step > 0 AND errors = 0
            AND earliest_time_during < latest_time_before - interval '{back_by} s'
            FROM step WHERE format = 'sno'"""
    ), "sno: after the step it generated at the earlier time (tick-tock), no error"
    if offset == -10:
        # Above each session's own IDs (checked above), so not back with
        # the clock: per backend, a session that last generated a while
        # before the step continues above that earlier unit.
        assert holds(
            """SELECT bool_and(during_step > 0 AND errors = 0
                AND earliest_time_during > latest_time_before - interval '8 s')
                FROM step WHERE format <> 'sno'"""
        ), (
            "10 s: the other formats went on without an error, in logical time:"
            " no ID followed the clock 10 s back"
        )
    else:
        assert holds(
            r"""SELECT bool_and(s.errors > 0 AND s.during_step = 0)
                AND bool_and(e.sqlstate = '55000'
                AND e.message ~ 'generation stopped: the clock is 7[0-9]{3}(\.[0-9]+)? s behind')
                FROM step s JOIN step_errors e USING (format) WHERE format <> 'sno'"""
        ), (
            "2 h: the other formats failed with 55000 (the bound),"
            " and made no ID while the clock was 2 h behind"
        )
        assert holds("SELECT bool_and(after_restore > 0 AND errors_after_restore = 0) FROM step"), (
            "2 h: once the clock was set right, every format generated again without an error"
        )


def check_stats(server, offset, figures) -> None:
    """pg_flake_stats, server-wide in both modes: every format saw the step
    back (once at least: a step forward again is none), issued at least the
    rows the sessions stored, and for 2 h counted at least every 55000 that
    step_errors caught (the probe's own are counted too)."""
    with server.connect(DB) as conn:
        table(
            figures,
            conn.execute(
                "SELECT format, issued, waits, refusals, marks_recorded, clock_steps_back"
                " FROM pg_flake_stats ORDER BY format"
            ),
        )
        table(figures, conn.execute("TABLE pg_flake_refusal_stats ORDER BY format, sqlstate"))
    assert value(
        server,
        """SELECT bool_and(st.clock_steps_back >= 1 AND st.issued >= s.rows)
               AND count(*) = 5
           FROM pg_flake_stats st JOIN step s USING (format)""",
    ), "pg_flake_stats: every format saw the step back, and issued every row stored"
    if offset != -10:
        assert value(
            server,
            """SELECT bool_and(coalesce(r.refusals, 0) >= s.errors
                   AND (s.format = 'sno' OR r.refusals > 0))
               FROM step s LEFT JOIN pg_flake_refusal_stats r
                   ON r.format = s.format AND r.sqlstate = '55000'""",
        ), "pg_flake_refusal_stats: every 55000 of the 2 h step counted"
