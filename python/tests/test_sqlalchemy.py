"""SQLAlchemy 2 against a real server, with the psycopg and asyncpg dialects:
Core and ORM, server defaults with RETURNING, filters (bound and literal),
reflection without warnings."""

from __future__ import annotations

import asyncio
import warnings
from datetime import datetime, timedelta, timezone

import psycopg
import pytest
from conftest import sqlalchemy_url
from sqlalchemy import (
    Column,
    MetaData,
    String,
    Table,
    create_engine,
    event,
    exc,
    func,
    insert,
    select,
    text,
)
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from pg_flake import DistributedId, FlakeError, FlaxId, Kuid96, Siq, Sno
from pg_flake.asyncpg import register_types as register_asyncpg
from pg_flake.sqlalchemy import (
    TYPE_ANNOTATION_MAP,
    DistributedIdType,
    FlaxIdType,
    Kuid96Type,
    SiqType,
    SnoType,
)

UTC = timezone.utc
# A type without cache_ok, or any other SQLAlchemy warning, fails the test.
pytestmark = pytest.mark.filterwarnings("error::sqlalchemy.exc.SAWarning")


def events_table(name: str, metadata: MetaData) -> Table:
    return Table(
        name,
        metadata,
        Column("id", SnoType, primary_key=True, server_default=text("sno_generate()")),
        Column("siq", SiqType, server_default=text("siq_generate('event')")),
        Column("did", DistributedIdType, server_default=text("distributed_id_generate()")),
        Column("flax", FlaxIdType, server_default=text("flaxid_generate()")),
        Column("kuid", Kuid96Type, server_default=text("kuid96_generate()")),
        Column("kind", String),
    )


@pytest.fixture
def engine(dsn):
    engine = create_engine(sqlalchemy_url(dsn, "psycopg"))
    yield engine
    engine.dispose()


def test_core_with_psycopg(engine, table_name):
    events = events_table(table_name, MetaData())
    events.metadata.create_all(engine)
    with engine.begin() as conn:
        row = conn.execute(insert(events).values(kind="a").returning(events)).one()
        assert [type(v) for v in row[:5]] == [Sno, Siq, DistributedId, FlaxId, Kuid96]
        first = row.id
        conn.execute(insert(events), [{"kind": "b"}, {"kind": "c"}])
        explicit = Sno.from_parts(datetime(2020, 1, 1, tzinfo=UTC), 0, 0, 1)
        conn.execute(insert(events).values(id=explicit, kind="old"))
        conn.execute(
            insert(events).values(id="brpk4q72xwf2m63l", kind="text")
        )  # canonical text binds too

        assert conn.execute(select(events.c.kind).where(events.c.id == first)).scalar_one() == "a"
        assert (
            conn.execute(select(events.c.kind).where(events.c.siq == row.siq)).scalar_one() == "a"
        )
        since = datetime.now(UTC) - timedelta(minutes=5)
        recent = (
            conn.execute(
                select(events.c.kind)
                .where(events.c.id >= Sno.from_time(since))
                .where(events.c.id < Sno.from_time(datetime(2031, 1, 1, tzinfo=UTC)))
                .order_by(events.c.id)
            )
            .scalars()
            .all()
        )
        assert recent == ["a", "b", "c"]
        # Every row's siq comes from its server default, so every one is recent.
        assert (
            conn.execute(
                select(func.count()).where(events.c.siq > Siq.from_time(since))
            ).scalar_one()
            == 5
        )
        later = Siq.from_time(datetime.now(UTC) + timedelta(hours=1))
        assert conn.execute(select(func.count()).where(events.c.siq > later)).scalar_one() == 0
        assert conn.execute(select(events.c.id).where(events.c.kind == "text")).scalar_one() == Sno(
            "brpk4q72xwf2m63l"
        )
        assert conn.execute(select(func.min(events.c.id))).scalar_one() == explicit

        # Literal SQL renders '…'::sno and runs.
        query = select(events.c.kind).where(events.c.id == explicit)
        sql = str(query.compile(engine, compile_kwargs={"literal_binds": True}))
        assert f"'{explicit}'::sno" in sql and "VARCHAR" not in sql
        assert conn.execute(text(sql)).scalar_one() == "old"
        # Bound: the parameter is cast to the type, not to VARCHAR.
        assert "::sno" in str(query.compile(engine)) and "VARCHAR" not in str(query.compile(engine))

        with pytest.raises(exc.StatementError) as error:
            conn.execute(select(events).where(events.c.id == "not-an-id"))
        assert isinstance(error.value.orig, FlakeError)


