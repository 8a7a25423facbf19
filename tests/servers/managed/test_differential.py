"""The native extension against pg_flake_sql, value for value (docs/managed.md
"Never drifting from native"): in one database, pg_flake in the schema native and the
edition in flake, 10 000 values per format made from seeded random bytes
(md5 of the format, the seed and the row), each through both: every text,
every byte and every decoded field, the constructors from the decoded
fields, the hashes; then 2 000 random inputs per parser and constructor, of
which many are malformed or out of range, through both: the same value, or
the same SQLSTATE and message. Set-based SQL, one statement per format and
check: seconds per version, no row-by-row round trips.

The pg_tle edition, where pg_tle is installed, gets the same values through
its types' own text input and output, comparisons and sort order."""

from __future__ import annotations

import pytest

from conftest import skip_without_pg_tle
from managed_lib import create_database, create_pgcrypto, skip_without_pgcrypto

N = 10_000
M = 1_000
# Public identities go through pgcrypto by dynamic SQL (docs/managed.md): fewer.
N_PUBLIC = 2_000
# The pg_tle edition's types call the same codecs (checked on N values above)
# through their input and output: fewer.
N_TLE = 2_000
SEED = 47

# n random bytes for row i, from md5 (seeded, so a failure replays).
RANDOM = """(decode(md5('{tag}:' || {seed} || ':' || i), 'hex')
             || decode(md5('{tag}:' || {seed} || ':' || i || ':2'), 'hex'))"""


def random_bytes(tag: str, n: int) -> str:
    return f"substr({RANDOM.format(tag=tag, seed=SEED)}, 1, {n})"


@pytest.fixture(scope="module")
def db(cluster):
    create_database(cluster, "differential", "psql", native=True)
    create_pgcrypto(cluster, "differential")
    conn = cluster.connect("differential")
    conn.execute("SET search_path = pg_catalog, public")
    conn.execute("SET timezone = 'UTC'")
    # pg_temp.outcome(sql, arg): the statement's text result, or its
    # SQLSTATE and message.
    conn.execute("""
        CREATE FUNCTION pg_temp.outcome(statement text, arg text) RETURNS text
        LANGUAGE plpgsql AS $$
        DECLARE
            result text;
        BEGIN
            EXECUTE statement INTO result USING arg;
            RETURN 'value ' || coalesce(result, 'NULL');
        EXCEPTION WHEN OTHERS THEN
            RETURN SQLSTATE || ' ' || SQLERRM;
        END
        $$""")
    yield conn
    conn.close()


def mismatches(conn, table: str, pairs: dict[str, tuple[str, str]], n: int = N) -> dict:
    """Per check, how many rows of ``table`` (columns i, b) differ between
    the native expression and the edition's, with one example."""
    checks = ", ".join(
        f"count(*) FILTER (WHERE ({a}) IS DISTINCT FROM ({b})) AS c{k},"
        f" min(i) FILTER (WHERE ({a}) IS DISTINCT FROM ({b})) AS e{k}"
        for k, (a, b) in enumerate(pairs.values())
    )
    row = conn.execute(f"SELECT count(*), {checks} FROM {table}").fetchone()
    assert row[0] == n, f"{table}: {row[0]} rows"
    found = {}
    for k, name in enumerate(pairs):
        count, example = row[1 + 2 * k], row[2 + 2 * k]
        if count:
            a, b = pairs[name]
            values = conn.execute(
                f"SELECT ({a})::text, ({b})::text FROM {table} WHERE i = %s", (example,)
            ).fetchone()
            found[name] = (
                f"{count} rows, e.g. row {example}: native {values[0]!r}, sql {values[1]!r}"
            )
    return found


def values_table(conn, name: str, expression: str, n: int = N) -> str:
    conn.execute(f"DROP TABLE IF EXISTS {name}")
    conn.execute(
        f"CREATE TEMP TABLE {name} AS SELECT i, {expression} AS b FROM generate_series(1, {n}) i"
    )
    return name


def typed(conn, table: str, native: str, sql: str) -> tuple[str, str]:
    """Columns n and s of ``table``: b as the native type and as the
    edition's, each converted once."""
    conn.execute(f"ALTER TABLE {table} ADD n {native}, ADD s {sql}")
    conn.execute(f"UPDATE {table} SET n = b::{native}, s = b::{sql}")
    return "n", "s"


def outcomes(conn, table: str, native: str, sql: str, n: int = M) -> dict:
    """Each input (column b of ``table``) through the native statement and the
    edition's (``$1`` the input, as text): the same value, or the same
    SQLSTATE and message."""
    row = conn.execute(
        f"""SELECT count(*), count(*) FILTER (WHERE n IS DISTINCT FROM s),
                   min(i) FILTER (WHERE n IS DISTINCT FROM s),
                   count(*) FILTER (WHERE n LIKE 'value %%'),
                   count(DISTINCT left(n, 5)) FILTER (WHERE n NOT LIKE 'value %%')
            FROM (SELECT i, pg_temp.outcome(%s, b) AS n, pg_temp.outcome(%s, b) AS s FROM {table}) t""",
        (native, sql),
    ).fetchone()
    assert row[0] == n
    if row[1]:
        example = conn.execute(
            f"SELECT b, pg_temp.outcome(%s, b), pg_temp.outcome(%s, b) FROM {table} WHERE i = %s",
            (native, sql, row[2]),
        ).fetchone()
        return {
            "mismatches": row[1],
            "input": example[0],
            "native": example[1],
            "sql": example[2],
        }
    return {"values": row[3], "error kinds": row[4]}


