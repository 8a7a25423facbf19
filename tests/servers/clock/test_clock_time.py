"""time: an ID's time is the unit of an instant of its own call, also once
the backend tells the clock from the CPU's time-stamp counter between
readings, and after the clock is set forward while a session generates
(docs/guarantees.md "What an ID's time is"). Each format's IDs are made in one
session between two ``clock_timestamp()`` readings, 200 000 per format, long
enough for the backend to learn the counter's rate; then the clock is set
30 s forward and the same session does it again. Both modes, every
coordination-based format. ``-k time`` runs this part alone."""

import pytest
from clock_lib import DB, FORMATS, MODES, check_log, clock_server, mode_label, table

ROWS = 200_000


def outside_the_call(conn, fmt) -> tuple[int, int, int]:
    """How many of ROWS IDs lie in a unit that ends before their call began,
    and how many in one that begins after it ended (give or take the
    microsecond both times are rounded to), and how many rows."""
    # The target list is evaluated in order: before, the ID, after.
    return conn.execute(
        f"""SELECT count(*) FILTER (WHERE t + make_interval(secs => {fmt.unit_ms} / 1000.0)
                                           + interval '1 microsecond' <= before),
                   count(*) FILTER (WHERE t > after + interval '1 microsecond'),
                   count(*)
            FROM (SELECT clock_timestamp() AS before, {fmt.timestamp}({fmt.generator}) AS t,
                         clock_timestamp() AS after
                  FROM generate_series(1, {ROWS})) calls"""
    ).fetchone()


@pytest.mark.parametrize("mode", MODES)
def test_time(servers, mode, pg_major, figures):
    server = clock_server(servers, "time", mode, clock=0)
    figures(
        f"time ({mode_label(mode, pg_major)}): 127.0.0.1:{server.port}, {ROWS} IDs per format"
        " in one session, before and after the clock is set 30 s forward"
    )
    rows = []
    with server.connect(DB) as conn:
        for phase in ("as started", "30 s forward"):
            if phase == "30 s forward":
                server.set_clock(30)
            for fmt in FORMATS:
                early, late, made = outside_the_call(conn, fmt)
                rows.append((phase, fmt.name, made, early, late))
    table(
        figures,
        rows,
        ["clock", "format", "IDs", "unit ended before the call", "unit began after it"],
    )
    for phase, name, made, early, late in rows:
        assert made == ROWS
        assert (early, late) == (0, 0), (
            f"{phase}, {name}: every ID's unit holds an instant of its call"
            f" ({early} ended before it, {late} began after it)"
        )
    check_log(server)
