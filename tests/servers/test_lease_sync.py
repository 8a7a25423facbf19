"""Lease grants and renewals under synchronous replication (issue 36, docs/sql-reference.md
"Leases"): before it answers, a grant or renewal raises the fence and waits
for the synchronous standbys, as marks do (test_sync.py), whatever the
session's ``synchronous_commit``; a cancel, ``statement_timeout`` or
terminate ends that wait with an error and no lease. Its commit still
follows the answer, and a cancel ends the commit's own wait with a mere
WARNING: a standby promoted before the commit reached it then starts no
window before the fence, so it never grants again a unit whose window a
client received."""

from __future__ import annotations

import threading

import psycopg

from test_sync import make_standby, wait_for_sync

SYNC = ("synchronous_standby_names = 'ghost'", "synchronous_commit = local")


class Statement(threading.Thread):
    """A statement running in the background in a session of its own:
    ``outcome`` is its rows or the exception that ended it, ``notices`` the
    messages (WARNINGs) the server sent meanwhile."""

    def __init__(self, server, query, params=None):
        super().__init__(daemon=True)
        self.conn = server.connect("flake")
        self.notices: list[str] = []
        self.conn.add_notice_handler(lambda d: self.notices.append(d.message_primary))
        self.pid = self.conn.info.backend_pid
        self.query, self.params = query, params
        self.outcome = None
        self.start()

    def run(self):
        try:
            self.outcome = self.conn.execute(self.query, self.params).fetchall()
        except psycopg.Error as e:
            self.outcome = e

    def close(self):
        try:
            self.conn.close()
        except psycopg.Error:
            pass


def wait_event(server, pid: int, event: str) -> None:
    server.wait_for(f"SELECT wait_event = '{event}' FROM pg_stat_activity WHERE pid = {pid}")


def configure(server, *settings: str) -> None:
    for setting in settings:
        server.sql(f"ALTER SYSTEM SET {setting}")
    server.sql("SELECT pg_reload_conf()")


def test_a_grant_waits_for_the_synchronous_standby_and_a_cancel_gives_no_lease(servers):
    primary = servers("primary").init()
    primary.start()
    primary.create_database()
    held = primary.sql(
        "SELECT lease_id, expires FROM pg_flake_lease('kuid96', 'held', '1 min')", dbname="flake"
    )[0]
    # A synchronous standby named, none connected; every commit is local
    # (any session may set that): only the lease functions wait.
    configure(primary, *SYNC)
    primary.wait_for("SELECT current_setting('synchronous_standby_names') = 'ghost'")

    # (a) A grant waits, however the session set synchronous_commit; a
    # cancel ends it with 57014 and nothing is granted.
    grant = Statement(primary, "SELECT lease_id FROM pg_flake_lease('kuid96', 'cancelled')")
    wait_event(primary, grant.pid, "SyncRep")
    assert grant.outcome is None
    primary.sql(f"SELECT pg_cancel_backend({grant.pid})")
    grant.join(10)
    assert isinstance(grant.outcome, psycopg.errors.QueryCanceled), grant.outcome
    grant.close()

    # (b) A renewal too, here ended by statement_timeout; the window stays.
    with primary.connect("flake") as conn:
        conn.execute("SET statement_timeout = '500ms'")
        error = None
        try:
            conn.execute("SELECT pg_flake_renew(%s, '1 hour')", (held[0],))
        except psycopg.Error as e:
            error = e
        assert isinstance(error, psycopg.errors.QueryCanceled), error

    # (c) A terminate ends a waiting grant with the session.
    grant = Statement(primary, "SELECT lease_id FROM pg_flake_lease('kuid96', 'terminated')")
    wait_event(primary, grant.pid, "SyncRep")
    primary.sql(f"SELECT pg_terminate_backend({grant.pid})")
    grant.join(10)
    assert isinstance(grant.outcome, psycopg.OperationalError), grant.outcome
    grant.close()
    rows = primary.sql("SELECT lease_id, expires FROM pg_flake_leases", dbname="flake")
    assert rows == [held]

    # (d) The standby comes: a waiting grant gets its lease, which the
    # standby has.
    grant = Statement(primary, "SELECT lease_id FROM pg_flake_lease('kuid96', 'answered')")
    wait_event(primary, grant.pid, "SyncRep")
    standby = make_standby(servers, primary)
    standby.start()
    wait_for_sync(primary)
    grant.join(30)
    assert isinstance(grant.outcome, list), grant.outcome
    (lease_id,) = grant.outcome[0]
    grant.close()
    primary.wait_for_replay(standby)
    assert standby.value(
        f"SELECT count(*) FROM pg_flake_leases WHERE lease_id = {lease_id}", dbname="flake"
    )
    unexpected = [e for e in primary.log_errors() if e[0] not in ("57014", "57P01")]
    assert not unexpected, unexpected