def assert_same(found: dict) -> None:
    assert not found, "\n".join(f"{k}: {v}" for k, v in found.items())


def check_outcomes(conn, cases: list[tuple[str, str, str]], figures) -> None:
    failures = {}
    for table, native, sql in cases:
        got = outcomes(conn, table, native, sql)
        if "mismatches" in got:
            failures[f"{native} on {table}"] = got
        else:
            figures(f"{sql}: {M} inputs, {got['values']} values, the rest refused alike")
    assert_same(failures)


# A field from the input's hash: 0 to {0} - 1, less {1} (so that a few are
# negative, and those above the field's range out of range too).
FIELD = "(abs(hashtext($1 || '{0}')) % {0} - {1})"

# Times from before 1700 to after 36812, and within the common ranges.
TIMES = """CASE WHEN i % 4 = 0
                THEN (timestamptz '1600-01-01' + (('x' || substr(md5('t' || i), 1, 12))::bit(48)::bigint % 13000000) * interval '1 day'
                      + (('x' || substr(md5('u' || i), 1, 12))::bit(48)::bigint % 86400000000) * interval '1 microsecond')::text
                ELSE (timestamptz '2005-01-01' + (('x' || substr(md5('t' || i), 1, 12))::bit(48)::bigint % 3000000000) * interval '1 second'
                      + (('x' || substr(md5('u' || i), 1, 8))::bit(32)::bigint % 1000000) * interval '1 microsecond')::text END"""


def test_sno(db, figures):
    t = values_table(db, "sno_values", random_bytes("sno", 10))
    typed(db, t, "native.sno", "flake.sno")
    pairs = {
        "text": ("n::text", "flake.sno_to_text(s)"),
        "text in": ("b", "flake.sno_from_text(n::text)::bytea"),
        "bytes": ("native.sno_to_bytea(n)", "flake.sno_to_bytea(s)"),
        "parts": ("native.sno_parts(n)::text", "flake.sno_parts(s)::text"),
        "timestamp": ("native.sno_timestamp(n)", "flake.sno_timestamp(s)"),
        "fields": (
            "(native.sno_meta(n), native.sno_partition(n), native.sno_sequence(n), native.sno_tick_tock(n))::text",
            "(flake.sno_meta(s), flake.sno_partition(s), flake.sno_sequence(s), flake.sno_tick_tock(s))::text",
        ),
        "from parts": (
            "(SELECT native.sno_from_parts(p.time, p.meta, p.partition, p.sequence, p.tick_tock)::bytea FROM native.sno_parts(n) p)",
            "(SELECT flake.sno_from_parts(p.time, p.meta, p.partition, p.sequence, p.tick_tock)::bytea FROM flake.sno_parts(s) p)",
        ),
        "from time": (
            "native.sno_from_time(native.sno_timestamp(n))::bytea",
            "flake.sno_from_time(flake.sno_timestamp(s))::bytea",
        ),
        "hash": ("native.sno_hash(n)", "flake.sno_hash(s)"),
        "hash extended": (
            "native.sno_hash_extended(n, i)",
            "flake.sno_hash_extended(s, i)",
        ),
    }
    assert_same(mismatches(db, t, pairs))
    figures(f"sno: {N} values, {len(pairs)} checks each, native and sql agree")
    texts = values_table(
        db,
        "sno_texts",
        "CASE WHEN i % 3 = 0 THEN translate(md5(i::text), '01', 'yz') ELSE substr(md5(i::text) || md5('x' || i), 1 + i % 5, 14 + i % 5) END",
        M,
    )
    times = values_table(db, "sno_times", TIMES, M)
    check_outcomes(
        db,
        [
            (
                texts,
                "SELECT $1::native.sno::text",
                "SELECT flake.sno_to_text(flake.sno_from_text($1))",
            ),
            (
                times,
                "SELECT native.sno_from_time($1::timestamptz)::text",
                "SELECT flake.sno_to_text(flake.sno_from_time($1::timestamptz))",
            ),
            (
                times,
                f"SELECT native.sno_from_parts($1::timestamptz, {FIELD.format(300, 20)}, {FIELD.format(70000, 2)}, {FIELD.format(70000, 1)})::text",
                f"SELECT flake.sno_to_text(flake.sno_from_parts($1::timestamptz, {FIELD.format(300, 20)}, {FIELD.format(70000, 2)}, {FIELD.format(70000, 1)}))",
            ),
        ],
        figures,
    )


