#!/usr/bin/env python3
"""Checks that every package of pg_flake carries one version: the extension's.

    scripts/check-versions.py

The version is the extension's, `version` of the root Cargo.toml (package pg_flake); a release
bumps it and every other manifest with it (docs/development.md "Cutting a release"). The
manifests are found by kind, among the files git knows of (tracked, or new and not ignored),
not from a list, so a package added later is checked as soon as it exists:

| kind | where the version is |
|---|---|
| `Cargo.toml` | `[package] version` |
| `META.json` (PGXN) | `version`, and `version` of every extension under `provides` |
| `*.control` | `default_version`; `'@CARGO_VERSION@'` (pgrx puts the Cargo version there) only beside a Cargo.toml |
| `pyproject.toml` | `[project] version` |
| `__init__.py` | `__version__`, where a package's defines it |
| `package.json` | `version` |
| `pom.xml` | the project's own `<version>` (not its parent's) |
| `go.mod` | a Go module has no version of its own: a `Version` constant in a `.go` file of the module |
| `*.go`, `*.ts`, `*.js`, `*.java`, `*.py`, `*.rs` | a constant `VERSION` or `Version` (or `__version__`) given as a literal |

Locks agree with their manifests: in a `Cargo.lock`, every package of the repository's own
(without a `source`) has its Cargo.toml's version; a `package-lock.json` has its package.json's.
`CHANGELOG.md` has a section for the version (`## [0.5.0] …`).

Not packages, so not read: what lies under a `tests` or `test` directory (test crates and
projects, never shipped), and vendored or installed code (`vendor/`, `node_modules/`).

A manifest of a known kind without a readable version is an error, as is a version that is not
the extension's. Prints each as `file: version (where): why` and exits 1; exits 0, naming the
version and how many places carry it, otherwise. Python 3.11+ (tomllib); standard library only.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parent.parent
NOT_PACKAGES = {"tests", "test", "vendor", "node_modules"}
CONSTANT = re.compile(
    r"""^[ \t]*(?:\w+[ \t]+)*(__version__|VERSION|Version)(?:[ \t]*:[ \t]*&?'?\w+|[ \t]+string)?"""
    r"""[ \t]*=[ \t]*["']([^"'\n]*)["']""",
    re.MULTILINE,
)
TEST_FILE = re.compile(r"(_test\.go|\.(test|spec)\.[mc]?[jt]s|(^|/)test_[^/]*\.py|Test\.java)$")
CONSTANT_FILES = (".go", ".ts", ".mts", ".js", ".mjs", ".cjs", ".java", ".py", ".rs")


def known_files() -> list[str]:
    out = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    names = sorted(n for n in out.split("\0") if n and (ROOT / n).is_file())
    return [n for n in names if not NOT_PACKAGES & set(PurePosixPath(n).parts[:-1])]


class Versions:
    """The versions the manifests give, and what is wrong beyond a version that differs."""

    def __init__(self) -> None:
        self.found: list[tuple[str, str, str]] = []  # (file, where in it, version)
        self.errors: list[str] = []

    def add(self, path: str, where: str, version: object, why: str = "no version") -> None:
        """A version; when it cannot be read (absent, empty, not a string), an error saying `why`."""
        if isinstance(version, str) and version.strip():
            self.found.append((path, where, version))
        else:
            self.errors.append(f"{path}: ({where}): {why}")

    def wrong(self, path: str, where: str, version: object, why: str) -> None:
        self.errors.append(f"{path}: {version} ({where}): {why}")


def toml(path: str) -> dict:
    return tomllib.loads((ROOT / path).read_text(encoding="utf-8"))


def cargo(v: Versions, path: str) -> None:
    package = toml(path).get("package", {})
    version = package.get("version")
    if isinstance(version, dict):  # version.workspace = true
        v.add(path, "[package] version", None, "a workspace version: give the version here")
    else:
        v.add(path, f"[package] version of {package.get('name', '?')}", version)


def cargo_lock(v: Versions, path: str, files: list[str]) -> None:
    """Each of the repository's own packages in the lock has its Cargo.toml's version."""
    own = {}
    for manifest in (f for f in files if PurePosixPath(f).name == "Cargo.toml"):
        package = toml(manifest).get("package", {})
        if isinstance(package.get("version"), str):
            own[package.get("name")] = (manifest, package["version"])
    for entry in toml(path).get("package", []):
        if "source" not in entry and entry.get("name") in own:
            manifest, version = own[entry["name"]]
            if entry.get("version") != version:
                where = (
                    ""
                    if "/" not in path
                    else f" --manifest-path {PurePosixPath(path).parent}/Cargo.toml"
                )
                v.wrong(
                    path,
                    f"package {entry['name']}",
                    entry.get("version"),
                    f"{manifest} says {version}: run cargo update -p {entry['name']} --offline{where}",
                )


def meta_json(v: Versions, path: str) -> None:
    meta = json.loads((ROOT / path).read_text(encoding="utf-8"))
    v.add(path, "version", meta.get("version"))
    for name, provided in (meta.get("provides") or {}).items():
        v.add(path, f"provides.{name}.version", provided.get("version"))


