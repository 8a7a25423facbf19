"""The native extension's regression tests against pg_flake_sql (docs/managed.md
"Never drifting from native"): every statement of tests/regress/sql/<format>.sql, in
order, run in a database with the native extension and in one with the
pg_tle edition (whose types print as the native ones), both in the schema
public as the tests expect: the same rows, or the same SQLSTATE and message.
The native side's output is the checked-in expected output (the native
regression suite checks that), so this holds the edition to the regression
expectations wherever it has the statement's functions.

A statement the edition cannot run because it names something only the
native extension has (a C-only function, an operator class such as
minmax_multi, the generator state's shared-memory columns) is counted as
"native only", never compared; so are a few documented differences
(KNOWN below), each with its reason. Generators' values are compared by
their shape only (same columns, both succeed)."""

from __future__ import annotations

import re

import psycopg
import pytest

from conftest import skip_without_pg_tle
from managed_lib import REPO, create_database, create_pgcrypto, install, skip_without_pgcrypto

REGRESS = REPO / "tests" / "regress"
FILES = [
    "sno",
    "siq",
    "flaxid",
    "kuid",
    "snowflake",
    "distributed_id",
    "distributed_id128",
    "alphanumeric",
    "public_id",
]

# SQLSTATEs of "the edition has no such object".
NATIVE_ONLY = {"42883", "42704", "42P01", "42703", "0A000"}

# Statements whose outcome differs on purpose, each with the reason
# (docs/managed.md "What this edition cannot do"), matched by a fragment.
KNOWN = {
    "pg_input_is_valid": "pg_tle's type input cannot report soft errors: the input raises",
    "pg_input_error_info": "pg_tle's type input cannot report soft errors: the input raises",
    "ON_ERROR": "pg_tle's type input cannot report soft errors: COPY ... ON_ERROR stops",
    "FORMAT binary": "pg_tle's types have no binary send and receive",
    "pg_column_size": "pg_tle keeps a value as a bytea: 4 bytes of header",
    "typlen": "pg_tle keeps a value as a bytea: 4 bytes of header",
    "proleakproof": "only a superuser makes LEAKPROOF functions",
    "public_id_key": "pg_flake_sql never reads pg_flake.public_id_key (docs/managed.md)",
    "pg_flake_generator_state": "the generator state of shared memory: the edition's counters differ",
    "pg_flake_stats": "statistics of shared memory",
    "_sortsupport": "C sort support",
    "minmax_multi": "BRIN minmax-multi needs a C distance function",
    "bloom_ops": "BRIN bloom operator classes are not made (docs/managed.md)",
    "EXPLAIN": "plans name the edition's functions",
    "siq_copy": "filled by a binary COPY, which pg_tle's types cannot do",
    "distributed_id_copy": "filled by a binary COPY, which pg_tle's types cannot do",
    "SET pg_flake.": "the settings are placeholders: no check when set, no superuser-only",
    "$$SET pg_flake.": "the settings are placeholders: no check when set, no superuser-only",
    "set_config('pg_flake.": "the settings are placeholders: no check when set, no superuser-only",
}

# Cluster-wide statements: run once, on the native side.
CLUSTER_WIDE = re.compile(r"(?i)^(CREATE|DROP|ALTER) ROLE|^GRANT \w+ TO|^REVOKE \w+ FROM")


def statements(name: str) -> list[str]:
    import pglast

    text = (REGRESS / "sql" / f"{name}.sql").read_text()
    text = "\n".join(line for line in text.splitlines() if not line.startswith("\\"))
    return [s.strip() for s in pglast.split(text) if s.strip()]


def bare(statement: str) -> str:
    """The statement without its leading comment lines, for matching."""
    lines = statement.splitlines()
    while lines and (not lines[0].strip() or lines[0].lstrip().startswith("--")):
        lines.pop(0)
    return "\n".join(lines)


