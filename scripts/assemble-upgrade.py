#!/usr/bin/env python3
"""Writes the upgrade scripts PostgreSQL runs, from sql/upgrades/
(docs/development.md "SQL files"): each `pg_flake--FROM--TO.sql` as it is,
but for its `-- @include FILE` lines, each replaced by the live file
sql/<FILE> (the one the fresh install includes), so that a body changed in a
release is written once; in an included file every `CREATE FUNCTION` and
`CREATE VIEW` becomes `CREATE OR REPLACE …`: an existing one is replaced in
place (keeping its grants), a new one created.

  scripts/assemble-upgrade.py --out DIR     writes every upgrade script into DIR

Used by `make install` (DIR: target/sql, copied into the extension
directory), `make package`, `make lint` (pgspot reads the result).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

SQL = Path(__file__).resolve().parent.parent / "sql"
UPGRADES = SQL / "upgrades"
INCLUDE = re.compile(r"^-- @include (\S+)\s*$")
NAME = re.compile(r"^pg_flake--[0-9.]+--[0-9.]+\.sql$")
CREATED = re.compile(
    r"^CREATE\s+(?:OR\s+REPLACE\s+)?(FUNCTION|VIEW)\s+(?:@extschema@\.)?\"?([a-z_0-9]+)\"?",
    re.IGNORECASE | re.MULTILINE,
)


def included(path: Path) -> str:
    """sql/<FILE> as an update runs it: every function and view created
    `OR REPLACE` (a database at the update's FROM may or may not have it:
    PostgreSQL keeps an existing one's grants, and refuses one that is not
    the extension's own)."""
    text = CREATED.sub(
        lambda m: m.group(0) if "OR REPLACE" in m.group(0).upper()
        else re.sub(r"^CREATE\s+", "CREATE OR REPLACE ", m.group(0), count=1, flags=re.IGNORECASE),
        path.read_text(),
    )
    where = path.relative_to(SQL.parent)
    return f"-- == {where}, as the fresh install has it\n{text}-- == end of {where}\n"


def assemble(script: Path) -> str:
    match = NAME.match(script.name)
    if not match:
        sys.exit(f"assemble-upgrade: {script}: not pg_flake--FROM--TO.sql")
    out = []
    for number, line in enumerate(script.read_text().splitlines(keepends=True), 1):
        include = INCLUDE.match(line)
        if not include:
            out.append(line)
            continue
        path = SQL / include.group(1)
        if not path.is_file() or path.parent != SQL:
            sys.exit(f"assemble-upgrade: {script}:{number}: no live file sql/{include.group(1)}")
        out.append(included(path))
    return "".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    scripts = sorted(UPGRADES.glob("pg_flake--*--*.sql"))
    assembled = {s.name: assemble(s) for s in scripts}
    args.out.mkdir(parents=True, exist_ok=True)
    for name, text in assembled.items():
        target = args.out / name
        if not target.exists() or target.read_text() != text:
            # Written beside it, then renamed: make test's versions assemble side by
            # side, and one may be copying the file while another writes it.
            partial = target.with_name(f".{name}.{os.getpid()}")
            partial.write_text(text)
            os.replace(partial, target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
