package io.github.pgflake;

import static io.github.pgflake.testing.Vectors.hex;
import static io.github.pgflake.testing.Vectors.instant;
import static io.github.pgflake.testing.Vectors.intOf;
import static io.github.pgflake.testing.Vectors.integer;
import static io.github.pgflake.testing.Vectors.longOf;
import static io.github.pgflake.testing.Vectors.map;
import static io.github.pgflake.testing.Vectors.micros;

import io.github.pgflake.testing.Check;
import io.github.pgflake.testing.Test;
import io.github.pgflake.testing.Vectors;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Every reference vector of the native types (tests/vectors, see its README): decoding,
 * encoding, fields, times, constructors, and the rejection of invalid input with the
 * extension's SQLSTATE, as python/tests/test_vectors.py. No server needed.
 */
public class NativeTypeVectorsTest {
    static <T extends FlakeId<T>> T checkValue(Map<String, Object> v, Function<String, T> parse,
            Function<byte[], T> fromBytes) {
        T value = parse.apply((String) v.get("text"));
        Check.equal(v.get("bytes_hex"), value.toHexBytes(), "bytes");
        T again = fromBytes.apply(hex((String) v.get("bytes_hex")));
        Check.equal(value, again, "fromBytes");
        Check.equal(v.get("text"), again.toString(), "text of the bytes");
        Check.equal(0, value.compareTo(again), "compareTo");
        Check.equal(value.hashCode(), again.hashCode(), "hashCode");
        return value;
    }

    static void checkTime(long micros, Instant time, String expected) {
        Check.equal(micros(expected), micros, "unixMicros");
        Check.equal(instant(expected), time, "time");
    }

    @Test
    public void sno() {
        Check.each(Vectors.except("sno", "out_of_range"), Vectors::name, v -> {
            Sno sno = checkValue(v, Sno::parse, Sno::fromBytes);
            Map<String, Object> parts = map(v.get("parts"));
            checkTime(sno.unixMicros(), sno.time(), (String) parts.get("time"));
            Check.equal(parts.get("tick_tock"), sno.tickTock(), "tick_tock");
            Check.equal(intOf(parts.get("meta")), sno.meta(), "meta");
            Check.equal(intOf(parts.get("partition")), sno.partition(), "partition");
            Check.equal(intOf(parts.get("sequence")), sno.sequence(), "sequence");
            int meta = intOf(parts.get("meta"));
            int partition = intOf(parts.get("partition"));
            int sequence = intOf(parts.get("sequence"));
            boolean tickTock = (Boolean) parts.get("tick_tock");
            Check.equal(sno, Sno.fromParts(instant((String) parts.get("time")), meta, partition, sequence, tickTock),
                "fromParts");
            if (v.containsKey("input_time")) {
                Instant input = instant((String) v.get("input_time"));
                Check.equal(sno, Sno.fromParts(input, meta, partition, sequence, tickTock), "fromParts(input_time)");
                Check.equal(Sno.fromParts(instant((String) parts.get("time")), 0, 0, 0), Sno.fromTime(input),
                    "fromTime");
            }
        });
    }

    @Test
    public void snoOutOfRange() {
        Check.each(Vectors.of("sno", "out_of_range"), Vectors::name, v -> {
            Map<String, Object> in = map(v.get("input"));
            Instant time = instant((String) in.get("time"));
            Check.rejects(Vectors.sqlStates(v), () -> Sno.fromTime(time), "fromTime");
            Check.rejects(Vectors.sqlStates(v), () -> Sno.fromParts(time, intOf(in.get("meta")),
                intOf(in.get("partition")), intOf(in.get("sequence"))), "fromParts");
        });
    }

    @Test
    public void snoInvalid() {
        Check.each(Vectors.of("sno-invalid", "invalid_text"), Vectors::name,
            v -> Check.rejects(Vectors.sqlStates(v), () -> Sno.parse((String) v.get("input")), "parse"));
        Check.each(Vectors.of("sno-invalid", "invalid_bytes"), Vectors::name,
            v -> Check.rejects(Vectors.sqlStates(v), () -> Sno.fromBytes(hex((String) v.get("input_bytes_hex"))),
                "fromBytes"));
    }