def control(v: Versions, path: str, files: list[str]) -> None:
    match = re.search(
        r"^\s*default_version\s*=\s*'([^']*)'", (ROOT / path).read_text(), re.MULTILINE
    )
    beside_cargo = str(PurePosixPath(path).parent / "Cargo.toml").removeprefix("./") in files
    if match and match.group(1) == "@CARGO_VERSION@":
        if not beside_cargo:
            v.add(path, "default_version", None, "'@CARGO_VERSION@' with no Cargo.toml beside it")
        return
    v.add(path, "default_version", match.group(1) if match else None)


def pyproject(v: Versions, path: str) -> None:
    project = toml(path).get("project", {})
    why = (
        "version is dynamic: give it in [project]"
        if "version" in project.get("dynamic", [])
        else ""
    )
    v.add(path, "[project] version", project.get("version"), why)


def package_json(v: Versions, path: str) -> None:
    v.add(path, "version", json.loads((ROOT / path).read_text(encoding="utf-8")).get("version"))


def package_lock(v: Versions, path: str) -> None:
    lock = json.loads((ROOT / path).read_text(encoding="utf-8"))
    manifest = PurePosixPath(path).with_name("package.json")
    if not (ROOT / manifest).is_file():
        return
    version = json.loads((ROOT / manifest).read_text(encoding="utf-8")).get("version")
    for where, value in (
        ("version", lock.get("version")),
        ('packages[""].version', (lock.get("packages") or {}).get("", {}).get("version")),
    ):
        if value != version:
            v.wrong(
                path,
                where,
                value,
                f"{manifest} says {version}: run npm install --package-lock-only",
            )


def pom(v: Versions, path: str) -> None:
    project = ET.parse(ROOT / path).getroot()
    ns = project.tag[: project.tag.index("}") + 1] if project.tag.startswith("{") else ""
    version = project.find(f"{ns}version")
    v.add(
        path,
        "<project><version>",
        version.text if version is not None else None,
        "no <version> of its own (a parent's is not this package's)",
    )


def constants(v: Versions, path: str) -> list[str]:
    text = (ROOT / path).read_text(encoding="utf-8", errors="replace")
    found = []
    for match in CONSTANT.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        v.add(path, f"{match.group(1)}, line {line}", match.group(2))
        found.append(match.group(2))
    return found


def collect(files: list[str]) -> Versions:
    v = Versions()
    with_constant: set[str] = set()
    for path in files:
        name = PurePosixPath(path).name
        if name == "Cargo.toml":
            cargo(v, path)
        elif name == "Cargo.lock":
            cargo_lock(v, path, files)
        elif name == "META.json":
            meta_json(v, path)
        elif name.endswith(".control"):
            control(v, path, files)
        elif name == "pyproject.toml":
            pyproject(v, path)
        elif name == "package.json":
            package_json(v, path)
        elif name == "package-lock.json":
            package_lock(v, path)
        elif name == "pom.xml":
            pom(v, path)
        if name.endswith(CONSTANT_FILES) and not TEST_FILE.search(path) and constants(v, path):
            with_constant.add(path)
    for module in (PurePosixPath(f).parent for f in files if PurePosixPath(f).name == "go.mod"):
        prefix = "" if str(module) == "." else f"{module}/"
        if not any(f.startswith(prefix) and f.endswith(".go") for f in with_constant):
            v.add(
                f"{prefix}go.mod",
                "a Version constant of the module",
                None,
                'no `const Version = "…"` in a .go file of the module',
            )
    return v


def changelog(version: str) -> str | None:
    """Why CHANGELOG.md has no section for `version`; None when it has."""
    path = ROOT / "CHANGELOG.md"
    if not path.is_file():
        return "CHANGELOG.md: missing"
    if not re.search(
        rf"^## \[{re.escape(version)}\]", path.read_text(encoding="utf-8"), re.MULTILINE
    ):
        return f"CHANGELOG.md: no section `## [{version}]`"
    return None


def main() -> int:
    files = known_files()
    versions = collect(files)
    extension = toml("Cargo.toml").get("package", {}).get("version")
    if not isinstance(extension, str):
        print("check-versions: the root Cargo.toml has no [package] version", file=sys.stderr)
        return 1
    wrong = [
        f"{path}: {version} ({where}): not {extension}"
        for path, where, version in versions.found
        if version != extension
    ]
    wrong += versions.errors
    missing = changelog(extension)
    if missing:
        wrong.append(missing)
    if wrong:
        print(
            f"check-versions: the version is {extension} (Cargo.toml, pg_flake); "
            f"{len(wrong)} disagree or have none:",
            file=sys.stderr,
        )
        for line in wrong:
            print(f"  {line}", file=sys.stderr)
        return 1
    places = sorted({path for path, *_ in versions.found})
    print(
        f"check-versions: {extension} in {len(versions.found)} places of {len(places)} files "
        f"({', '.join(places)}) and CHANGELOG.md"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
