"""A standby generates only while it knows its primary preloads pg_flake
(docs/operations.md "Standbys and failover", issue 36 item 8): only a
preloaded primary writes mark records, which carry its node to the standby.
0.3.0 never checked it: a preloaded standby of a primary that did not
preload pg_flake generated with a node of its own, and a later move of the
primary to that node never reached it. A standby knows it from a pg_flake
record of the primary's current run, replayed; a shutdown or crash of the
primary (its checkpoint record, replayed) makes it unknown again."""

from test_standby import (
    WITH_NODE,
    generate_into,
    nodes_of,
    primary_with_node,
    refusal,
    set_node,
    standby_of,
    take,
)

PRELOAD = "shared_preload_libraries = 'pg_flake'"


def refuses_unknown_preload(standby):
    """Every format with a node field refuses: 25006, its primary not known
    to preload pg_flake, and the hint says to preload it there."""
    for format in WITH_NODE:
        code, message, hint = refusal(standby, format)
        assert code == "25006", (format, code, message)
        assert "cannot tell that the primary preloads pg_flake" in message, message
        assert "Preload pg_flake on the primary" in hint, hint
    problems = dict(standby.sql("SELECT format, problem FROM pg_flake_node()", dbname="flake"))
    assert all("preloads pg_flake" in problems[f] for f in WITH_NODE), problems


def generates_with(standby, node):
    for format in WITH_NODE:
        assert nodes_of(standby, format, take(standby, format, 20)) == {node}, format


def generate_each(primary):
    for format in WITH_NODE:
        generate_into(primary, format, 1)


def test_a_standby_of_a_primary_not_preloaded(servers):
    """A primary without pg_flake preloaded, node 3; a base backup of it,
    preloaded, with node 7: it refuses, also once the primary moves to node
    7. The primary preloaded and restarted: its announcements reach the
    standby, which refuses node 7 as its primary's and generates with 8; a
    move of the primary to 8 reaches it too."""
    primary = primary_with_node(servers, 3, preload=False)
    standby = servers("standby").clone_of(primary, PRELOAD)
    standby.start()
    set_node(standby, 7)
    generate_each(primary)
    primary.wait_for_replay(standby)
    refuses_unknown_preload(standby)

    # The primary moves to the standby's node: nothing of it reaches the
    # standby, which goes on refusing.
    set_node(primary, 7)
    generate_each(primary)
    primary.wait_for_replay(standby)
    refuses_unknown_preload(standby)

    primary.append_conf(PRELOAD)
    primary.restart()
    generate_each(primary)
    primary.wait_for_replay(standby)
    for format in WITH_NODE:
        code, message, _ = refusal(standby, format)
        assert code == "25006" and "node 7 " in message, (format, code, message)
    set_node(standby, 8)
    generates_with(standby, 8)
    # Known across a restart of the standby.
    standby.restart()
    primary.wait_for_replay(standby)
    generates_with(standby, 8)

    set_node(primary, 8)
    generate_each(primary)
    primary.wait_for_replay(standby)
    for format in WITH_NODE:
        code, message, _ = refusal(standby, format)
        assert code == "25006" and "node 8 " in message, (format, code, message)


def test_a_primary_restarted_without_preloading(servers):
    """A standby generating with node 7 beside a preloaded primary (node 3).
    The primary shut down and started without pg_flake preloaded: the
    standby refuses from its shutdown checkpoint on, also once the primary
    moves to node 7. Preloaded again, then killed (-9) and restarted: the
    standby refuses from the end-of-recovery checkpoint until the primary's
    next record."""
    primary = primary_with_node(servers, 3)
    standby = standby_of(servers, primary)
    set_node(standby, 7)
    generates_with(standby, 7)

    primary.stop()
    primary.append_conf("shared_preload_libraries = ''")
    primary.start()
    primary.wait_for_replay(standby)
    refuses_unknown_preload(standby)
    set_node(primary, 7)
    generate_each(primary)
    primary.wait_for_replay(standby)
    refuses_unknown_preload(standby)

    set_node(primary, 3)
    primary.stop()
    primary.append_conf(PRELOAD)
    primary.start()
    generate_each(primary)
    primary.wait_for_replay(standby)
    generates_with(standby, 7)

    primary.kill9()
    primary.start()
    primary.wait_for_replay(standby)
    refuses_unknown_preload(standby)
    generate_into(primary, "sno", 1)
    primary.wait_for_replay(standby)
    generates_with(standby, 7)