def test_siq(db, figures):
    t = values_table(db, "siq_values", random_bytes("siq", 14))
    n, s = typed(db, t, "native.siq", "flake.siq")
    pairs = {
        "text": (f"{n}::text", f"flake.siq_to_text({s})"),
        "text in": ("b", f"flake.siq_from_text(upper(native.siq_to_did({n})))::bytea"),
        "parts": (f"native.siq_parts({n})::text", f"flake.siq_parts({s})::text"),
        "fields": (
            f"(native.siq_timestamp({n}), native.siq_kind({n}), native.siq_serial({n}), native.siq_shard({n}), native.siq_domain_hash({n}))::text",
            f"(flake.siq_timestamp({s}), flake.siq_kind({s}), flake.siq_serial({s}), flake.siq_shard({s}), flake.siq_domain_hash({s}))::text",
        ),
        "forms": (
            f"(native.siq_to_did({n}), native.siq_to_hex({n}), native.siq_to_base64({n}), native.siq_to_numeric({n}))::text",
            f"(flake.siq_to_did({s}), flake.siq_to_hex({s}), flake.siq_to_base64({s}), flake.siq_to_numeric({s}))::text",
        ),
        "forms in": (
            f"(native.siq_from_hex(native.siq_to_hex({n}))::bytea, native.siq_from_numeric(native.siq_to_numeric({n}))::bytea)::text",
            f"(flake.siq_from_hex(flake.siq_to_hex({s}))::bytea, flake.siq_from_numeric(flake.siq_to_numeric({s}))::bytea)::text",
        ),
        "from parts": (
            f"(SELECT native.siq_from_tick_parts(p.ticks, p.shard, p.domain_hash, p.kind, p.serial)::bytea FROM native.siq_parts({n}) p WHERE p.kind IS NOT NULL)",
            f"(SELECT flake.siq_from_tick_parts(p.ticks, p.shard, p.domain_hash, p.kind, p.serial)::bytea FROM flake.siq_parts({s}) p WHERE p.kind IS NOT NULL)",
        ),
        "from time": (
            f"native.siq_from_time(native.siq_timestamp({n}))::bytea",
            f"flake.siq_from_time(flake.siq_timestamp({s}))::bytea",
        ),
        "hashes": (
            f"(native.siq_hash({n}), native.siq_hash_extended({n}, i))::text",
            f"(flake.siq_hash({s}), flake.siq_hash_extended({s}, i))::text",
        ),
    }
    assert_same(mismatches(db, t, pairs))
    figures(f"siq: {N} values, {len(pairs)} checks each, native and sql agree")
    texts = values_table(
        db,
        "siq_texts",
        """CASE i % 4 WHEN 0 THEN native.siq_to_did(substr(decode(md5(i::text) || md5('y' || i), 'hex'), 1, 14)::native.siq)
                      WHEN 1 THEN overlay(substr(decode(md5(i::text) || md5('y' || i), 'hex'), 1, 14)::native.siq::text placing chr(97 + i % 30) from 1 + i % 29)
                      WHEN 2 THEN substr(md5(i::text) || md5('z' || i), 1, 25 + i % 8)
                      ELSE 'did:siq:' || substr(md5(i::text) || md5('z' || i), 1, 29) END""",
        M,
    )
    hexes = values_table(db, "siq_hexes", "substr(md5(i::text) || md5('h' || i), 1, i % 31)", M)
    numbers = values_table(
        db,
        "siq_numbers",
        "((('x' || substr(md5(i::text), 1, 15))::bit(60)::bigint)::numeric * (2::numeric ^ (i % 60)) - i % 7 + (i % 3) * 0.5)::text",
        M,
    )
    times = values_table(db, "siq_times", TIMES, M)
    kinds = "(ARRAY['user', 'Message', 'content', 'thread', 'robot', 'TAG', 'multi'])[1 + abs(hashtext($1)) % 7]"
    check_outcomes(
        db,
        [
            (
                texts,
                "SELECT $1::native.siq::text",
                "SELECT flake.siq_to_text(flake.siq_from_text($1))",
            ),
            (
                hexes,
                "SELECT native.siq_from_hex($1)::text",
                "SELECT flake.siq_to_text(flake.siq_from_hex($1))",
            ),
            (
                numbers,
                "SELECT native.siq_from_numeric($1::numeric)::text",
                "SELECT flake.siq_to_text(flake.siq_from_numeric($1::numeric))",
            ),
            (
                times,
                "SELECT native.siq_from_time($1::timestamptz)::text",
                "SELECT flake.siq_to_text(flake.siq_from_time($1::timestamptz))",
            ),
            (
                times,
                f"SELECT native.siq_from_parts($1::timestamptz, {FIELD.format(280, 2)}, {FIELD.format(4294967296, 100)}, {kinds}, {FIELD.format(9000, 3)})::text",
                f"SELECT flake.siq_to_text(flake.siq_from_parts($1::timestamptz, {FIELD.format(280, 2)}, {FIELD.format(4294967296, 100)}, {kinds}, {FIELD.format(9000, 3)}))",
            ),
            (
                texts,
                "SELECT native.siq_domain_name_hash($1)::text",
                "SELECT flake.siq_domain_name_hash($1)::text",
            ),
            (
                hexes,
                "SELECT native.siq_domain_name_hash(CASE WHEN length($1) % 5 = 0 THEN $1 || 'ü' WHEN length($1) % 7 = 0 THEN '0' ELSE $1 END)::text",
                "SELECT flake.siq_domain_name_hash(CASE WHEN length($1) % 5 = 0 THEN $1 || 'ü' WHEN length($1) % 7 = 0 THEN '0' ELSE $1 END)::text",
            ),
        ],
        figures,
    )