    @Test
    public void siq() {
        Check.each(Vectors.except("siq", "out_of_range", "invalid_domain"), Vectors::name, v -> {
            Siq siq = checkValue(v, Siq::parse, Siq::fromBytes);
            Map<String, Object> parts = map(v.get("parts"));
            Check.equal(longOf(parts.get("ticks")), siq.ticks(), "ticks");
            checkTime(siq.unixMicros(), siq.time(), (String) parts.get("time"));
            Check.equal(intOf(parts.get("shard")), siq.shard(), "shard");
            Check.equal(longOf(parts.get("domain_hash")), siq.domainHash(), "domain_hash");
            Check.equal(parts.get("kind"), siq.kind() == null ? null : siq.kind().sqlName(), "kind");
            Check.equal(intOf(parts.get("serial")), siq.serial(), "serial");
            Check.equal(intOf(parts.get("low16")), siq.low16(), "low16");
            String did = (String) v.get("did");
            Check.equal(did, siq.toDid(), "did");
            Check.equal(siq, Siq.parse(did), "parse(did)");
            Check.equal(siq, Siq.parse(did.toUpperCase()), "parse(DID)");
            Check.equal(siq, Siq.parse(((String) v.get("text")).toUpperCase()), "parse(TEXT)");
            Check.equal(v.get("hex"), siq.toHex(), "hex");
            Check.equal(siq, Siq.fromHex((String) v.get("hex")), "fromHex");
            Check.equal(siq, Siq.fromHex(((String) v.get("hex")).toUpperCase()), "fromHex(HEX)");
            Check.equal(v.get("base64"), siq.toBase64(), "base64");
            Check.equal(siq, Siq.fromBase64((String) v.get("base64")), "fromBase64");
            Check.equal(integer(v.get("integer")), siq.toInteger(), "integer");
            Check.equal(siq, Siq.fromInteger(integer(v.get("integer"))), "fromInteger");
            if (parts.get("kind") != null) {
                SiqKind kind = SiqKind.named((String) parts.get("kind"));
                Check.equal(siq, Siq.fromPartsTicks(longOf(parts.get("ticks")), intOf(parts.get("shard")),
                    longOf(parts.get("domain_hash")), kind, intOf(parts.get("serial"))), "fromPartsTicks");
                Check.equal(kind, SiqKind.named(((String) parts.get("kind")).toUpperCase()), "kind, upper case");
            }
            if (v.containsKey("input_time")) {
                Check.equal(longOf(parts.get("ticks")), Siq.fromTime(instant((String) v.get("input_time"))).ticks(),
                    "fromTime");
            }
            if (v.get("domain") instanceof String domain) {
                long expected = Siq.domainHash(domain);
                if (v.containsKey("domain_hash_of_domain")) {
                    Check.equal(longOf(v.get("domain_hash_of_domain")), expected, "domain_hash_of_domain");
                }
                if (v.get("node") != null && longOf(v.get("node")) != 0) {
                    // pg_flake.siq_node replaces the top byte of the hash.
                    expected = longOf(v.get("node")) << 24 | expected & 0xFFFFFF;
                }
                Check.equal(expected, siq.domainHash(), "domain hash of the domain");
            }
        });
    }

    @Test
    public void siqErrors() {
        Check.each(Vectors.of("siq", "out_of_range"), Vectors::name, v -> {
            Map<String, Object> in = map(v.get("input"));
            Check.rejects(Vectors.sqlStates(v), () -> Siq.fromPartsTicks(longOf(in.get("ticks")),
                intOf(in.get("shard")), longOf(in.get("domain_hash")), SiqKind.named((String) in.get("kind")),
                intOf(in.get("serial"))), "fromPartsTicks");
        });
        Check.each(Vectors.of("siq", "invalid_domain"), Vectors::name,
            v -> Check.rejects(Vectors.sqlStates(v), () -> Siq.domainHash((String) v.get("input")), "domainHash"));
    }

    @Test
    public void flaxid() {
        Check.each(Vectors.except("flaxid", "out_of_range"), Vectors::name, v -> {
            FlaxId id = checkValue(v, FlaxId::parse, FlaxId::fromBytes);
            Map<String, Object> parts = map(v.get("parts"));
            checkTime(id.unixMicros(), id.time(), (String) parts.get("time"));
            Check.equal(longOf(parts.get("random")), id.random(), "random");
            Check.equal(id, FlaxId.fromParts(instant((String) parts.get("time")), longOf(parts.get("random"))),
                "fromParts");
            Check.equal(FlaxId.fromParts(id.time(), 0), FlaxId.fromTime(id.time()), "fromTime");
        });
        Check.each(Vectors.of("flaxid", "out_of_range"), Vectors::name, v -> {
            Map<String, Object> in = map(v.get("input"));
            Instant time = instant((String) in.get("time"));
            Check.rejects(Vectors.sqlStates(v), () -> FlaxId.fromTime(time), "fromTime");
            Check.rejects(Vectors.sqlStates(v), () -> FlaxId.fromParts(time, longOf(in.get("random"))), "fromParts");
        });
    }

