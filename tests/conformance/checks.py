"""The checks of the conformance runner, derived from tests/vectors/*.jsonl
(PROTOCOL.md, "What the runner checks"). Everything the runner knows about
the vectors is here; runner.py only sends the requests and compares.
"""

from __future__ import annotations

import base64
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

VECTORS = Path(__file__).resolve().parents[1] / "vectors"

# file → the protocol type of its value vectors.
FILE_TYPES = {
    "sno": "sno",
    "sno-invalid": "sno",
    "siq": "siq",
    "distributedid": "distributed_id",
    "distributedid128": "distributed_id128",
    "flaxid": "flaxid",
    "kuid64": "kuid64",
    "kuid96": "kuid96",
    "snowflake": "snowflake",
    "publicid": "public_id",
}


def _keep_top(bits: int, width: int):
    def mask(value: int, vector: dict) -> int:
        return value >> (width - bits) << (width - bits)

    return mask


def _kuid96_mask(value: int, vector: dict) -> int:
    low = 24 + vector.get("interval", 8)
    return value & ~((0xFFFF_FFFF << low) | 0x3FFF)


@dataclass(frozen=True)
class TypeInfo:
    length: int  # stored bytes
    mask: Any  # from_time: the bits kept (PROTOCOL.md, "What the runner checks")
    encodings: dict = field(default_factory=dict)  # encoding → the vector field holding it
    options: tuple = ()  # vector fields passed as options
    signed: bool = False  # a bigint: compared as a signed integer


TYPES = {
    "sno": TypeInfo(10, _keep_top(39, 80)),
    "siq": TypeInfo(
        14,
        _keep_top(56, 112),
        {"did": "did", "hex": "hex", "base64": "base64", "integer": "integer"},
    ),
    "distributed_id": TypeInfo(
        12, _keep_top(48, 96), {"integer": "text", "hex": "hex", "alphanumeric": "alphanumeric"}
    ),
    "distributed_id128": TypeInfo(
        16, _keep_top(52, 128), {"numeric": "numeric", "alphanumeric": "alphanumeric"}
    ),
    "flaxid": TypeInfo(12, _keep_top(40, 96)),
    "kuid64": TypeInfo(8, lambda v, _: v >> 14 << 14, {"integer": "integer"}, signed=True),
    "kuid96": TypeInfo(12, _kuid96_mask, options=("interval",)),
    "snowflake": TypeInfo(8, _keep_top(42, 64), options=("epoch_ms",), signed=True),
    "bigint": TypeInfo(8, None, {"alphanumeric": "alphanumeric"}, signed=True),
}
INTEGER_ENCODINGS = ("integer", "numeric")
UPPER_CASE_DECODES = {"siq": ("did", "hex")}
DECODE_KINDS = {"alphanumeric_decode": "alphanumeric", "hex_decode": "hex"}
DECODERS = {  # error vectors' functions that decode one string
    "alphanumeric_decode_distributed_id": ("distributed_id", "alphanumeric"),
    "alphanumeric_decode_uuid": ("distributed_id128", "alphanumeric"),
    "alphanumeric_decode_bigint": ("bigint", "alphanumeric"),
    "distributed_id_from_hex": ("distributed_id", "hex"),
}

_RFC3339 = re.compile(r"(\d{4,})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?Z")


def _days_from_civil(year: int, month: int, day: int) -> int:
    # H. Hinnant's algorithm, as core/src/time.rs: exact for any year.
    y = year - 1 if month <= 2 else year
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (month - 3 if month > 2 else month + 9) + 2) // 5 + day - 1
    return era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468


def micros(text: str) -> int:
    """Microseconds since 1970 of an RFC 3339 UTC time, rounded down, any year."""
    m = _RFC3339.fullmatch(text)
    if not m:
        raise ValueError(f"not an RFC 3339 UTC time: {text!r}")
    year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
    fraction = (m.group(7) or "").ljust(9, "0")
    seconds = _days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second
    return seconds * 1_000_000 + int(fraction) // 1000


