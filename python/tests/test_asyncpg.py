"""asyncpg against a real server: binary codecs on a connection and a pool,
parameters, arrays and copy_records_to_table."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest
from conftest import asyncpg_args

from pg_flake import DistributedId, FlakeError, FlaxId, Kuid96, Siq, Sno
from pg_flake.asyncpg import register_types

SNO = Sno("brpk4q72xwf2m63l")
SIQ = Siq("crxckuyagku7racaaacmgzymuoabo")


def run(coroutine):
    return asyncio.run(coroutine)


def test_connection(dsn):
    async def main():
        conn = await asyncpg.connect(**asyncpg_args(dsn))
        try:
            registered = await register_types(conn)
            assert sorted(registered) == ["distributed_id", "flaxid", "kuid96", "siq", "sno"]
            row = await conn.fetchrow(
                "SELECT sno_generate() s, siq_generate('user') q, distributed_id_generate() d,"
                " flaxid_generate() f, kuid96_generate() k"
            )
            assert [type(v) for v in row.values()] == [Sno, Siq, DistributedId, FlaxId, Kuid96]
            # Values as parameters; the server sees the same bytes and text.
            assert await conn.fetchrow("SELECT $1::sno, $1::sno::text, $1::sno::bytea", SNO) == (
                SNO,
                str(SNO),
                bytes(SNO),
            )
            assert await conn.fetchval("SELECT siq_kind($1)", SIQ) == "message"
            # Canonical text is accepted for a parameter, checked first.
            assert await conn.fetchval("SELECT $1::sno", "brpk4q72xwf2m63l") == SNO
            with pytest.raises(
                asyncpg.DataError, match="invalid input syntax for type sno"
            ) as error:
                await conn.fetchval("SELECT $1::sno", "brpk4q72xwf2m63")
            assert isinstance(error.value.__cause__, FlakeError)
            # Arrays of the types.
            values = [SNO, None, Sno.from_time(SNO.time)]
            assert await conn.fetchval("SELECT $1::sno[]", values) == values
            assert await conn.fetchval(
                "SELECT array_agg(x ORDER BY x) FROM unnest($1::sno[]) x", values
            ) == [values[2], SNO, None]
        finally:
            await conn.close()

    run(main())


def test_copy_records_to_table(dsn, table_name):
    async def main():
        conn = await asyncpg.connect(**asyncpg_args(dsn))
        try:
            await register_types(conn)
            await conn.execute(
                f"CREATE TABLE {table_name} (s sno, q siq, d distributed_id, f flaxid, k kuid96)"
            )
            records = [
                (
                    SNO,
                    SIQ,
                    DistributedId("1088824355131185736905670087"),
                    FlaxId("17cQYV3E6XowHpdd"),
                    Kuid96(".5.tXa0xODNvPN.0"),
                ),
                ("brpk4q72xwf2m63m", None, DistributedId.from_int(0), None, None),
            ]
            result = await conn.copy_records_to_table(table_name, records=records)
            assert result == "COPY 2"
            rows = await conn.fetch(f"SELECT * FROM {table_name} ORDER BY s")
            assert [tuple(r) for r in rows] == [records[0], (Sno(records[1][0]),) + records[1][1:]]
            assert await conn.fetchval(f"SELECT count(*) FROM {table_name} WHERE q = $1", SIQ) == 1
        finally:
            await conn.close()

    run(main())


def test_pool(dsn, table_name):
    async def main():
        async with asyncpg.create_pool(
            **asyncpg_args(dsn), min_size=2, max_size=3, init=register_types
        ) as pool:
            await pool.execute(
                f"CREATE TABLE {table_name} (id sno PRIMARY KEY DEFAULT sno_generate(), n int)"
            )

            async def insert(n):
                async with pool.acquire() as conn:
                    return await conn.fetchval(
                        f"INSERT INTO {table_name} (n) VALUES ($1) RETURNING id", n
                    )

            ids = await asyncio.gather(*(insert(n) for n in range(12)))
            assert all(type(i) is Sno for i in ids) and len(set(ids)) == 12
            async with pool.acquire() as conn:
                await conn.copy_records_to_table(
                    table_name, records=[(Sno.from_time(ids[0].unix_micros - 10**6), 99)]
                )
            rows = await pool.fetch(
                f"SELECT id, n FROM {table_name} WHERE id = ANY($1::sno[])", ids
            )
            assert sorted(r["id"] for r in rows) == sorted(ids)

    run(main())