def test_distributed_id(db, figures):
    # 93 random bits, and the last values of the range every 97th row.
    t = values_table(
        db,
        "did_values",
        f"""CASE WHEN i % 97 = 0 THEN native.distributed_id_from_numeric(9999999999999999999999999999 - i)::bytea
                 ELSE set_byte({random_bytes("did", 12)}, 0, get_byte({random_bytes("did", 12)}, 0) & 31) END""",
    )
    n, s = typed(db, t, "native.distributed_id", "flake.distributed_id")
    pairs = {
        "text": (f"{n}::text", f"flake.distributed_id_to_text({s})"),
        "text in": (
            "b",
            f"flake.distributed_id_from_text(' 000' || {n}::text || E'\\n')::bytea",
        ),
        "parts": (
            f"native.distributed_id_parts({n})::text",
            f"flake.distributed_id_parts({s})::text",
        ),
        "timestamp": (
            f"native.distributed_id_timestamp({n})",
            f"flake.distributed_id_timestamp({s})",
        ),
        "forms": (
            f"(native.distributed_id_to_hex({n}), native.distributed_id_to_numeric({n}), native.alphanumeric_encode({n}))::text",
            f"(flake.distributed_id_to_hex({s}), flake.distributed_id_to_numeric({s}), flake.alphanumeric_encode({s}))::text",
        ),
        "forms in": (
            f"(native.distributed_id_from_hex(lower(native.distributed_id_to_hex({n})))::bytea, native.distributed_id_from_numeric(native.distributed_id_to_numeric({n}))::bytea, native.alphanumeric_decode_distributed_id(native.alphanumeric_encode({n}))::bytea)::text",
            f"(flake.distributed_id_from_hex(lower(flake.distributed_id_to_hex({s})))::bytea, flake.distributed_id_from_numeric(flake.distributed_id_to_numeric({s}))::bytea, flake.alphanumeric_decode_distributed_id(flake.alphanumeric_encode({s}))::bytea)::text",
        ),
        "from parts": (
            f"(SELECT native.distributed_id_from_parts(p.time, p.random)::bytea FROM native.distributed_id_parts({n}) p WHERE i % 97 <> 0)",
            f"(SELECT flake.distributed_id_from_parts(p.time, p.random)::bytea FROM flake.distributed_id_parts({s}) p WHERE i % 97 <> 0)",
        ),
        "from time": (
            f"CASE WHEN i % 97 <> 0 THEN native.distributed_id_from_time(native.distributed_id_timestamp({n}))::bytea END",
            f"CASE WHEN i % 97 <> 0 THEN flake.distributed_id_from_time(flake.distributed_id_timestamp({s}))::bytea END",
        ),
        "hashes": (
            f"(native.distributed_id_hash({n}), native.distributed_id_hash_extended({n}, i))::text",
            f"(flake.distributed_id_hash({s}), flake.distributed_id_hash_extended({s}, i))::text",
        ),
    }
    assert_same(mismatches(db, t, pairs))
    figures(f"distributed_id: {N} values, {len(pairs)} checks each, native and sql agree")
    texts = values_table(
        db,
        "did_texts",
        """CASE i % 5 WHEN 0 THEN repeat('0', i % 4) || substr(translate(md5(i::text), 'abcdef', '123456') || translate(md5('a' || i), 'abcdef', '789012'), 1, 20 + i % 14)
                      WHEN 1 THEN ' ' || (i * 7919)::text || ' '
                      WHEN 2 THEN substr(md5(i::text), 1, i % 30)
                      WHEN 3 THEN '-' || i
                      ELSE repeat('9', 27 + i % 3) END""",
        M,
    )
    hexes = values_table(
        db,
        "did_hexes",
        "CASE WHEN i % 3 = 0 THEN '00' || substr(md5(i::text) || md5('h' || i), 1, 24) ELSE substr(md5(i::text) || md5('h' || i), 1, 24 + i % 5) END",
        M,
    )
    numbers = values_table(
        db,
        "did_numbers",
        "((('x' || substr(md5(i::text), 1, 15))::bit(60)::bigint)::numeric * (2::numeric ^ (i % 40)) - i % 5 + (i % 3) * 0.5)::text",
        M,
    )
    alnum = values_table(
        db,
        "did_alnum",
        "CASE WHEN i % 2 = 0 THEN native.alphanumeric_encode(native.distributed_id_from_numeric(9999999999999999999999999999 - i * 1000)) ELSE translate(substr(md5(i::text) || md5('k' || i), 1, 14 + i % 4), 'abc', 'Z,b') END",
        M,
    )
    times = values_table(db, "did_times", TIMES, M)
    check_outcomes(
        db,
        [
            (
                texts,
                "SELECT $1::native.distributed_id::text",
                "SELECT flake.distributed_id_to_text(flake.distributed_id_from_text($1))",
            ),
            (
                hexes,
                "SELECT native.distributed_id_from_hex($1)::text",
                "SELECT flake.distributed_id_to_text(flake.distributed_id_from_hex($1))",
            ),
            (
                numbers,
                "SELECT native.distributed_id_from_numeric($1::numeric)::text",
                "SELECT flake.distributed_id_to_text(flake.distributed_id_from_numeric($1::numeric))",
            ),
            (
                alnum,
                "SELECT native.alphanumeric_decode_distributed_id($1)::text",
                "SELECT flake.distributed_id_to_text(flake.alphanumeric_decode_distributed_id($1))",
            ),
            (
                times,
                "SELECT native.distributed_id_from_time($1::timestamptz)::text",
                "SELECT flake.distributed_id_to_text(flake.distributed_id_from_time($1::timestamptz))",
            ),
            (
                times,
                f"SELECT native.distributed_id_from_parts($1::timestamptz, {FIELD.format(300000000000000, 100)})::text",
                f"SELECT flake.distributed_id_to_text(flake.distributed_id_from_parts($1::timestamptz, {FIELD.format(300000000000000, 100)}))",
            ),
        ],
        figures,
    )


