#!/usr/bin/env python3
"""pgspot over pg_flake's scripts (docs/guarantees.md "Privileges and trust";
issue 49): the install script and every upgrade script, each as PostgreSQL
runs it. Every finding is either fixed or on the allow-list
scripts/pgspot-allow.txt, one line per finding with its reason (pgspot
counts one kind of them, PS015, as an error: the allow-list says why that
one cannot happen in an extension script); with --all, an allow-list line
that no longer matches a finding fails too, so the list only shrinks.

  scripts/check-pgspot.py [--all] FILE...

pgspot (PyPI) is installed first when missing. Used by `make lint` (the
upgrade scripts, assembled by scripts/assemble-upgrade.py) and
scripts/test-sql.sh (the install and upgrade scripts installed into each
version's PostgreSQL).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ALLOW = HERE / "pgspot-allow.txt"
PGSPOT = "pgspot==0.9.4"
# "PS017: Unqualified object reference: sno at line 1"
WARNING = re.compile(r"^(PS\d+): (.*?)(?: at line (\d+))?$")


def ensure_pgspot() -> None:
    try:
        subprocess.run(["pgspot", "--version"], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError):
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
             "--root-user-action=ignore", PGSPOT],
            check=True,
        )


def allow_list() -> list[tuple[str, str, str]]:
    """(code, message, reason) per line: `CODE | message | reason`."""
    allowed = []
    for number, line in enumerate(ALLOW.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split("|")]
        if len(parts) != 3 or not all(parts):
            sys.exit(f"{ALLOW}:{number}: want `CODE | message | reason`: {line}")
        allowed.append((parts[0], parts[1], parts[2]))
    return allowed


def check(path: Path, allowed: list[tuple[str, str, str]], used: set) -> list[str]:
    done = subprocess.run(["pgspot", str(path)], capture_output=True, text=True)
    problems = []
    for line in done.stdout.splitlines():
        match = WARNING.match(line.strip())
        if not match:
            continue
        code, message, at = match.groups()
        hit = next((a for a in allowed if a[0] == code and a[1] == message), None)
        if hit:
            used.add(hit)
        else:
            problems.append(f"{path.name}:{at or '?'}: {code}: {message}")
    summary = re.search(r"Errors: (\d+) Warnings: (\d+) Unknown: (\d+)", done.stdout)
    if not summary:
        problems.append(f"{path.name}: pgspot printed no summary:\n{done.stdout}{done.stderr}")
    elif int(summary.group(3)):
        problems.append(f"{path.name}: {summary.group(3)} statements pgspot could not read")
    # A body pgspot cannot parse ends its analysis of the file: nothing
    # after it would be checked.
    for line in (done.stdout + done.stderr).splitlines():
        if "is not a known variable" in line or "Traceback" in line:
            problems.append(f"{path.name}: pgspot stopped: {line.strip()}")
    return problems


def main() -> int:
    args = sys.argv[1:]
    every = "--all" in args
    files = [Path(f) for f in args if f != "--all"]
    if not files:
        sys.exit(__doc__)
    ensure_pgspot()
    allowed = allow_list()
    used: set = set()
    problems = []
    for path in files:
        problems += check(path, allowed, used)
    stale = [a for a in allowed if a not in used] if every else []
    for code, message, _ in stale:
        problems.append(f"{ALLOW.name}: `{code} | {message}` matches no warning: remove it")
    for problem in problems:
        print(f"check-pgspot: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"check-pgspot: {len(files)} scripts, 0 errors, {len(used)} allowed warning kinds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
