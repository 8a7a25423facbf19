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
import java.math.BigInteger;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * The vectors of the formats stored in PostgreSQL's own types — Snowflake and kuid64
 * ({@code bigint}), DistributedId128 ({@code uuid}) — and of the base62 encodings. The
 * {@code generator_sequence} vectors exercise the server's generators, and publicid.jsonl (AES)
 * the server's functions: this package has neither.
 */
public class OtherFormatVectorsTest {
    @Test
    public void snowflake() {
        Check.each(Vectors.except("snowflake", "out_of_range"), Vectors::name, v -> {
            long value = longOf(v.get("text"));
            long epoch = longOf(v.get("epoch_ms"));
            Map<String, Object> expected = map(v.get("parts"));
            Check.equal(v.get("bytes_hex"), HexFormat.of().formatHex(Snowflake.toBytes(value)), "bytes");
            Check.equal(value, Snowflake.fromBytes(hex((String) v.get("bytes_hex"))), "fromBytes");
            Check.equal(value, Snowflake.parse((String) v.get("text")), "parse");
            Check.equal(v.get("text"), Snowflake.format(value), "format");
            Snowflake.Parts parts = Snowflake.parts(value, epoch);
            Check.equal(micros((String) expected.get("time")), parts.unixMicros(), "time");
            Check.equal(instant((String) expected.get("time")), parts.time(), "time");
            Check.equal(intOf(expected.get("worker")), parts.worker(), "worker");
            Check.equal(intOf(expected.get("process")), parts.process(), "process");
            Check.equal(intOf(expected.get("sequence")), parts.sequence(), "sequence");
            Check.equal(value, Snowflake.fromParts(instant((String) expected.get("time")), parts.worker(),
                parts.process(), parts.sequence(), epoch), "fromParts");
            Check.equal(value & ~((1L << 22) - 1), Snowflake.fromTime(parts.time(), epoch), "fromTime");
        });
        Check.each(Vectors.of("snowflake", "out_of_range"), Vectors::name, v -> {
            Map<String, Object> in = map(v.get("input"));
            Check.rejects(Vectors.sqlStates(v), () -> Snowflake.fromParts(instant((String) in.get("time")),
                intOf(in.get("worker")), intOf(in.get("process")), intOf(in.get("sequence")),
                longOf(in.get("epoch_ms"))), "fromParts");
        });
        Check.rejects("22003", () -> Snowflake.parts(-1), "a negative bigint");
        Check.rejects("22P02", () -> Snowflake.parse("12a"), "not an integer");
        Check.rejects("22023", () -> Snowflake.parts(1, -1), "an epoch before 1970");
    }

    @Test
    public void kuid64() {
        Check.each(Vectors.except("kuid64", "out_of_range"), Vectors::name, v -> {
            long value = longOf(v.get("integer"));
            Check.equal(v.get("bytes_hex"), HexFormat.of().formatHex(Kuid64.toBytes(value)), "bytes");
            Check.equal(v.get("text"), Kuid64.encode(value), "encode");
            Check.equal(value, Kuid64.decode((String) v.get("text")), "decode");
            Map<String, Object> expected = map(v.get("parts"));
            Kuid64.Parts parts = Kuid64.parts(value);
            Check.equal(micros((String) expected.get("time")), parts.unixMicros(), "time");
            Check.equal(instant((String) expected.get("time")), parts.time(), "time");
            Check.equal(longOf(expected.get("megaseconds")), parts.megaseconds(), "megaseconds");
            Check.equal(longOf(expected.get("seconds")), parts.seconds(), "seconds");
            Check.equal(longOf(expected.get("microseconds")), parts.microseconds(), "microseconds");
            Check.equal(intOf(expected.get("seq")), parts.seq(), "seq");
            String time = (String) v.getOrDefault("input_time", expected.get("time"));
            Check.equal(value, Kuid64.fromParts(instant(time), parts.seq()), "fromParts");
            Check.equal(value - parts.seq(), Kuid64.fromTime(instant((String) expected.get("time"))), "fromTime");
        });
        Check.each(Vectors.of("kuid64", "out_of_range"), Vectors::name, v -> {
            Map<String, Object> in = map(v.get("input"));
            Instant time = instant((String) in.get("time"));
            Check.rejects(Vectors.sqlStates(v), () -> Kuid64.fromTime(time), "fromTime");
            Check.rejects(Vectors.sqlStates(v), () -> Kuid64.fromParts(time, intOf(in.get("seq"))), "fromParts");
        });
        Check.rejects("22003", () -> Kuid64.decode("zzzzzzzzzzw"), "the top bit set");
        Check.rejects("22P02", () -> Kuid64.decode("zzzzzzzzzzz"), "padding bits set");
    }

