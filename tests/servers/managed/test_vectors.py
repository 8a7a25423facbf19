"""Every vector of tests/vectors/ through pg_flake_sql (docs/managed.md
"Never drifting from native"), in each edition: the domain edition (psql -f), and the
pg_tle edition where pg_tle is installed, whose types' own text input and
output are checked too. The same checks as the native extension's
integration tests (tests/integration/tests/*.rs), with the edition's
<type>_from_text and <type>_to_text where those use the types' I/O casts,
and the generators' pure steps (_distributed_id_step,
_distributed_id128_step) fed the scenarios' clock readings and draws."""

from __future__ import annotations

import json

import pytest

from conftest import skip_without_pg_tle
from managed_lib import (
    SCHEMA,
    VECTORS,
    create_database,
    create_pgcrypto,
    has_pgcrypto,
    skip_without_pgcrypto,
    sqlstate_of,
)

MS = '\'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"\''
US = '\'YYYY-MM-DD"T"HH24:MI:SS.US"Z"\''
KEY_EXAMPLE = "k7fBDJcQam02hsByaOWPeP2CqeDeGXvrPUkEAQBtAFc="


def vectors(name: str) -> list[dict]:
    return [json.loads(line) for line in (VECTORS / name).read_text().splitlines() if line]


def accepts(expected, state) -> bool:
    return state in (expected if isinstance(expected, list) else [expected])


@pytest.fixture(scope="module", params=["psql", "pg_tle"])
def db(request, cluster, pg_tle):
    """A connection to a database with the edition, search_path on it."""
    if request.param == "pg_tle":
        skip_without_pg_tle(pg_tle)
    name = f"vectors_{request.param}"
    create_database(cluster, name, request.param)
    create_pgcrypto(cluster, name)
    conn = cluster.connect(name)
    conn.execute(f"SET search_path = {SCHEMA}, public")
    conn.execute("SET timezone = 'UTC'")
    conn.edition = request.param
    yield conn
    conn.close()


def one(conn, query: str, params=None):
    return conn.execute(query, params).fetchone()


class Checked:
    """Counts checks and collects mismatches, so that one run lists them all."""

    def __init__(self, conn):
        self.conn = conn
        self.count = 0
        self.failures: list[str] = []

    def equal(self, name: str, got, expected) -> None:
        self.count += 1
        if got != expected:
            self.failures.append(f"{name}: got {got!r}, expected {expected!r}")

    def state(self, name: str, query: str, params, expected) -> None:
        self.count += 1
        state = sqlstate_of(self.conn, query, params)
        if not accepts(expected, state):
            self.failures.append(f"{name}: {query} gave {state}, expected {expected}")

    def done(self, minimum: int) -> None:
        assert not self.failures, "\n".join(self.failures[:40])
        assert self.count >= minimum, f"only {self.count} checks, expected {minimum}"


def test_sno(db):
    c = Checked(db)
    for v in vectors("sno.jsonl"):
        name = v["name"]
        if v["kind"] == "out_of_range":
            time = v["input"]["time"]
            c.state(name, "SELECT sno_from_time(%s::timestamptz)", (time,), v["sqlstate"])
            c.state(name, "SELECT sno_from_parts(%s::timestamptz, 0, 0, 0)", (time,), v["sqlstate"])
            continue
        p = v["parts"]
        row = one(
            db,
            f"""SELECT sno_to_text(s), encode(s::bytea, 'hex'), to_char(p.time, {MS}),
                             p.tick_tock, p.meta, p.partition, p.sequence,
                             sno_from_parts(p.time, p.meta, p.partition, p.sequence, p.tick_tock)::bytea = s::bytea,
                             sno_timestamp(s) = p.time, sno_meta(s), sno_partition(s), sno_sequence(s),
                             sno_tick_tock(s)
                          FROM (SELECT sno_from_text(%s) AS s) x, sno_parts(s) p""",
            (v["text"],),
        )
        c.equal(
            name,
            row,
            (
                v["text"],
                v["bytes_hex"],
                p["time"],
                p["tick_tock"],
                p["meta"],
                p["partition"],
                p["sequence"],
                True,
                True,
                p["meta"],
                p["partition"],
                p["sequence"],
                p["tick_tock"],
            ),
        )
        c.equal(
            name + " bytes",
            one(db, "SELECT sno_to_text(decode(%s, 'hex')::sno)", (v["bytes_hex"],))[0],
            v["text"],
        )
        if "input_time" in v and not p["tick_tock"]:
            t = v["input_time"][:26].rstrip("Z")
            c.equal(
                name + " input_time",
                one(
                    db,
                    "SELECT sno_to_text(sno_from_parts((%s || 'Z')::timestamptz, %s, %s, %s))",
                    (t, p["meta"], p["partition"], p["sequence"]),
                )[0],
                v["text"],
            )
        if db.edition == "pg_tle":
            c.equal(
                name + " type I/O",
                one(db, "SELECT %s::text::sno::text", (v["text"],))[0],
                v["text"],
            )
    for v in vectors("sno-invalid.jsonl"):
        if v["kind"] == "invalid_text":
            c.state(v["name"], "SELECT sno_from_text(%s)", (v["input"],), v["sqlstate"])
            if db.edition == "pg_tle":
                c.state(v["name"], "SELECT %s::text::sno", (v["input"],), v["sqlstate"])
        else:
            c.state(
                v["name"], "SELECT decode(%s, 'hex')::sno", (v["input_bytes_hex"],), v["sqlstate"]
            )
    c.done(219)


