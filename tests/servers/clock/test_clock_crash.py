"""crash: SIGKILL of every child of the postmaster while 20 sessions
generate, an immediate stop and a restart 5 s behind: no ID at or below a
committed one, and IDs no further ahead of the clock than its 5 s and a
lease (docs/guarantees.md "Restarts, crashes and the clock"). Both modes,
every coordination-based format. ``-k crash`` runs this part alone."""

import re
import time

import pytest
from clock_lib import (
    MODES,
    check_above,
    check_lead,
    check_log,
    check_mode,
    clock_server,
    compare,
    generate,
    mode_label,
    start_generating,
)

# Sessions generating when the server crashes, and after.
CRASH_SESSIONS = 20


@pytest.mark.parametrize("mode", MODES)
def test_crash(servers, mode, pg_major, figures, tmp_path):
    server = clock_server(servers, "crash", mode)
    figures(f"crash ({mode_label(mode, pg_major)}): 127.0.0.1:{server.port}")
    bench = start_generating(server, tmp_path, 1, 30, CRASH_SESSIONS)
    time.sleep(3)
    killed = server.kill9_children()
    figures(
        f"SIGKILL to the postmaster's {killed} children"
        " (backends, checkpointer, WAL writer, ...) mid-generation"
    )
    out, err = bench.communicate()
    lines = (out + err).splitlines()
    client_errors = sum(1 for line in lines if re.search("aborted|terminat|closed", line))
    figures(f"pgbench: {client_errors} client errors after the kill")

    server.stop(mode="immediate")
    figures("immediate stop, then a start with the clock 5 s behind (crash recovery)")
    server.set_clock(-5)
    server.start()
    generate(server, tmp_path, figures, 2, 2, CRASH_SESSIONS)
    compare(server, figures, "1", 2, "crash")
    check_mode(server, "crash", mode, pg_major)
    check_above(
        server,
        "crash",
        "after the crash, 5 s behind: every format generated,"
        " no new ID at or below a committed one",
    )
    # Per backend, every slot was left uncleanly: each new holder starts
    # above what its slot's crashed holder may have used, not above the
    # marks of the other new holders (else each would start a lease
    # further ahead: CRASH_SESSIONS sessions, CRASH_SESSIONS s).
    check_lead(
        server,
        "crash",
        "clock_lead < '7 s'",
        "after the crash: IDs at most the clock's 5 s and a lease (1 s) ahead of it"
        " (clock_lead < 7 s for every format)",
    )
    check_log(server, "57P01", "57P02", "57P03")
