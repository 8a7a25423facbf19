"""restart: 6 sessions generate for a few seconds; restarts with the clock
5 s behind, then 1 h behind: no new ID at or below an old one; 1 h behind
stops generation with 55000 until pg_flake.max_clock_lag is raised above it
(docs/guarantees.md "Restarts, crashes and the clock"). Both modes, every
coordination-based format. ``-k restart`` runs this part alone."""

import re

import pytest
from clock_lib import (
    MODES,
    alter_system,
    check_above,
    check_lead,
    check_log,
    check_mode,
    clock_server,
    compare,
    every,
    generate,
    mode_label,
    restart_with_clock,
    setting,
    try_all,
    wait_for_setting,
)


@pytest.mark.parametrize("mode", MODES)
def test_restart(servers, mode, pg_major, figures, tmp_path):
    server = clock_server(servers, "restart", mode)
    figures(f"restart ({mode_label(mode, pg_major)}): 127.0.0.1:{server.port}")
    generate(server, tmp_path, figures, 1, 3)
    five_seconds_behind(server, mode, pg_major, figures, tmp_path)
    an_hour_behind(server, figures, tmp_path)
    check_log(server)


def five_seconds_behind(server, mode, pg_major, figures, tmp_path):
    figures("restart with the clock 5 s behind")
    restart_with_clock(server, -5)
    generate(server, tmp_path, figures, 2, 2)
    compare(server, figures, "1", 2, "restart5")
    check_mode(server, "restart5", mode, pg_major)
    check_above(
        server,
        "restart5",
        "5 s behind: every format generated after the restart, no new ID at or below an old one",
    )
    # (clock_lead: how far the IDs run ahead of the clock, less the seconds
    # since the restart; at most the clock's 5 s and a lease.)
    check_lead(
        server,
        "restart5",
        "clock_lead < '6 s'",
        "5 s behind: IDs no further ahead of the clock than its 5 s and a lease"
        " (clock_lead < 6 s for every format)",
    )


def an_hour_behind(server, figures, tmp_path):
    default = setting(server, "pg_flake.max_clock_lag")
    figures(f"restart with the clock 1 h behind (pg_flake.max_clock_lag at its default, {default})")
    restart_with_clock(server, -3600)
    tried = try_all(server, figures)
    figures(f"  hint: {tried[0].hint}")

    def stopped(t):
        expected = (
            rf"^{t.format} generation stopped: the clock is [0-9.]+ s behind"
            rf" the last {t.format} IDs issued$"
        )
        return t.code == "55000" and re.match(expected, t.message or "") and 3550 < t.lag < 3610

    assert every(tried, stopped), (
        '1 h behind: every format fails with 55000 "<format> generation stopped: the clock is N s'
        ' behind the last <format> IDs issued", N about 3600 (3550-3610)',
        tried,
    )
    # Not a wait: waiting for the clock would take the hour; the longest wait
    # allowed is one unit (milliseconds). 1 s leaves room for a loaded machine
    # (115 ms was seen with five suites on 2 cores).
    assert every(tried, lambda t: t.ms < 1000), (
        "1 h behind: each failure is immediate (under 1 s on the server), not a wait",
        tried,
    )

    alter_system(server, "SET pg_flake.max_clock_lag = '2h'")
    raised = wait_for_setting(server, "pg_flake.max_clock_lag", lambda v: v != default)
    figures(f"pg_flake.max_clock_lag raised to {raised}")
    generate(server, tmp_path, figures, 3, 2)
    compare(server, figures, "1,2", 3, "restart3600")
    check_above(
        server,
        "restart3600",
        "1 h behind, bound raised: every format generated, no new ID at or below an old one",
    )
    check_lead(
        server,
        "restart3600",
        "clock_lead BETWEEN '3550 s' AND '3601 s'",
        "1 h behind, bound raised: IDs about 1 h ahead of the clock"
        " (clock_lead 3550-3601 s for every format)",
    )
    alter_system(server, "RESET pg_flake.max_clock_lag")