def test_distributed_id128(db, figures):
    t = values_table(db, "d128_values", f"encode({random_bytes('d128', 16)}, 'hex')::uuid")
    pairs = {
        "timestamp": (
            "native.distributed_id128_timestamp(b)",
            "flake.distributed_id128_timestamp(b)",
        ),
        "parts": (
            "native.distributed_id128_parts(b)::text",
            "flake.distributed_id128_parts(b)::text",
        ),
        "numeric": (
            "native.distributed_id128_to_numeric(b)",
            "flake.distributed_id128_to_numeric(b)",
        ),
        "numeric in": (
            "native.distributed_id128_from_numeric(native.distributed_id128_to_numeric(b))",
            "flake.distributed_id128_from_numeric(flake.distributed_id128_to_numeric(b))",
        ),
        "alphanumeric": ("native.alphanumeric_encode(b)", "flake.alphanumeric_encode(b)"),
        "alphanumeric in": (
            "native.alphanumeric_decode_uuid(native.alphanumeric_encode(b))",
            "flake.alphanumeric_decode_uuid(flake.alphanumeric_encode(b))",
        ),
        "from parts": (
            "(SELECT native.distributed_id128_from_parts(p.time, p.random) FROM native.distributed_id128_parts(b) p)",
            "(SELECT flake.distributed_id128_from_parts(p.time, p.random) FROM flake.distributed_id128_parts(b) p)",
        ),
        "from time": (
            "native.distributed_id128_from_time(native.distributed_id128_timestamp(b))",
            "flake.distributed_id128_from_time(flake.distributed_id128_timestamp(b))",
        ),
    }
    assert_same(mismatches(db, t, pairs))
    figures(f"distributed_id128: {N} values, {len(pairs)} checks each, native and sql agree")
    numbers = values_table(
        db,
        "d128_numbers",
        "((('x' || substr(md5(i::text), 1, 15))::bit(60)::bigint)::numeric * (2::numeric ^ (i % 75)) - i % 5 + (i % 3) * 0.5)::text",
        M,
    )
    alnum = values_table(
        db,
        "d128_alnum",
        "CASE WHEN i % 2 = 0 THEN native.alphanumeric_encode(encode(decode(md5(i::text), 'hex'), 'hex')::uuid) ELSE translate(substr(md5(i::text) || md5('k' || i), 1, 20 + i % 4), 'abc', 'Zzb') END",
        M,
    )
    times = values_table(db, "d128_times", TIMES, M)
    check_outcomes(
        db,
        [
            (
                numbers,
                "SELECT native.distributed_id128_from_numeric($1::numeric)::text",
                "SELECT flake.distributed_id128_from_numeric($1::numeric)::text",
            ),
            (
                alnum,
                "SELECT native.alphanumeric_decode_uuid($1)::text",
                "SELECT flake.alphanumeric_decode_uuid($1)::text",
            ),
            (
                times,
                "SELECT native.distributed_id128_from_time($1::timestamptz)::text",
                "SELECT flake.distributed_id128_from_time($1::timestamptz)::text",
            ),
            (
                times,
                "SELECT native.distributed_id128_from_parts($1::timestamptz, (abs(hashtext($1))::numeric * 2::numeric ^ 45 - 7))::text",
                "SELECT flake.distributed_id128_from_parts($1::timestamptz, (abs(hashtext($1))::numeric * 2::numeric ^ 45 - 7))::text",
            ),
        ],
        figures,
    )


