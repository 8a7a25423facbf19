"""psycopg 3 against a real server: results as values in text and binary
mode, typed parameters, arrays, COPY both ways and formats, the async
connection, the extension's schema looked up, and missing types skipped."""

from __future__ import annotations

import asyncio
import os
from datetime import datetime, timezone

import psycopg
import pytest
from psycopg import pq

from pg_flake import DistributedId, FlakeError, FlaxId, Kuid96, Siq, Sno
from pg_flake.psycopg import register_types

GENERATORS = {
    Sno: "sno_generate()",
    Siq: "siq_generate('message')",
    DistributedId: "distributed_id_generate()",
    FlaxId: "flaxid_generate()",
    Kuid96: "kuid96_generate()",
}
TYPE_NAMES = sorted(cls.TYPE_NAME for cls in GENERATORS)


def random_values(cls, n):
    values = (
        [cls.from_bytes(os.urandom(cls.LEN)) for _ in range(n - 2)]
        if cls is not DistributedId
        else [
            DistributedId.from_int(int.from_bytes(os.urandom(12), "big") % 10**28)
            for _ in range(n - 2)
        ]
    )
    # The extremes of the byte range, where every value of these lengths is valid.
    low = cls.from_bytes(bytes(cls.LEN))
    high = (
        DistributedId.from_int(10**28 - 1)
        if cls is DistributedId
        else cls.from_bytes(b"\xff" * cls.LEN)
    )
    return values + [low, high]


@pytest.fixture
def conn(dsn):
    with psycopg.connect(dsn, autocommit=True) as conn:
        registered = register_types(conn)
        assert sorted(registered) == TYPE_NAMES
        yield conn


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
@pytest.mark.parametrize("cls", list(GENERATORS), ids=lambda c: c.TYPE_NAME)
def test_results_are_values(conn, cls, binary):
    row = conn.execute(
        f"SELECT x, x::text, x::bytea, ARRAY[x, NULL] FROM (SELECT {GENERATORS[cls]} AS x) s",
        binary=binary,
    ).fetchone()
    value, text, raw, array = row
    assert type(value) is cls
    assert str(value) == text and bytes(value) == raw
    assert array == [value, None] and type(array[0]) is cls


@pytest.mark.parametrize("cls", list(GENERATORS), ids=lambda c: c.TYPE_NAME)
def test_python_and_server_agree_on_random_values(conn, cls):
    """200 random values per type go in binary (as an array parameter) and come
    back as the server's text and bytes: the Python codecs agree byte for byte."""
    values = random_values(cls, 200)
    rows = conn.execute(
        "SELECT x, x::text, x::bytea FROM unnest(%s) WITH ORDINALITY AS u(x, i) ORDER BY i",
        [values],
    ).fetchall()
    assert [r[0] for r in rows] == values
    assert [r[1] for r in rows] == [str(v) for v in values]
    assert [r[2] for r in rows] == [bytes(v) for v in values]
    # And the server sorts them as Python does.
    ordered = conn.execute("SELECT x FROM unnest(%s) x ORDER BY x", [values]).fetchall()
    assert [r[0] for r in ordered] == sorted(values)