def test_siq(db):
    c = Checked(db)
    for v in vectors("siq.jsonl"):
        name = v["name"]
        kind = v["kind"]
        if kind == "out_of_range":
            i = v["input"]
            if "ticks" in i:
                c.state(
                    name,
                    "SELECT siq_from_tick_parts(%s::bigint, %s, %s, %s, %s)",
                    (str(i["ticks"]), i["shard"], i["domain_hash"], i["kind"], i["serial"]),
                    v["sqlstate"],
                )
            elif "time" in i:
                c.state(name, "SELECT siq_from_time(%s::timestamptz)", (i["time"],), v["sqlstate"])
            else:
                c.state(
                    name,
                    "SELECT siq_from_numeric(%s::numeric)",
                    (str(i.get("integer", i)),),
                    v["sqlstate"],
                )
            continue
        if kind == "invalid_domain":
            c.state(name, "SELECT siq_domain_name_hash(%s)", (v["input"],), v["sqlstate"])
            continue
        p = v["parts"]
        row = one(
            db,
            f"""SELECT siq_to_text(s), encode(s::bytea, 'hex'), siq_to_did(s), siq_to_hex(s),
                             siq_to_base64(s), siq_to_numeric(s)::text, p.ticks, to_char(p.time, {US}),
                             p.shard, p.domain_hash, p.kind, p.serial, p.low16,
                             siq_kind(s) IS NOT DISTINCT FROM p.kind, siq_serial(s) = p.serial,
                             siq_shard(s) = p.shard, siq_domain_hash(s) = p.domain_hash,
                             siq_timestamp(s) = p.time,
                             siq_from_text(siq_to_did(s))::bytea = s::bytea,
                             siq_from_text(upper(siq_to_text(s)))::bytea = s::bytea,
                             siq_from_hex(siq_to_hex(s))::bytea = s::bytea,
                             siq_from_numeric(siq_to_numeric(s))::bytea = s::bytea
                          FROM (SELECT siq_from_text(%s) AS s) x, siq_parts(s) p""",
            (v["text"],),
        )
        c.equal(
            name,
            row,
            (
                v["text"],
                v["bytes_hex"],
                v["did"],
                v["hex"],
                v["base64"],
                str(v["integer"]),
                int(p["ticks"]),
                p["time"],
                p["shard"],
                p["domain_hash"],
                p["kind"],
                p["serial"],
                p["low16"],
                True,
                True,
                True,
                True,
                True,
                True,
                True,
                True,
                True,
            ),
        )
        if p["kind"] is not None:
            c.equal(
                name + " from parts",
                one(
                    db,
                    "SELECT siq_to_text(siq_from_tick_parts(%s::bigint, %s, %s, %s, %s))",
                    (str(p["ticks"]), p["shard"], p["domain_hash"], p["kind"], p["serial"]),
                )[0],
                v["text"],
            )
        if "domain" in v:
            c.equal(
                name + " domain hash",
                one(db, "SELECT siq_domain_name_hash(%s)", (v["domain"],))[0],
                v.get("domain_hash_of_domain", v["parts"]["domain_hash"]),
            )
        if "input_time" in v:
            c.equal(
                name + " input_time",
                one(
                    db,
                    "SELECT siq_from_time(%s::timestamptz)::bytea = siq_from_tick_parts(%s::bigint, 0, 0, 'user', 0)::bytea",
                    (v["input_time"], str(p["ticks"])),
                )[0],
                True,
            )
        if db.edition == "pg_tle":
            c.equal(
                name + " type I/O", one(db, "SELECT %s::text::siq::text", (v["did"],))[0], v["text"]
            )
    c.done(60)