def test_flaxid(db, figures):
    t = values_table(db, "flaxid_values", random_bytes("flaxid", 12))
    n, s = typed(db, t, "native.flaxid", "flake.flaxid")
    pairs = {
        "text": (f"{n}::text", f"flake.flaxid_to_text({s})"),
        "text in": ("b", f"flake.flaxid_from_text({n}::text)::bytea"),
        "parts": (f"native.flaxid_parts({n})::text", f"flake.flaxid_parts({s})::text"),
        "timestamp": (f"native.flaxid_timestamp({n})", f"flake.flaxid_timestamp({s})"),
        "from parts": (
            f"(SELECT native.flaxid_from_parts(p.time, p.random)::bytea FROM native.flaxid_parts({n}) p)",
            f"(SELECT flake.flaxid_from_parts(p.time, p.random)::bytea FROM flake.flaxid_parts({s}) p)",
        ),
        "from time": (
            f"native.flaxid_from_time(native.flaxid_timestamp({n}))::bytea",
            f"flake.flaxid_from_time(flake.flaxid_timestamp({s}))::bytea",
        ),
        "hashes": (
            f"(native.flaxid_hash({n}), native.flaxid_hash_extended({n}, i))::text",
            f"(flake.flaxid_hash({s}), flake.flaxid_hash_extended({s}, i))::text",
        ),
    }
    assert_same(mismatches(db, t, pairs))
    figures(f"flaxid: {N} values, {len(pairs)} checks each, native and sql agree")
    texts = values_table(
        db,
        "flaxid_texts",
        "translate(substr(md5(i::text) || md5('f' || i), 1, 14 + i % 4), 'abc', '-_.')",
        M,
    )
    times = values_table(db, "flaxid_times", TIMES, M)
    check_outcomes(
        db,
        [
            (
                texts,
                "SELECT $1::native.flaxid::text",
                "SELECT flake.flaxid_to_text(flake.flaxid_from_text($1))",
            ),
            (
                times,
                "SELECT native.flaxid_from_time($1::timestamptz)::text",
                "SELECT flake.flaxid_to_text(flake.flaxid_from_time($1::timestamptz))",
            ),
            (
                times,
                f"SELECT native.flaxid_from_parts($1::timestamptz, {FIELD.format(80000000000000000, 10)})::text",
                f"SELECT flake.flaxid_to_text(flake.flaxid_from_parts($1::timestamptz, {FIELD.format(80000000000000000, 10)}))",
            ),
        ],
        figures,
    )


def test_kuid(db, figures):
    t = values_table(db, "kuid64_values", f"({random_bytes('k64', 8)})")
    db.execute("UPDATE kuid64_values SET b = set_byte(b, 0, get_byte(b, 0) & 127)")
    k = "('x' || encode(b, 'hex'))::bit(64)::bigint"
    pairs = {
        "text": (f"native.kuid64_encode({k})", f"flake.kuid64_encode({k})"),
        "text in": (k, f"flake.kuid64_decode(native.kuid64_encode({k}))"),
        "parts": (f"native.kuid64_parts({k})::text", f"flake.kuid64_parts({k})::text"),
        "timestamp": (f"native.kuid64_timestamp({k})", f"flake.kuid64_timestamp({k})"),
        "globalize": (
            f"native.kuid96_globalize({k}, abs(hashtext(b::text))::bigint, 5 + i % 6)::bytea",
            f"flake.kuid96_globalize({k}, abs(hashtext(b::text))::bigint, 5 + i % 6)::bytea",
        ),
    }
    assert_same(mismatches(db, t, pairs))
    t96 = values_table(db, "kuid96_values", random_bytes("k96", 12))
    n, s = typed(db, t96, "native.kuid96", "flake.kuid96")
    pairs96 = {
        "text": (f"{n}::text", f"flake.kuid96_to_text({s})"),
        "text in": ("b", f"flake.kuid96_from_text({n}::text)::bytea"),
        "parts": (
            f"native.kuid96_parts({n}, 5 + i % 6)::text",
            f"flake.kuid96_parts({s}, 5 + i % 6)::text",
        ),
        "timestamp, node": (
            f"(native.kuid96_timestamp({n}, 5 + i % 6), native.kuid96_node({n}, 5 + i % 6))::text",
            f"(flake.kuid96_timestamp({s}, 5 + i % 6), flake.kuid96_node({s}, 5 + i % 6))::text",
        ),
        "from parts": (
            f"(SELECT native.kuid96_from_parts(p.time, p.node, p.seq, 5 + i % 6)::bytea FROM native.kuid96_parts({n}, 5 + i % 6) p WHERE get_byte(b, 0) < 8)",
            f"(SELECT flake.kuid96_from_parts(p.time, p.node, p.seq, 5 + i % 6)::bytea FROM flake.kuid96_parts({s}, 5 + i % 6) p WHERE get_byte(b, 0) < 8)",
        ),
        "hashes": (
            f"(native.kuid96_hash({n}), native.kuid96_hash_extended({n}, i))::text",
            f"(flake.kuid96_hash({s}), flake.kuid96_hash_extended({s}, i))::text",
        ),
    }
    assert_same(mismatches(db, t96, pairs96))
    figures(
        f"kuid64, kuid96: {N} values each, {len(pairs)} and {len(pairs96)} checks, native and sql agree"
    )
    texts = values_table(
        db,
        "kuid_texts",
        "translate(substr(md5(i::text) || md5('q' || i), 1, 9 + i % 9), 'abc', '._z')",
        M,
    )
    bigints = values_table(
        db, "kuid_bigints", "(('x' || substr(md5(i::text), 1, 16))::bit(64)::bigint)::text", M
    )
    names = values_table(
        db,
        "kuid_names",
        "CASE i % 3 WHEN 0 THEN md5(i::text) || '@host' WHEN 1 THEN 'nöde' || i || 'ÿ€' ELSE repeat(chr(65 + i % 50), i % 40) END",
        M,
    )
    times = values_table(db, "kuid_times", TIMES, M)
    check_outcomes(
        db,
        [
            (
                texts,
                "SELECT native.kuid64_decode($1)::text",
                "SELECT flake.kuid64_decode($1)::text",
            ),
            (
                texts,
                "SELECT $1::native.kuid96::text",
                "SELECT flake.kuid96_to_text(flake.kuid96_from_text($1))",
            ),
            (
                bigints,
                "SELECT native.kuid64_parts($1::bigint)::text",
                "SELECT flake.kuid64_parts($1::bigint)::text",
            ),
            (
                bigints,
                "SELECT native.kuid96_localize(native.kuid96_globalize(abs($1::bigint), 7, 8), 3 + length($1) % 9)::text",
                "SELECT flake.kuid96_localize(flake.kuid96_globalize(abs($1::bigint), 7, 8), 3 + length($1) % 9)::text",
            ),
            (
                names,
                "SELECT native.kuid_node_fingerprint($1)::text",
                "SELECT flake.kuid_node_fingerprint($1)::text",
            ),
            (
                times,
                "SELECT native.kuid64_from_parts($1::timestamptz, "
                + FIELD.format(17000, 10)
                + ")::text",
                "SELECT flake.kuid64_from_parts($1::timestamptz, "
                + FIELD.format(17000, 10)
                + ")::text",
            ),
            (
                times,
                f"SELECT native.kuid96_from_parts($1::timestamptz, {FIELD.format(4294967296, 3)} * 2, {FIELD.format(17000, 10)}, 4 + abs(hashtext($1)) % 8)::text",
                f"SELECT flake.kuid96_to_text(flake.kuid96_from_parts($1::timestamptz, {FIELD.format(4294967296, 3)} * 2, {FIELD.format(17000, 10)}, 4 + abs(hashtext($1)) % 8))",
            ),
        ],
        figures,
    )