def test_fields_agree_with_sql(conn):
    cur = conn.execute(
        "SELECT x, (sno_parts(x)).* FROM (SELECT sno_generate(7) x FROM generate_series(1, 20)"
        " UNION ALL SELECT unnest(%s::sno[])) s",
        [random_values(Sno, 50)],
    )
    for sno, time, tick_tock, meta, partition, sequence in cur:
        assert (sno.time, sno.tick_tock, sno.meta, sno.partition, sno.sequence) == (
            time,
            tick_tock,
            meta,
            partition,
            sequence,
        )

    # Random SIQs reach year 36812: their times are compared in microseconds.
    cur = conn.execute(
        "SELECT x, p.ticks, (extract(epoch FROM p.time) * 1000000)::int8, p.shard, p.domain_hash,"
        " p.kind, p.serial, siq_to_did(x), siq_to_hex(x), siq_to_base64(x), x::numeric"
        " FROM (SELECT siq_generate(k) x FROM unnest(ARRAY['user', 'thread', 'content']) k"
        " UNION ALL SELECT unnest(%s::siq[])) s, siq_parts(x) p",
        [random_values(Siq, 50)],
    )
    for siq, ticks, micros, shard, domain_hash, kind, serial, did, hex_, b64, number in cur:
        assert (siq.ticks, siq.unix_micros, siq.shard, siq.domain_hash, siq.kind, siq.serial) == (
            ticks,
            micros,
            shard,
            domain_hash,
            kind,
            serial,
        )
        assert (siq.did, siq.hex, siq.base64, int(siq)) == (did, hex_, b64, int(number))

    cur = conn.execute(
        "SELECT x, (distributed_id_parts(x)).*, distributed_id_to_hex(x), alphanumeric_encode(x),"
        " x::numeric FROM (SELECT distributed_id_generate() x"
        " UNION ALL SELECT unnest(%s::distributed_id[])) s",
        [random_values(DistributedId, 50)[:-1]],  # 10^28 - 1 lies past year 9999
    )
    for did, time, random, hex_, alphanumeric, number in cur:
        assert (did.time, did.random, did.hex, did.alphanumeric, did.value) == (
            time,
            random,
            hex_,
            alphanumeric,
            int(number),
        )

    cur = conn.execute(
        "SELECT x, (flaxid_parts(x)).* FROM (SELECT flaxid_generate() x"
        " UNION ALL SELECT unnest(%s::flaxid[])) s",
        [random_values(FlaxId, 50)],
    )
    for flaxid, time, random in cur:
        assert (flaxid.time, flaxid.random) == (time, random)

    cur = conn.execute(
        "SELECT x, (kuid96_parts(x, 8)).*, (kuid96_parts(x, 5)).*"
        " FROM (SELECT kuid96_generate() x FROM generate_series(1, 5)) s"
    )
    for kuid, time8, node8, seq8, time5, node5, seq5 in cur:
        assert (kuid.time, kuid.node, kuid.seq) == (time8, node8, seq8)
        assert (kuid.parts(5).time, kuid.parts(5).node, kuid.parts(5).seq) == (time5, node5, seq5)
    epoch_micros = "(extract(epoch FROM p.time) * 1000000)::int8"
    cur = conn.execute(
        f"SELECT x, i, {epoch_micros}, p.node, p.seq FROM unnest(%s::kuid96[]) x,"
        " generate_series(5, 10) i, kuid96_parts(x, i) p",
        [random_values(Kuid96, 50)],
    )
    for kuid, interval, micros, node, seq in cur:
        assert kuid.parts(interval) == (micros, node, seq)


def test_constructors_agree_with_sql(conn):
    when = datetime(2024, 2, 29, 12, 34, 56, 789012, tzinfo=timezone.utc)
    row = conn.execute(
        "SELECT sno_from_time(%(t)s), siq_from_time(%(t)s), distributed_id_from_time(%(t)s),"
        " flaxid_from_time(%(t)s), kuid96_from_time(%(t)s, 8),"
        " sno_from_parts(%(t)s, 1, 2, 3, true), siq_from_parts(%(t)s, 4, 5, 'thread', 6),"
        " distributed_id_from_parts(%(t)s, 7), flaxid_from_parts(%(t)s, 8),"
        " kuid96_from_parts(%(t)s, 9, 10, 6)",
        {"t": when},
    ).fetchone()
    assert row == (
        Sno.from_time(when),
        Siq.from_time(when),
        DistributedId.from_time(when),
        FlaxId.from_time(when),
        Kuid96.from_time(when),
        Sno.from_parts(when, 1, 2, 3, True),
        Siq.from_parts(when, 4, 5, "thread", 6),
        DistributedId.from_parts(when, 7),
        FlaxId.from_parts(when, 8),
        Kuid96.from_parts(when, 9, 10, 6),
    )


def test_parameters_are_typed(conn, table_name):
    conn.execute(f"CREATE TABLE {table_name} (id sno PRIMARY KEY, q siq)")
    sno, siq = Sno("brpk4q72xwf2m63l"), Siq("crxckuyagku7racaaacmgzymuoabo")
    conn.execute(f"INSERT INTO {table_name} VALUES (%s, %s)", [sno, siq])
    # No "operator does not exist: sno = bytea": the parameter is a sno.
    assert conn.execute(f"SELECT q FROM {table_name} WHERE id = %s", [sno]).fetchone() == (siq,)
    assert conn.execute(f"SELECT q FROM {table_name} WHERE id = %t", [sno]).fetchone() == (siq,)
    assert conn.execute(f"SELECT q FROM {table_name} WHERE id = %b", [sno]).fetchone() == (siq,)
    assert conn.execute(
        f"SELECT count(*) FROM {table_name} WHERE id > %s", [Sno.from_time(sno.time)]
    ).fetchone() == (1,)
    assert conn.execute(
        "SELECT pg_typeof(%s)::text, pg_typeof(%t)::text", [siq, siq]
    ).fetchone() == ("siq", "siq")
    # Client-side binding renders typed literals.
    client = psycopg.ClientCursor(conn)
    assert client.mogrify("SELECT %s, %s", [sno, [siq]]) == (
        f"SELECT '{sno}'::sno, '{{{siq}}}'::siq[]"
    )
    assert client.execute(f"SELECT q FROM {table_name} WHERE id = %s", [sno]).fetchone() == (siq,)