def test_distributed_id(db):
    c = Checked(db)
    for v in vectors("distributedid.jsonl"):
        name = v["name"]
        kind = v["kind"]
        if kind == "invalid":
            c.state(name, f"SELECT {v['function']}(%s)", (v["input"],), v["sqlstate"])
            continue
        if kind == "out_of_range" and isinstance(v["input"], dict):
            i = v["input"]
            c.state(
                name,
                "SELECT distributed_id_from_time(%s::timestamptz)",
                (i["time"],),
                v["sqlstate"],
            )
            c.state(
                name,
                "SELECT distributed_id_from_parts(%s::timestamptz, %s)",
                (i["time"], i["random"]),
                v["sqlstate"],
            )
            continue
        if kind == "out_of_range":
            c.state(
                name,
                "SELECT distributed_id_from_numeric(%s::numeric)",
                (v["input"],),
                v["sqlstate"],
            )
            continue
        if kind == "bigint_alphanumeric":
            c.equal(
                name,
                one(
                    db,
                    "SELECT alphanumeric_encode(%s::bigint), alphanumeric_decode_bigint(%s)::text",
                    (str(v["integer"]), v["alphanumeric"]),
                ),
                (v["alphanumeric"], str(v["integer"])),
            )
            continue
        if kind == "generator_sequence":
            check_generator(c, db, v, "distributed_id")
            continue
        row = one(
            db,
            """SELECT distributed_id_to_text(d), encode(d::bytea, 'hex'), alphanumeric_encode(d),
                            distributed_id_to_hex(d), distributed_id_to_numeric(d)::text,
                            distributed_id_from_numeric(distributed_id_to_numeric(d))::bytea = d::bytea,
                            alphanumeric_decode_distributed_id(alphanumeric_encode(d))::bytea = d::bytea,
                            distributed_id_from_hex(distributed_id_to_hex(d))::bytea = d::bytea
                         FROM (SELECT distributed_id_from_text(%s) AS d) x""",
            (v["text"],),
        )
        c.equal(
            name,
            row,
            (v["text"], v["bytes_hex"], v["alphanumeric"], v["hex"], v["text"], True, True, True),
        )
        if "input" in v:
            function = {
                "alphanumeric_decode": "alphanumeric_decode_distributed_id",
                "hex_decode": "distributed_id_from_hex",
            }[kind]
            c.equal(
                name + " input",
                one(db, f"SELECT distributed_id_to_text({function}(%s))", (v["input"],))[0],
                v["text"],
            )
        if "parts" in v:
            p = v["parts"]
            c.equal(
                name + " parts",
                one(
                    db,
                    f"""SELECT to_char(p.time, {MS}), p.random,
                        distributed_id_from_parts(p.time, p.random)::bytea = d::bytea,
                        distributed_id_timestamp(d) = p.time
                     FROM (SELECT distributed_id_from_text(%s) AS d) x, distributed_id_parts(d) p""",
                    (v["text"],),
                ),
                (p["time"], int(p["random"]), True, True),
            )
        if db.edition == "pg_tle":
            c.equal(
                name + " type I/O",
                one(db, "SELECT %s::text::distributed_id::text", (v["text"],))[0],
                v["text"],
            )
    c.done(80)


def test_distributed_id128(db):
    c = Checked(db)
    for v in vectors("distributedid128.jsonl"):
        name = v["name"]
        kind = v["kind"]
        if kind == "invalid":
            c.state(name, f"SELECT {v['function']}(%s)", (v["input"],), v["sqlstate"])
            continue
        if kind == "generator_sequence":
            check_generator(c, db, v, "distributed_id128")
            continue
        row = one(
            db,
            """SELECT u::text, encode(uuid_send(u), 'hex'), distributed_id128_to_numeric(u)::text,
                            alphanumeric_encode(u), alphanumeric_decode_uuid(alphanumeric_encode(u)) = u,
                            distributed_id128_from_numeric(distributed_id128_to_numeric(u)) = u
                         FROM (SELECT %s::uuid AS u) x""",
            (v["text"],),
        )
        c.equal(
            name, row, (v["text"], v["bytes_hex"], str(v["numeric"]), v["alphanumeric"], True, True)
        )
        if "parts" in v:
            p = v["parts"]
            c.equal(
                name + " parts",
                one(
                    db,
                    f"""SELECT to_char(p.time, {MS}), p.random::text,
                        distributed_id128_from_parts(p.time, p.random) = u,
                        distributed_id128_timestamp(u) = p.time
                     FROM (SELECT %s::uuid AS u) x, distributed_id128_parts(u) p""",
                    (v["text"],),
                ),
                (p["time"], str(p["random"]), True, True),
            )
    c.done(50)


