"""What the parts of the clock suite share (``make test-clock``): the five
coordination-based formats, a fresh server with the test database, its
generation by pgbench, the comparison of the IDs made before and after a
restart, a crash or a failover, and one generation of every format with its
outcome (``try_generate``).

Every server logs the SQLSTATE of each line (harness.COMMON_CONF), so that
its errors can be counted by SQLSTATE (:func:`check_log`).
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

import psycopg

from harness import Server, aligned, rows_of

DB = "flake_clock"
MODES = ["preloaded", "plain"]
# What a statement may take beyond one time unit on a loaded machine (ms):
# the step part checks for a stall, a wait for the clock to come back 10 s
# or 2 h, not for speed, which `make bench` measures (CI runs the versions
# side by side on two CPUs).
STEP_MARGIN_MS = float(os.environ.get("STEP_MARGIN_MS", "1000"))


@dataclass(frozen=True)
class Format:
    name: str
    sql_type: str
    generator: str
    timestamp: str  # the function giving an ID's time
    unit_ms: float


# The five coordination-based formats.
FORMATS = [
    Format("sno", "sno", "sno_generate()", "sno_timestamp", 4),
    Format("siq", "siq", "siq_generate('event')", "siq_timestamp", 0.0153),
    Format("snowflake", "bigint", "snowflake_generate()", "snowflake_timestamp", 1),
    Format("kuid64", "bigint", "kuid64_generate()", "kuid64_timestamp", 1.024),
    Format("kuid96", "kuid96", "kuid96_generate()", "kuid96_timestamp", 1.024),
]
RANDOM_GENERATORS = [
    "flaxid_generate()",
    "distributed_id_generate()",
    "distributed_id128_generate()",
]


# --- modes ----------------------------------------------------------------


def state_mode(mode: str, pg_major: int) -> str:
    """The generators' mode as pg_flake_generator_state() says it: shared,
    preloaded or not; without preloading the shared state is in a DSM
    segment, named on 17+, pinned on 15 and 16 (docs/operations.md "Shared
    mode")."""
    return "shared"


def mode_label(mode: str, pg_major: int) -> str:
    if mode == "preloaded":
        return "preloaded: shared mode"
    segment = "named" if pg_major >= 17 else "pinned"
    return f"not preloaded: shared mode ({segment} DSM segment)"


# --- servers --------------------------------------------------------------

# try_generate(expression): one generation, with its outcome and its
# duration on the server.
TRY_GENERATE = """
CREATE FUNCTION try_generate(expression text, OUT code text, OUT message text, OUT hint text,
                             OUT ms numeric)
LANGUAGE plpgsql AS $$
DECLARE
    started timestamptz := clock_timestamp();
BEGIN
    BEGIN
        EXECUTE 'SELECT ' || expression;
        code := '00000';
    EXCEPTION WHEN others THEN
        GET STACKED DIAGNOSTICS code = RETURNED_SQLSTATE, message = MESSAGE_TEXT,
            hint = PG_EXCEPTION_HINT;
    END;
    ms := round(1000 * extract(epoch FROM clock_timestamp() - started), 2);
END $$"""


def clock_server(servers, name: str, mode: str, *conf: str, clock: float | None = None) -> Server:
    """A fresh server (preloading pg_flake in mode ``preloaded``) with the
    test database; with ``clock`` started with the clock shim at that offset,
    so that ``set_clock`` moves it while it runs."""
    server = servers(name).init(*conf, preload=mode == "preloaded")
    if clock is not None:
        server.set_clock(clock)
    server.start()
    server.create_database(DB)
    setup_database(server, DB)
    return server


def setup_database(server: Server, dbname: str) -> None:
    """A table per format (the phase each row was made in, the session and
    its order) and try_generate (the extension is there)."""
    with server.connect(dbname) as conn:
        conn.execute("CREATE SEQUENCE row_order")
        conn.execute(TRY_GENERATE)
        for f in FORMATS:
            conn.execute(
                f"""CREATE TABLE t_{f.name} (
                    id {f.sql_type} PRIMARY KEY DEFAULT {f.generator},
                    phase int NOT NULL,
                    session int NOT NULL DEFAULT pg_backend_pid(),
                    n bigint NOT NULL DEFAULT nextval('row_order'))"""
            )


def restart_with_clock(server: Server, offset: float) -> None:
    """A clean (fast) shutdown, then a start with the clock ``offset`` s from the machine's."""
    server.stop()
    server.set_clock(offset)
    server.start()


def setting(server: Server, name: str, dbname: str = DB) -> str:
    """A setting of pg_flake as a new session sees it (the library loaded
    first: without preloading, a session knows pg_flake's settings once it
    has loaded it)."""
    with server.connect(dbname) as conn:
        conn.execute("LOAD 'pg_flake'")
        return conn.execute(f"SHOW {name}").fetchone()[0]


def alter_system(server: Server, command: str, dbname: str = DB) -> None:
    """``ALTER SYSTEM <command>`` (SET ... or RESET ...) and a reload."""
    with server.connect(dbname) as conn:
        conn.execute("LOAD 'pg_flake'")
        conn.execute(f"ALTER SYSTEM {command}")
        conn.execute("SELECT pg_reload_conf()")


def wait_for_setting(server: Server, name: str, wanted, timeout: float = 10) -> str:
    """Waits until new sessions see ``wanted(value)`` true (the reload is
    asynchronous); returns the value."""
    deadline = time.time() + timeout
    while True:
        value = setting(server, name)
        if wanted(value) or time.time() > deadline:
            return value
        time.sleep(0.05)


def value(server: Server, query: str, dbname: str = DB):
    return server.value(query, dbname=dbname)


def check_log(server: Server, *allowed: str) -> None:
    """The server's log has no ERROR, FATAL or PANIC line but of the
    SQLSTATEs given (those the test provokes; a PANIC never passes)."""
    summary = server.errors_by_sqlstate()
    unexpected = server.unexpected_log_errors(*allowed)
    assert not unexpected, (
        f"{server.name}: server log without unexpected errors (by SQLSTATE: {summary};"
        f" expected: {' '.join(allowed) or 'none'}):\n" + "\n".join(unexpected)
    )


# --- figures --------------------------------------------------------------


def table(figures, cursor_or_rows, columns=None, indent: str = "    ") -> None:
    """A cursor's result, or ``rows`` under ``columns``, as figures aligned as
    psql prints them (:func:`harness.aligned`)."""
    if columns is None:
        lines = rows_of(cursor_or_rows)
    else:
        lines = aligned(columns, cursor_or_rows)
    for line in lines:
        figures(indent + line)


# --- generation -----------------------------------------------------------


def pgbench_scripts(directory: Path, statement: str) -> list[str]:
    """One pgbench script per format, ``statement`` with ``{name}`` the
    format's name; pgbench's arguments ``-f <script>``, in FORMATS' order
    (a script's number in pgbench's log is its format's index)."""
    directory.mkdir(parents=True, exist_ok=True)
    args = []
    for f in FORMATS:
        script = directory / f"{f.name}.sql"
        script.write_text(statement.format(name=f.name) + "\n")
        args += ["-f", str(script)]
    return args


def start_generating(server, directory, phase, seconds, clients=6, dbname=DB):
    """pgbench in the background: ``clients`` sessions insert rows of phase
    ``phase`` into every format's table, each transaction one row of a
    format chosen at random (``seconds``: an integer, as pgbench takes it)."""
    scripts = pgbench_scripts(directory, "INSERT INTO t_{name} (phase) VALUES (:phase);")
    args = ["-c", clients, "-j", 1, "-T", seconds, "-D", f"phase={phase}", *scripts]
    return server.pgbench(*args, dbname=dbname)


def transactions(pgbench_out: str) -> str:
    found = re.search(r"^number of transactions actually processed: (.*)$", pgbench_out, re.M)
    return found.group(1) if found else "?"


def finish_generating(bench, figures, phase, seconds, clients=6, dbname=DB) -> None:
    """Waits for pgbench; a line of figures, and the check that no session failed."""
    out, err = bench.communicate()
    tps = re.search(r"^(tps = [0-9.]+)", out, re.M)
    figures(
        f"generated: {clients} sessions for {seconds} s in {dbname}, phase {phase}:"
        f" {transactions(out)}, {tps.group(1) if tps else 'tps = ?'}"
    )
    assert bench.returncode == 0, (
        f"pgbench in {dbname}, phase {phase}: a session failed:\n" + "\n".join(err.splitlines()[:5])
    )


def generate(server, directory, figures, phase, seconds, clients=6, dbname=DB) -> None:
    """6 sessions (default) generate every format for ``seconds``."""
    bench = start_generating(server, directory, phase, seconds, clients, dbname)
    finish_generating(bench, figures, phase, seconds, clients, dbname)


# --- comparison -----------------------------------------------------------


def above_sql(old: str, new: int, prefix: str) -> str:
    """Per format, the rows of the old phases and of the new one, the
    largest old ID and the smallest new one (with their times) and how many
    new IDs are at or below the largest old one (must be 0); old rows from
    tables named <prefix><format>."""
    return " UNION ALL ".join(
        f"""SELECT '{f.name}' AS format, o.rows AS rows_before, n.rows AS rows_after,
            o.largest::text AS largest_old, n.smallest::text AS smallest_new,
            {f.timestamp}(o.largest) AS largest_old_time,
            {f.timestamp}(n.smallest) AS smallest_new_time,
            (SELECT count(*) FROM t_{f.name} WHERE phase = {new} AND id <= o.largest)
                AS new_at_or_below_old
            FROM (SELECT count(*) AS rows, max(id) AS largest FROM {prefix}{f.name}
                  WHERE phase IN ({old})) o,
                 (SELECT count(*) AS rows, min(id) AS smallest FROM t_{f.name}
                  WHERE phase = {new}) n"""
        for f in FORMATS
    )


def compare(server, figures, old: str, new: int, label: str, prefix="t_", dbname=DB) -> None:
    """In one session, one more row of every format in the new phase, then
    the comparison with the generators' clock_lead and mode as this session
    sees them (per backend: its own generators), kept in table cmp_<label>
    and printed."""
    with server.connect(dbname) as conn:
        for f in FORMATS:
            conn.execute(f"INSERT INTO t_{f.name} (phase) VALUES ({new})")
        conn.execute(
            f"""CREATE TABLE cmp_{label} AS
            SELECT c.*, s.clock_lead, s.mark_time, s.mode
            FROM ({above_sql(old, new, prefix)}) c
            LEFT JOIN pg_flake_generator_state() s USING (format)"""
        )
        shown = conn.execute(
            f"""SELECT format, rows_before, rows_after, largest_old, smallest_new,
                largest_old_time, smallest_new_time, new_at_or_below_old AS at_or_below,
                clock_lead FROM cmp_{label} ORDER BY format"""
        )
        table(figures, shown)


def check_above(server, label: str, description: str, dbname=DB) -> None:
    assert value(
        server,
        f"""SELECT count(*) = {len(FORMATS)}
            AND bool_and(rows_before > 0 AND rows_after > 0 AND new_at_or_below_old = 0)
            FROM cmp_{label}""",
        dbname,
    ), description


def check_mode(server, label: str, mode: str, pg_major: int, dbname=DB) -> None:
    expected = state_mode(mode, pg_major)
    assert value(
        server,
        f"SELECT count(*) = {len(FORMATS)} AND bool_and(mode = '{expected}') FROM cmp_{label}",
        dbname,
    ), f"the generators ran in {expected} mode"


def check_lead(server, label: str, condition: str, description: str, dbname=DB) -> None:
    """Every format's clock_lead in cmp_<label> meets ``condition`` (SQL)."""
    assert value(server, f"SELECT bool_and({condition}) FROM cmp_{label}", dbname), description


# --- one generation of every format -----------------------------------------


@dataclass(frozen=True)
class Tried:
    format: str
    code: str
    ms: float
    message: str | None
    hint: str | None

    @property
    def lag(self) -> float:
        """The seconds in a 55000 message ("the clock is N s behind"), else 0."""
        found = re.search(r"the clock is ([0-9.]+) s behind", self.message or "")
        return float(found.group(1)) if found else 0.0


def try_all(server: Server, figures=None, dbname=DB) -> list[Tried]:
    """try_generate of every format, in one session; printed with
    ``figures``. Works on a standby (nothing written)."""
    sql = " UNION ALL ".join(
        f"SELECT '{f.name}', code, ms, message, hint FROM try_generate($q${f.generator}$q$)"
        for f in FORMATS
    )
    tried = [Tried(r[0], r[1], float(r[2]), r[3], r[4]) for r in server.sql(sql, dbname=dbname)]
    if figures:
        for t in tried:
            figures(f"  {t.format:<10} {t.code} {t.ms:8.2f} ms  {t.message or ''}")
    return tried


def every(tried: list[Tried], condition) -> bool:
    """Whether every format's outcome meets ``condition``."""
    return len(tried) == len(FORMATS) and all(condition(t) for t in tried)


def try_again_sql() -> str:
    """One statement trying every format again, its SQLSTATEs on one line."""
    generators = ", ".join(f"$q${f.generator}$q$" for f in FORMATS)
    return (
        "SELECT string_agg((try_generate(g)).code, ', ') AS \"again: SQLSTATEs\""
        f" FROM unnest(ARRAY[{generators}]) g"
    )


def run_into_figures(conn: psycopg.Connection, figures, query: str) -> None:
    """A query's rows as figures; its error, if it fails, as a figure too."""
    try:
        table(figures, conn.execute(query))
    except psycopg.Error as e:
        figures(f"    ERROR: {e.sqlstate} {e.diag.message_primary}")