@pytest.mark.parametrize("fmt", ["TEXT", "BINARY"])
def test_copy(conn, table_name, fmt):
    conn.execute(f"CREATE TABLE {table_name} (s sno, q siq, d distributed_id, f flaxid, k kuid96)")
    rows = [tuple(random_values(cls, 3)[i] for cls in GENERATORS) for i in range(3)]
    rows.append((None, None, None, None, None))
    with conn.cursor() as cur:
        with cur.copy(f"COPY {table_name} FROM STDIN (FORMAT {fmt})") as copy:
            copy.set_types(TYPE_NAMES_IN_TABLE)
            for row in rows:
                copy.write_row(row)
            copy.write_row(tuple(str(v) for v in rows[0]))  # canonical text is accepted too
        with cur.copy(f"COPY {table_name} TO STDOUT (FORMAT {fmt})") as copy:
            copy.set_types(TYPE_NAMES_IN_TABLE)
            assert list(copy.rows()) == rows + rows[:1]
    # Bad text is refused, with the extension's message: before it is sent
    # (FlakeError) with current psycopg; 3.1 reports the COPY that the refusal
    # aborted, with the FlakeError as its context, or lets the server refuse it.
    with pytest.raises((FlakeError, psycopg.Error)) as error:
        with conn.cursor().copy(f"COPY {table_name} (s) FROM STDIN (FORMAT {fmt})") as copy:
            copy.set_types(["sno"])
            copy.write_row(["nope"])
    messages = [str(e) for e in (error.value, error.value.__context__) if e is not None]
    assert any(m.startswith('invalid input syntax for type sno: "nope"') for m in messages), (
        messages
    )
    assert conn.execute(f"SELECT count(*) FROM {table_name}").fetchone() == (len(rows) + 1,)


TYPE_NAMES_IN_TABLE = ["sno", "siq", "distributed_id", "flaxid", "kuid96"]


def test_registration_leaves_the_transaction_state_alone(dsn):
    with psycopg.connect(dsn) as conn:  # not autocommit
        register_types(conn)
        assert conn.info.transaction_status == pq.TransactionStatus.IDLE
        conn.execute("SELECT 1")
        register_types(conn)
        assert conn.info.transaction_status == pq.TransactionStatus.INTRANS
        assert type(conn.execute("SELECT sno_generate()").fetchone()[0]) is Sno


def test_async_connection(dsn, table_name):
    async def run():
        async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as aconn:
            registered = await register_types(aconn)
            assert sorted(registered) == TYPE_NAMES
            for binary in (False, True):
                cur = await aconn.execute(
                    "SELECT sno_generate(), siq_generate('user'), kuid96_generate()", binary=binary
                )
                assert [type(v) for v in await cur.fetchone()] == [Sno, Siq, Kuid96]
            await aconn.execute(f"CREATE TABLE {table_name} (id flaxid)")
            values = random_values(FlaxId, 5)
            async with aconn.cursor() as cur:
                async with cur.copy(f"COPY {table_name} FROM STDIN (FORMAT BINARY)") as copy:
                    copy.set_types(["flaxid"])
                    for v in values:
                        await copy.write_row([v])
                await cur.execute(
                    f"SELECT id FROM {table_name} WHERE id = ANY(%s) ORDER BY id", [values]
                )
                assert [r[0] for r in await cur.fetchall()] == sorted(values)

    asyncio.run(run())


def test_extension_schema_is_looked_up_and_missing_types_skipped(scratch_dsn):
    with psycopg.connect(scratch_dsn, autocommit=True) as conn:
        assert register_types(conn) == {}  # no pg_flake in this database yet
        conn.execute("CREATE SCHEMA ids; CREATE EXTENSION pg_flake SCHEMA ids")
        assert conn.execute("SHOW search_path").fetchone() == ('"$user", public',)
        registered = register_types(conn)
        assert sorted(registered) == TYPE_NAMES
        assert registered["sno"].regtype == "ids.sno"
        sno = conn.execute("SELECT ids.sno_generate()").fetchone()[0]
        assert type(sno) is Sno
        assert conn.execute("SELECT ids.sno_timestamp(%s)", [sno]).fetchone() == (sno.time,)
        conn.execute("CREATE TABLE t (id ids.sno)")
        with conn.cursor().copy("COPY t FROM STDIN (FORMAT BINARY)") as copy:
            copy.set_types(["sno"])
            copy.write_row([sno])
        assert conn.execute("SELECT id FROM t").fetchall() == [(sno,)]


def test_pools(dsn):
    from psycopg_pool import AsyncConnectionPool, ConnectionPool

    with ConnectionPool(dsn, min_size=2, max_size=2, configure=register_types) as pool:
        for _ in range(3):
            with pool.connection() as conn:
                assert type(conn.execute("SELECT siq_generate('tag')").fetchone()[0]) is Siq

    async def run():
        async with AsyncConnectionPool(
            dsn, min_size=2, max_size=2, configure=register_types, open=False
        ) as pool:
            for _ in range(3):
                async with pool.connection() as aconn:
                    cur = await aconn.execute("SELECT flaxid_generate()", binary=True)
                    assert type((await cur.fetchone())[0]) is FlaxId

    asyncio.run(run())