def check_generator(c: Checked, db, v: dict, fmt: str) -> None:
    """A generator vector through the edition's pure step: increments, the
    draw from bytes, and scenarios of clock readings."""
    name = v["name"]
    big = fmt == "distributed_id128"
    if v["case"] == "random_increment":
        # The step at the previous millisecond with a draw: the increment.
        if big:
            row = one(
                db,
                "SELECT next_r::text FROM _distributed_id128_step(5, %s::numeric, 5, %s::numeric)",
                (str(v["previous_random"]), str(v["draw"])),
            )
        else:
            row = one(
                db,
                "SELECT next_r::text FROM _distributed_id_step(5, %s::bigint, 5, %s::bigint)",
                (str(v["previous_random"]), str(v["draw"])),
            )
        expected = v["expected_random"]
        # null: the increment does not fit; the step moves on (or sleeps).
        got = row[0]
        if expected is None:
            c.equal(name, got in (None, str(v["draw"])), True)
        else:
            c.equal(name, got, str(expected))
        return
    if v["case"] == "random_from_bytes":
        raw = bytes.fromhex(v["csprng_bytes_hex"])
        if big:
            high = int.from_bytes(raw[:8], "little") >> 53
            got = max(high * 2**64 + int.from_bytes(raw[8:], "little"), 1)
        else:
            got = max(int.from_bytes(raw, "little"), 1)
        # The edition's draw is gen_random_uuid()'s bytes read the same way
        # (api/distributed_id*.sql); the arithmetic is what is checked here.
        c.equal(name, str(got), str(v["expected_random"]))
        return
    prev_ts, prev_r = v["initial_previous_timestamp_ms"], 0
    lag = 0 if big else 1000
    step_function = "_distributed_id128_step" if big else "_distributed_id_step"
    cast = "numeric" if big else "bigint"
    for i, step in enumerate(v["steps"]):
        sleeps = 0
        for reading in step["clock_readings_ms"]:
            row = one(
                db,
                f"SELECT next_ts, next_r::text FROM {step_function}(%s, %s::{cast}, %s, %s::{cast})",
                (prev_ts, str(prev_r), reading - lag, str(step["random_draw"])),
            )
            if row[0] is not None:
                break
            sleeps += 1
        e = step["expected"]
        c.equal(f"{name} step {i} sleeps", sleeps, step["expected_sleeps"])
        c.equal(f"{name} step {i}", (row[0], row[1]), (e["timestamp_ms"], str(e["random"])))
        if row[0] is None:
            return
        prev_ts, prev_r = row[0], int(row[1])
        if big:
            c.equal(
                f"{name} step {i} uuid",
                one(db, "SELECT _distributed_id128_uuid(%s, %s::numeric)::text", (row[0], row[1]))[
                    0
                ],
                e["uuid"],
            )
        else:
            c.equal(
                f"{name} step {i} text",
                one(
                    db,
                    """SELECT distributed_id_to_text(d), alphanumeric_encode(d)
                       FROM (SELECT (substr(int8send(%s::bigint), 3, 6) || substr(int8send(%s::bigint), 3, 6))::distributed_id AS d) x""",
                    (row[0], row[1]),
                ),
                (e["text"], e["alphanumeric"]),
            )


