"""pg_flake.django against a real server (pytest-django; the test database is
made by the project's migrations, the first of which creates the extension):
database-generated keys, values in and out, lookups on values and on
``__time`` (exact, and on the index), forms, the admin, serialisation,
migrations in step with the models, and no OIDs held."""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta, timezone

import pytest

if not os.environ.get("PG_FLAKE_TEST_DSN"):
    pytest.skip("PG_FLAKE_TEST_DSN is not set", allow_module_level=True)

from django.core import serializers  # noqa: E402
from django.core.exceptions import FieldError  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.forms import modelform_factory  # noqa: E402
from ids.models import Document, Event, Holder, Message, Order, Session  # noqa: E402

from pg_flake import DistributedId, FlaxId, Kuid96, Siq, Sno  # noqa: E402
from pg_flake.django import SiqField, SnoField  # noqa: E402

pytestmark = pytest.mark.django_db

GENERATED = {Event: Sno, Message: Siq, Session: Kuid96, Order: DistributedId, Document: FlaxId}
T0 = datetime(2024, 3, 1, 12, 0, 0, tzinfo=timezone.utc)


def driver():
    return type(connection.connection).__module__.split(".")[0]


def test_the_driver_is_the_one_asked_for():
    connection.ensure_connection()
    wanted = os.environ.get("PG_FLAKE_DJANGO_DRIVER", "psycopg")
    assert driver() == wanted


def test_the_migration_created_the_extension():
    with connection.cursor() as cur:
        cur.execute("SELECT extname FROM pg_extension WHERE extname = 'pg_flake'")
        assert cur.fetchall() == [("pg_flake",)]


def test_migrations_match_the_models():
    # Every field deconstructs to what the checked-in migration says.
    call_command("makemigrations", "ids", "--check", "--dry-run", verbosity=0)


@pytest.mark.parametrize("model", list(GENERATED), ids=lambda m: m.__name__)
def test_database_generates_the_key(model):
    cls = GENERATED[model]
    made = model.objects.create()
    assert type(made.pk) is cls  # read back with RETURNING
    assert model.objects.get(pk=made.pk).pk == made.pk
    assert model.objects.get(pk=str(made.pk)).pk == made.pk
    assert abs(made.pk.time - datetime.now(timezone.utc)) < timedelta(seconds=5)
    # bulk_create inserts generated keys, but Django 5.2 does not set a
    # db_default primary key on the objects (it does set other generated
    # fields, test_bulk_create_sets_generated_fields): README, "Django".
    model.objects.bulk_create([model(), model()])
    assert len(set(model.objects.values_list("pk", flat=True))) == 3


def test_bulk_create_sets_generated_fields():
    many = Holder.objects.bulk_create([Holder(), Holder()])
    assert all(type(h.made) is Sno for h in many)
    assert sorted(h.made for h in many) == sorted(Holder.objects.values_list("made", flat=True))


def test_siq_kind_and_foreign_key():
    event = Event.objects.create(kind="created")
    message = Message.objects.create(event=event, body="hi")
    assert message.pk.kind == "message"
    assert Message.objects.get(event=event).event_id == event.pk
    assert Message.objects.get(event_id=str(event.pk)) == message
    assert list(Event.objects.filter(message__body="hi")) == [event]
    # __time through a foreign key names the related key.
    since = event.pk.time
    assert list(Message.objects.filter(event__id__time__gte=since)) == [message]
    assert not Message.objects.filter(event__id__time__lt=since).exists()
    with pytest.raises(FieldError):
        Message.objects.filter(event__time__gte=since).count()


def test_siq_generate_needs_a_kind():
    with pytest.raises(TypeError, match="kind="):
        SiqField(generate=True)
    with pytest.raises(TypeError, match="not both"):
        SnoField(generate=True, db_default="x")


VALUES = {
    "sno": Sno("brpk4q72xwf2m63l"),
    "siq": Siq("crxckuyagku7racaaacmgzymuoabo"),
    "kuid96": Kuid96(".5.tXa0xODNvPN.0"),
    "distributed_id": DistributedId("1088824355131185736905670087"),
    "flaxid": FlaxId("17cQYV3E6XowHpdd"),
}


def test_values_in_and_out():
    holder = Holder.objects.create(**VALUES)
    assert type(holder.made) is Sno
    got = Holder.objects.get(pk=holder.pk)
    for name, value in VALUES.items():
        assert getattr(got, name) == value and type(getattr(got, name)) is type(value)
        # The server stored exactly these bytes.
        with connection.cursor() as cur:
            cur.execute(
                f"SELECT {name}::text, {name}::bytea FROM ids_holder WHERE id = %s", [got.pk]
            )
            text, raw = cur.fetchone()
        assert text == str(value) and bytes(raw) == bytes(value)
    assert Holder.objects.filter(**VALUES).get() == got
    # Canonical text is accepted where a value is expected.
    Holder.objects.filter(pk=holder.pk).update(sno="brpk4q72xwf2m63m", siq=None)
    got.refresh_from_db()
    assert got.sno == Sno("brpk4q72xwf2m63m") and got.siq is None
    assert list(Holder.objects.values_list("flaxid", flat=True)) == [VALUES["flaxid"]]


