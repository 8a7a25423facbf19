"""Every reference vector of the formats this package covers (tests/vectors,
see its README): decoding, encoding, fields, times, constructors, and the
rejection of invalid input with the extension's SQLSTATE. No server needed.

The ``generator_sequence`` vectors exercise the server's generators, which
this package does not have. Of distributedid128.jsonl only the base62 form of
a uuid applies (the rest are SQL functions on ``uuid``), and publicid.jsonl
(AES) does not.
"""

from __future__ import annotations

import uuid
from datetime import datetime

import pytest
from conftest import integer, micros, vectors

from pg_flake import (
    DistributedId,
    FlakeError,
    FlaxId,
    Kuid96,
    Siq,
    Sno,
    alphanumeric_decode_bigint,
    alphanumeric_decode_uuid,
    alphanumeric_encode_bigint,
    alphanumeric_encode_uuid,
    kuid64_decode,
    kuid64_encode,
    kuid64_from_parts,
    kuid64_from_time,
    kuid64_parts,
    kuid_node_fingerprint,
    siq_domain_hash,
    snowflake_from_parts,
    snowflake_from_time,
    snowflake_parts,
)


def sqlstates(vector):
    accepted = vector["sqlstate"]
    return accepted if isinstance(accepted, list) else [accepted]


def rejects(vector, call, *args):
    with pytest.raises(FlakeError) as error:
        call(*args)
    assert error.value.sqlstate in sqlstates(vector), str(error.value)


def check_time(value_micros: int, expected: str, value_time=None):
    """The exact microseconds, and the datetime where Python has one."""
    assert value_micros == micros(expected)
    if value_time is not None:
        assert value_time == datetime.fromisoformat(expected.replace("Z", "+00:00"))


def check_value(cls, vector):
    value = cls(vector["text"])
    assert bytes(value).hex() == vector["bytes_hex"]
    from_bytes = cls.from_bytes(bytes.fromhex(vector["bytes_hex"]))
    assert from_bytes == value and str(from_bytes) == vector["text"]
    return value


def in_datetime_range(time: str) -> bool:
    return len(time.split("-")[0]) == 4


# --- sno ---------------------------------------------------------------------------------


@pytest.mark.parametrize("v", [p for p in vectors("sno") if p.values[0]["kind"] != "out_of_range"])
def test_sno(v):
    sno = check_value(Sno, v)
    parts = v["parts"]
    check_time(sno.unix_micros, parts["time"], sno.time)
    assert (sno.tick_tock, sno.meta, sno.partition, sno.sequence) == (
        parts["tick_tock"],
        parts["meta"],
        parts["partition"],
        parts["sequence"],
    )
    fields = (parts["meta"], parts["partition"], parts["sequence"], parts["tick_tock"])
    assert Sno.from_parts(micros(parts["time"]), *fields) == sno
    if "input_time" in v:
        # Built from a time inside the 4 ms unit: rounds down.
        assert Sno.from_parts(micros(v["input_time"]), *fields) == sno
        assert Sno.from_time(micros(v["input_time"])) == Sno.from_parts(
            micros(parts["time"]), 0, 0, 0
        )


@pytest.mark.parametrize("v", vectors("sno", "out_of_range"))
def test_sno_out_of_range(v):
    time = micros(v["input"]["time"])
    rejects(v, Sno.from_time, time)
    rejects(
        v, Sno.from_parts, time, v["input"]["meta"], v["input"]["partition"], v["input"]["sequence"]
    )


@pytest.mark.parametrize("v", vectors("sno-invalid", "invalid_text"))
def test_sno_invalid_text(v):
    rejects(v, Sno, v["input"])


@pytest.mark.parametrize("v", vectors("sno-invalid", "invalid_bytes"))
def test_sno_invalid_bytes(v):
    rejects(v, Sno.from_bytes, bytes.fromhex(v["input_bytes_hex"]))


# --- siq ---------------------------------------------------------------------------------

SIQ_ERRORS = ("out_of_range", "invalid_domain")