def test_snowflake(db, figures):
    t = values_table(
        db,
        "snowflake_values",
        f"set_byte({random_bytes('sf', 8)}, 0, get_byte({random_bytes('sf', 8)}, 0) & 127)",
    )
    k = "('x' || encode(b, 'hex'))::bit(64)::bigint"
    e = "(1288834974657 + (i % 5) * 1000000000000)"
    pairs = {
        "parts": (
            f"native.snowflake_parts({k}, {e})::text",
            f"flake.snowflake_parts({k}, {e})::text",
        ),
        "timestamp": (
            f"native.snowflake_timestamp({k}, {e})",
            f"flake.snowflake_timestamp({k}, {e})",
        ),
        "from parts": (
            f"(SELECT native.snowflake_from_parts(p.time, p.worker, p.process, p.sequence, {e}) FROM native.snowflake_parts({k}, {e}) p)",
            f"(SELECT flake.snowflake_from_parts(p.time, p.worker, p.process, p.sequence, {e}) FROM flake.snowflake_parts({k}, {e}) p)",
        ),
        "from time": (
            f"native.snowflake_from_time(native.snowflake_timestamp({k}, {e}), {e})",
            f"flake.snowflake_from_time(flake.snowflake_timestamp({k}, {e}), {e})",
        ),
        "default epoch": (
            f"native.snowflake_parts({k})::text",
            f"flake.snowflake_parts({k})::text",
        ),
    }
    assert_same(mismatches(db, t, pairs))
    figures(f"snowflake: {N} values, {len(pairs)} checks each, native and sql agree")
    bigints = values_table(
        db, "snowflake_bigints", "(('x' || substr(md5(i::text), 1, 16))::bit(64)::bigint)::text", M
    )
    times = values_table(db, "snowflake_times", TIMES, M)
    epoch = "((abs(hashtext($1)) % 300000000)::bigint * 1000000 - 1000)"
    check_outcomes(
        db,
        [
            (
                bigints,
                f"SELECT native.snowflake_parts($1::bigint, {epoch})::text",
                f"SELECT flake.snowflake_parts($1::bigint, {epoch})::text",
            ),
            (
                times,
                f"SELECT native.snowflake_from_time($1::timestamptz, {epoch} % 1700000000000)::text",
                f"SELECT flake.snowflake_from_time($1::timestamptz, {epoch} % 1700000000000)::text",
            ),
            (
                times,
                f"SELECT native.snowflake_from_parts($1::timestamptz, {FIELD.format(35, 1)}, {FIELD.format(35, 1)}, {FIELD.format(4200, 1)}, {epoch} % 1700000000000)::text",
                f"SELECT flake.snowflake_from_parts($1::timestamptz, {FIELD.format(35, 1)}, {FIELD.format(35, 1)}, {FIELD.format(4200, 1)}, {epoch} % 1700000000000)::text",
            ),
        ],
        figures,
    )


def test_alphanumeric(db, figures):
    t = values_table(db, "alnum_values", random_bytes("an", 8))
    k = "(('x' || encode(b, 'hex'))::bit(64)::bigint & 9223372036854775807)"
    pairs = {
        "bigint": (f"native.alphanumeric_encode({k})", f"flake.alphanumeric_encode({k})"),
        "bigint in": (k, f"flake.alphanumeric_decode_bigint(native.alphanumeric_encode({k}))"),
    }
    assert_same(mismatches(db, t, pairs))
    texts = values_table(
        db,
        "alnum_texts",
        "CASE WHEN i % 3 = 0 THEN substr('AzL8n0Y58m7LygHa16AHYFzzz' || md5(i::text), 1 + i % 13, 11) ELSE translate(substr(md5(i::text) || md5('x' || i), 1, 9 + i % 5), 'abc', 'Zy-') END",
        M,
    )
    check_outcomes(
        db,
        [
            (
                texts,
                "SELECT native.alphanumeric_decode_bigint($1)::text",
                "SELECT flake.alphanumeric_decode_bigint($1)::text",
            ),
            (
                texts,
                "SELECT native.alphanumeric_encode(hashtext($1)::bigint * 3)::text",
                "SELECT flake.alphanumeric_encode(hashtext($1)::bigint * 3)::text",
            ),
        ],
        figures,
    )
    figures(f"alphanumeric: {N} bigints, native and sql agree")


