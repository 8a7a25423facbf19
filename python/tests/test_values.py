"""How the value classes behave as Python values, and the messages of their
errors (which mirror the extension's, docs/sql-reference.md "Errors"). No server needed."""

from __future__ import annotations

import copy
import pickle
from datetime import datetime, timedelta, timezone

import pytest

import pg_flake
from pg_flake import (
    DistributedId,
    FlakeError,
    FlaxId,
    Kuid96,
    Siq,
    Sno,
    kuid64_parts,
    snowflake_parts,
)

EXAMPLES = {
    Sno: "brpk4q72xwf2m63l",
    Siq: "crxckuyagku7racaaacmgzymuoabo",
    DistributedId: "1088824355131185736905670087",
    FlaxId: "17cQYV3E6XowHpdd",
    Kuid96: ".5.tXa0xODNvPN.0",
}
UTC = timezone.utc


@pytest.mark.parametrize("cls", list(EXAMPLES))
def test_value_semantics(cls):
    text = EXAMPLES[cls]
    value = cls(text)
    assert str(value) == text
    assert repr(value) == f"{cls.__name__}({text!r})"
    assert eval(repr(value), vars(pg_flake)) == value
    assert len(bytes(value)) == cls.LEN and cls.from_bytes(bytes(value)) == value
    assert (
        cls.from_bytes(bytearray(bytes(value))) == cls.from_bytes(memoryview(bytes(value))) == value
    )
    assert hash(value) == hash(cls(text)) and len({value, cls(text)}) == 1
    assert pickle.loads(pickle.dumps(value)) == value
    assert copy.copy(value) is value and copy.deepcopy(value) is value
    assert pg_flake.TYPES[cls.TYPE_NAME] is cls
    with pytest.raises(AttributeError, match="immutable"):
        value._bytes = b""
    with pytest.raises(AttributeError):
        value.anything = 1
    with pytest.raises(TypeError, match="from_bytes"):
        cls(bytes(value))


@pytest.mark.parametrize("cls", list(EXAMPLES))
def test_order_is_byte_order(cls):
    value = cls(EXAMPLES[cls])
    raw = bytes(value)
    successor = cls.from_bytes((int.from_bytes(raw, "big") + 1).to_bytes(len(raw), "big"))
    assert value < successor and value <= successor and successor > value and successor >= value
    assert value != successor and not value == successor
    values = [cls.from_bytes(bytes([b]) * cls.LEN) for b in (9, 0, 5)]
    assert [bytes(v)[0] for v in sorted(values)] == [0, 5, 9]


def test_different_types_never_compare_equal():
    assert Sno(EXAMPLES[Sno]) != EXAMPLES[Sno]
    assert FlaxId.from_bytes(bytes(12)) != Kuid96.from_bytes(bytes(12))
    with pytest.raises(TypeError):
        _ = FlaxId.from_bytes(bytes(12)) < Kuid96.from_bytes(bytes(12))


def test_errors_mirror_the_extension():
    with pytest.raises(FlakeError) as e:
        Sno("abc")
    assert e.value.sqlstate == "22P02"
    assert e.value.message == 'invalid input syntax for type sno: "abc"'
    assert e.value.detail == "Expected 16 characters from 2-9 and a-x."
    assert (
        str(e.value)
        == 'invalid input syntax for type sno: "abc". Expected 16 characters from 2-9 and a-x.'
    )
    assert isinstance(e.value, ValueError)

    with pytest.raises(FlakeError) as e:
        Sno.from_bytes(b"\x00")
    assert (e.value.sqlstate, str(e.value)) == (
        "22P03",
        "invalid binary value for type sno: expected exactly 10, got 1 bytes",
    )

    with pytest.raises(FlakeError) as e:
        Sno.from_parts(datetime(2024, 1, 1, tzinfo=UTC), 256, 0, 0)
    assert (e.value.sqlstate, str(e.value)) == (
        "22003",
        'sno field "meta" out of range: 256 (accepted: 0 to 255)',
    )

    with pytest.raises(FlakeError) as e:
        Sno.from_time(datetime(2009, 12, 31, tzinfo=UTC))
    assert (e.value.sqlstate, str(e.value)) == (
        "22008",
        "timestamp out of range for type sno: "
        "accepted 2010-01-01 00:00:00+00 to 2079-09-07 15:47:35.551999+00",
    )

    with pytest.raises(FlakeError) as e:
        DistributedId("10000000000000000000000000000")
    assert (e.value.sqlstate, str(e.value)) == (
        "22003",
        'value "10000000000000000000000000000" is out of range for type distributed_id. '
        "Accepted values: 0 to 9999999999999999999999999999.",
    )

    with pytest.raises(FlakeError) as e:
        Siq.from_parts(datetime(2024, 1, 1, tzinfo=UTC), 0, 0, "robot", 0)
    assert e.value.sqlstate == "22023"
    assert str(e.value).startswith('unknown SIQ kind "robot"; accepted kinds: user, application,')

    with pytest.raises(FlakeError) as e:
        Kuid96(EXAMPLES[Kuid96]).parts(4)
    assert (e.value.sqlstate, str(e.value)) == ("22023", "kuid interval 4 is outside 5 to 10")


