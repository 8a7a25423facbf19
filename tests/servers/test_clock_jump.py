"""A clock set far ahead, and the settings that change which IDs are issued
(docs/guarantees.md "Restarts, crashes and the clock", docs/sql-reference.md
"Settings"): a running server whose clock is stepped years ahead refuses to
generate (55000) instead of moving its marks with it, and goes on once the clock is right; a restart
with the clock ahead is what the check cannot see (documented); a plain role
cannot change `pg_flake.snowflake_epoch`, `pg_flake.kuid_interval` or
`pg_flake.max_clock_jump`."""

import time

import psycopg
import pytest

FORMATS = {
    "sno": "sno_generate()",
    "siq": "siq_generate('user')",
    "snowflake": "snowflake_generate()",
    "kuid64": "kuid64_generate()",
    "kuid96": "kuid96_generate()",
}
YEARS_3 = 3 * 365 * 86400


def started(servers, preload):
    """A server started with the clock shim loaded (its clock at the machine's),
    so that set_clock moves it while it runs."""
    server = servers("primary").init(preload=preload)
    server.set_clock(0)
    server.start()
    server.create_database()
    return server


def generate(conn, n=100):
    """n IDs of every format in one connection (per backend: one backend's
    generators); the last ID of each, as text."""
    last = {}
    for fmt, call in FORMATS.items():
        rows = conn.execute(f"SELECT {call}::text FROM generate_series(1, {n})").fetchall()
        last[fmt] = rows[-1][0]
    return last


def mark_times(conn):
    """Per format: the generator's mark as Unix seconds (siq: its latest)."""
    rows = conn.execute(
        "SELECT format, max(extract(epoch FROM mark_time))::float8"
        " FROM pg_flake_generator_state() GROUP BY format"
    ).fetchall()
    return dict(rows)


def refused(conn, call):
    """The error of one generation, which must fail."""
    with pytest.raises(psycopg.Error) as caught:
        conn.execute(f"SELECT {call}")
    return caught.value


@pytest.mark.parametrize("preload", [True, False], ids=["preloaded", "not-preloaded"])
def test_a_clock_stepped_years_ahead_stops_generation_and_the_marks_stay(servers, preload):
    server = started(servers, preload)
    with server.connect("flake") as conn:
        before = generate(conn)
        marks = mark_times(conn)
        assert set(marks) == set(FORMATS), marks

        server.set_clock(YEARS_3)
        for fmt, call in FORMATS.items():
            error = refused(conn, call)
            assert error.sqlstate == "55000", (fmt, error)
            message = str(error)
            assert f"{fmt} generation stopped: the clock jumped" in message, message
            assert "pg_flake_set_mark" in (error.diag.message_hint or ""), fmt
        # A backend that starts after the step sees it too (per backend the
        # reference is the server's, in the marks file).
        with server.connect("flake") as fresh:
            for fmt, call in FORMATS.items():
                error = refused(fresh, call)
                assert error.sqlstate == "55000", (fmt, error)
                assert "the clock jumped" in str(error), error
        # The marks did not move years ahead: within seconds of the real time.
        after_step = mark_times(conn)
        assert all(after_step[f] < time.time() + 10 for f in FORMATS), after_step
        assert all(after_step[f] - marks[f] < 10 for f in FORMATS), (marks, after_step)

        # The clock put right: generation goes on at once, above the IDs
        # made before the step (no 55000).
        server.set_clock(0)
        again = generate(conn)
        for fmt, sql_type in [
            ("siq", "siq"),
            ("kuid96", "kuid96"),
            ("snowflake", "bigint"),
            ("kuid64", "bigint"),
        ]:
            query = f"SELECT %s::{sql_type} > %s::{sql_type}"
            assert conn.execute(query, (again[fmt], before[fmt])).fetchone()[0], fmt

        # A small step (NTP-sized, within pg_flake.max_clock_jump) is
        # accepted, and idleness is not a step.
        server.set_clock(20)
        generate(conn, 10)
        time.sleep(1.5)
        generate(conn, 10)
    jumped = [state for state, _, message in server.log_errors() if "jumped" in message]
    assert jumped and set(jumped) == {"55000"}, jumped


