#!/usr/bin/env python3
"""Checks that every format of the core's registry is in every place a format touches.

    scripts/check-formats.py

The formats are the modules `core/src/formats/mod.rs` declares (`pub mod <format>;`), the
core's registry; its macros say which of them have a SQL type of their own
(`for_each_native_type!`) and a coordination-based generator (`for_each_slot_generator!`).
For each format, the places of docs/development.md "Adding a format", in its order:

1. the core: `core/src/formats/<format>.rs`, re-exported by `core/src/lib.rs` at
   `flake_core::<format>`; every type it declares with `fixed_id!` is in
   `for_each_native_type!`, every generator it declares (`single_sequencer!`, or an
   `impl SlotGenerator`) in `for_each_slot_generator!`, and the reverse;
2. `tests/vectors/`: a file named for the format (underscores dropped, as
   `distributedid.jsonl`; `kuid64.jsonl` for `kuid`), or vectors with a field named for it
   (alphanumeric's are fields of other formats' vectors);
3. `core/tests/`: a test that uses `flake_core::<format>`;
4. the extension: `src/formats/<format>.rs`, declared in `src/formats/mod.rs` and its
   `FORMAT` in `FORMATS`; for each SQL type, its `native_type!` there;
5. `sql/<format>.sql`, included by that module's `sql_file!`; for each SQL type, its section
   made from `sql/native_type.sql.in`; for each generator, its `<name>_generate` function
   (the generator's type name without `Generator`, lower-cased: `kuid64_generate`);
6. the update: the first object `sql/<format>.sql` creates is in the last release's install
   script (`sql/releases/`) or in the update to the next version (`sql/upgrades/`), written
   there or by `-- @include <format>.sql`;
7. the regression test: `tests/regress/sql/<format>.sql` and its expected output;
8. `tests/integration/`: a test of `tests/integration/tests/` calls one of the format's SQL
   functions; for each SQL type, a sample value in `tests/integration/src/catalog.rs`;
9. the multi-server suites: every `FORMATS` table of `tests/servers/` names every generator,
   or the comment right above the table does (saying why it leaves it out);
10. the applications: the conformance runner knows its vectors (each file of item 2 in
    `FILE_TYPES` of `tests/conformance/checks.py`, or the field, for vectors that are fields
    of another format's); for each SQL type, the type registry of every package that reads
    its columns: a class of the Python package (`python/pg_flake/`) with its `TYPE_NAME`,
    listed in `TYPES`, and the name in `clients/go/pgxflake/register.go`,
    `clients/typescript/src/types.ts`, `clients/java/src/main/java/io/github/pgflake/jdbc/PgFlake.java`
    and `clients/rust/src/main.rs`;
11. the docs: `docs/formats/<format>.md`, linked from `docs/formats/README.md` and
    `docs/formats/choosing.md`; every function of `sql/<format>.sql` but its native type
    section's in `docs/sql-reference.md`; one of them in `README.md` (its example); its row
    in docs/development.md "Where each format is tested".

Prints each place a format is missing from as `<format>: <place>: why` and exits 1; exits 0,
naming the formats, otherwise. A second or less, standard library only, no build: the
places span Rust, SQL, Python, Go, JavaScript, Java and Markdown, so this is a check of the
repository, beside scripts/check-signposts.py and scripts/check-versions.py in `make lint`,
rather than a test of the core crate, which reads only the core. Its own tests are in
scripts/test-checkers.py.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The type registries of the packages that read the native types' columns, but Python's.
TYPE_REGISTRIES = (
    "clients/go/pgxflake/register.go",
    "clients/typescript/src/types.ts",
    "clients/java/src/main/java/io/github/pgflake/jdbc/PgFlake.java",
    "clients/rust/src/main.rs",
)


def text(path: str) -> str:
    """The file's text, or "" when it does not exist."""
    file = ROOT / path
    return file.read_text(encoding="utf-8") if file.is_file() else ""


def files(directory: str, pattern: str) -> list[Path]:
    return sorted((ROOT / directory).glob(pattern)) if (ROOT / directory).is_dir() else []


