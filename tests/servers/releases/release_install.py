"""The real previous releases of pg_flake, installed where a server can run
them (docs/operations.md "Versions"; issue 41).

:func:`release_bin` builds a release from its commit (``scripts/releases.txt``,
``scripts/build-release.sh``: cached, with the release's own Cargo.lock and
profile) and lays out a private copy of the PostgreSQL under test with that
release's library and scripts in place of this version's: hard links of
PG_BIN's installation (its programs, libraries and share directory, at the
same paths under a root of its own: PostgreSQL finds its share and library
directories relative to its programs), the release's files copied over. A
server started with the returned programs runs the old release; switching its
:attr:`harness.Server.bin` back to PG_BIN is installing this version's library
and restarting, as an operator upgrades.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from harness import PG_BIN

REPO = Path(__file__).resolve().parents[3]
RELEASES_TXT = REPO / "scripts/releases.txt"
BUILD_RELEASE = REPO / "scripts/build-release.sh"
# This version: Cargo.toml's.
VERSION = re.search(r'^version = "([^"]+)"', (REPO / "Cargo.toml").read_text(), re.M).group(1)


def releases() -> list[str]:
    """Every released version, oldest first."""
    versions = []
    for line in RELEASES_TXT.read_text().splitlines():
        if line and not line.startswith("#"):
            versions.append(line.split()[0])
    return versions


def pg_config(bin: Path, *options: str) -> list[str]:
    out = subprocess.run(
        [str(bin / "pg_config"), *options], check=True, capture_output=True, text=True
    ).stdout
    return out.split("\n")[: len(options)]


def release_files(version: str, bin: Path = PG_BIN) -> Path:
    """The built release's files, under pg_config's own paths (built on the
    first call, minutes; cached after)."""
    done = subprocess.run(
        [str(BUILD_RELEASE), version],
        env={**os.environ, "PG_CONFIG": str(bin / "pg_config")},
        check=False,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise RuntimeError(f"build-release.sh {version} failed:\n{done.stderr[-3000:]}")
    return Path(done.stdout.strip().splitlines()[-1])


def release_bin(version: str, root: Path, bin: Path = PG_BIN) -> Path:
    """The programs of a private copy of ``bin``'s PostgreSQL in ``root``
    that runs pg_flake ``version``."""
    files = release_files(version, bin)
    bindir, pkglibdir, sharedir, libdir = pg_config(
        bin, "--bindir", "--pkglibdir", "--sharedir", "--libdir"
    )
    library = Path(f"{files}{pkglibdir}/pg_flake.so")
    if not library.is_file():
        raise RuntimeError(f"the build of {version} has no {library}")
    tree = root / f"pg_flake-{version}"
    shutil.rmtree(tree, ignore_errors=True)
    tree.mkdir(parents=True)
    # The library directories of a relocatable build (PyPI's: its own, and
    # those its programs' RPATH names relative to them) go along; Debian's
    # are the system's, which the copy need not hold.
    own = [bindir, pkglibdir, sharedir, *private_library_dirs(Path(bindir))]
    if Path(libdir).parent == Path(bindir).parent:
        own.append(libdir)
    for directory in dict.fromkeys(own):
        link_tree(Path(directory), tree)
    extension = Path(f"{tree}{sharedir}/extension")
    for old in [*extension.glob("pg_flake*"), Path(f"{tree}{pkglibdir}/pg_flake.so")]:
        old.unlink(missing_ok=True)
    for source in files.rglob("*"):
        if source.is_file():
            target = Path(f"{tree}/{source.relative_to(files)}")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    subprocess.run(["chmod", "-R", "a+rX", str(tree)], check=True)
    return Path(f"{tree}{bindir}")


def private_library_dirs(bindir: Path) -> list[str]:
    """The directories, outside the system's, of the shared libraries that
    the server's programs load (``ldd``)."""
    found = []
    for program in ("postgres", "initdb", "psql", "pg_ctl"):
        out = subprocess.run(["ldd", str(bindir / program)], capture_output=True, text=True).stdout
        for line in out.splitlines():
            match = re.search(r"=> (/\S+)", line)
            if match:
                directory = os.path.dirname(os.path.realpath(match.group(1)))
                if not directory.startswith(("/lib", "/usr/lib/x86_64-linux-gnu", "/usr/lib64")):
                    found.append(directory)
    return found


def link_tree(directory: Path, root: Path) -> None:
    """``directory`` under ``root`` at its own path, as hard links (a copy
    where the file system does not allow them)."""
    # From /, with the path relative: cp --parents then copies the
    # attributes of each parent directory too.
    relative = str(directory.relative_to("/"))
    linked = subprocess.run(
        ["cp", "-al", "--parents", relative, str(root)], cwd="/", capture_output=True, text=True
    )
    if linked.returncode != 0:
        shutil.rmtree(root / relative, ignore_errors=True)
        subprocess.run(["cp", "-a", "--parents", relative, str(root)], cwd="/", check=True)
