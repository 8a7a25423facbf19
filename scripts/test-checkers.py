#!/usr/bin/env python3
"""Tests of make lint's own checkers: each must find what it exists to find.

    scripts/test-checkers.py

A checker that passes everything would keep `make lint` green while signposts and versions
drift, so each case here builds a small repository of its own (a temporary directory, `git
init`, the checker copied into its `scripts/`), runs the checker there and compares what it
reports, line by line, with what it must report: scripts/check-signposts.py (paths, headings,
Markdown links, what is not checked, WAITING), scripts/check-versions.py (every manifest
kind, locks, CHANGELOG.md, a package without a readable version) and scripts/check-formats.py
(a format of the core's registry missing from each place a format touches). Run by `make lint`
before the checkers themselves; a second or two. Standard library only (Python 3.11+, as
check-versions.py).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent


class Repo:
    """A throw-away git repository with the given files and one checker."""

    def __init__(self, checker: str, files: dict[str, str], waiting: str = ""):
        self.dir = Path(tempfile.mkdtemp(prefix="pgf-checkers-"))
        (self.dir / "scripts").mkdir()
        text = (SCRIPTS / checker).read_text()
        if waiting:
            marker = "WAITING: dict[tuple[str, str], str] = {\n"
            assert marker in text, f"{checker} has no WAITING list to add to"
            text = text.replace(marker, marker + waiting, 1)
        (self.dir / "scripts" / checker).write_text(text)
        self.checker = checker
        # The checker is ignored: its own text is not part of the repository under test.
        files = {".gitignore": "/target\n/scripts/check-*.py\n", **files}
        for name, text in files.items():
            (self.dir / name).parent.mkdir(parents=True, exist_ok=True)
            (self.dir / name).write_text(text)
        subprocess.run(["git", "init", "-q"], cwd=self.dir, check=True)
        subprocess.run(["git", "add", "-A"], cwd=self.dir, check=True)

    def run(self) -> tuple[int, list[str]]:
        """The exit status and the reported lines (indented ones: one finding each)."""
        run = subprocess.run(
            [sys.executable, f"scripts/{self.checker}"],
            check=False,
            cwd=self.dir,
            capture_output=True,
            text=True,
        )
        found = [line.strip() for line in run.stderr.splitlines() if line.startswith("  ")]
        return run.returncode, found

    def remove(self) -> None:
        shutil.rmtree(self.dir)


def checked(checker: str, files: dict[str, str], waiting: str = "") -> tuple[int, list[str]]:
    repo = Repo(checker, files, waiting)
    try:
        return repo.run()
    finally:
        repo.remove()


DOCS = "# Guide\n\n## Several servers: a deployment guide\n\n## The nemesis\n\nText.\n"
BASE = {
    "README.md": "# Project\n\n## Formats\n\nSee [the guide](docs/guide.md#the-nemesis).\n",
    "docs/guide.md": DOCS,
    "src/lib.rs": "// nothing\n",
    "scripts/releases.txt": "# version tag commit\n0.1.0 v0.1.0 0000000\n",
}
# A WAITING entry of the checker's (written into the copy under test: the
# real list is empty when nothing waits), and the file it waits in.
WAITING_ENTRY = (
    '    ("sql/leases.sql", "README" + \' "Several servers"\'): "a body, for the next upgrade script",\n'
)
WAITING_FILE = {"sql/leases.sql": '-- see README "Several servers"\n'}


class Signposts(unittest.TestCase):
    def report(self, files: dict[str, str], waiting: str = "") -> tuple[int, list[str]]:
        return checked("check-signposts.py", {**BASE, **files}, waiting)

    def test_a_clean_tree_passes(self):
        self.assertEqual(self.report({}), (0, []))

    def test_a_waiting_signpost_that_is_still_broken_passes(self):
        self.assertEqual(self.report(WAITING_FILE, WAITING_ENTRY), (0, []))

    def test_paths_in_every_language(self):
        status, found = self.report(
            {
                "src/a.rs": "//! see src/gone.rs and src/lib.rs:3\n",
                "sql/a.sql": "-- the surface of src/formats/a.rs\n",
                "scripts/a.sh": "# run scripts/missing.sh first\n",
                "docs/a.md": "Run `scripts/missing.py`; [ok](guide.md).\n",
            }
        )
        self.assertEqual(status, 1)
        self.assertEqual(
            found,
            [
                "docs/a.md:1: scripts/missing.py: no such file or directory",
                "scripts/a.sh:1: scripts/missing.sh: no such file or directory",
                "sql/a.sql:1: src/formats/a.rs: no such file or directory (named so: src/a.rs)",
                "src/a.rs:1: src/gone.rs: no such file or directory",
            ],
        )

    def test_a_moved_file_is_named(self):
        _, found = self.report({"src/formats/sno.rs": "\n", "sql/sno.sql": "-- src/sno.rs\n"})
        self.assertEqual(
            found,
            [
                "sql/sno.sql:1: src/sno.rs: no such file or directory (named so: src/formats/sno.rs)",
            ],
        )

    def test_headings_quoted_anchored_and_continued(self):
        _, found = self.report(
            {
                "src/b.rs": (
                    '// docs/guide.md "Several servers", docs/guide.md "The nemesis"\n'
                    '// docs/guide.md "Gone", guide.md#the-nemesis, guide.md#gone\n'
                    '/// (docs/guide.md "The\n/// nemesis") and README "Formats", README "Nope"\n'
                    "# lost.md#anchor\n"
                ),
            }
        )
        self.assertEqual(
            found,
            [
                'src/b.rs:2: docs/guide.md "Gone": no heading "Gone" in docs/guide.md',
                "src/b.rs:2: guide.md#gone: no heading #gone in docs/guide.md",
                'src/b.rs:4: README "Nope": no heading "Nope" in README.md',
                "src/b.rs:5: lost.md#anchor: no such Markdown file",
            ],
        )

    def test_markdown_links(self):
        _, found = self.report(
            {"docs/b.md": "[a](guide.md#nope) [b](../nope.md) [c](https://x.org/y)\n"}
        )
        self.assertEqual(
            found,
            [
                "docs/b.md:1: guide.md#nope: no heading #nope in docs/guide.md",
                "docs/b.md:1: ../nope.md: no such file or directory",
            ],
        )

    def test_what_is_not_checked(self):
        self.assertEqual(
            self.report(
                {
                    "src/c.rs": (
                        "// target/debug/x and src/<name>.rs and src/*.rs and ./src/x.rs are fine,\n"
                        "// so are $(CURDIR)/src/y.rs, {src/a,b}.rs, src/... and https://h/src/z.rs\n"
                        '// and the pattern r"^src/x\\.rs$"\n'
                    ),
                    "tests/regress/expected/x.out": "-- src/gone.rs\n",
                    "sql/pg_flake--0.1.0.sql": "-- src/gone.rs:1\n",
                }
            ),
            (0, []),
        )

    def test_a_waiting_signpost_that_is_fixed_must_leave_the_list(self):
        status, found = self.report(
            {"sql/leases.sql": '-- see docs/guide.md "Several servers"\n'}, WAITING_ENTRY
        )
        self.assertEqual(
            (status, found),
            (
                1,
                [
                    (
                        'sql/leases.sql: README "Several servers": in WAITING of scripts/check-signposts.py but'
                        " not broken there: remove it"
                    ),
                ],
            ),
        )

    def test_released_upgrade_scripts_keep_their_function_bodies(self):
        body = "AS $function$\n-- src/gone.rs\n$function$;\n"
        self.assertEqual(self.report({"sql/pg_flake--0.0.1--0.1.0.sql": body})[1], [])
        self.assertEqual(
            self.report({"sql/pg_flake--0.1.0--0.2.0.sql": body})[1],
            [
                "sql/pg_flake--0.1.0--0.2.0.sql:2: src/gone.rs: no such file or directory",
            ],
        )


VERSIONS = {
    "Cargo.toml": '[package]\nname = "ext"\nversion = "1.2.0"\n',
    "ext.control": "default_version = '@CARGO_VERSION@'\n",
    "CHANGELOG.md": "# Changelog\n\n## [1.2.0] - Unreleased\n",
}


class Versions(unittest.TestCase):
    def report(self, files: dict[str, str]) -> tuple[int, list[str]]:
        return checked("check-versions.py", {**VERSIONS, **files})

    def test_one_version_everywhere_passes(self):
        self.assertEqual(
            self.report(
                {
                    "core/Cargo.toml": '[package]\nname = "core"\nversion = "1.2.0"\n',
                    "META.json": '{"version": "1.2.0", "provides": {"ext": {"version": "1.2.0"}}}',
                    "py/pyproject.toml": '[project]\nname = "p"\nversion = "1.2.0"\n',
                    "py/p/__init__.py": '__version__ = "1.2.0"\n',
                    "clients/ts/package.json": '{"name": "t", "version": "1.2.0"}',
                    "clients/go/go.mod": "module x\n",
                    "clients/go/v.go": 'package x\n\nconst Version = "1.2.0"\n',
                    "clients/java/pom.xml": "<project><version>1.2.0</version></project>",
                    "managed/sql.control": "default_version = '1.2.0'\n",
                    "clients/ts/test/package.json": '{"name": "fixture", "version": "9.9.9"}',
                }
            ),
            (0, []),
        )

    def test_every_disagreement_is_named(self):
        status, found = self.report(
            {
                "META.json": '{"version": "1.2.0", "provides": {"ext": {"version": "1.1.0"}}}',
                "py/pyproject.toml": '[project]\nname = "p"\nversion = "1.1.0"\n',
                "clients/ts/src/version.ts": "export const VERSION = '1.0.0';\n",
                "managed/sql.control": "default_version = '1.1.0'\n",
            }
        )
        self.assertEqual(status, 1)
        self.assertEqual(
            sorted(found),
            [
                "META.json: 1.1.0 (provides.ext.version): not 1.2.0",
                "clients/ts/src/version.ts: 1.0.0 (VERSION, line 1): not 1.2.0",
                "managed/sql.control: 1.1.0 (default_version): not 1.2.0",
                "py/pyproject.toml: 1.1.0 ([project] version): not 1.2.0",
            ],
        )

    def test_a_package_without_a_readable_version_fails(self):
        _, found = self.report(
            {
                "clients/go/go.mod": "module x\n",
                "clients/java/pom.xml": "<project><parent><version>1.2.0</version></parent></project>",
                "clients/ts/package.json": '{"name": "t"}',
                "managed/sql.control": "default_version = '@CARGO_VERSION@'\n",
            }
        )
        self.assertEqual(
            sorted(found),
            [
                (
                    'clients/go/go.mod: (a Version constant of the module): no `const Version = "…"` in a'
                    " .go file of the module"
                ),
                (
                    "clients/java/pom.xml: (<project><version>): no <version> of its own (a parent's is not"
                    " this package's)"
                ),
                "clients/ts/package.json: (version): no version",
                "managed/sql.control: (default_version): '@CARGO_VERSION@' with no Cargo.toml beside it",
            ],
        )

    def test_locks_follow_their_manifests_and_the_changelog_has_the_version(self):
        _, found = self.report(
            {
                "Cargo.lock": '[[package]]\nname = "ext"\nversion = "1.1.0"\n',
                "CHANGELOG.md": "# Changelog\n\n## [1.1.0] - 2026-01-01\n",
            }
        )
        self.assertEqual(
            found,
            [
                (
                    "Cargo.lock: 1.1.0 (package ext): Cargo.toml says 1.2.0: run cargo update -p ext"
                    " --offline"
                ),
                "CHANGELOG.md: no section `## [1.2.0]`",
            ],
        )


# One format, zz, in every place a format touches (docs/development.md "Adding a format"):
# a SQL type of its own and a coordination-based generator.
FORMAT = {
    "Cargo.toml": '[package]\nname = "ext"\nversion = "0.2.0"\n',
    "core/src/formats/mod.rs": (
        "pub mod zz;\n\nmacro_rules! for_each_native_type {\n    ($c:ident) => {\n"
        "        $c!($crate::zz::Zz);\n    };\n}\n\nmacro_rules! for_each_slot_generator {\n"
        "    ($c:ident) => {\n        $c!($crate::zz::ZzGenerator);\n    };\n}\n"
    ),
    "core/src/formats/zz.rs": (
        'crate::fixed_id!(Zz, 8, "zz");\n'
        "crate::single_sequencer!(ZzGenerator => SLOT_RULE, ZzTimeline);\n"
    ),
    "core/src/lib.rs": "mod formats;\npub use formats::{zz};\n",
    "tests/vectors/zz.jsonl": '{"name": "one"}\n',
    "core/tests/zz.rs": "use flake_core::zz::Zz;\n",
    "src/formats/mod.rs": "pub mod zz;\n\npub static FORMATS: [&Format; 1] = [&zz::FORMAT];\n",
    "src/formats/zz.rs": (
        'sql_file!("../../sql/zz.sql", name = "zz");\n'
        "native_type!(Zz, flake_core::zz::Zz, zz, [zz_in]);\n"
    ),
    "sql/zz.sql": (
        "CREATE TYPE @extschema@.zz;\n-- == The native type zz ==\n"
        "-- == End of the native type zz ==\n"
        "CREATE FUNCTION @extschema@.zz_generate() RETURNS @extschema@.zz AS 'x';\n"
    ),
    "sql/releases/pg_flake--0.1.0.sql": "CREATE TABLE t ();\n",
    "sql/upgrades/pg_flake--0.1.0--0.2.0.sql": "-- @include zz.sql\n",
    "tests/regress/sql/zz.sql": "SELECT 1;\n",
    "tests/regress/expected/zz.out": "SELECT 1;\n",
    "tests/integration/tests/zz.rs": 'const Q: &str = "SELECT zz_generate()";\n',
    "tests/integration/src/catalog.rs": 'pub const SAMPLES: [(&str, &str); 1] = [("zz", "x")];\n',
    "tests/servers/test_zz.py": 'FORMATS = {\n    "zz": "zz_generate()",\n}\n',
    "python/pg_flake/zz.py": 'class Zz:\n    TYPE_NAME = "zz"\n',
    "python/pg_flake/__init__.py": "TYPES = {cls.TYPE_NAME: cls for cls in (Zz,)}\n",
    "tests/conformance/checks.py": 'FILE_TYPES = {\n    "zz": "zz",\n}\n',
    "clients/go/pgxflake/register.go": 'var TypeNames = []string{"zz"}\n',
    "clients/typescript/src/types.ts": "export interface Types {\n  zz: Zz\n}\n",
    "clients/java/src/main/java/io/github/pgflake/jdbc/PgFlake.java": "String q = \"t.typname IN ('zz')\";\n",
    "clients/rust/src/main.rs": 'const TYPE_NAMES: [&str; 1] = ["zz"];\n',
    "docs/formats/zz.md": "# zz\n",
    "docs/formats/README.md": "[zz.md](zz.md)\n",
    "docs/formats/choosing.md": "[zz](zz.md)\n",
    "docs/sql-reference.md": "## zz\n\n`zz_generate()`\n",
    "README.md": "SELECT zz_generate();\n",
    "docs/development.md": "## Where each format is tested\n\n| format |\n|---|\n| zz | x |\n",
}


class Formats(unittest.TestCase):
    def report(self, files: dict[str, str | None]) -> tuple[int, list[str]]:
        tree = {**FORMAT, **files}
        return checked("check-formats.py", {k: v for k, v in tree.items() if v is not None})

    def test_a_format_in_every_place_passes(self):
        status, found = self.report({})
        self.assertEqual((status, found), (0, []))

    def test_every_place_a_format_is_missing_from_is_named(self):
        for files, line in [
            (
                {"core/src/lib.rs": "mod formats;\n"},
                "core/src/lib.rs: `pub use formats::{…}` does not re-export it (flake_core::zz)",
            ),
            (
                {
                    "core/src/formats/zz.rs": 'crate::fixed_id!(Zz, 8, "zz");\ncrate::fixed_id!(Zy, 8, "zy");\ncrate::single_sequencer!(ZzGenerator => R, T);\n'
                },
                "core/src/formats/mod.rs: Zy is not in for_each_native_type!",
            ),
            (
                {"tests/vectors/zz.jsonl": None},
                "tests/vectors/: no file zz.jsonl, and no vectors with a field 'zz'",
            ),
            (
                {"core/tests/zz.rs": "use flake_core::other;\n"},
                "core/tests/: no test uses flake_core::zz",
            ),
            (
                {"src/formats/mod.rs": "pub mod zz;\n"},
                "src/formats/mod.rs: its FORMAT is not in FORMATS",
            ),
            (
                {"src/formats/zz.rs": 'sql_file!("../../sql/zz.sql", name = "zz");\n'},
                "src/formats/zz.rs: no native_type! of zz",
            ),
            (
                {
                    "sql/zz.sql": "CREATE TYPE @extschema@.zz;\nCREATE FUNCTION @extschema@.zz_generate() AS 'x';\n"
                },
                "sql/zz.sql: no native type section of zz (sql/native_type.sql.in)",
            ),
            (
                {"sql/upgrades/pg_flake--0.1.0--0.2.0.sql": "-- nothing\n"},
                "sql/upgrades/: zz is in neither the last release nor the update to the next",
            ),
            (
                {"tests/regress/expected/zz.out": None},
                "tests/regress/expected/zz.out: no such file",
            ),
            (
                {"tests/integration/tests/zz.rs": "// nothing\n"},
                "tests/integration/tests/: no test calls a function of sql/zz.sql",
            ),
            (
                {"tests/servers/test_zz.py": 'FORMATS = {\n    "other": "x",\n}\n'},
                "tests/servers/test_zz.py: its FORMATS table leaves zz out without saying why above it",
            ),
            (
                {"python/pg_flake/__init__.py": "TYPES = {}\n"},
                "python/pg_flake/__init__.py: TYPES does not list the class of zz",
            ),
            (
                {"clients/typescript/src/types.ts": "export interface Types {}\n"},
                "clients/typescript/src/types.ts: does not name zz",
            ),
            (
                {"tests/conformance/checks.py": "FILE_TYPES = {}\n"},
                "tests/conformance/checks.py: FILE_TYPES has no zz",
            ),
            ({"docs/formats/choosing.md": "\n"}, "docs/formats/choosing.md: no link to zz.md"),
            (
                {"docs/sql-reference.md": "\n"},
                "docs/sql-reference.md: zz_generate (sql/zz.sql) is not in the reference",
            ),
            (
                {"docs/development.md": "## Where each format is tested\n"},
                'docs/development.md "Where each format is tested": no row',
            ),
        ]:
            with self.subTest(line=line):
                self.assertEqual(self.report(files), (1, [f"zz: {line}"]))

    def test_a_table_may_leave_a_generator_out_saying_why(self):
        leaves_out = 'FORMATS = {\n    "other": "x",\n}\n'
        self.assertEqual(
            self.report({"tests/servers/test_zz.py": "# zz takes no lease.\n" + leaves_out}),
            (0, []),
        )

    def test_a_new_format_is_missing_from_every_place(self):
        status, found = self.report(
            {"core/src/formats/mod.rs": FORMAT["core/src/formats/mod.rs"] + "pub mod zy;\n"}
        )
        self.assertEqual(status, 1)
        self.assertEqual(
            [line for line in found if line.startswith("zy: ")][:4],
            [
                "zy: core/src/formats/zy.rs: no such file",
                "zy: core/src/lib.rs: `pub use formats::{…}` does not re-export it (flake_core::zy)",
                "zy: tests/vectors/: no file zy.jsonl, and no vectors with a field 'zy'",
                "zy: core/tests/: no test uses flake_core::zy",
            ],
        )
        self.assertEqual(len([line for line in found if line.startswith("zy: ")]), 17)


if __name__ == "__main__":
    unittest.main(verbosity=1)
