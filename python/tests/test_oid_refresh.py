"""Type OIDs after DROP EXTENSION / CREATE EXTENSION (the same happens after a
restore into a new database): what fails while a connection still holds the
old OIDs, and that registering again (or expiring a pool's connections)
makes it work again. SQLAlchemy's column types hold no OIDs and are not
affected. Each test has a database of its own."""

from __future__ import annotations

import asyncio

import asyncpg
import psycopg
import pytest
from conftest import asyncpg_args, sqlalchemy_url
from sqlalchemy import Column, MetaData, Table, create_engine, insert, select, text

from pg_flake import Sno
from pg_flake.asyncpg import register_types as register_asyncpg
from pg_flake.psycopg import register_types as register_psycopg
from pg_flake.sqlalchemy import SnoType

SNO = Sno("brpk4q72xwf2m63l")
RECREATE = "DROP EXTENSION pg_flake CASCADE; CREATE EXTENSION pg_flake"


def test_psycopg(scratch_dsn):
    with psycopg.connect(scratch_dsn, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION pg_flake")
        old = register_psycopg(conn)["sno"].oid
        assert conn.execute("SELECT %s::sno", [SNO]).fetchone() == (SNO,)

        conn.execute(RECREATE)
        new = conn.execute("SELECT 'sno'::regtype::oid::int8").fetchone()[0]
        assert new != old
        # A value parameter still carries the old OID ...
        with pytest.raises(
            psycopg.errors.InternalError_, match=f"cache lookup failed for type {old}"
        ):
            conn.execute("SELECT %s::sno", [SNO])
        # ... and results of the new type are no longer recognised: plain text.
        assert conn.execute("SELECT 'brpk4q72xwf2m63l'::sno").fetchone() == ("brpk4q72xwf2m63l",)

        assert register_psycopg(conn)["sno"].oid == new
        assert conn.execute("SELECT %s::sno", [SNO]).fetchone() == (SNO,)
        assert conn.execute("SELECT %s::sno", [SNO], binary=True).fetchone() == (SNO,)
        conn.execute("CREATE TABLE t (id sno)")
        with conn.cursor().copy("COPY t FROM STDIN (FORMAT BINARY)") as copy:
            copy.set_types(["sno"])
            copy.write_row([SNO])
        assert conn.execute("SELECT id FROM t").fetchall() == [(SNO,)]


def test_psycopg_pool(scratch_dsn):
    from psycopg_pool import ConnectionPool

    with psycopg.connect(scratch_dsn, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION pg_flake")
        with ConnectionPool(
            scratch_dsn, min_size=2, max_size=2, configure=register_psycopg
        ) as pool:
            with pool.connection() as pooled:
                assert pooled.execute("SELECT %s::sno", [SNO]).fetchone() == (SNO,)
            conn.execute(RECREATE)
            with pool.connection() as pooled:
                with pytest.raises(psycopg.errors.InternalError_, match="cache lookup failed"):
                    pooled.execute("SELECT %s::sno", [SNO])
            pool.drain()  # new connections, each through configure
            for _ in range(3):
                with pool.connection() as pooled:
                    assert pooled.execute("SELECT %s::sno", [SNO]).fetchone() == (SNO,)


def test_asyncpg_connection_and_pool(scratch_dsn):
    async def main():
        args = asyncpg_args(scratch_dsn)
        conn = await asyncpg.connect(**args)
        try:
            await conn.execute("CREATE EXTENSION pg_flake")
            old = (await register_asyncpg(conn))["sno"]
            async with asyncpg.create_pool(
                **args, min_size=2, max_size=2, init=register_asyncpg
            ) as pool:
                assert await pool.fetchval("SELECT $1::sno", SNO) == SNO
                assert await conn.fetchval("SELECT $1::sno", SNO) == SNO

                await conn.execute(RECREATE)
                new = await conn.fetchval("SELECT 'sno'::regtype::oid::int8")
                assert new != old
                with pytest.raises(
                    asyncpg.InternalServerError, match=f"cache lookup failed for type {old}"
                ):
                    await conn.fetchval("SELECT $1::sno", SNO)
                assert await conn.fetchval("SELECT 'brpk4q72xwf2m63l'::sno") == "brpk4q72xwf2m63l"
                with pytest.raises(
                    asyncpg.InternalServerError, match=f"cache lookup failed for type {old}"
                ):
                    await pool.fetchval("SELECT $1::sno", SNO)

                # One connection: register again.
                assert (await register_asyncpg(conn))["sno"] == new
                assert await conn.fetchval("SELECT $1::sno", SNO) == SNO
                await conn.execute("CREATE TABLE t (id sno)")
                await conn.copy_records_to_table("t", records=[(SNO,)])
                assert await conn.fetchval("SELECT id FROM t") == SNO

                # A pool: replace its connections, which runs init on the new ones.
                await pool.expire_connections()
                for _ in range(3):
                    assert await pool.fetchval("SELECT $1::sno", SNO) == SNO
                    assert await pool.fetchval("SELECT id FROM t WHERE id = $1", SNO) == SNO
        finally:
            await conn.close()

    asyncio.run(main())


def test_sqlalchemy_types_hold_no_oids(scratch_dsn):
    with psycopg.connect(scratch_dsn, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION pg_flake")
    engine = create_engine(sqlalchemy_url(scratch_dsn, "psycopg"), pool_size=1)
    try:
        ids = Table("ids", MetaData(), Column("id", SnoType, server_default=text("sno_generate()")))
        for _ in range(2):
            with engine.begin() as conn:
                ids.metadata.create_all(conn)
                made = conn.execute(insert(ids).returning(ids.c.id)).scalar_one()
                assert type(made) is Sno
                assert conn.execute(select(ids.c.id).where(ids.c.id == made)).scalar_one() == made
                ids.metadata.drop_all(conn)
                conn.execute(text(RECREATE))  # the same pooled connection goes on after this
    finally:
        engine.dispose()