def test_siq_text_is_checked():
    text = EXAMPLES[Siq]
    assert Siq("did:siq:" + text) == Siq("DID:SIQ:" + text.upper()) == Siq(text)
    corrupted = text[:-1] + ("a" if text[-1] != "a" else "b")
    with pytest.raises(FlakeError, match="valid checksum"):
        Siq(corrupted)
    with pytest.raises(FlakeError):
        Siq("9" + text[1:])  # top bit of the first character belongs to the zero prefix


def test_distributed_id_text_input_is_postgres_like():
    assert DistributedId("  00042\n") == DistributedId.from_int(42)
    assert str(DistributedId("0000")) == "0"
    for bad in ("", " ", "-1", "1.0", "４２", "0x10"):
        with pytest.raises(FlakeError) as e:
            DistributedId(bad)
        assert e.value.sqlstate == "22P02", bad
    with pytest.raises(FlakeError) as e:
        DistributedId.from_bytes(b"\xff" * 12)
    assert e.value.sqlstate == "22003"


def test_times():
    when = datetime(2024, 2, 29, 12, 0, 0, 123456, tzinfo=UTC)
    assert Sno.from_time(when).time == datetime(2024, 2, 29, 12, 0, 0, 120000, tzinfo=UTC)
    assert FlaxId.from_time(when).time == datetime(2024, 2, 29, 12, 0, 0, 123000, tzinfo=UTC)
    siq = Siq.from_time(when)
    # The tick's start rounds down to the microsecond, so going back can
    # land one tick early, never late (docs/sql-reference.md, "siq").
    assert Siq.from_time(siq.time).ticks in (siq.ticks - 1, siq.ticks)
    assert siq.time <= when < siq.time + timedelta(microseconds=16)
    # Any time zone, same instant.
    plus_two = when.astimezone(timezone(timedelta(hours=2)))
    assert Sno.from_time(plus_two) == Sno.from_time(when)
    assert Sno.from_time(when).time.tzinfo is UTC
    with pytest.raises(ValueError, match="naive datetime"):
        Sno.from_time(datetime(2024, 1, 1))
    with pytest.raises(TypeError):
        Sno.from_time("2024-01-01")
    # Past year 9999: the exact forms still work, the datetime cannot.
    far = Kuid96("zzzzFYzzzzzzx2zz")
    assert far.parts(5).unix_micros > 10**15
    with pytest.raises(OverflowError, match="unix_micros"):
        _ = far.parts(5).time
    assert kuid64_parts(0).time == datetime(1970, 1, 1, tzinfo=UTC)


def test_snowflake_epochs():
    parts = snowflake_parts(1445219882930520064, 1288834974657)
    assert parts.time == datetime(2021, 10, 5, 2, 50, 45, 634000, tzinfo=UTC)
    with pytest.raises(FlakeError) as e:
        snowflake_parts(1, -1)
    assert e.value.sqlstate == "22023"
    with pytest.raises(FlakeError) as e:
        snowflake_parts(-1)
    assert e.value.sqlstate == "22003"