    @Test
    public void kuid96() {
        Check.each(Vectors.of("kuid96"), Vectors::name, v -> {
            Kuid96 kuid = checkValue(v, Kuid96::parse, Kuid96::fromBytes);
            int interval = intOf(v.get("interval"));
            Map<String, Object> expected = map(v.get("parts"));
            Kuid96.Parts parts = kuid.parts(interval);
            checkTime(parts.unixMicros(), parts.time(), (String) expected.get("time"));
            Check.equal(longOf(v.get("node")), parts.node(), "node");
            Check.equal(longOf(expected.get("node")), parts.node(), "parts.node");
            Check.equal(intOf(expected.get("seq")), parts.seq(), "seq");
            Check.equal(intOf(expected.get("seq")), kuid.seq(), "seq()");
            if (v.containsKey("node_name")) {
                Check.equal(longOf(v.get("node")), Kuid64.nodeFingerprint((String) v.get("node_name")), "fingerprint");
            }
            if (v.containsKey("kuid64")) { // absent where the time is beyond kuid64's range
                long local = longOf(v.get("kuid64"));
                Check.equal(kuid, Kuid96.globalize(local, longOf(v.get("node")), interval), "globalize");
                Check.equal(local, kuid.localize(interval), "localize");
            }
            String time = (String) v.getOrDefault("input_time", expected.get("time"));
            Check.equal(kuid, Kuid96.fromParts(instant(time), longOf(v.get("node")), intOf(expected.get("seq")),
                interval), "fromParts");
            if (interval == 8) {
                Check.equal(parts.unixMicros(), kuid.unixMicros(), "unixMicros (interval 8)");
                Check.equal(parts.node(), kuid.node(), "node (interval 8)");
            }
        });
    }

    @Test
    public void distributedId() {
        List<Map<String, Object>> values =
            Vectors.of("distributedid", "alphanumeric", "hex", "alphanumeric_decode", "hex_decode", "limit", "value");
        Check.each(values, Vectors::name, v -> {
            DistributedId id = checkValue(v, DistributedId::parse, DistributedId::fromBytes);
            Check.equal(new java.math.BigInteger((String) v.get("text")), id.value(), "value");
            Check.equal(v.get("alphanumeric"), id.toAlphanumeric(), "alphanumeric");
            Check.equal(id, DistributedId.fromAlphanumeric((String) v.get("alphanumeric")), "fromAlphanumeric");
            Check.equal(v.get("hex"), id.toHex(), "hex");
            Check.equal(id, DistributedId.fromHex((String) v.get("hex")), "fromHex");
            Check.equal(id, DistributedId.of(id.value()), "of");
            if ("alphanumeric_decode".equals(v.get("kind"))) {
                Check.equal(id, DistributedId.fromAlphanumeric((String) v.get("input")), "decode input");
            }
            if ("hex_decode".equals(v.get("kind"))) {
                Check.equal(id, DistributedId.fromHex((String) v.get("input")), "hex input");
            }
            if (v.containsKey("parts")) { // absent where the timestamp field is 2^45 or more
                Map<String, Object> parts = map(v.get("parts"));
                checkTime(id.unixMicros(), id.time(), (String) parts.get("time"));
                Check.equal(longOf(parts.get("random")), id.random(), "random");
                Check.equal(id, DistributedId.fromParts(instant((String) parts.get("time")),
                    longOf(parts.get("random"))), "fromParts");
            }
        });
    }

    @Test
    public void distributedIdErrors() {
        Check.each(Vectors.of("distributedid", "out_of_range"), Vectors::name, v -> {
            if ("numeric::distributed_id".equals(v.get("function"))) {
                Check.rejects(Vectors.sqlStates(v),
                    () -> DistributedId.of(new java.math.BigDecimal((String) v.get("input"))), "of");
            } else {
                Map<String, Object> in = map(v.get("input"));
                Instant time = instant((String) in.get("time"));
                Check.rejects(Vectors.sqlStates(v), () -> DistributedId.fromTime(time), "fromTime");
                Check.rejects(Vectors.sqlStates(v),
                    () -> DistributedId.fromParts(time, longOf(in.get("random"))), "fromParts");
            }
        });
    }
}