def outcome(conn, statement: str):
    try:
        with conn.transaction():
            cur = conn.execute(statement)
            if cur.description is None:
                return ("ok", None)
            names = [c.name for c in cur.description]
            rows = [list(map(text_of, r)) for r in cur.fetchall()]
            if "proparallel" in names and "proname" in names:
                # The edition's generators advance a sequence, which a
                # parallel worker cannot: PARALLEL UNSAFE (native: SAFE).
                for row in rows:
                    if row[names.index("proname")].endswith("_generate"):
                        row[names.index("proparallel")] = "(generator)"
            return ("rows", names, [tuple(r) for r in rows])
    except psycopg.Error as e:
        return ("error", e.sqlstate, e.diag.message_primary)


def text_of(value) -> str | None:
    if value is None:
        return None
    if isinstance(value, (bytes, memoryview)):
        return bytes(value).hex()
    return str(value)


SQLSTATE_OF = (REGRESS / "include" / "sqlstate_of.sql").read_text()


@pytest.fixture(scope="module")
def pair(cluster, pg_tle):
    skip_without_pg_tle(pg_tle)
    create_database(cluster, "regress_native", native=False)
    cluster.sql("CREATE EXTENSION pg_flake", dbname="regress_native")
    create_database(cluster, "regress_sql")
    cluster.sql("CREATE EXTENSION pg_tle", dbname="regress_sql")
    create_pgcrypto(cluster, "regress_sql")
    install(cluster, "regress_sql", "pg_tle", schema="public")
    # The native generators are every role's; the edition's are granted
    # (docs/managed.md "As strong as native, and weaker"): here to every role, as the tests' roles generate.
    cluster.sql(
        "GRANT EXECUTE ON FUNCTION sno_generate(integer), siq_generate(text), snowflake_generate(), "
        "kuid64_generate(), kuid96_generate() TO PUBLIC",
        dbname="regress_sql",
    )
    conns = []
    for db in ("regress_native", "regress_sql"):
        conn = cluster.connect(db)
        conn.execute("SET timezone = 'UTC'; SET extra_float_digits = 0; SET datestyle = 'ISO, MDY'")
        conn.execute(SQLSTATE_OF)
        conns.append(conn)
    yield conns
    for conn in conns:
        conn.close()


@pytest.mark.parametrize("name", FILES)
def test_regression_statements(pair, name, figures):
    if name == "public_id":
        skip_without_pgcrypto()
    native, sql = pair
    counts = {"same": 0, "native only": 0, "known": 0, "generator": 0}
    differences = []
    for statement in statements(name):
        head = bare(statement)
        if re.match(
            r"(?i)(CREATE|DROP) EXTENSION|SET client_min_messages|RESET client_min_messages",
            head,
        ):
            continue
        known = next((reason for fragment, reason in KNOWN.items() if fragment in statement), None)
        a = outcome(native, statement)
        b = a if CLUSTER_WIDE.match(head) else outcome(sql, statement)
        setting = re.match(r"(?i)SET (pg_flake\.\w+)", head)
        if setting and a[0] == "error" and b[0] != "error":
            # A value the native extension refused stays out of the edition's session too.
            sql.execute(f"RESET {setting.group(1)}")
        if a == b:
            counts["same"] += 1
        elif known:
            counts["known"] += 1
        elif a[0] != "error" and b[0] == "error" and b[1] in NATIVE_ONLY:
            counts["native only"] += 1
        elif (
            "_generate(" in statement
            and a[0] == b[0] == "rows"
            and a[1] == b[1]
            and len(a[2]) == len(b[2])
        ):
            counts["generator"] += 1
        else:
            differences.append(
                f"{statement[:300]}\n  native: {str(a)[:300]}\n  sql:    {str(b)[:300]}"
            )
    assert not differences, f"{len(differences)} statements differ:\n" + "\n".join(differences[:10])
    figures(
        f"{name}.sql: {counts['same']} statements alike, {counts['generator']} generators alike in shape, "
        f"{counts['native only']} native only, {counts['known']} documented differences"
    )
