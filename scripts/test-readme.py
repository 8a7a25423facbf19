#!/usr/bin/env python3
"""Runs every SQL example of the documentation against a server and checks the results it states.

    PG_FLAKE_TEST_DSN='host=127.0.0.1 port=PORT user=postgres dbname=flake_test' \\
        scripts/test-readme.py [FILE.md ...]

The files: those given, in that order; without arguments README.md, then docs/sql-reference.md,
docs/guarantees.md, docs/operations.md, docs/applications.md and docs/development.md (those of
them that exist): the README first, as a reader meets it, then the reference and the rest.

The server (libpq key=value string, as a superuser, pg_flake installed and preloaded) is the
one `scripts/test-sql.sh` starts. The script creates a fresh database `pg_flake_readme_test`,
fills it with `sql/example.sql` as `make run` does for its database `flake`, and runs every
```sql block of the files, each file's in order and the files one after the other, in one psql
session: what a reader who follows the README and then the documentation from top to bottom
meets (a later file's examples may use what an earlier one's made). The ```go blocks (complete
programs) are built and run by clients/go/pgxflake/docs_examples_test.go, in scripts/test-clients.sh. psql (`$PG_BIN/psql`, else
the one on PATH) runs in a temporary directory, so `\\copy … TO 'file'` writes there. Standard
library only (Python 3.9+).

Conventions of the files' ```sql blocks:

- Statements end at `;` (outside quotes, dollar quotes and comments). A line that starts with
  a backslash is a psql meta-command (`\\copy …`) and ends with its line.
- Every statement must succeed, unless it states an error (below).
- A stated result is one of:
  - a *result comment*: a `--` comment on the line of the statement's `;`, after it. It is the
    statement's only row; columns are separated by `|`. `true` and `false` stand for psql's `t`
    and `f`, `NULL` for a null (psql's empty cell). A note in parentheses after the value is
    not part of it: `SELECT kuid_node_fingerprint('uid@127.0.0.1');  -- 65742641 (0x03eb2731)`.
  - a *result table*: comment lines directly below the statement's last line, each `--` and a
    line of psql's (aligned) output, which starts with a space, so these lines start with
    `--` and two spaces: the header line, then every row, in order (without psql's `---+---`
    line and `(N rows)` footer). Compared cell by cell, ignoring the spaces around cells.
  - `-- e.g. …` (a result comment starting with `e.g.`): a value that differs from run to run,
    such as a generated ID. The statement runs; nothing is compared.
  - `-- ERROR 22P02` or `-- ERROR 22P02: message` (a result comment): the statement must fail
    with that SQLSTATE (and that message, where given).
- Every other comment is prose: on a line of its own, `--`, one space and a word, before the
  statement it explains (or after a blank line).
- A block is skipped when the line just before its opening fence is
  `<!-- readme-test: skip REASON -->` (for what CI cannot give, such as Citus); the script
  says which blocks it skipped and why.

Only ```sql blocks run here. The ```ts blocks of docs/applications.md's section "TypeScript and
JavaScript" are run by clients/node/docs-examples.js, against the database of the clients'
tests (scripts/test-clients.sh), where the npm package and the drivers are installed.

After a statement that calls `pg_reload_conf()` the script pauses (0.3 s), as a reader does:
the reload reaches the session's backend by a signal, which the next statement must not
outrun.

The server is left as found: the database is dropped, roles the examples create are dropped,
and settings they change with `ALTER SYSTEM` are put back (`ALTER SYSTEM RESET`, or the value
`postgresql.auto.conf` had before) and the configuration reloaded.

Prints each block's file and line and what it checked, then the counts (blocks, statements,
results compared) per file and in all; on any failure, the file and line, the statement, the
stated and the actual result, and exits 1.
"""

from __future__ import annotations

import bisect
import dataclasses
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

