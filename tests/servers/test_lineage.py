"""A standby's own node is always in its lineage (docs/operations.md "Standbys
and failover", issue 36 item 4): a base backup of a standby copies its
``pg_flake.node`` and its lineage, not its record of which nodes are its own,
so the clone refuses the standby's node only if the lineage holds it. 0.3.0
recorded a standby's own node only while the lineage held fewer than 3
nodes: the fourth standby of a line was left out, and its clone generated
the standby's IDs."""

from test_standby import (
    FORMATS,
    WITH_NODE,
    generate_into,
    nodes_of,
    primary_with_node,
    refusal,
    set_node,
    standby_of,
    take,
    tell_preloaded,
)


def shown(server):
    """``pg_flake_node()``: format -> (node, problem), for the formats with a
    node field."""
    rows = server.sql("SELECT format, node, problem FROM pg_flake_node()", dbname="flake")
    return {format: (node, problem) for format, node, problem in rows if format in WITH_NODE}


def clone_refuses(servers, standby, node, name):
    """A base backup of ``standby`` (with its ``pg_flake.node``, ``node``)
    refuses every format with a node field, naming the node: 25006, as any
    cloned standby does."""
    clone = servers(name).clone_of(standby)
    clone.start()
    assert clone.value("SELECT pg_is_in_recovery()")
    for format in WITH_NODE:
        code, message, hint = refusal(clone, format)
        assert code == "25006" and f"node {node} " in message, (node, format, code, message)
        assert "ALTER SYSTEM SET pg_flake.node" in hint, hint
    clone.stop()


def test_a_line_of_five_nodes_keeps_each_standbys_own(servers):
    """Node 1 on the first primary; then, four times, a standby with a node
    of its own (2, 3, 4, 5) generates beside its primary, a base backup of
    it refuses its node, and it is promoted (its primary stopped first, as
    the deployment guide says), becoming the next standby's primary."""
    primary = primary_with_node(servers, 1)
    for node in range(2, 6):
        standby = standby_of(servers, primary, f"node{node}")
        set_node(standby, node)
        assert shown(standby) == {f: (node, None) for f in WITH_NODE}, node
        for format in WITH_NODE:
            assert nodes_of(standby, format, take(standby, format, 100)) == {node}, format
        clone_refuses(servers, standby, node, f"clone{node}")

        primary.stop()
        standby.promote()
        standby.wait_for("SELECT NOT pg_is_in_recovery()")
        primary = standby
        for format in FORMATS:
            # Above every ID of the line: the primary keys hold.
            generate_into(primary, format, 100)
        for format in WITH_NODE:
            assert nodes_of(primary, format, take(primary, format, 10)) == {node}, format


def test_a_standby_refuses_a_ninth_node_of_its_own(servers):
    """A standby keeps at most 8 nodes of its own per format in its lineage
    (half of its 16): a ninth is refused (55000) rather than one of the
    eight forgotten, and a base backup of it refuses every one of them."""
    primary = primary_with_node(servers, 1, formats=["sno"])
    standby = standby_of(servers, primary)
    own = list(range(10, 18))
    for node in own:
        set_node(standby, node)
        assert nodes_of(standby, "sno", take(standby, "sno", 5)) == {node}, node

    set_node(standby, 18)
    code, message, hint = refusal(standby, "sno")
    assert code == "55000", (code, message)
    assert "8 nodes of its own (10, 11, 12, 13, 14, 15, 16, 17)" in message, message
    assert "Set pg_flake.node back to one of its own nodes" in hint, hint
    problem = dict(standby.sql("SELECT format, problem FROM pg_flake_node()", dbname="flake"))
    assert "8 nodes of its own" in problem["sno"], problem
    # Its primary's nodes still come in; each of its own still generates.
    for node in (2, 3):
        set_node(primary, node)
        generate_into(primary, "sno", 1)
    primary.wait_for_replay(standby)
    set_node(standby, 12)
    assert nodes_of(standby, "sno", take(standby, "sno", 5)) == {12}

    clone = servers("clone").clone_of(standby)
    clone.start()
    tell_preloaded(primary, clone)
    for node in [1, 2, 3, *own]:
        set_node(clone, node)
        code, message, _ = refusal(clone, "sno")
        assert code == "25006" and f"node {node} " in message, (node, code, message)
    set_node(clone, 18)
    assert nodes_of(clone, "sno", take(clone, "sno", 5)) == {18}