def wire_int(value: int) -> int | str:
    """An integer as the protocol writes it: a string above 2^53."""
    return value if abs(value) <= 1 << 53 else str(value)


@dataclass
class Check:
    file: str
    vector: str
    type: str
    op: str
    args: dict
    # ("ok", {field: expected}) or ("error", [sqlstates])
    expect: tuple
    optional: bool = False

    def request(self, id_: int) -> dict:
        return {"id": id_, "type": self.type, "op": self.op, "args": self.args}


class UnknownVector(Exception):
    pass


def _check_wire(value: Any, where: str) -> None:
    """Integers above 2^53 travel as strings (PROTOCOL.md): a JavaScript or
    Java adapter would read a larger JSON number inexactly."""
    if isinstance(value, dict):
        for item in value.values():
            _check_wire(item, where)
    elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > 1 << 53:
        raise AssertionError(f"{where}: the runner would send {value} as a JSON number")


def _timed(parts: dict) -> dict:
    """A vector's parts (or input) with its time in microseconds."""
    out = dict(parts)
    if "time" in out:
        out["time"] = wire_int(micros(out["time"]))
    return out


def _int_or(value: Any) -> Any:
    """The vectors write integers above 2^53 as strings; the answers are compared as integers."""
    return int(value) if isinstance(value, str) and re.fullmatch(r"-?[0-9]+", value) else value


def _hex_of_int(value: int, length: int) -> str:
    return (value % (1 << (8 * length))).to_bytes(length, "big").hex()


def _uuid_hex(text: str) -> str:
    return text.replace("-", "").lower()