    @Test
    public void bigintAlphanumeric() {
        Check.each(Vectors.of("distributedid", "bigint_alphanumeric"), Vectors::name, v -> {
            long value = longOf(v.get("integer"));
            Check.equal(v.get("alphanumeric"), Alphanumeric.encode(value), "encode");
            Check.equal(value, Alphanumeric.decodeLong((String) v.get("alphanumeric")), "decode");
        });
    }

    @Test
    public void distributedId128() {
        Check.each(Vectors.of("distributedid128", "value", "alphanumeric", "numeric"), Vectors::name, v -> {
            DistributedId128 id = DistributedId128.parse((String) v.get("text"));
            UUID uuid = UUID.fromString((String) v.get("text"));
            Check.equal(id, DistributedId128.of(uuid), "of(UUID)");
            Check.equal(uuid, id.toUuid(), "toUuid");
            Check.equal(v.get("text"), id.toString(), "text");
            Check.equal(v.get("bytes_hex"), id.toHexBytes(), "bytes");
            Check.equal(id, DistributedId128.fromBytes(hex((String) v.get("bytes_hex"))), "fromBytes");
            Check.equal(integer(v.get("numeric")), id.numeric(), "numeric");
            Check.equal(id, DistributedId128.fromNumeric(integer(v.get("numeric"))), "fromNumeric");
            Check.equal(v.get("alphanumeric"), Alphanumeric.encode(uuid), "alphanumeric");
            Check.equal(v.get("alphanumeric"), id.toAlphanumeric(), "toAlphanumeric");
            Check.equal(uuid, Alphanumeric.decodeUuid((String) v.get("alphanumeric")), "decodeUuid");
            Check.equal(id, DistributedId128.parse(((String) v.get("text")).toUpperCase()), "upper case");
            if (v.containsKey("parts")) {
                Map<String, Object> parts = map(v.get("parts"));
                Check.equal(micros((String) parts.get("time")), id.unixMicros(), "time");
                Check.equal(integer(parts.get("random")), id.random(), "random");
                Check.equal(id, DistributedId128.fromParts(instant((String) parts.get("time")),
                    integer(parts.get("random"))), "fromParts");
            }
        });
        Check.rejects("22P02", () -> DistributedId128.parse("0000000-0000-0000-0000-0000000000001"), "hyphens");
        Check.rejects("22003", () -> DistributedId128.fromNumeric(BigInteger.ONE.shiftLeft(128)), "2^128");
        Check.rejects("22003", () -> DistributedId128.fromNumeric(new java.math.BigDecimal("1.5")), "fraction");
    }

    @Test
    public void decodersRejectInvalidInput() {
        Map<String, Consumer<String>> decoders = Map.of(
            "alphanumeric_decode_distributed_id", DistributedId::fromAlphanumeric,
            "distributed_id_from_hex", DistributedId::fromHex,
            "alphanumeric_decode_bigint", Alphanumeric::decodeLong,
            "alphanumeric_decode_uuid", Alphanumeric::decodeUuid);
        var invalid = new java.util.ArrayList<>(Vectors.of("distributedid", "invalid"));
        invalid.addAll(Vectors.of("distributedid128", "invalid"));
        Check.each(invalid, Vectors::name, v -> Check.rejects(Vectors.sqlStates(v),
            () -> decoders.get((String) v.get("function")).accept((String) v.get("input")), "decode"));
    }

    @Test
    public void everyVectorFileIsRead() {
        for (String file : new String[] {"sno", "sno-invalid", "siq", "distributedid", "distributedid128", "flaxid",
            "kuid64", "kuid96", "snowflake"}) {
            Check.that(!Vectors.of(file).isEmpty(), file + ".jsonl has vectors");
        }
    }
}