def test_public_id(db, figures):
    skip_without_pgcrypto()
    # Keys of 16, 24 and 32 bytes; bigints, distributed_ids and uuids.
    t = values_table(db, "public_values", random_bytes("pk", 32), N_PUBLIC)
    key = "substr(b, 1, 16 + (i % 3) * 8)"
    value = "(('x' || encode(substr(b, 17, 8), 'hex'))::bit(64)::bigint & 9223372036854775807)"
    did = "set_byte(substr(b, 21, 12), 0, get_byte(b, 20) & 31)"
    u = "encode(substr(b, 17, 16), 'hex')::uuid"
    pairs = {
        "bigint": (
            f"native.public_id_encrypt({value}, {key})",
            f"flake.public_id_encrypt({value}, {key})",
        ),
        "distributed_id": (
            f"native.public_id_encrypt({did}::native.distributed_id, {key})",
            f"flake.public_id_encrypt({did}::flake.distributed_id, {key})",
        ),
        "uuid": (f"native.public_id_encrypt({u}, {key})", f"flake.public_id_encrypt({u}, {key})"),
        "decrypt": (
            f"(native.public_id_decrypt_bigint({u}, {key}), native.public_id_decrypt_distributed_id({u}, {key})::bytea, native.public_id_decrypt_uuid({u}, {key}))::text",
            f"(flake.public_id_decrypt_bigint({u}, {key}), flake.public_id_decrypt_distributed_id({u}, {key})::bytea, flake.public_id_decrypt_uuid({u}, {key}))::text",
        ),
    }
    assert_same(mismatches(db, t, pairs, N_PUBLIC))
    figures(
        f"public_id: {N_PUBLIC} values and keys, {len(pairs)} checks each, native and sql agree"
    )
    keys = values_table(
        db,
        "public_keys",
        "encode(substr(decode(md5(i::text) || md5('k' || i), 'hex'), 1, 1 + i % 32), 'hex')",
        M,
    )
    check_outcomes(
        db,
        [
            (
                keys,
                "SELECT native.public_id_encrypt(length($1)::bigint - 20, decode($1, 'hex'))::text",
                "SELECT flake.public_id_encrypt(length($1)::bigint - 20, decode($1, 'hex'))::text",
            ),
        ],
        figures,
    )


def test_pg_tle_types(cluster, pg_tle, figures):
    """The pg_tle edition's types against the native ones: text output and
    input, bytea, comparisons and ORDER BY on the same values."""
    skip_without_pg_tle(pg_tle)
    create_database(cluster, "differential_tle", "pg_tle", native=True)
    conn = cluster.connect("differential_tle")
    conn.execute("SET search_path = pg_catalog, public")
    found = {}
    for t, n in [("sno", 10), ("siq", 14), ("flaxid", 12), ("kuid96", 12), ("distributed_id", 12)]:
        expression = random_bytes(t, n)
        if t == "distributed_id":
            expression = f"set_byte({expression}, 0, get_byte({expression}, 0) & 31)"
        table = values_table(conn, f"tle_{t}", expression, N_TLE)
        conn.execute(f"ALTER TABLE {table} ADD previous bytea")
        other = random_bytes(t + "-other", n)
        if t == "distributed_id":
            other = f"set_byte({other}, 0, get_byte({other}, 0) & 31)"
        conn.execute(f"UPDATE {table} SET previous = CASE WHEN i % 10 = 0 THEN b ELSE {other} END")
        typed(conn, table, f"native.{t}", f"flake.{t}")
        conn.execute(f"ALTER TABLE {table} ADD pn native.{t}, ADD ps flake.{t}")
        conn.execute(f"UPDATE {table} SET pn = previous::native.{t}, ps = previous::flake.{t}")
        pairs = {
            "text": ("n::text", "s::text"),
            "text in": (f"(n::text)::native.{t}::bytea", f"(s::text)::flake.{t}::bytea"),
            "bytes": ("n::bytea", "s::bytea"),
            "compare": (
                "(n OPERATOR(native.<) pn, n OPERATOR(native.=) pn, n OPERATOR(native.>=) pn)::text",
                "(s OPERATOR(flake.<) ps, s OPERATOR(flake.=) ps, s OPERATOR(flake.>=) ps)::text",
            ),
        }
        for name, issue in mismatches(conn, table, pairs, N_TLE).items():
            found[f"{t} {name}"] = issue
        orders = conn.execute(
            f"""SELECT (SELECT array_agg(i ORDER BY n USING OPERATOR(native.<)) FROM {table})
                     = (SELECT array_agg(i ORDER BY s USING OPERATOR(flake.<)) FROM {table})"""
        ).fetchone()[0]
        if not orders:
            found[f"{t} order"] = "ORDER BY differs"
    conn.close()
    assert_same(found)
    figures(f"pg_tle types: {N_TLE} values each, text, bytes, comparisons and order agree")