def test_flaxid(db):
    c = Checked(db)
    for v in vectors("flaxid.jsonl"):
        name = v["name"]
        if v["kind"] == "out_of_range":
            i = v["input"]
            c.state(name, "SELECT flaxid_from_time(%s::timestamptz)", (i["time"],), v["sqlstate"])
            c.state(
                name,
                "SELECT flaxid_from_parts(%s::timestamptz, %s::bigint)",
                (i["time"], str(i["random"])),
                v["sqlstate"],
            )
            continue
        p = v["parts"]
        row = one(
            db,
            f"""SELECT flaxid_to_text(s), encode(s::bytea, 'hex'), to_char(p.time, {MS}),
                             p.random, flaxid_from_parts(p.time, p.random)::bytea = s::bytea,
                             flaxid_timestamp(s) = p.time, decode(%s, 'hex')::flaxid::bytea = s::bytea
                          FROM (SELECT flaxid_from_text(%s) AS s) x, flaxid_parts(s) p""",
            (v["bytes_hex"], v["text"]),
        )
        c.equal(
            name, row, (v["text"], v["bytes_hex"], p["time"], int(p["random"]), True, True, True)
        )
        if db.edition == "pg_tle":
            c.equal(
                name + " type I/O",
                one(db, "SELECT %s::text::flaxid::text", (v["text"],))[0],
                v["text"],
            )
    c.done(25)


def test_kuid(db):
    c = Checked(db)
    for v in vectors("kuid64.jsonl"):
        name = v["name"]
        if v["kind"] == "out_of_range":
            i = v["input"]
            c.state(name, "SELECT kuid64_from_time(%s::timestamptz)", (i["time"],), v["sqlstate"])
            c.state(
                name,
                "SELECT kuid64_from_parts(%s::timestamptz, %s)",
                (i["time"], i["seq"]),
                v["sqlstate"],
            )
            continue
        p = v["parts"]
        row = one(
            db,
            f"""SELECT kuid64_encode(k), encode(int8send(k), 'hex'), to_char(p.time, {US}),
                             p.megaseconds, p.seconds, p.microseconds, p.seq, kuid64_decode(%s) = k,
                             kuid64_timestamp(k) = p.time, kuid64_from_parts(p.time, p.seq) = k
                          FROM (SELECT %s::bigint AS k) x, kuid64_parts(k) p""",
            (v["text"], str(v["integer"])),
        )
        c.equal(
            name,
            row,
            (
                v["text"],
                v["bytes_hex"],
                p["time"],
                p["megaseconds"],
                p["seconds"],
                p["microseconds"],
                p["seq"],
                True,
                True,
                True,
            ),
        )
        if "input_time" in v:
            c.equal(
                name + " input_time",
                one(
                    db, "SELECT kuid64_from_parts(%s::timestamptz, %s)", (v["input_time"], p["seq"])
                )[0],
                int(v["integer"]),
            )
    for v in vectors("kuid96.jsonl"):
        name = v["name"]
        i = v["interval"]
        row = one(
            db,
            "SELECT kuid96_to_text(s), encode(s::bytea, 'hex') FROM (SELECT kuid96_from_text(%s) AS s) x",
            (v["text"],),
        )
        c.equal(name, row, (v["text"], v["bytes_hex"]))
        if db.edition == "pg_tle":
            c.equal(
                name + " type I/O",
                one(db, "SELECT %s::text::kuid96::text", (v["text"],))[0],
                v["text"],
            )
        if v["kind"] == "encoding":
            continue
        p = v["parts"]
        row = one(
            db,
            f"""SELECT to_char(p.time, {US}), p.node, p.seq, kuid96_node(s, %s),
                             kuid96_timestamp(s, %s) = p.time,
                             kuid96_from_parts(p.time, p.node, p.seq, %s)::bytea = s::bytea
                          FROM (SELECT kuid96_from_text(%s) AS s) x, kuid96_parts(s, %s) p""",
            (i, i, i, v["text"], i),
        )
        c.equal(name + " parts", row, (p["time"], p["node"], p["seq"], p["node"], True, True))
        if "node_name" in v:
            c.equal(
                name + " fingerprint",
                one(db, "SELECT kuid_node_fingerprint(%s)", (v["node_name"],))[0],
                v["node"],
            )
        if "kuid64" in v:
            c.equal(
                name + " kuid64",
                one(
                    db,
                    """SELECT kuid96_localize(kuid96_from_text(%s), %s),
                              kuid96_to_text(kuid96_globalize(%s::bigint, %s, %s))""",
                    (v["text"], i, str(v["kuid64"]), p["node"], i),
                ),
                (int(v["kuid64"]), v["text"]),
            )
        else:
            c.state(
                name + " localize",
                "SELECT kuid96_localize(kuid96_from_text(%s), %s)",
                (v["text"], i),
                "22008",
            )
        if "input_time" in v:
            c.equal(
                name + " input_time",
                one(
                    db,
                    "SELECT kuid96_to_text(kuid96_from_parts(%s::timestamptz, %s, %s, %s))",
                    (v["input_time"], p["node"], p["seq"], i),
                )[0],
                v["text"],
            )
    c.done(80)


