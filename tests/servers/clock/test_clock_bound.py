"""bound: a restart 90 s behind: the first generation fails at once with
55000 and the lag (pg_flake.max_clock_lag, docs/guarantees.md "Guarantees");
the state functions still answer. Both modes, every coordination-based
format. ``-k bound`` runs this part alone."""

import time

import psycopg
import pytest
from clock_lib import (
    DB,
    MODES,
    check_log,
    clock_server,
    every,
    generate,
    mode_label,
    restart_with_clock,
    run_into_figures,
    try_again_sql,
    try_all,
)


@pytest.mark.parametrize("mode", MODES)
def test_bound(servers, mode, pg_major, figures, tmp_path):
    server = clock_server(servers, "bound", mode)
    figures(
        f"bound ({mode_label(mode, pg_major)}): 127.0.0.1:{server.port},"
        " a restart with the clock 90 s behind"
    )
    generate(server, tmp_path, figures, 1, 1)
    restart_with_clock(server, -90)
    started = time.monotonic()
    tried = try_all(server, figures)
    elapsed_ms = int(1000 * (time.monotonic() - started))
    figures(f"(all five first generations, with the connection, took {elapsed_ms} ms)")
    assert every(tried, lambda t: t.code == "55000" and 75 < t.lag < 100), (
        "90 s behind: the first generation of every format fails with 55000,"
        " the message giving a lag of about 90 s (75-100)",
        tried,
    )
    # Not a wait for the clock (90 s); 1 s and 5 s leave room for a loaded machine.
    assert every(tried, lambda t: t.ms < 1000) and elapsed_ms < 5000, (
        "90 s behind: each failure under 1 s on the server,"
        " all five with the connection under 5 s on the client",
        tried,
        elapsed_ms,
    )
    state_after_failures(server, figures)
    error = state_functions_error(server)
    assert error is None, ("pg_flake_generator_state() and pg_flake_node() still answer", error)
    check_log(server)


def state_after_failures(server, figures):
    """The state as a session that just failed sees it (in shared mode a
    generator shows once it has issued an ID in this run: none has)."""
    figures("pg_flake_generator_state() and pg_flake_node() in a session whose generations failed:")
    with server.connect(DB) as conn:
        run_into_figures(conn, figures, try_again_sql())
        run_into_figures(
            conn,
            figures,
            "SELECT format, mode, issued, last_unit, mark_unit, mark_time, clock_lead,"
            " now() AS clock FROM pg_flake_generator_state()",
        )
        run_into_figures(conn, figures, "SELECT * FROM pg_flake_node()")


def state_functions_error(server):
    """The error of pg_flake_generator_state() or pg_flake_node() in a new
    session, or None if both answer."""
    try:
        with server.connect(DB) as conn:
            conn.execute("SELECT * FROM pg_flake_generator_state()").fetchall()
            conn.execute("SELECT count(*) FROM pg_flake_node()").fetchall()
    except psycopg.Error as e:
        return e
    return None