DATABASE = "pg_flake_readme_test"
RELOAD_PAUSE_S = 0.3
SKIP_MARKER = re.compile(r"^<!--\s*readme-test:\s*skip\b\s*(.*?)\s*-->\s*$")
FENCE_OPEN = re.compile(r"^```sql\s*$")
FENCE_CLOSE = re.compile(r"^```\s*$")
DOLLAR_TAG = re.compile(r"\$([A-Za-z_][A-Za-z_0-9]*)?\$")
EXPECTED_ERROR = re.compile(r"^ERROR\s+([0-9A-Z]{5})(?::\s*(.*))?$")
TABLE_LINE = re.compile(r"^--  ")
TRAILING_NOTE = re.compile(r"^(.*?\S)\s+\(.*\)$")
STATED_WORDS = {"true": "t", "false": "f", "NULL": ""}
ROOT = Path(__file__).resolve().parent.parent
DEFAULT_FILES = [
    "README.md",
    "docs/sql-reference.md",
    "docs/guarantees.md",
    "docs/operations.md",
    "docs/applications.md",
    "docs/development.md",
]


@dataclasses.dataclass
class Statement:
    text: str
    line: int  # line of its first character in its file
    source: str = ""  # its file, as named in messages
    comment: str | None = None  # the result comment, without `--`
    table: list[list[str]] | None = None  # stated result table: header, rows
    table_line: int | None = None
    number: int = 0  # its place in the session (every file's statements in turn), from 1


@dataclasses.dataclass
class Block:
    line: int  # line of the opening fence in its file
    statements: list[Statement]
    skip_reason: str | None = None
    source: str = ""  # its file, as named in messages


class ReadmeError(Exception):
    pass


def read_blocks(readme: Path, source: str | None = None, first_number: int = 1) -> list[Block]:
    """The ```sql blocks of one file; its statements are numbered from `first_number`."""
    source = source if source is not None else readme.name
    lines = readme.read_text(encoding="utf-8").split("\n")
    blocks = []
    i = 0
    while i < len(lines):
        if not FENCE_OPEN.match(lines[i]):
            i += 1
            continue
        start = i
        j = i + 1
        while j < len(lines) and not FENCE_CLOSE.match(lines[j]):
            j += 1
        if j == len(lines):
            raise ReadmeError(f"{source}:{start + 1}: ```sql block without its closing fence")
        skip = SKIP_MARKER.match(lines[start - 1]) if start > 0 else None
        body = lines[start + 1 : j]
        try:
            statements = split_statements(body, start + 2)
        except ReadmeError as error:
            raise ReadmeError(f"{source}: {error}") from None
        blocks.append(
            Block(
                line=start + 1,
                statements=statements,
                skip_reason=(skip.group(1) or "no reason given") if skip else None,
                source=source,
            )
        )
        i = j + 1
    number = first_number - 1
    for block in blocks:
        for statement in block.statements:
            number += 1
            statement.number = number
            statement.source = source
    return blocks


def split_statements(lines: list[str], first_line: int) -> list[Statement]:
    """Splits a block (its lines, the first at line `first_line` of its file) into statements."""
    text = "\n".join(lines)
    line_starts = [0]
    for line in lines:
        line_starts.append(line_starts[-1] + len(line) + 1)

    def line_of(pos: int) -> int:
        return bisect.bisect_right(line_starts, pos) - 1

    def end_of_line(pos: int) -> int:
        end = text.find("\n", pos)
        return len(text) if end < 0 else end

    def skip_block_comment(pos: int) -> int:
        depth = 0
        while pos < len(text):
            if text.startswith("/*", pos):
                depth += 1
                pos += 2
            elif text.startswith("*/", pos):
                depth -= 1
                pos += 2
                if depth == 0:
                    return pos
            else:
                pos += 1
        raise ReadmeError(f"line {first_line + line_of(pos - 1)}: unterminated /* comment")

    def skip_quoted(pos: int, quote: str, backslash: bool) -> int:
        pos += 1
        while pos < len(text):
            c = text[pos]
            if backslash and c == "\\":
                pos += 2
            elif c == quote:
                if text.startswith(quote * 2, pos):
                    pos += 2
                else:
                    return pos + 1
            else:
                pos += 1
        raise ReadmeError(f"line {first_line + line_of(pos - 1)}: unterminated {quote}")

    spans: list[tuple[int, int]] = []  # [start, end) of each statement
    start: int | None = None
    pos = 0
    while pos < len(text):
        c = text[pos]
        if text.startswith("--", pos):
            pos = end_of_line(pos)
            continue
        if text.startswith("/*", pos):
            pos = skip_block_comment(pos)
            continue
        if start is None:
            if c.isspace():
                pos += 1
                continue
            if c == "\\":
                end = end_of_line(pos)
                spans.append((pos, end))
                pos = end
                continue
            start = pos
        if c == "'":
            escape = pos > 0 and text[pos - 1] in "Ee" and (pos < 2 or not text[pos - 2].isalnum())
            pos = skip_quoted(pos, "'", escape)
        elif c == '"':
            pos = skip_quoted(pos, '"', False)
        elif c == "$" and (m := DOLLAR_TAG.match(text, pos)) and not (
            pos > 0 and (text[pos - 1].isalnum() or text[pos - 1] == "_")
        ):
            close = text.find(m.group(0), m.end())
            if close < 0:
                raise ReadmeError(f"line {first_line + line_of(pos)}: unterminated {m.group(0)} quote")
            pos = close + len(m.group(0))
        elif c == ";":
            spans.append((start, pos + 1))
            start = None
            pos += 1
        else:
            pos += 1
    if start is not None:
        raise ReadmeError(f"line {first_line + line_of(start)}: statement without its closing ;")

    statements = []
    for index, (begin, end) in enumerate(spans):
        last = line_of(end - 1)
        statement = Statement(text=text[begin:end], line=first_line + line_of(begin))
        # The comment after the last statement that ends on a line is that statement's.
        rest = lines[last][end - line_starts[last] :].strip()
        next_begins_here = index + 1 < len(spans) and line_of(spans[index + 1][0]) == last
        if rest.startswith("--") and not next_begins_here and not statement.text.startswith("\\"):
            statement.comment = rest[2:].strip()
        # A result table: the comment lines that follow, in psql's layout.
        table = []
        following = last + 1
        while following < len(lines) and TABLE_LINE.match(lines[following]):
            table.append([cell.strip() for cell in lines[following][2:].split("|")])
            following += 1
        if table:
            statement.table = table
            statement.table_line = first_line + last + 1
        statements.append(statement)
    return statements