def test_bad_text_is_refused_before_the_query():
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError, match="invalid input syntax for type sno"):
        Holder.objects.filter(sno="nope").count()


def test_value_lookups():
    snos = [Sno.from_parts(T0 + timedelta(seconds=i), 0, 0, i) for i in range(5)]
    Holder.objects.bulk_create([Holder(sno=s) for s in snos])
    q = Holder.objects.order_by("sno").values_list("sno", flat=True)
    assert list(q) == snos
    assert list(q.filter(sno__gt=snos[2])) == snos[3:]
    assert list(q.filter(sno__gte=str(snos[2]))) == snos[2:]
    assert list(q.filter(sno__lt=snos[2])) == snos[:2]
    assert list(q.filter(sno__lte=snos[2])) == snos[:3]
    assert list(q.filter(sno__range=(snos[1], snos[3]))) == snos[1:4]
    assert list(q.filter(sno__in=[snos[0], str(snos[4])])) == [snos[0], snos[4]]
    assert list(q.filter(sno__gte=Sno.from_time(T0 + timedelta(seconds=3)))) == snos[3:]


def times_around(base, unit):
    """Unit-aligned and unaligned times around ``base``."""
    steps = [-2, -1, -0.5, 0, 0.25, 0.5, 1, 1.5, 2, 3]
    return [base + unit * s for s in steps]


def _ids(cls, field_interval=None):
    """IDs of every format at and around T0, some in the same time unit."""
    make = {
        Sno: lambda t, i: Sno.from_parts(t, 0, i % 7, i),
        Siq: lambda t, i: Siq.from_parts(t, i % 3, 12345, "message", i),
        Kuid96: lambda t, i: Kuid96.from_parts(t, (i * 7919) % 5, i, field_interval),
        DistributedId: lambda t, i: DistributedId.from_parts(t, i),
        FlaxId: lambda t, i: FlaxId.from_parts(t, i),
    }[cls]
    units = {
        Sno: timedelta(milliseconds=4),
        Siq: timedelta(microseconds=15),
        Kuid96: timedelta(seconds=17),  # across windows of 2^5 s and inside them
        DistributedId: timedelta(milliseconds=1),
        FlaxId: timedelta(milliseconds=1),
    }
    unit = units[cls]
    values = [make(t, i) for i, t in enumerate(times_around(T0, unit) + times_around(T0, unit))]
    return values, unit


@pytest.mark.parametrize(
    "name,cls",
    [
        ("sno", Sno),
        ("siq", Siq),
        ("kuid96", Kuid96),
        ("distributed_id", DistributedId),
        ("flaxid", FlaxId),
    ],
)
def test_time_lookups_are_exact(name, cls):
    """``__time__<op>`` gives exactly the rows whose T_timestamp satisfies it,
    the column bounds only narrowing what is read; at aligned and unaligned
    times, whatever the node order of kuid96 inside its windows."""
    values, unit = _ids(cls, 5)
    Holder.objects.bulk_create([Holder(**{name: v}) for v in values])
    with connection.cursor() as cur:
        cur.execute(
            f"SELECT {name}::text, {Holder._meta.get_field(name).timestamp_sql(name)}"
            f" FROM ids_holder WHERE {name} IS NOT NULL"
        )
        times = {cls(text): time for text, time in cur.fetchall()}
    assert len(times) == len(set(values))
    q = Holder.objects.values_list(name, flat=True)
    for t in times_around(T0, unit) + [T0 - timedelta(days=1), T0 + timedelta(days=1)]:
        for op, test in [
            ("exact", lambda x, t=t: x == t),
            ("gt", lambda x, t=t: x > t),
            ("gte", lambda x, t=t: x >= t),
            ("lt", lambda x, t=t: x < t),
            ("lte", lambda x, t=t: x <= t),
        ]:
            got = sorted(q.filter(**{f"{name}__time__{op}": t}))
            assert got == sorted(v for v, x in times.items() if test(x)), (op, t)
        high = t + unit * 2
        got = sorted(q.filter(**{f"{name}__time__range": (t, high)}))
        assert got == sorted(v for v, x in times.items() if t <= x <= high), t


def test_time_lookups_bound_the_column_for_the_index():
    Event.objects.bulk_create([Event(kind="x") for _ in range(3)])
    q = Event.objects.filter(id__time__gte=T0, id__time__lt=T0 + timedelta(days=1))
    sql, params = q.query.sql_with_params()
    assert '"ids_event"."id" >= %s' in sql and '"ids_event"."id" < %s' in sql
    assert str(Sno.from_time(T0)) in params
    with connection.cursor() as cur:
        cur.execute("SET LOCAL enable_seqscan = off")
    plan = q.explain()
    assert "ids_event_pkey" in plan, plan
    # Datetime transforms of __time work too (exactly, without the bounds).
    assert Event.objects.filter(id__time__year=datetime.now(timezone.utc).year).count() == 3
    # An expression on the right: no bound, still exact.
    from django.db.models import F

    assert Event.objects.filter(id__time__lte=F("id__time")).count() == 3