@pytest.mark.parametrize("preload", [True, False], ids=["preloaded", "not-preloaded"])
def test_a_restart_with_the_clock_years_ahead_moves_the_marks(servers, preload):
    """What the check cannot see (documented): a server started with its
    clock already years ahead has no reference from before; the marks follow
    that clock, and once the clock is right generation stops with 55000
    (the clock behind the IDs issued) until the marks are lowered
    deliberately (pg_flake_set_mark)."""
    server = started(servers, preload)
    with server.connect("flake") as conn:
        generate(conn, 10)
    server.stop()
    server.set_clock(YEARS_3)
    server.start()
    with server.connect("flake") as conn:
        generate(conn, 10)
        marks = mark_times(conn)
    assert all(marks[f] > time.time() + YEARS_3 - 60 for f in FORMATS), marks
    server.stop()
    server.set_clock(0)
    server.start()
    with server.connect("flake") as conn:
        for fmt, call in FORMATS.items():
            error = refused(conn, call)
            assert error.sqlstate == "55000", (fmt, error)
            assert "behind the last" in str(error), error
        # The remedy, where the IDs made 3 years ahead were not kept: lower
        # each mark deliberately (a WARNING in the log), and generation goes
        # on with the clock, in this session and in new ones.
        for fmt in FORMATS:
            conn.execute(f"SELECT pg_flake_set_mark('{fmt}', now())")
        generate(conn, 10)
        marks = mark_times(conn)
    assert all(marks[f] < time.time() + 60 for f in FORMATS), marks
    with server.connect("flake") as conn:
        generate(conn, 10)
    assert server.log().count("mark was set to unit") == len(FORMATS)


def test_max_clock_jump_zero_turns_the_check_off(servers):
    server = started(servers, True)
    server.sql("ALTER SYSTEM SET pg_flake.max_clock_jump = 0")
    server.sql("SELECT pg_reload_conf()")
    server.wait_for("SELECT current_setting('pg_flake.max_clock_jump') = '0'")
    with server.connect("flake") as conn:
        generate(conn, 10)
        server.set_clock(YEARS_3)
        generate(conn, 10)
        marks = mark_times(conn)
    assert all(marks[f] > time.time() + YEARS_3 - 60 for f in FORMATS), marks


def test_a_plain_role_cannot_change_which_ids_are_issued(servers):
    """The settings that change which IDs are issued are superuser-only
    (42501); the decoders' explicit-argument forms work for every role.
    pg_flake.siq_domain too (0.4.0): without a node setting its hash's top
    byte is the node, so a role that chose it chose the server's node; a
    superuser gives a role its domain with ALTER ROLE … SET
    (docs/sql-reference.md "Settings")."""
    server = servers("primary").init()
    server.start()
    server.create_database()
    server.sql("CREATE ROLE plain LOGIN")
    with psycopg.connect(
        host="127.0.0.1", port=server.port, user="plain", dbname="flake", autocommit=True
    ) as conn:
        for setting, value in [
            ("pg_flake.snowflake_epoch", "1735686000000"),
            ("pg_flake.kuid_interval", "6"),
            ("pg_flake.max_clock_jump", "0"),
            ("pg_flake.max_clock_lag", "0"),
            ("pg_flake.siq_domain", "example.com"),
        ]:
            for sql in [
                f"SET {setting} = '{value}'",
                f"SELECT set_config('{setting}', '{value}', false)",
            ]:
                with pytest.raises(psycopg.Error) as caught:
                    conn.execute(sql)
                assert caught.value.sqlstate == "42501", sql
        row = conn.execute(
            "SELECT time, worker, process, sequence"
            " FROM snowflake_parts(101980307980701696, 1735686000000)"
        ).fetchone()
        assert (row[1], row[2], row[3]) == (3, 5, 0), row
        assert str(row[0]).startswith("2025-10-09 08:53:20.125"), row
        assert conn.execute("SELECT kuid96_node(kuid96_generate(), 8)").fetchone()[0] == 0
        # No node setting: the domain's hash is the domain field, its top
        # byte the node; the role's own SET was refused above.
        domain = conn.execute("SELECT siq_domain_hash(siq_generate('user'))").fetchone()[0]
        assert domain == 0, hex(domain)
    server.sql("ALTER ROLE plain SET pg_flake.siq_domain = 'example.com'")
    with psycopg.connect(
        host="127.0.0.1", port=server.port, user="plain", dbname="flake", autocommit=True
    ) as conn:
        domain = conn.execute("SELECT siq_domain_hash(siq_generate('user'))").fetchone()[0]
        assert domain == 0x86CE1947, hex(domain)