def psql_binary() -> str:
    pg_bin = os.environ.get("PG_BIN")
    if pg_bin and Path(pg_bin, "psql").exists():
        return str(Path(pg_bin, "psql"))
    return "psql"


def with_database(dsn: str, database: str) -> str:
    # In a libpq connection string a later keyword overrides an earlier one.
    return f"{dsn} dbname={database}"


def psql(dsn: str, sql: str) -> str:
    """Runs `sql` with psql, stopping at the first error; returns its output (unaligned, tuples only)."""
    result = subprocess.run(
        [psql_binary(), "-X", "-q", "-tA", "-v", "ON_ERROR_STOP=1", "-d", dsn, "-c", sql],
        check=False, capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        raise ReadmeError(f"psql failed on {sql!r}: {result.stderr.strip()}")
    return result.stdout


def session_script(blocks: list[Block]) -> str:
    """The psql input: each statement between markers that report its outcome."""
    out = []
    for block in blocks:
        if block.skip_reason is not None:
            continue
        for statement in block.statements:
            out.append(f"\\echo '@@readme-statement {statement.number}'")
            out.append(statement.text)
            out.append("\\echo '@@readme-done' :ERROR :SQLSTATE")
            out.append("\\echo '@@readme-message' :LAST_ERROR_MESSAGE")
            if "pg_reload_conf()" in statement.text:
                out.append(f"\\! sleep {RELOAD_PAUSE_S}")
    return "\n".join(out) + "\n"


@dataclasses.dataclass
class Outcome:
    rows: list[list[str]]  # header first, as psql printed it (fields split)
    failed: bool = False
    sqlstate: str = ""
    message: str = ""


def parse_session(stdout: str) -> dict[int, Outcome]:
    outcomes: dict[int, Outcome] = {}
    current: Outcome | None = None
    for line in stdout.split("\n"):
        if line.startswith("@@readme-statement "):
            current = Outcome(rows=[])
            outcomes[int(line.split()[1])] = current
        elif current is None:
            continue
        elif line.startswith("@@readme-done"):
            parts = line.split()
            current.failed = len(parts) > 1 and parts[1] == "true"
            current.sqlstate = parts[2] if len(parts) > 2 else ""
        elif line.startswith("@@readme-message"):
            current.message = line[len("@@readme-message") :].strip()
            current = None  # the statement is done: what follows is not its output
        elif line != "" or current.rows:
            # Spaces around a value are not visible in psql's aligned output, which the files show.
            current.rows.append([cell.strip() for cell in line.split("\0")])
    return outcomes


def show(rows: list[list[str]]) -> str:
    return "\n".join("    " + " | ".join(row) for row in rows) or "    (nothing)"


def stated_value(comment: str) -> list[str]:
    note = TRAILING_NOTE.match(comment)
    value = note.group(1) if note else comment
    return [STATED_WORDS.get(cell.strip(), cell.strip()) for cell in value.split("|")]


def check(statement: Statement, outcome: Outcome | None, failures: list[str]) -> str | None:
    """Checks one statement; returns what was compared ("value", "table", "error"), if anything."""

    def fail(what: str) -> None:
        failures.append(f"{statement.source}:{statement.line}: {what}\n  statement:\n{indent(statement.text)}")

    if outcome is None:
        fail("psql did not run the statement (the session ended early)")
        return None
    comment = statement.comment
    expected_error = EXPECTED_ERROR.match(comment) if comment is not None else None
    if comment is not None and statement.table is not None:
        fail(f"states both a result comment and a result table (line {statement.table_line})")
        return None
    if expected_error:
        state, message = expected_error.group(1), expected_error.group(2)
        actual = f"ERROR {outcome.sqlstate}: {outcome.message}" if outcome.failed else "no error"
        if not outcome.failed or outcome.sqlstate != state or (message and message != outcome.message):
            fail(f"stated: {comment}\n  actual: {actual}")
        return "error"
    if outcome.failed:
        fail(f"failed: ERROR {outcome.sqlstate}: {outcome.message}")
        return None
    if statement.table is not None:
        if outcome.rows != statement.table:
            fail(
                f"result table (line {statement.table_line}) differs\n"
                f"  stated:\n{show(statement.table)}\n  actual:\n{show(outcome.rows)}"
            )
        return "table"
    if comment is None or comment.startswith("e.g."):
        return None
    stated = stated_value(comment)
    data = outcome.rows[1:]
    if len(data) != 1 or data[0] != stated:
        fail(f"stated: {' | '.join(stated)}\n  actual:\n{show(data)}")
    return "value"


@dataclasses.dataclass
class Counts:
    blocks: int = 0  # run
    skipped: int = 0
    statements: int = 0
    values: int = 0
    tables: int = 0
    errors: int = 0
    examples: int = 0  # `-- e.g.` values, not compared

    def add(self, other: Counts) -> None:
        for field in dataclasses.fields(self):
            setattr(self, field.name, getattr(self, field.name) + getattr(other, field.name))

    def __str__(self) -> str:
        return (
            f"{plural(self.blocks, 'block')} run, {self.skipped} skipped; "
            f"{plural(self.statements, 'statement')}; "
            f"{plural(self.values + self.tables + self.errors, 'result')} compared "
            f"({self.values} values, {self.tables} tables, {self.errors} expected errors); "
            f"{plural(self.examples, 'e.g. value')} not compared"
        )


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def indent(text: str) -> str:
    return "\n".join("    " + line for line in text.split("\n"))


def server_state(dsn: str) -> tuple[set[str], dict[str, str]]:
    roles = set(psql(dsn, "SELECT rolname FROM pg_roles").split("\n")) - {""}
    settings = {}
    rows = psql(
        dsn,
        "SELECT name, setting FROM pg_file_settings "
        "WHERE sourcefile LIKE '%/postgresql.auto.conf' AND applied IS NOT NULL ORDER BY seqno",
    )
    for row in rows.split("\n"):
        if row:
            name, _, value = row.partition("|")
            settings[name] = value
    return roles, settings


def restore(dsn: str, roles: set[str], settings: dict[str, str]) -> list[str]:
    """Puts back what the examples changed outside their database; returns what it did."""
    done = []
    psql(dsn, f"DROP DATABASE IF EXISTS {DATABASE} WITH (FORCE)")
    now_roles, now_settings = server_state(dsn)
    for role in sorted(now_roles - roles):
        psql(dsn, f'DROP ROLE "{role}"')
        done.append(f"dropped role {role}")
    for name in sorted(set(now_settings) | set(settings)):
        if name not in settings:
            psql(dsn, f"ALTER SYSTEM RESET {name}")
            done.append(f"ALTER SYSTEM RESET {name}")
        elif settings[name] != now_settings.get(name):
            literal = "'" + settings[name].replace("'", "''") + "'"
            psql(dsn, f"ALTER SYSTEM SET {name} = {literal}")
            done.append(f"ALTER SYSTEM SET {name} back to its earlier value")
    if done:
        psql(dsn, "SELECT pg_reload_conf()")
    return done


def main() -> int:
    example_sql = ROOT / "sql" / "example.sql"
    dsn = os.environ.get("PG_FLAKE_TEST_DSN")
    if not dsn:
        print("test-readme: set PG_FLAKE_TEST_DSN to the libpq connection string of a superuser", file=sys.stderr)
        return 2
    if len(sys.argv) > 1:
        files = [(Path(arg), arg) for arg in sys.argv[1:]]
    else:
        files = [(ROOT / name, name) for name in DEFAULT_FILES if (ROOT / name).exists()]
    blocks: list[Block] = []
    blocks_of: dict[str, list[Block]] = {}
    for path, source in files:
        if not path.exists():
            raise ReadmeError(f"{source}: no such file")
        first = sum(len(block.statements) for block in blocks) + 1
        blocks_of[source] = read_blocks(path, source, first)
        blocks.extend(blocks_of[source])
    if psql(dsn, "SELECT rolsuper FROM pg_roles WHERE rolname = current_user").strip() != "t":
        raise ReadmeError("the documentation's examples need a superuser (ALTER SYSTEM, CREATE ROLE)")

    roles, settings = server_state(dsn)
    psql(dsn, f"DROP DATABASE IF EXISTS {DATABASE} WITH (FORCE)")
    psql(dsn, f"CREATE DATABASE {DATABASE}")
    try:
        database_dsn = with_database(dsn, DATABASE)
        setup = subprocess.run(
            [psql_binary(), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", database_dsn, "-f", str(example_sql)],
            check=False, capture_output=True,
            text=True,
        )
        if setup.returncode != 0:
            raise ReadmeError(f"sql/example.sql failed: {setup.stderr.strip()}")
        # The session's script goes under PG_FLAKE_TMP, as every test file does.
        tmp = Path(os.environ.get("PG_FLAKE_TMP") or "/tmp")
        tmp.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="pg_flake-readme-", dir=tmp) as workdir:
            script = Path(workdir, "readme.sql")
            script.write_text(session_script(blocks), encoding="utf-8")
            session = subprocess.run(
                [psql_binary(), "-X", "-q", "-A", "-z", "-P", "footer=off", "-d", database_dsn, "-f", str(script)],
                check=False, capture_output=True,
                text=True,
                cwd=workdir,
                timeout=600,
            )
        outcomes = parse_session(session.stdout)
    finally:
        restored = restore(dsn, roles, settings)

    failures: list[str] = []
    totals = Counts()
    summaries = []
    for source, file_blocks in blocks_of.items():
        counts = Counts()
        for block in file_blocks:
            if block.skip_reason is not None:
                counts.skipped += 1
                reason = block.skip_reason.strip("()")
                print(f"{source}:{block.line}: skipped: {reason} ({plural(len(block.statements), 'statement')})")
                continue
            counts.blocks += 1
            compared = []
            for statement in block.statements:
                counts.statements += 1
                kind = check(statement, outcomes.get(statement.number), failures)
                if kind == "value":
                    counts.values += 1
                    compared.append(f"{statement.line}")
                elif kind == "table":
                    counts.tables += 1
                    compared.append(f"{statement.line} (table)")
                elif kind == "error":
                    counts.errors += 1
                    compared.append(f"{statement.line} (error)")
                elif statement.comment is not None and statement.comment.startswith("e.g."):
                    counts.examples += 1
            checked = f"results of lines {', '.join(compared)}" if compared else "no stated results"
            print(f"{source}:{block.line}: {plural(len(block.statements), 'statement')} ran; {checked}")
        summaries.append((source, counts))
        totals.add(counts)

    for action in restored:
        print(f"restored: {action}")
    for source, counts in summaries:
        print(f"{source}: {counts}")
    print(f"SQL examples of {plural(len(summaries), 'file')}: {totals}")
    if session.returncode != 0:
        failures.append(f"psql exited with {session.returncode}: {session.stderr.strip()}")
    if failures:
        print(f"\n{len(failures)} failure(s):", file=sys.stderr)
        for failure in failures:
            print(f"\n{failure}", file=sys.stderr)
        return 1
    print("SQL examples: all passed")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except ReadmeError as error:
        print(f"test-readme: {error}", file=sys.stderr)
        sys.exit(1)