@pytest.mark.parametrize("v", [p for p in vectors("siq") if p.values[0]["kind"] not in SIQ_ERRORS])
def test_siq(v):
    siq = check_value(Siq, v)
    parts = v["parts"]
    assert siq.ticks == parts["ticks"]
    check_time(siq.unix_micros, parts["time"], siq.time)
    assert (siq.shard, siq.domain_hash, siq.kind, siq.serial, siq.low16) == (
        parts["shard"],
        parts["domain_hash"],
        parts["kind"],
        parts["serial"],
        parts["low16"],
    )
    # Every other form, both ways.
    assert siq.did == v["did"] and Siq(v["did"]) == siq and Siq(v["did"].upper()) == siq
    assert Siq(v["text"].upper()) == siq
    assert (
        siq.hex == v["hex"]
        and Siq.from_hex(v["hex"]) == siq
        and Siq.from_hex(v["hex"].upper()) == siq
    )
    assert siq.base64 == v["base64"] and Siq.from_base64(v["base64"]) == siq
    assert int(siq) == integer(v["integer"]) and Siq.from_int(integer(v["integer"])) == siq
    if parts["kind"] is not None:
        fields = (parts["shard"], parts["domain_hash"], parts["kind"], parts["serial"])
        assert Siq.from_parts_ticks(parts["ticks"], *fields) == siq
        assert (
            Siq.from_parts_ticks(
                parts["ticks"],
                parts["shard"],
                parts["domain_hash"],
                parts["kind"].upper(),
                parts["serial"],
            )
            == siq
        )
    if "input_time" in v:
        assert Siq.from_time(micros(v["input_time"])).ticks == parts["ticks"]
    if "domain" in v:
        expected = siq_domain_hash(v["domain"])
        if "domain_hash_of_domain" in v:
            assert expected == v["domain_hash_of_domain"]
        if v.get("node"):
            # pg_flake.siq_node replaces the top byte of the hash.
            expected = v["node"] << 24 | expected & 0xFFFFFF
        assert parts["domain_hash"] == expected


@pytest.mark.parametrize("v", vectors("siq", "out_of_range"))
def test_siq_out_of_range(v):
    i = v["input"]
    rejects(
        v,
        Siq.from_parts_ticks,
        integer(i["ticks"]),
        i["shard"],
        i["domain_hash"],
        i["kind"],
        i["serial"],
    )


@pytest.mark.parametrize("v", vectors("siq", "invalid_domain"))
def test_siq_invalid_domain(v):
    rejects(v, siq_domain_hash, v["input"])


# --- distributed_id ----------------------------------------------------------------------

DISTRIBUTED_ID_VALUES = (
    "alphanumeric",
    "hex",
    "alphanumeric_decode",
    "hex_decode",
    "limit",
    "value",
)


@pytest.mark.parametrize("v", vectors("distributedid", *DISTRIBUTED_ID_VALUES))
def test_distributed_id(v):
    did = check_value(DistributedId, v)
    assert did.value == int(did) == int(v["text"])
    assert (
        did.alphanumeric == v["alphanumeric"]
        and DistributedId.from_alphanumeric(v["alphanumeric"]) == did
    )
    assert did.hex == v["hex"] and DistributedId.from_hex(v["hex"]) == did
    assert DistributedId.from_int(int(v["text"])) == did
    if v["kind"] == "alphanumeric_decode":
        assert DistributedId.from_alphanumeric(v["input"]) == did
    if v["kind"] == "hex_decode":
        assert DistributedId.from_hex(v["input"]) == did
    if "parts" in v:  # absent where the timestamp field is 2^45 or more
        check_time(did.unix_micros, v["parts"]["time"], did.time)
        assert did.random == integer(v["parts"]["random"])
        assert (
            DistributedId.from_parts(micros(v["parts"]["time"]), integer(v["parts"]["random"]))
            == did
        )


@pytest.mark.parametrize("v", vectors("distributedid", "bigint_alphanumeric"))
def test_bigint_alphanumeric(v):
    assert alphanumeric_encode_bigint(integer(v["integer"])) == v["alphanumeric"]
    assert alphanumeric_decode_bigint(v["alphanumeric"]) == integer(v["integer"])


@pytest.mark.parametrize("v", vectors("distributedid128", "value", "alphanumeric", "numeric"))
def test_uuid_alphanumeric(v):
    value = uuid.UUID(v["text"])
    assert value.bytes.hex() == v["bytes_hex"] and value.int == integer(v["numeric"])
    assert alphanumeric_encode_uuid(value) == v["alphanumeric"]
    assert alphanumeric_decode_uuid(v["alphanumeric"]) == value


DECODERS = {
    "alphanumeric_decode_distributed_id": DistributedId.from_alphanumeric,
    "distributed_id_from_hex": DistributedId.from_hex,
    "alphanumeric_decode_bigint": alphanumeric_decode_bigint,
    "alphanumeric_decode_uuid": alphanumeric_decode_uuid,
}


@pytest.mark.parametrize(
    "v", vectors("distributedid", "invalid") + vectors("distributedid128", "invalid")
)
def test_distributed_id_invalid(v):
    rejects(v, DECODERS[v["function"]], v["input"])


@pytest.mark.parametrize("v", vectors("distributedid", "out_of_range"))
def test_distributed_id_out_of_range(v):
    if v["function"] == "numeric::distributed_id":
        rejects(v, DistributedId.from_int, int(v["input"]))
    else:
        time = micros(v["input"]["time"])
        rejects(v, DistributedId.from_time, time)
        rejects(v, DistributedId.from_parts, time, integer(v["input"]["random"]))