def test_snowflake(db):
    c = Checked(db)
    for v in vectors("snowflake.jsonl"):
        name = v["name"]
        if v["kind"] == "out_of_range":
            i = v["input"]
            if "worker" in i:
                c.state(
                    name,
                    "SELECT snowflake_from_parts(%s::timestamptz, %s, %s, %s, %s)",
                    (i["time"], i["worker"], i["process"], i["sequence"], i["epoch_ms"]),
                    v["sqlstate"],
                )
            else:
                c.state(
                    name,
                    "SELECT snowflake_from_time(%s::timestamptz, %s)",
                    (i["time"], i["epoch_ms"]),
                    v["sqlstate"],
                )
            continue
        p = v["parts"]
        e = v["epoch_ms"]
        row = one(
            db,
            f"""SELECT encode(int8send(k), 'hex'), to_char(p.time, {MS}), p.worker, p.process,
                             p.sequence, snowflake_timestamp(k, %s) = p.time,
                             snowflake_from_parts(p.time, p.worker, p.process, p.sequence, %s) = k
                          FROM (SELECT %s::bigint AS k) x, snowflake_parts(k, %s) p""",
            (e, e, v["text"], e),
        )
        c.equal(
            name,
            row,
            (v["bytes_hex"], p["time"], p["worker"], p["process"], p["sequence"], True, True),
        )
    c.done(12)


def test_public_id(db):
    if not has_pgcrypto():
        # Without pgcrypto the edition refuses, saying what it needs.
        assert (
            sqlstate_of(db, "SELECT public_id_encrypt(1::bigint, decode(repeat('00', 16), 'hex'))")
            == "55000"
        )
    skip_without_pgcrypto()
    c = Checked(db)
    for v in vectors("publicid.jsonl"):
        name = v["name"]
        kind = v["kind"]
        if kind == "bad_key":
            for call in (
                "public_id_encrypt(1::bigint, decode(%s, 'hex'))",
                "public_id_decrypt_bigint(gen_random_uuid(), decode(%s, 'hex'))",
                "public_id_decrypt_distributed_id(gen_random_uuid(), decode(%s, 'hex'))",
                "public_id_decrypt_uuid(gen_random_uuid(), decode(%s, 'hex'))",
            ):
                c.state(name, f"SELECT {call}", (v["key_hex"],), v["sqlstate"])
            continue
        if kind == "out_of_range":
            c.state(
                name,
                "SELECT public_id_encrypt(distributed_id_from_numeric(%s::numeric), decode(%s, 'base64'))",
                (v["input"], v["key_base64"]),
                v["sqlstate"],
            )
            continue
        if kind == "encrypt":
            value = {
                "bigint": "%s::bigint",
                "uuid": "%s::uuid",
                "distributed_id": "distributed_id_from_text(%s)",
            }[v["input_type"]]
            c.equal(
                name,
                one(
                    db,
                    f"""SELECT public_id_encrypt({value}, decode(%s, 'base64'))::text,
                                         alphanumeric_encode(public_id_encrypt({value}, decode(%s, 'base64')))""",
                    (v["input"], v["key_base64"], v["input"], v["key_base64"]),
                ),
                (v["public_id"], v["public_alphanumeric"]),
            )
        d = v["decrypt"]
        c.equal(
            name + " decrypt",
            one(
                db,
                """SELECT public_id_decrypt_bigint(p, k)::text,
                        distributed_id_to_text(public_id_decrypt_distributed_id(p, k)),
                        public_id_decrypt_uuid(p, k)::text
                     FROM (SELECT %s::uuid AS p, decode(%s, 'base64') AS k) s""",
                (v["public_id"], v["key_base64"]),
            ),
            (
                None if d["bigint"] is None else str(d["bigint"]),
                None if d["distributed_id"] is None else str(d["distributed_id"]),
                d["uuid"],
            ),
        )
    # The forms without a key refuse, as the native ones do without preloading.
    c.state("no key", "SELECT public_id_encrypt(1::bigint)", None, "55000")
    c.done(25)
