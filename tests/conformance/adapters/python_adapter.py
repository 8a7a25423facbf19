#!/usr/bin/env python3
"""The conformance adapter of the Python package (python/pg_flake), speaking
tests/conformance/PROTOCOL.md on stdin/stdout. Public API only."""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "python"))

import pg_flake as pf
from pg_flake import FlakeError


def num(value) -> int:
    return int(value)


def wire(value: int):
    return value if abs(value) <= 1 << 53 else str(value)


def signed64(data: bytes) -> int:
    if len(data) != 8:
        raise FlakeError(f"expected exactly 8 bytes, got {len(data)}", "22P03")
    return int.from_bytes(data, "big", signed=True)


def hex8(value: int) -> str:
    return (value % (1 << 64)).to_bytes(8, "big").hex()


def order(a, b) -> dict:
    return {"order": (a > b) - (a < b), "equal": a == b}


class ValueType:
    """The native types: one value class each (pg_flake.FlakeId)."""

    def __init__(self, cls, parts, from_parts, encodings=None):
        self.cls, self.read_parts, self.build = cls, parts, from_parts
        self.encodings = encodings or {}

    def value(self, a):
        return self.cls.from_bytes(bytes.fromhex(a["bytes_hex"]))

    def parse(self, a):
        return {"bytes_hex": bytes(self.cls(a["text"])).hex()}

    def format(self, a):
        return {"text": str(self.value(a))}

    def parts(self, a):
        return {"parts": self.read_parts(self.value(a), a)}

    def from_parts(self, a):
        return {"bytes_hex": bytes(self.build(a["parts"], a)).hex()}

    def from_time(self, a):
        return {"bytes_hex": bytes(self.cls.from_time(num(a["time"]), **opts(a))).hex()}

    def encode(self, a):
        return {"value": self.encodings[a["encoding"]][0](self.value(a))}

    def decode(self, a):
        return {"bytes_hex": bytes(self.encodings[a["encoding"]][1](a["value"])).hex()}

    def compare(self, a):
        return order(self.value({"bytes_hex": a["a"]}), self.value({"bytes_hex": a["b"]}))


def opts(a) -> dict:
    return {"interval": a["interval"]} if "interval" in a else {}


SNO = ValueType(
    pf.Sno,
    lambda s, a: {
        "time": s.unix_micros,
        "tick_tock": s.tick_tock,
        "meta": s.meta,
        "partition": s.partition,
        "sequence": s.sequence,
    },
    lambda p, a: pf.Sno.from_parts(
        num(p["time"]), p["meta"], p["partition"], p["sequence"], p.get("tick_tock", False)
    ),
)
SIQ = ValueType(
    pf.Siq,
    lambda s, a: {
        "time": s.unix_micros,
        "ticks": wire(s.ticks),
        "shard": s.shard,
        "domain_hash": s.domain_hash,
        "kind": s.kind,
        "serial": s.serial,
        "low16": s.low16,
    },
    lambda p, a: pf.Siq.from_parts_ticks(
        num(p["ticks"]), p["shard"], num(p["domain_hash"]), p["kind"], p["serial"]
    ),
    {
        "did": (lambda s: s.did, pf.Siq),
        "hex": (lambda s: s.hex, pf.Siq.from_hex),
        "base64": (lambda s: s.base64, pf.Siq.from_base64),
        "integer": (lambda s: str(int(s)), lambda v: pf.Siq.from_int(num(v))),
    },
)
DISTRIBUTED_ID = ValueType(
    pf.DistributedId,
    lambda d, a: {"time": d.unix_micros, "random": d.random},
    lambda p, a: pf.DistributedId.from_parts(num(p["time"]), num(p["random"])),
    {
        "integer": (lambda d: str(int(d)), lambda v: pf.DistributedId.from_int(num(v))),
        "hex": (lambda d: d.hex, pf.DistributedId.from_hex),
        "alphanumeric": (lambda d: d.alphanumeric, pf.DistributedId.from_alphanumeric),
    },
)
FLAXID = ValueType(
    pf.FlaxId,
    lambda f, a: {"time": f.unix_micros, "random": wire(f.random)},
    lambda p, a: pf.FlaxId.from_parts(num(p["time"]), num(p["random"])),
)
KUID96 = ValueType(
    pf.Kuid96,
    lambda k, a: dict(zip(("time", "node", "seq"), k.parts(**opts(a)))),
    lambda p, a: pf.Kuid96.from_parts(num(p["time"]), num(p["node"]), p["seq"], **opts(a)),
)


class Uuid(ValueType):
    """distributed_id128: functions on uuid.UUID."""

    def __init__(self):
        super().__init__(
            None,
            lambda u, a: dict(zip(("time", "random"), pf.distributed_id128_parts(u))),
            lambda p, a: pf.distributed_id128_from_parts(num(p["time"]), num(p["random"])),
            {
                "numeric": (
                    lambda u: str(pf.distributed_id128_to_numeric(u)),
                    lambda v: pf.distributed_id128_from_numeric(num(v)),
                ),
                "alphanumeric": (pf.alphanumeric_encode_uuid, pf.alphanumeric_decode_uuid),
            },
        )

    def value(self, a):
        data = bytes.fromhex(a["bytes_hex"])
        if len(data) != 16:
            raise FlakeError(f"expected exactly 16 bytes, got {len(data)}", "22P03")
        return uuid.UUID(bytes=data)

    def parse(self, a):
        return {"bytes_hex": uuid.UUID(a["text"]).bytes.hex()}

    def from_parts(self, a):
        return {"bytes_hex": self.build(a["parts"], a).bytes.hex()}

    def from_time(self, a):
        return {"bytes_hex": pf.distributed_id128_from_time(num(a["time"])).bytes.hex()}

    def decode(self, a):
        return {"bytes_hex": self.encodings[a["encoding"]][1](a["value"]).bytes.hex()}