def test_failover_never_regrants_a_unit_whose_window_the_client_received(servers):
    """Issue 36's item 3: a statement renews a lease for a minute and takes
    the other unit for a minute, both answered once the standby confirmed;
    the standby then stops, so the statement's commit waits for it, and a
    cancel ends that wait with a WARNING: the client has both windows, the
    standby neither commit. Promoted, it grants both units only after the
    windows the client received (0.3.0 granted them at once, in the
    received windows)."""
    primary = servers("primary").init(
        "pg_flake.lease_nodes = 'kuid96=4294967294-4294967295'", "pg_flake.lease_max_per_role = 2"
    )
    primary.start()
    primary.create_database()
    standby = make_standby(servers, primary)
    standby.start()
    configure(primary, "synchronous_standby_names = 'ghost'")
    wait_for_sync(primary)
    first = primary.sql(
        "SELECT lease_id, node, expires FROM pg_flake_lease('kuid96', 'renewed', '2 s')",
        dbname="flake",
    )[0]
    # The statement waits on an advisory lock once both functions answered.
    gate = primary.connect("flake")
    gate.execute("SELECT pg_advisory_lock(36)")
    statement = Statement(
        primary,
        "WITH r AS MATERIALIZED (SELECT * FROM pg_flake_renew(%s, '1 min')),"
        " g AS MATERIALIZED (SELECT * FROM pg_flake_lease('kuid96', 'lost', '1 min'))"
        " SELECT r.node, r.expires, g.lease_id, g.node, g.expires, pg_advisory_lock(36)"
        " FROM r, g",
        (first[0],),
    )
    primary.wait_for(
        f"SELECT wait_event_type = 'Lock' FROM pg_stat_activity WHERE pid = {statement.pid}"
    )
    standby.stop(mode="immediate")
    gate.execute("SELECT pg_advisory_unlock(36)")
    wait_event(primary, statement.pid, "SyncRep")
    primary.sql(f"SELECT pg_cancel_backend({statement.pid})")
    statement.join(10)
    assert isinstance(statement.outcome, list), statement.outcome
    assert any("synchronous replication" in n for n in statement.notices), statement.notices
    renewed_node, renewed_end, lost_id, lost_node, lost_end, _ = statement.outcome[0]
    received = {renewed_node: renewed_end, lost_node: lost_end}
    assert renewed_node == first[1] and lost_node != renewed_node
    statement.close()
    gate.close()

    primary.stop(mode="immediate")
    standby.start()
    standby.promote()
    standby.wait_for("SELECT NOT pg_is_in_recovery()")
    # The standby never got the commit: the lost grant is unknown there,
    # the renewed lease ends at its first window's end.
    assert not standby.value(
        f"SELECT count(*) FROM pg_flake_lease_grants WHERE lease_id = {lost_id}", dbname="flake"
    )
    kept = standby.value(
        f"SELECT expires FROM pg_flake_lease_grants WHERE lease_id = {first[0]}", dbname="flake"
    )
    assert kept == first[2]
    # Once that first window is over both units are free there: each new
    # window starts after the one the client received.
    standby.wait_for(f"SELECT now() > '{first[2].isoformat()}'")
    grants = standby.sql(
        "SELECT node, not_before FROM pg_flake_lease('kuid96', 'after failover 1', '1 min')"
        " UNION ALL"
        " SELECT node, not_before FROM pg_flake_lease('kuid96', 'after failover 2', '1 min')",
        dbname="flake",
    )
    assert {node for node, _ in grants} == set(received)
    for node, not_before in grants:
        assert not_before >= received[node], (node, not_before, received[node])
    assert standby.value("SELECT timeline FROM pg_flake_lease_state", dbname="flake") > 1
