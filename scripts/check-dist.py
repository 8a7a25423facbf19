#!/usr/bin/env python3
"""Checks a PGXN source distribution as PGXN checks an upload (docs/operations.md "Packaging").

    scripts/check-dist.py ZIP

The layout, as PGXN's upload (PGXN Manager) and its client (pgxnclient 1.3, `pgxn install`)
read a distribution:

- a zip archive whose entries all lie under one top-level directory, named NAME-VERSION from
  its META.json (PGXN Manager rewrites any other layout to that one; we ship it so);
- META.json at the top of that directory, and the first entry whose name ends in META.json
  (pgxnclient reads the first such entry as the distribution's metadata);
- no entry that would unpack outside that directory (pgxnclient refuses the archive);
- a Makefile at the top (pgxnclient works in the directory that has one);
- every file META.json names (each `provides` entry's `file` and `docfile`) in the archive.

Then META.json against the PGXN Meta Spec 1.0.0 by PGXN's own validator, the `pgxn_meta`
command (the pgxn_meta crate, which scripts/dist.sh installs): its required keys (name,
abstract, maintainer, license, provides with each extension's file and version, meta-spec),
semantic versions, license names, and the types of every optional key. Prints what is wrong and
exits 1; prints what was checked and exits 0. Standard library only.
"""

from __future__ import annotations

import json
import posixpath
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path


def layout_problems(names: list[str], meta: dict) -> list[str]:
    problems = []
    top = f"{meta.get('name')}-{meta.get('version')}"
    tops = sorted({name.split("/", 1)[0] for name in names})
    if tops != [top]:
        problems.append(f"the entries lie under {tops}, not under the one directory {top}/")
    for name in names:
        normal = posixpath.normpath(name)
        if name.startswith("/") or normal == ".." or normal.startswith("../"):
            problems.append(f"{name} would unpack outside the distribution's directory")
    first_meta = next(name for name in names if name.endswith("META.json"))
    if first_meta != f"{top}/META.json":
        problems.append(f"pgxnclient would read {first_meta} as META.json, not {top}/META.json")
    if f"{top}/Makefile" not in names:
        problems.append(f"no {top}/Makefile")
    for extension, provided in (meta.get("provides") or {}).items():
        for key in ("file", "docfile"):
            if key in provided and f"{top}/{provided[key]}" not in names:
                problems.append(f"provides.{extension}.{key} is {provided[key]}, not in the archive")
    return problems


def validator_problems(meta_text: bytes) -> list[str]:
    validator = shutil.which("pgxn_meta")
    if validator is None:
        return ["no pgxn_meta on PATH (scripts/dist.sh installs it)"]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "META.json"
        path.write_bytes(meta_text)
        done = subprocess.run([validator, str(path)], check=False, capture_output=True, text=True)
    if done.returncode != 0:
        return [f"pgxn_meta: {(done.stderr or done.stdout).strip()}"]
    return []


def main() -> int:
    if len(sys.argv) != 2:
        sys.exit(__doc__.split("\n\n")[1])
    archive = Path(sys.argv[1])
    if not zipfile.is_zipfile(archive):
        print(f"check-dist: {archive} is not a zip archive", file=sys.stderr)
        return 1
    with zipfile.ZipFile(archive) as zipped:
        names = zipped.namelist()
        metas = [name for name in names if name.count("/") == 1 and name.endswith("/META.json")]
        if len(metas) != 1:
            print(
                f"check-dist: {archive}: {len(metas)} META.json one directory down"
                " (NAME-VERSION/META.json), not one",
                file=sys.stderr,
            )
            return 1
        meta_text = zipped.read(metas[0])
    try:
        meta = json.loads(meta_text)
    except json.JSONDecodeError as error:
        print(f"check-dist: {metas[0]} is not JSON: {error}", file=sys.stderr)
        return 1
    problems = layout_problems(names, meta) + validator_problems(meta_text)
    for problem in problems:
        print(f"check-dist: {archive}: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(
        f"check-dist: {archive}: {meta['name']} {meta['version']}, {len(names)} entries under"
        f" {meta['name']}-{meta['version']}/; META.json valid (PGXN Meta Spec"
        f" {meta['meta-spec']['version']}, pgxn_meta)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
