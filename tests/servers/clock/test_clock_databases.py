"""databases: two databases generate; after a restart 5 s behind, only the
second one generates: never below the first one's IDs (the marks are the
server's, not a database's: docs/guarantees.md "Restarts, crashes and the
clock"). Both modes, every coordination-based format. ``-k databases`` runs
this part alone."""

import pytest
from clock_lib import (
    DB,
    FORMATS,
    MODES,
    check_above,
    check_log,
    check_mode,
    clock_server,
    compare,
    finish_generating,
    generate,
    mode_label,
    restart_with_clock,
    setup_database,
    start_generating,
)

OTHER = f"{DB}_other"


@pytest.mark.parametrize("mode", MODES)
def test_databases(servers, mode, pg_major, figures, tmp_path):
    server = clock_server(servers, "databases", mode)
    figures(
        f"two databases ({mode_label(mode, pg_major)}): 127.0.0.1:{server.port}, {DB} and {OTHER}"
    )
    server.create_database(OTHER)
    setup_database(server, OTHER)
    first = start_generating(server, tmp_path / "first", 1, 2)
    other = start_generating(server, tmp_path / "other", 1, 2, dbname=OTHER)
    finish_generating(other, figures, 1, 2, dbname=OTHER)
    finish_generating(first, figures, 1, 2)

    figures(f"restart with the clock 5 s behind; from now on only {OTHER} generates")
    restart_with_clock(server, -5)
    generate(server, tmp_path / "other", figures, 2, 2, dbname=OTHER)
    copy_first_database(server)
    figures(f"{OTHER}'s new IDs against {DB}'s:")
    compare(server, figures, "1", 2, "first", prefix="first_", dbname=OTHER)
    figures(f"{OTHER}'s new IDs against its own earlier ones:")
    compare(server, figures, "1", 2, "own", dbname=OTHER)
    check_mode(server, "own", mode, pg_major, dbname=OTHER)
    check_above(
        server,
        "first",
        f"no new ID of {OTHER} at or below an ID {DB} issued before the restart",
        dbname=OTHER,
    )
    check_above(
        server, "own", f"no new ID of {OTHER} at or below its own earlier ones", dbname=OTHER
    )
    check_log(server)


def copy_first_database(server):
    """The first database's rows into tables first_<format> of the other,
    next to its own."""
    with server.connect(DB) as source, server.connect(OTHER) as target:
        for f in FORMATS:
            target.execute(f"CREATE TABLE first_{f.name} (LIKE t_{f.name})")
            with source.cursor().copy(f"COPY t_{f.name} TO STDOUT") as rows:
                with target.cursor().copy(f"COPY first_{f.name} FROM STDIN") as into:
                    for block in rows:
                        into.write(block)