# --- flaxid ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "v", [p for p in vectors("flaxid") if p.values[0]["kind"] != "out_of_range"]
)
def test_flaxid(v):
    flaxid = check_value(FlaxId, v)
    check_time(flaxid.unix_micros, v["parts"]["time"], flaxid.time)
    assert flaxid.random == integer(v["parts"]["random"])
    assert FlaxId.from_parts(micros(v["parts"]["time"]), integer(v["parts"]["random"])) == flaxid
    assert FlaxId.from_time(flaxid.time) == FlaxId.from_parts(flaxid.time, 0)


@pytest.mark.parametrize("v", vectors("flaxid", "out_of_range"))
def test_flaxid_out_of_range(v):
    time = micros(v["input"]["time"])
    rejects(v, FlaxId.from_time, time)
    rejects(v, FlaxId.from_parts, time, integer(v["input"]["random"]))


# --- kuid64 and kuid96 -------------------------------------------------------------------


@pytest.mark.parametrize(
    "v", [p for p in vectors("kuid64") if p.values[0]["kind"] != "out_of_range"]
)
def test_kuid64(v):
    value = integer(v["integer"])
    assert value.to_bytes(8, "big").hex() == v["bytes_hex"]
    assert kuid64_encode(value) == v["text"] and kuid64_decode(v["text"]) == value
    parts, expected = kuid64_parts(value), v["parts"]
    check_time(
        parts.unix_micros,
        expected["time"],
        parts.time if in_datetime_range(expected["time"]) else None,
    )
    assert (parts.megaseconds, parts.seconds, parts.microseconds, parts.seq) == (
        expected["megaseconds"],
        expected["seconds"],
        expected["microseconds"],
        expected["seq"],
    )
    assert (
        kuid64_from_parts(micros(v.get("input_time", expected["time"])), expected["seq"]) == value
    )
    assert kuid64_from_time(micros(expected["time"])) == value - expected["seq"]


@pytest.mark.parametrize("v", vectors("kuid64", "out_of_range"))
def test_kuid64_out_of_range(v):
    time = micros(v["input"]["time"])
    rejects(v, kuid64_from_time, time)
    rejects(v, kuid64_from_parts, time, v["input"]["seq"])


@pytest.mark.parametrize("v", vectors("kuid96"))
def test_kuid96(v):
    kuid = check_value(Kuid96, v)
    interval, expected = v["interval"], v["parts"]
    parts = kuid.parts(interval)
    check_time(
        parts.unix_micros,
        expected["time"],
        parts.time if in_datetime_range(expected["time"]) else None,
    )
    assert (parts.node, parts.seq, kuid.seq) == (v["node"], expected["seq"], expected["seq"])
    assert expected["node"] == v["node"]
    if "node_name" in v:
        assert kuid_node_fingerprint(v["node_name"]) == v["node"]
    if "kuid64" in v:  # absent where the time is beyond kuid64's range
        assert Kuid96.globalize(integer(v["kuid64"]), v["node"], interval) == kuid
        assert kuid.localize(interval) == integer(v["kuid64"])
    time = micros(v.get("input_time", expected["time"]))
    assert Kuid96.from_parts(time, v["node"], expected["seq"], interval) == kuid
    if interval == 8:
        assert (kuid.unix_micros, kuid.node) == (parts.unix_micros, parts.node)


# --- snowflake ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "v", [p for p in vectors("snowflake") if p.values[0]["kind"] != "out_of_range"]
)
def test_snowflake(v):
    value, epoch, expected = int(v["text"]), v["epoch_ms"], v["parts"]
    assert value.to_bytes(8, "big").hex() == v["bytes_hex"]
    parts = snowflake_parts(value, epoch)
    check_time(parts.unix_micros, expected["time"], parts.time)
    assert (parts.worker, parts.process, parts.sequence) == (
        expected["worker"],
        expected["process"],
        expected["sequence"],
    )
    fields = (expected["worker"], expected["process"], expected["sequence"])
    assert snowflake_from_parts(micros(expected["time"]), *fields, epoch_ms=epoch) == value
    assert snowflake_from_time(parts.time, epoch) == value & ~((1 << 22) - 1)


@pytest.mark.parametrize("v", vectors("snowflake", "out_of_range"))
def test_snowflake_out_of_range(v):
    i = v["input"]
    rejects(
        v,
        snowflake_from_parts,
        micros(i["time"]),
        i["worker"],
        i["process"],
        i["sequence"],
        i["epoch_ms"],
    )


def test_every_vector_file_is_read():
    """A renamed or emptied vector file must not silently run no test."""
    counts = {
        f: len(vectors(f))
        for f in (
            "sno",
            "sno-invalid",
            "siq",
            "distributedid",
            "distributedid128",
            "flaxid",
            "kuid64",
            "kuid96",
            "snowflake",
        )
    }
    assert all(counts.values()), counts