def macro_body(source: str, name: str) -> str:
    """The text of `macro_rules! name { … }`."""
    start = source.find(f"macro_rules! {name}")
    if start < 0:
        return ""
    depth, i = 0, source.index("{", start)
    for j in range(i, len(source)):
        depth += {"{": 1, "}": -1}.get(source[j], 0)
        if depth == 0:
            return source[i : j + 1]
    return source[i:]


def listed(registry: str, macro: str) -> dict[str, set[str]]:
    """`$crate::<format>::<Type>` of the macro's callbacks, by format."""
    by_format: dict[str, set[str]] = {}
    for module, item in re.findall(r"\$crate::(\w+)::(\w+)", macro_body(registry, macro)):
        by_format.setdefault(module, set()).add(item)
    return by_format


def word(name: str, source: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", source) is not None


def sql_objects(sql: str) -> list[str]:
    """The names of the types and functions a SQL file creates, in order."""
    return re.findall(
        r"CREATE\s+(?:OR\s+REPLACE\s+)?(?:TYPE|FUNCTION)\s+(?:@extschema@\.)?\"?(\w+)", sql
    )


def table_blocks(source: str) -> list[tuple[str, str]]:
    """Each `FORMATS = {…}` or `[…]` of a Python file: (its text, the comment above it)."""
    blocks = []
    for match in re.finditer(r"^FORMATS\s*=\s*([\[{(])", source, re.MULTILINE):
        depth, end = 0, match.start(1)
        for end in range(match.start(1), len(source)):
            depth += {"[": 1, "{": 1, "(": 1, "]": -1, "}": -1, ")": -1}.get(source[end], 0)
            if depth == 0:
                break
        above = source[: match.start()].rstrip("\n").split("\n")
        comment = []
        while above and above[-1].lstrip().startswith("#"):
            comment.insert(0, above.pop())
        blocks.append((source[match.start() : end + 1], "\n".join(comment)))
    return blocks


class Check:
    def __init__(self) -> None:
        self.missing: list[str] = []
        registry = text("core/src/formats/mod.rs")
        self.formats = re.findall(r"^pub mod (\w+);", registry, re.MULTILINE)
        self.native = listed(registry, "for_each_native_type")
        self.slot = listed(registry, "for_each_slot_generator")
        for module in sorted(set(self.native) | set(self.slot)):
            if module not in self.formats:
                self.miss(module, "core/src/formats/mod.rs", "in a registry macro but no `pub mod`")
        self.servers = [
            (path.relative_to(ROOT).as_posix(), block)
            for path in files("tests/servers", "**/*.py")
            for block in table_blocks(path.read_text(encoding="utf-8"))
        ]

    def miss(self, format: str, place: str, why: str) -> None:
        self.missing.append(f"{format}: {place}: {why}")

    def need(self, ok: bool, format: str, place: str, why: str) -> None:
        if not ok:
            self.miss(format, place, why)

    def format(self, f: str) -> None:
        core = text(f"core/src/formats/{f}.rs") or text(f"core/src/formats/{f}/mod.rs")
        # 1. The core, and its registries against what the module declares.
        self.need(bool(core), f, f"core/src/formats/{f}.rs", "no such file")
        reexport = re.search(r"pub use formats::\{([^}]*)\}", text("core/src/lib.rs"))
        self.need(
            reexport is not None and f in re.findall(r"\w+", reexport.group(1)),
            f,
            "core/src/lib.rs",
            f"`pub use formats::{{…}}` does not re-export it (flake_core::{f})",
        )
        types = dict(re.findall(r"fixed_id!\(\s*(\w+),\s*\d+,\s*\"(\w+)\"", core))
        generators = set(re.findall(r"single_sequencer!\(\s*(\w+)\s*=>", core))
        generators |= set(re.findall(r"impl\s+(?:[\w:]+::)?SlotGenerator\s+for\s+(\w+)", core))
        for macro, declared, listed_ in (
            ("for_each_native_type!", set(types), self.native.get(f, set())),
            ("for_each_slot_generator!", generators, self.slot.get(f, set())),
        ):
            for item in sorted(declared - listed_):
                self.miss(f, "core/src/formats/mod.rs", f"{item} is not in {macro}")
            for item in sorted(listed_ - declared):
                self.miss(
                    f,
                    "core/src/formats/mod.rs",
                    f"{macro} lists {item}, which {f}.rs does not declare",
                )
        sql_types = [types[t] for t in sorted(self.native.get(f, set())) if t in types]
        gens = [g.removesuffix("Generator").lower() for g in sorted(self.slot.get(f, set()))]

        # 2. Vectors.
        names = {f, *sql_types, *gens}
        stems = {n.replace("_", "") for n in names}
        vectors = files("tests/vectors", "*.jsonl")
        own = [v for v in vectors if v.stem.split("-")[0] in stems]
        fields = any(f'"{f}"' in v.read_text(encoding="utf-8") for v in vectors)
        self.need(
            bool(own) or fields,
            f,
            "tests/vectors/",
            f"no file {' or '.join(sorted(s + '.jsonl' for s in stems))}, and no vectors with a field {f!r}",
        )
        # 3. The core's tests.
        self.need(
            any(
                word(f"flake_core::{f}", p.read_text(encoding="utf-8"))
                for p in files("core/tests", "**/*.rs")
            ),
            f,
            "core/tests/",
            f"no test uses flake_core::{f}",
        )
        # 4. The extension's module and registry.
        module = text(f"src/formats/{f}.rs")
        self.need(bool(module), f, f"src/formats/{f}.rs", "no such file")
        formats_rs = text("src/formats/mod.rs")
        self.need(
            re.search(rf"^pub mod {f};", formats_rs, re.MULTILINE) is not None,
            f,
            "src/formats/mod.rs",
            "no `pub mod`",
        )
        self.need(
            f"&{f}::FORMAT" in formats_rs, f, "src/formats/mod.rs", "its FORMAT is not in FORMATS"
        )
        for sql_type in sql_types:
            self.need(
                re.search(rf"native_type!\(\s*\w+,\s*[\w:]+,\s*{sql_type}\b", module) is not None,
                f,
                f"src/formats/{f}.rs",
                f"no native_type! of {sql_type}",
            )
        # 5. Its SQL.
        sql = text(f"sql/{f}.sql")
        self.need(bool(sql), f, f"sql/{f}.sql", "no such file")
        self.need(
            f'sql/{f}.sql"' in module, f, f"src/formats/{f}.rs", f"no sql_file! of sql/{f}.sql"
        )
        for sql_type in sql_types:
            self.need(
                f"-- == The native type {sql_type} ==" in sql,
                f,
                f"sql/{f}.sql",
                f"no native type section of {sql_type} (sql/native_type.sql.in)",
            )
        objects = sql_objects(sql)
        for g in gens:
            self.need(f"{g}_generate" in objects, f, f"sql/{f}.sql", f"no function {g}_generate")
        # 6. The update from the last release.
        if objects:
            self.need(
                self.shipped_or_updated(f, objects[0]),
                f,
                "sql/upgrades/",
                f"{objects[0]} is in neither the last release nor the update to the next",
            )
        # 7. The regression test.
        for path in (f"tests/regress/sql/{f}.sql", f"tests/regress/expected/{f}.out"):
            self.need(bool(text(path)), f, path, "no such file")
        # 8. The integration tests.
        functions = [o for o in objects if o not in sql_types]
        self.need(
            any(
                any(word(o, p.read_text(encoding="utf-8")) for o in functions)
                for p in files("tests/integration/tests", "*.rs")
            ),
            f,
            "tests/integration/tests/",
            f"no test calls a function of sql/{f}.sql",
        )
        for sql_type in sql_types:
            self.need(
                re.search(rf'\(\s*"{sql_type}",', text("tests/integration/src/catalog.rs"))
                is not None,
                f,
                "tests/integration/src/catalog.rs",
                f"no sample value of {sql_type}",
            )
        # 9. The multi-server suites.
        for g in gens:
            for path, (table, comment) in self.servers:
                self.need(
                    f'"{g}"' in table or word(g, comment),
                    f,
                    path,
                    f"its FORMATS table leaves {g} out without saying why above it",
                )
        # 10. The applications.
        runner = text("tests/conformance/checks.py")
        for v in own:
            self.need(
                f'"{v.stem}":' in runner,
                f,
                "tests/conformance/checks.py",
                f"FILE_TYPES has no {v.stem}",
            )
        if not own and fields:
            self.need(
                f'"{f}"' in runner,
                f,
                "tests/conformance/checks.py",
                f"the runner does not name the field {f!r}",
            )
        for sql_type in sql_types:
            self.python_class(f, sql_type)
            for registry in TYPE_REGISTRIES:
                source = text(registry)
                self.need(
                    re.search(rf"[\"']{sql_type}[\"']|\b{sql_type}:", source) is not None,
                    f,
                    registry,
                    f"does not name {sql_type}",
                )
        # 11. The docs.
        self.need(bool(text(f"docs/formats/{f}.md")), f, f"docs/formats/{f}.md", "no such file")
        for index in ("docs/formats/README.md", "docs/formats/choosing.md"):
            self.need(f"({f}.md" in text(index), f, index, f"no link to {f}.md")
        own = sql_objects(
            re.sub(
                r"-- == The native type .*?-- == End of the native type", "", sql, flags=re.DOTALL
            )
        )
        for o in sorted(
            {o for o in own if o not in sql_types and not word(o, text("docs/sql-reference.md"))}
        ):
            self.miss(f, "docs/sql-reference.md", f"{o} (sql/{f}.sql) is not in the reference")
        self.need(
            any(word(o, text("README.md")) for o in functions),
            f,
            "README.md",
            f"names no function of sql/{f}.sql",
        )
        self.need(
            self.has_test_row(names),
            f,
            'docs/development.md "Where each format is tested"',
            "no row",
        )

    def shipped_or_updated(self, f: str, first: str) -> bool:
        created = re.compile(
            rf"CREATE\s+(?:OR\s+REPLACE\s+)?(?:TYPE|FUNCTION)\s+(?:@extschema@\.)?{first}\b"
        )

        def version(path: Path) -> tuple[int, ...]:
            return tuple(int(n) for n in re.findall(r"\d+", path.name.split("--")[-1]))

        releases = files("sql/releases", "pg_flake--*.sql")
        if releases and created.search(max(releases, key=version).read_text(encoding="utf-8")):
            return True
        current = re.search(r'^version\s*=\s*"([^"]+)"', text("Cargo.toml"), re.MULTILINE)
        for update in files(
            "sql/upgrades", f"pg_flake--*--{current.group(1) if current else '?'}.sql"
        ):
            source = update.read_text(encoding="utf-8")
            if created.search(source) or re.search(
                rf"^-- @include {f}\.sql\s*$", source, re.MULTILINE
            ):
                return True
        return False

    def python_class(self, f: str, sql_type: str) -> None:
        for path in files("python/pg_flake", "*.py"):
            source = path.read_text(encoding="utf-8")
            at = re.search(rf"^\s+TYPE_NAME\s*=\s*\"{sql_type}\"", source, re.MULTILINE)
            if at:
                classes = re.findall(r"^class (\w+)", source[: at.start()], re.MULTILINE)
                types = re.search(
                    r"^TYPES\s*=.*$", text("python/pg_flake/__init__.py"), re.MULTILINE
                )
                self.need(
                    bool(classes) and types is not None and word(classes[-1], types.group(0)),
                    f,
                    "python/pg_flake/__init__.py",
                    f"TYPES does not list the class of {sql_type}",
                )
                return
        self.miss(f, "python/pg_flake/", f'no class with TYPE_NAME = "{sql_type}"')

    def has_test_row(self, names: set[str]) -> bool:
        """A row whose first cell names the format, one of its types or generators."""
        doc = text("docs/development.md")
        start = doc.find("## Where each format is tested")
        if start < 0:
            return False
        section = doc[start : doc.find("\n## ", start + 1)]
        for line in section.splitlines():
            cells = line.split("|")
            if len(cells) > 2 and names & set(re.findall(r"\w+", cells[1])):
                return True
        return False


def main() -> int:
    check = Check()
    if not check.formats:
        print("check-formats: core/src/formats/mod.rs declares no format", file=sys.stderr)
        return 1
    for f in check.formats:
        check.format(f)
    if check.missing:
        print(
            f"check-formats: {len(check.missing)} places miss a format of the core's registry "
            '(docs/development.md "Adding a format"):',
            file=sys.stderr,
        )
        for line in check.missing:
            print(f"  {line}", file=sys.stderr)
        return 1
    print(
        f"check-formats: {len(check.formats)} formats in every place ({', '.join(check.formats)})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