def test_orm(engine, table_name):
    class Base(DeclarativeBase):
        type_annotation_map = TYPE_ANNOTATION_MAP

    class Event(Base):
        __tablename__ = table_name
        id: Mapped[Sno] = mapped_column(primary_key=True, server_default=text("sno_generate()"))
        public_id: Mapped[Siq] = mapped_column(
            server_default=text("siq_generate('event')"), unique=True
        )
        kind: Mapped[str]

    Base.metadata.create_all(engine)
    with Session(engine) as session:
        session.add_all([Event(kind="x"), Event(kind="y")])
        session.commit()
        x = session.scalars(select(Event).where(Event.kind == "x")).one()
        assert type(x.id) is Sno and type(x.public_id) is Siq
        assert x.public_id.kind == "event"
        assert session.get(Event, x.id) is x
    with Session(engine) as session:
        assert session.get(Event, x.id).kind == "x"
        by_public = session.scalars(select(Event).where(Event.public_id == x.public_id)).one()
        assert by_public.id == x.id
        window = select(Event.kind).where(Event.id >= Sno.from_time(x.id.time)).order_by(Event.id)
        assert session.scalars(window).all() == ["x", "y"]


def test_reflection(engine, dsn, table_name):
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(
            f"CREATE TABLE {table_name} (id sno PRIMARY KEY DEFAULT sno_generate(), siq siq,"
            " did distributed_id, flax flaxid, kuid kuid96, ids sno[])"
        )
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "Did not recognize type 'sno'"
        reflected = Table(table_name, MetaData(), autoload_with=engine)
    types = {c.name: type(c.type) for c in reflected.columns}
    assert types == {
        "id": SnoType,
        "siq": SiqType,
        "did": DistributedIdType,
        "flax": FlaxIdType,
        "kuid": Kuid96Type,
        "ids": types["ids"],
    }
    assert type(reflected.c.ids.type.item_type) is SnoType
    with engine.begin() as conn:
        new_id = conn.execute(
            insert(reflected).values(flax=FlaxId("17cQYV3E6XowHpdd")).returning(reflected.c.id)
        ).scalar_one()
        assert type(new_id) is Sno
        found = conn.execute(select(reflected.c.flax).where(reflected.c.id == new_id)).scalar_one()
        assert found == FlaxId("17cQYV3E6XowHpdd")


@pytest.mark.parametrize("registered", [False, True], ids=["text", "binary-codecs"])
def test_asyncpg_dialect(dsn, table_name, registered):
    """With asyncpg's text fallback for unknown types, or with the binary codecs of
    pg_flake.asyncpg set on every pooled connection."""

    async def main():
        engine = create_async_engine(sqlalchemy_url(dsn, "asyncpg"))
        if registered:

            @event.listens_for(engine.sync_engine, "connect")
            def on_connect(dbapi_connection, _record):
                dbapi_connection.run_async(register_asyncpg)

        events = events_table(table_name, MetaData())
        try:
            async with engine.begin() as conn:
                await conn.run_sync(events.metadata.create_all)
                result = await conn.execute(insert(events).values(kind="a").returning(events))
                row = result.one()
                assert [type(v) for v in row[:5]] == [Sno, Siq, DistributedId, FlaxId, Kuid96]
                await conn.execute(
                    insert(events).values(id="brpk4q72xwf2m63l", siq=None, kind="text")
                )
                query = select(events.c.kind).where(events.c.id == row.id)
                assert "$1::sno" in str(query.compile(engine.sync_engine))
                assert (await conn.execute(query)).scalar_one() == "a"
                since = select(events.c.kind).where(
                    events.c.siq > Siq.from_time(row.siq.unix_micros - 10**6)
                )
                assert (await conn.execute(since)).scalars().all() == ["a"]
                found = await conn.execute(select(events.c.id).where(events.c.kind == "text"))
                assert found.scalar_one() == Sno("brpk4q72xwf2m63l")
        finally:
            await engine.dispose()

    asyncio.run(main())