class Bigint:
    """kuid64, snowflake and plain bigints: functions on int."""

    def __init__(self, text, parts=None, from_parts=None, from_time=None, encodings=None):
        self.text, self.read_parts, self.build = text, parts, from_parts
        self.from_time_fn, self.encodings = from_time, encodings or {}

    def parse(self, a):
        return {"bytes_hex": hex8(self.text[1](a["text"]))}

    def format(self, a):
        return {"text": self.text[0](signed64(bytes.fromhex(a["bytes_hex"])))}

    def parts(self, a):
        return {"parts": self.read_parts(signed64(bytes.fromhex(a["bytes_hex"])), a)}

    def from_parts(self, a):
        return {"bytes_hex": hex8(self.build(a["parts"], a))}

    def from_time(self, a):
        return {"bytes_hex": hex8(self.from_time_fn(num(a["time"]), a))}

    def encode(self, a):
        return {"value": self.encodings[a["encoding"]][0](signed64(bytes.fromhex(a["bytes_hex"])))}

    def decode(self, a):
        return {"bytes_hex": hex8(self.encodings[a["encoding"]][1](a["value"]))}

    def compare(self, a):
        return order(*(signed64(bytes.fromhex(a[k])) for k in "ab"))


def snowflake_text(text: str) -> int:
    value = int(text)
    pf.snowflake_parts(value)  # refuses a negative value (22003)
    return value


def epoch(a) -> dict:
    return {"epoch_ms": num(a["epoch_ms"])} if "epoch_ms" in a else {}


KUID64 = Bigint(
    (pf.kuid64_encode, pf.kuid64_decode),
    lambda v, a: {
        k: wire(x)
        for k, x in zip(
            ("time", "megaseconds", "seconds", "microseconds", "seq"), pf.kuid64_parts(v)
        )
    },
    lambda p, a: pf.kuid64_from_parts(num(p["time"]), p["seq"]),
    lambda t, a: pf.kuid64_from_time(t),
    {"integer": (lambda v: str(v), lambda v: pf.kuid64_decode(pf.kuid64_encode(num(v))))},
)
SNOWFLAKE = Bigint(
    (lambda v: str(pf.snowflake_parts(v) and v), snowflake_text),
    lambda v, a: dict(
        zip(("time", "worker", "process", "sequence"), pf.snowflake_parts(v, **epoch(a)))
    ),
    lambda p, a: pf.snowflake_from_parts(
        num(p["time"]), p["worker"], p["process"], p["sequence"], **epoch(a)
    ),
    lambda t, a: pf.snowflake_from_time(t, **epoch(a)),
)
BIGINT = Bigint(
    None, encodings={"alphanumeric": (pf.alphanumeric_encode_bigint, pf.alphanumeric_decode_bigint)}
)

TYPES = {
    "sno": SNO,
    "siq": SIQ,
    "distributed_id": DISTRIBUTED_ID,
    "flaxid": FLAXID,
    "kuid96": KUID96,
    "distributed_id128": Uuid(),
    "kuid64": KUID64,
    "snowflake": SNOWFLAKE,
    "bigint": BIGINT,
}
EXTRA = {
    ("siq", "domain_hash"): lambda a: {"domain_hash": pf.siq_domain_hash(a["domain"])},
    ("kuid96", "globalize"): lambda a: {
        "bytes_hex": bytes(pf.Kuid96.globalize(num(a["kuid64"]), num(a["node"]), **opts(a))).hex()
    },
    ("kuid96", "localize"): lambda a: {"kuid64": wire(KUID96.value(a).localize(**opts(a)))},
    ("kuid96", "node_fingerprint"): lambda a: {"node": pf.kuid_node_fingerprint(a["name"])},
}
OPS = ("parse", "format", "parts", "from_parts", "from_time", "encode", "decode", "compare")


def answer(request: dict) -> dict:
    t, op, args = request["type"], request["op"], request["args"]
    if op == "hello":
        return {
            "ok": {"language": "python", "package": f"pg_flake {pf.__version__}", "protocol": 1}
        }
    handler = EXTRA.get((t, op))
    if handler is None and t in TYPES and op in OPS:
        handler = getattr(TYPES[t], op)
    if handler is None:
        return {"unsupported": f"pg_flake for Python has no {t} {op}"}
    try:
        return {"ok": handler(args)}
    except FlakeError as error:
        return {"error": {"sqlstate": error.sqlstate, "message": str(error)}}
    except Exception as error:  # noqa: BLE001 (a bug, not a refusal: counted as a failure)
        return {"error": {"sqlstate": None, "message": f"{type(error).__name__}: {error}"}}


def main() -> None:
    out = sys.stdout
    for line in sys.stdin:
        request = json.loads(line)
        out.write(json.dumps({"id": request["id"], **answer(request)}) + "\n")


if __name__ == "__main__":
    main()