class Deriver:
    def __init__(self):
        self.checks: list[Check] = []
        self.not_sent: list[str] = []
        self.values: dict[tuple[str, str], list[tuple[str, str]]] = {}

    def add(self, file, v, type_, op, args, expect, optional=False):
        _check_wire(args, f"{file}.jsonl {v['name']}")
        self.checks.append(Check(file, v["name"], type_, op, args, expect, optional))

    def ok(self, file, v, type_, op, args, **expected):
        self.add(file, v, type_, op, args, ("ok", expected))

    def error(self, file, v, type_, op, args, optional=False):
        states = v["sqlstate"] if isinstance(v["sqlstate"], list) else [v["sqlstate"]]
        self.add(file, v, type_, op, args, ("error", states), optional)

    # --- value vectors -------------------------------------------------------------------

    def value(self, file: str, t: str, v: dict) -> None:
        info = TYPES[t]
        data = v["bytes_hex"]
        opts = {k: v[k] for k in info.options if k in v}
        self.ok(file, v, t, "parse", {"text": v["text"]}, bytes_hex=data)
        self.ok(file, v, t, "format", {"bytes_hex": data}, text=v["text"])
        if t == "siq":
            for text in (v["text"].upper(), v["did"], v["did"].upper()):
                self.ok(file, v, t, "parse", {"text": text}, bytes_hex=data)
        if "parts" in v:
            self.parts(file, t, v, opts)
        for encoding, source in info.encodings.items():
            if source not in v:
                continue
            encoded = int(v[source]) if encoding in INTEGER_ENCODINGS else v[source]
            wire = wire_int(encoded) if isinstance(encoded, int) else encoded
            self.ok(file, v, t, "encode", {"bytes_hex": data, "encoding": encoding}, value=encoded)
            self.ok(file, v, t, "decode", {"encoding": encoding, "value": wire}, bytes_hex=data)
            if encoding in UPPER_CASE_DECODES.get(t, ()):
                args = {"encoding": encoding, "value": encoded.upper()}
                self.ok(file, v, t, "decode", args, bytes_hex=data)
        if v["kind"] in DECODE_KINDS:
            args = {"encoding": DECODE_KINDS[v["kind"]], "value": v["input"]}
            self.ok(file, v, t, "decode", args, bytes_hex=data)
        if t == "siq" and "domain" in v:
            expected = v.get("domain_hash_of_domain", v["parts"]["domain_hash"])
            if "domain_hash_of_domain" in v and v.get("node"):
                # pg_flake.siq_node replaces the top byte of the hash.
                assert v["node"] << 24 | expected & 0xFFFFFF == v["parts"]["domain_hash"]
            self.ok(file, v, t, "domain_hash", {"domain": v["domain"]}, domain_hash=expected)
        if t == "kuid96":
            if "node_name" in v:
                self.ok(file, v, t, "node_fingerprint", {"name": v["node_name"]}, node=v["node"])
            if "kuid64" in v:
                args = {"kuid64": v["kuid64"], "node": v["node"], **opts}
                self.ok(file, v, t, "globalize", args, bytes_hex=data)
                args = {"bytes_hex": data, **opts}
                self.ok(file, v, t, "localize", args, kuid64=int(v["kuid64"]))
        self.values.setdefault((file, t), []).append((v["name"], data))

    def parts(self, file: str, t: str, v: dict, opts: dict) -> None:
        data = v["bytes_hex"]
        expected = {k: (micros(x) if k == "time" else _int_or(x)) for k, x in v["parts"].items()}
        self.ok(file, v, t, "parts", {"bytes_hex": data, **opts}, parts=expected)
        if t != "siq" or v["parts"]["kind"] is not None:
            args = {"parts": _timed(v["parts"]), **opts}
            self.ok(file, v, t, "from_parts", args, bytes_hex=data)
            if "input_time" in v and t != "siq":
                args = {
                    "parts": {**_timed(v["parts"]), "time": wire_int(micros(v["input_time"]))},
                    **opts,
                }
                self.ok(file, v, t, "from_parts", args, bytes_hex=data)
        time = v.get("input_time") or (None if t == "siq" else v["parts"]["time"])
        if time is not None:
            masked = TYPES[t].mask(int(data, 16), v)
            args = {"time": wire_int(micros(time)), **opts}
            self.ok(file, v, t, "from_time", args, bytes_hex=_hex_of_int(masked, TYPES[t].length))

    def compares(self) -> None:
        for (file, t), values in self.values.items():
            signed = TYPES[t].signed
            for i, (name, a) in enumerate(values):
                vector = {"name": name}
                self.ok(file, vector, t, "compare", {"a": a, "b": a}, order=0, equal=True)
                if i + 1 < len(values):
                    b = values[i + 1][1]
                    x, y = (int.from_bytes(bytes.fromhex(h), "big", signed=signed) for h in (a, b))
                    order = (x > y) - (x < y)
                    args = {"a": a, "b": b}
                    self.ok(file, vector, t, "compare", args, order=order, equal=order == 0)

    # --- error vectors -------------------------------------------------------------------

    def failure(self, file: str, t: str, v: dict) -> None:
        function, given = v.get("function", ""), v.get("input")
        if file == "sno-invalid" and v["kind"] == "invalid_text":
            self.error(file, v, t, "parse", {"text": given})
        elif file == "sno-invalid" and v["kind"] == "invalid_bytes":
            self.error(file, v, t, "format", {"bytes_hex": v["input_bytes_hex"]})
        elif function == f"{t}_from_time, {t}_from_parts":
            self.error(file, v, t, "from_time", {"time": wire_int(micros(given["time"]))})
            self.error(file, v, t, "from_parts", {"parts": _timed(given)})
        elif function == f"{t}_from_parts":
            opts = {k: given[k] for k in TYPES[t].options if k in given}
            self.error(file, v, t, "from_parts", {"parts": _timed(given), **opts})
        elif function == "siq_domain_hash(text)":
            self.error(file, v, t, "domain_hash", {"domain": given})
        elif function == "numeric::distributed_id":
            args = {"encoding": "integer", "value": wire_int(int(given))}
            self.error(file, v, "distributed_id", "decode", args)
        elif function in DECODERS:
            decoder_type, encoding = DECODERS[function]
            args = {"encoding": encoding, "value": given}
            self.error(file, v, decoder_type, "decode", args)
        elif function == "public_id_encrypt":
            args = {"input_type": v["input_type"], "input": given, "key_base64": v["key_base64"]}
            self.error(file, v, t, "encrypt", args, optional=True)
        elif function == "public_id_encrypt, public_id_decrypt_*":
            key = base64.b64encode(bytes.fromhex(v["key_hex"])).decode()
            args = {"input_type": "bigint", "input": "1", "key_base64": key}
            self.error(file, v, t, "encrypt", args, optional=True)
            for output in ("bigint", "distributed_id", "uuid"):
                args = {"public_id": "00000000-0000-0000-0000-000000000000", "key_base64": key}
                self.error(file, v, t, "decrypt", {**args, "output_type": output}, optional=True)
        else:
            raise UnknownVector(f"{file}.jsonl {v['name']}: no request for function {function!r}")

    # --- the rest ------------------------------------------------------------------------

    def public_id(self, file: str, v: dict) -> None:
        key = v["key_base64"]
        if v["kind"] == "encrypt":
            args = {"input_type": v["input_type"], "input": v["input"], "key_base64": key}
            self.add(
                file, v, "public_id", "encrypt", args, ("ok", {"public_id": v["public_id"]}), True
            )
            args = {"bytes_hex": _uuid_hex(v["public_id"]), "encoding": "alphanumeric"}
            self.ok(file, v, "distributed_id128", "encode", args, value=v["public_alphanumeric"])
        for output, expected in v["decrypt"].items():
            args = {"public_id": v["public_id"], "key_base64": key, "output_type": output}
            self.add(file, v, "public_id", "decrypt", args, ("ok", {"value": expected}), True)

    def generator(self, file: str, t: str, v: dict) -> None:
        if v["case"] == "random_increment":
            args = {"previous_random": v["previous_random"], "draw": v["draw"]}
            expected = _int_or(v["expected_random"])
            self.add(file, v, t, "random_increment", args, ("ok", {"random": expected}), True)
        elif v["case"] == "random_from_bytes":
            args = {"bytes_hex": v["csprng_bytes_hex"]}
            expected = _int_or(v["expected_random"])
            self.add(file, v, t, "random_from_bytes", args, ("ok", {"random": expected}), True)
        elif v["case"] == "scenario":
            self.not_sent.append(f"{file}.jsonl {v['name']}")
        else:
            raise UnknownVector(f"{file}.jsonl {v['name']}: unknown case {v['case']!r}")

    def vector(self, file: str, v: dict) -> None:
        t = FILE_TYPES[file]
        if v.get("expect") == "error":
            self.failure(file, t, v)
        elif v["kind"] == "generator_sequence":
            self.generator(file, t, v)
        elif file == "publicid" and v["kind"] in ("encrypt", "decrypt"):
            self.public_id(file, v)
        elif v["kind"] == "bigint_alphanumeric":
            data = _hex_of_int(int(v["integer"]), 8)
            self.value_bigint(file, v, data)
        elif "bytes_hex" in v and "text" in v:
            self.value(file, t, v)
        else:
            raise UnknownVector(f"{file}.jsonl {v['name']}: kind {v['kind']!r} has no checks")

    def value_bigint(self, file: str, v: dict, data: str) -> None:
        args = {"bytes_hex": data, "encoding": "alphanumeric"}
        self.ok(file, v, "bigint", "encode", args, value=v["alphanumeric"])
        args = {"encoding": "alphanumeric", "value": v["alphanumeric"]}
        self.ok(file, v, "bigint", "decode", args, bytes_hex=data)


def derive(vectors: Path = VECTORS) -> tuple[list[Check], list[str], int]:
    """Every check of every vector file, the vectors not sent, and the vector count."""
    deriver = Deriver()
    count = 0
    files = sorted(p.stem for p in vectors.glob("*.jsonl"))
    unknown = set(files) - set(FILE_TYPES)
    if unknown:
        raise UnknownVector(f"vector files the runner does not know: {sorted(unknown)}")
    for file in files:
        for line in (vectors / f"{file}.jsonl").read_text(encoding="utf-8").splitlines():
            if line.strip():
                deriver.vector(file, json.loads(line))
                count += 1
    deriver.compares()
    return deriver.checks, deriver.not_sent, count