def test_times_outside_the_format_leave_the_bound_out():
    Holder.objects.create(sno=Sno.from_time(T0))
    early = datetime(2000, 1, 1, tzinfo=timezone.utc)  # before sno's 2010 epoch
    assert Holder.objects.filter(sno__time__gte=early).count() == 1
    assert Holder.objects.filter(sno__time__lt=early).count() == 0


def test_serialisation_is_canonical_text():
    holder = Holder.objects.create(**VALUES)
    data = json.loads(serializers.serialize("json", [holder]))
    fields = data[0]["fields"]
    for name, value in VALUES.items():
        assert fields[name] == str(value)
    assert fields["made"] == str(holder.made)
    event = Event.objects.create(kind="x")
    assert json.loads(serializers.serialize("json", [event]))[0]["pk"] == str(event.pk)

    Holder.objects.all().delete()
    (restored,) = serializers.deserialize("json", json.dumps(data))
    restored.save()
    got = Holder.objects.get()
    assert {name: getattr(got, name) for name in VALUES} == VALUES and got.made == holder.made


def test_model_form():
    form_class = modelform_factory(Holder, fields=list(VALUES))
    form = form_class(data={name: f"  {value}  " for name, value in VALUES.items()})
    assert form.is_valid(), form.errors
    holder = form.save()
    assert {name: getattr(holder, name) for name in VALUES} == VALUES
    assert form_class(instance=holder).initial["sno"] == VALUES["sno"]
    assert str(VALUES["sno"]) in str(form_class(instance=holder)["sno"])

    bad = form_class(data={"sno": "zzz", "flaxid": "17cQYV3E6XowHpdd"})
    assert not bad.is_valid()
    assert 'invalid input syntax for type sno: "zzz"' in bad.errors["sno"][0]
    # generate=True fields are not editable, like an AutoField.
    assert "made" not in modelform_factory(Holder, exclude=[])().fields


def test_admin(admin_client):
    event = Event.objects.create(kind="created")
    page = admin_client.get("/admin/ids/event/")
    assert page.status_code == 200 and str(event.pk) in page.content.decode()
    page = admin_client.get(f"/admin/ids/event/{event.pk}/change/")
    assert page.status_code == 200 and str(event.pk) in page.content.decode()
    response = admin_client.post(f"/admin/ids/event/{event.pk}/change/", {"kind": "renamed"})
    assert response.status_code == 302
    assert Event.objects.get(pk=event.pk).kind == "renamed"

    response = admin_client.post(
        "/admin/ids/holder/add/", {name: str(value) for name, value in VALUES.items()}
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    holder = Holder.objects.get()
    assert {name: getattr(holder, name) for name in VALUES} == VALUES
    response = admin_client.post("/admin/ids/holder/add/", {"sno": "zzz"})
    assert response.status_code == 200
    assert "invalid input syntax for type sno" in response.content.decode()


def test_fields_hold_no_oids():
    """DROP/CREATE EXTENSION gives the types new OIDs; the fields go on
    working on the same connection (the test's transaction undoes it all)."""
    with connection.cursor() as cur:
        cur.execute("SELECT 'sno'::regtype::oid::int8")
        (old,) = cur.fetchone()
        cur.execute("DROP EXTENSION pg_flake CASCADE")  # drops the columns too
        cur.execute("CREATE EXTENSION pg_flake")
        cur.execute("SELECT 'sno'::regtype::oid::int8")
        assert cur.fetchone()[0] != old
        cur.execute(
            "ALTER TABLE ids_holder ADD COLUMN sno sno, ADD COLUMN siq siq,"
            " ADD COLUMN kuid96 kuid96, ADD COLUMN distributed_id distributed_id,"
            " ADD COLUMN flaxid flaxid, ADD COLUMN made sno NOT NULL DEFAULT sno_generate()"
        )
    holder = Holder.objects.create(**VALUES)
    assert type(holder.made) is Sno
    got = Holder.objects.get(sno=VALUES["sno"], sno__time__gte=VALUES["sno"].time)
    assert {name: getattr(got, name) for name in VALUES} == VALUES


def test_values_from_a_registered_connection():
    """Where the driver connection has register_types, results arrive as value
    objects, which the fields take as they are."""
    connection.ensure_connection()
    if driver() == "psycopg":
        from pg_flake.psycopg import register_types
    else:
        from pg_flake.psycopg2 import register_types
    register_types(connection.connection)
    with connection.cursor() as cur:
        cur.execute("SELECT 'brpk4q72xwf2m63l'::sno")
        assert type(cur.fetchone()[0]) is Sno  # the driver's own conversion
    holder = Holder.objects.create(**VALUES)
    got = Holder.objects.get(pk=holder.pk, sno__time__gte=VALUES["sno"].time)
    assert {name: getattr(got, name) for name in VALUES} == VALUES
    assert type(got.made) is Sno
