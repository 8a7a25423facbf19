"""psycopg2 against a real server: results as values (arrays too), value
parameters typed by name, connection and cursor scope, the transaction state
left alone, the extension's schema looked up, and DROP/CREATE EXTENSION."""

from __future__ import annotations

import psycopg2
import psycopg2.extensions
import pytest
from test_psycopg import GENERATORS, TYPE_NAMES, random_values

from pg_flake import FlakeError, Sno
from pg_flake.psycopg2 import register_types

IDLE = psycopg2.extensions.TRANSACTION_STATUS_IDLE


@pytest.fixture
def conn(dsn):
    conn = psycopg2.connect(dsn)
    conn.autocommit = True
    registered = register_types(conn)
    assert sorted(registered) == TYPE_NAMES
    yield conn
    conn.close()


@pytest.mark.parametrize("cls", list(GENERATORS), ids=lambda c: c.TYPE_NAME)
def test_results_are_values(conn, cls):
    with conn.cursor() as cur:
        cur.execute(
            f"SELECT x, x::text, x::bytea, ARRAY[x, NULL], '{{}}'::{cls.TYPE_NAME}[]"
            f" FROM (SELECT {GENERATORS[cls]} AS x) s"
        )
        value, text, raw, array, empty = cur.fetchone()
    assert type(value) is cls
    assert str(value) == text and bytes(value) == bytes(raw)
    assert array == [value, None] and type(array[0]) is cls
    assert empty == []


@pytest.mark.parametrize("cls", list(GENERATORS), ids=lambda c: c.TYPE_NAME)
def test_parameters_are_typed_and_agree_with_the_server(conn, cls):
    """200 random values per type go in as a list parameter (a typed ARRAY[…])
    and come back with the server's text and bytes."""
    values = random_values(cls, 200)
    with conn.cursor() as cur:
        cur.execute(
            "SELECT x, x::text, x::bytea FROM unnest(%s) WITH ORDINALITY AS u(x, i) ORDER BY i",
            [values],
        )
        rows = cur.fetchall()
        assert [r[0] for r in rows] == values
        assert [r[1] for r in rows] == [str(v) for v in values]
        assert [bytes(r[2]) for r in rows] == [bytes(v) for v in values]
        # A single value is typed too: no "operator is not unique" or text comparison.
        cur.execute("SELECT pg_typeof(%s)::text, %s = %s", [values[0], values[0], values[0]])
        assert cur.fetchone() == (cls.TYPE_NAME, True)
        assert cur.mogrify("%s", [values[0]]) == f"'{values[0]}'::{cls.TYPE_NAME}".encode()


def test_table_round_trip_and_executemany(conn, table_name):
    with conn.cursor() as cur:
        cur.execute(
            f"CREATE TABLE {table_name} (id sno PRIMARY KEY DEFAULT sno_generate(), ref sno)"
        )
        refs = random_values(Sno, 10)
        cur.executemany(f"INSERT INTO {table_name} (ref) VALUES (%s)", [[r] for r in refs])
        cur.execute(f"SELECT id, ref FROM {table_name} WHERE ref = ANY(%s) ORDER BY ref", [refs])
        rows = cur.fetchall()
        assert [r[1] for r in rows] == sorted(refs)
        assert all(type(r[0]) is Sno for r in rows)
        cur.execute(f"SELECT count(*) FROM {table_name} WHERE ref >= %s", [sorted(refs)[5]])
        assert cur.fetchone() == (5,)


def test_cursor_scope(dsn):
    with psycopg2.connect(dsn) as conn:
        cur = conn.cursor()
        register_types(cur)
        cur.execute("SELECT sno_generate()")
        assert type(cur.fetchone()[0]) is Sno
        other = conn.cursor()
        other.execute("SELECT 'brpk4q72xwf2m63l'::sno")
        assert other.fetchone() == ("brpk4q72xwf2m63l",)  # not registered there
    conn.close()


def test_registration_leaves_the_transaction_state_alone(dsn):
    conn = psycopg2.connect(dsn)  # not autocommit
    try:
        register_types(conn)
        assert conn.info.transaction_status == IDLE
        cur = conn.cursor()
        cur.execute("SELECT 1")
        register_types(conn)
        assert conn.info.transaction_status != IDLE  # still in the caller's transaction
        cur.execute("SELECT sno_generate()")
        assert type(cur.fetchone()[0]) is Sno
    finally:
        conn.close()


def test_not_a_connection():
    with pytest.raises(TypeError, match="psycopg2 connection or cursor"):
        register_types("dbname=x")


def test_bad_text_never_becomes_a_value():
    with pytest.raises(FlakeError):
        Sno("brpk4q72xwf2m63'")


def test_extension_schema_is_looked_up_and_missing_types_skipped(scratch_dsn):
    conn = psycopg2.connect(scratch_dsn)
    conn.autocommit = True
    try:
        assert register_types(conn) == {}
        cur = conn.cursor()
        cur.execute("CREATE SCHEMA ids; CREATE EXTENSION pg_flake SCHEMA ids")
        registered = register_types(conn)
        assert sorted(registered) == TYPE_NAMES
        assert registered["sno"].regtype == "ids.sno"
        cur.execute("SELECT ids.sno_generate()")
        sno = cur.fetchone()[0]
        assert type(sno) is Sno
        # Parameters name the type as this connection sees it.
        assert cur.mogrify("%s", [sno]) == f"'{sno}'::ids.sno".encode()
        cur.execute("SELECT ids.sno_timestamp(%s)", [sno])
        assert cur.fetchone()[0] == sno.time
    finally:
        conn.close()


def test_drop_and_create_extension(scratch_dsn):
    sno = Sno("brpk4q72xwf2m63l")
    conn = psycopg2.connect(scratch_dsn)
    conn.autocommit = True
    try:
        cur = conn.cursor()
        cur.execute("CREATE EXTENSION pg_flake")
        old = register_types(conn)["sno"].oid
        cur.execute("DROP EXTENSION pg_flake; CREATE EXTENSION pg_flake")
        # Parameters hold no OIDs and go on working; results arrive as text ...
        cur.execute("SELECT %s::sno", [sno])
        assert cur.fetchone() == (str(sno),)
        # ... until the new OIDs are registered.
        registered = register_types(conn)
        assert registered["sno"].oid != old
        cur.execute("SELECT %s, ARRAY[%s]", [sno, sno])
        assert cur.fetchone() == (sno, [sno])
    finally:
        conn.close()
