"""The nemesis (docs/guarantees.md "The nemesis"): for MINUTES per seed,
operations and faults drawn at random from the seed on a preloaded primary,
its streaming standby, a second server that does not preload pg_flake and
base-backup clones, while SQL writers generate every coordination-based
format and Rust and Python lease holders make their own IDs. Then every ID
issued anywhere is checked: none twice, every wait ended by cancel, every
refusal the documentation promises given. A finding prints the seed and
the operation history; the same seed replays the same operations. With
PG_FLAKE_NEMESIS_CITUS set (``make nemesis NEMESIS_CITUS=1``), the same on a
Citus cluster instead (citus_world.py)."""

from __future__ import annotations

import os
import shutil

import citus_world
import registry
from report import failure, figures_of
from runner import World

from harness import major_version


def test_nemesis(servers, figures, seed, minutes, ops_spec, request):
    if citus_world.ENABLED:
        # PG_FLAKE_NEMESIS_CITUS (make nemesis NEMESIS_CITUS=1): the Citus
        # cluster, which has no lease holders (no Rust holder to build).
        citus_world.require_citus()
        ops = citus_world.select(ops_spec)
        world = citus_world.CitusWorld(servers, seed, minutes, ops, None)
        world.all_ops = list(citus_world.OPS)
    else:
        ops = registry.select(ops_spec)
        world = World(servers, seed, minutes, ops, request.getfixturevalue("rust_writer"))
        world.all_ops = list(registry.REGISTRY)
    try:
        world.setup()
        world.run()
    finally:
        world.finish()
    result = world.check()
    pg_major = major_version()
    figures(f"cluster: {world.DESCRIPTION}" + (f" ({world.release})" if world.release else ""))
    for line in figures_of(world, result, pg_major):
        figures(line)
    replay = (
        f"make nemesis-{pg_major} SEED={seed} MINUTES={minutes:g}"
        + (" NEMESIS_CITUS=1" if citus_world.ENABLED else "")
        + (f" NEMESIS_OPS='{ops_spec}'" if ops_spec else "")
    )
    found = failure(world, result, replay)
    assert found is None, found
    if not os.environ.get("PG_FLAKE_NEMESIS_KEEP"):
        shutil.rmtree(world.root, ignore_errors=True)
