"""The nemesis's operations: each a small class, registered here by name.

An operation has
- ``plan(world, rng)``: its precondition and its parameters, from the
  nemesis's model of the cluster only (never from timing), so that one seed
  gives one sequence of operations: ``None`` when it does not apply now,
  else a dict of what it will do (printed in the history);
- ``weight(world)``: how likely it is drawn among those that apply;
- ``run(world, plan)``: the effect, on real servers and holders; returns
  its outcome ("skipped: …" when reality differs from the model), and
  updates the model.

``default = False`` keeps an operation out of a run unless named
(``--nemesis-ops +name``): one a fix on another branch must land first
(``broken`` says which item of issue 36), or one that needs an option of a
holder that does not exist yet. Adding an operation: a class in the
``ops_*.py`` file of its concern, decorated with ``@register``.
"""

from __future__ import annotations

import random

REGISTRY: dict[str, Op] = {}


class Op:
    name = ""
    base_weight = 1.0
    default = True
    broken = ""  # why it is off by default

    def plan(self, world, rng: random.Random) -> dict | None:
        raise NotImplementedError

    def weight(self, world) -> float:
        return self.base_weight

    def run(self, world, plan: dict) -> str:
        raise NotImplementedError


def register(cls: type[Op]) -> type[Op]:
    assert cls.name and cls.name not in REGISTRY, cls.name
    REGISTRY[cls.name] = cls()
    return cls


def select(spec: str, known: dict | None = None, defaults=None) -> dict[str, Op]:
    """The operations of a run: the default ones (``defaults``: those
    names, else every operation's own ``default``), changed by ``spec``, a
    comma-separated list of ``+name`` (add), ``-name`` (leave out), ``all``
    (every one) and ``none``; ``known``: the operations there are (default
    the registry's)."""
    known = REGISTRY if known is None else known
    if defaults is None:
        chosen = {name for name, op in known.items() if op.default}
    else:
        chosen = set(defaults)
    for word in filter(None, (w.strip() for w in spec.split(","))):
        if word == "all":
            chosen = set(known)
        elif word == "none":
            chosen = set()
        elif word[0] in "+-" and word[1:] in known:
            (chosen.add if word[0] == "+" else chosen.discard)(word[1:])
        else:
            raise ValueError(f"nemesis: unknown operation {word!r}; known: {sorted(known)}")
    return {name: known[name] for name in sorted(chosen)}


def off_by_default() -> list[str]:
    return [f"{name} ({op.broken})" for name, op in sorted(REGISTRY.items()) if not op.default]


def pick(rng: random.Random, items: list):
    """One of ``items`` (in their given order), or None."""
    return items[rng.randrange(len(items))] if items else None
