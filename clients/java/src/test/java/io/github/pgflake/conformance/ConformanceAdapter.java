package io.github.pgflake.conformance;

import io.github.pgflake.Alphanumeric;
import io.github.pgflake.DistributedId;
import io.github.pgflake.DistributedId128;
import io.github.pgflake.FlakeException;
import io.github.pgflake.FlakeId;
import io.github.pgflake.FlaxId;
import io.github.pgflake.Kuid64;
import io.github.pgflake.Kuid96;
import io.github.pgflake.Siq;
import io.github.pgflake.SiqKind;
import io.github.pgflake.Sno;
import io.github.pgflake.Snowflake;
import io.github.pgflake.Times;
import io.github.pgflake.testing.Json;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The Java package's conformance adapter: tests/conformance/PROTOCOL.md (version 1) on
 * stdin/stdout, answered with the package's public API only. Run by conformance.sh.
 */
public final class ConformanceAdapter {
    private static final HexFormat HEX = HexFormat.of();
    private static final BigInteger WIRE_LIMIT = BigInteger.ONE.shiftLeft(53);

    private ConformanceAdapter() {
    }

    /** An operation the package does not have: answered {@code unsupported}. */
    static final class Unsupported extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Unsupported(String what) {
            super(what);
        }
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            if (line.isBlank()) {
                continue;
            }
            out.write(Json.write(answer(line)));
            out.write('\n');
        }
        out.flush();
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> answer(String line) {
        Map<String, Object> answer = new LinkedHashMap<>();
        Object id = null;
        try {
            Map<String, Object> request = (Map<String, Object>) Json.parse(line);
            id = request.get("id");
            answer.put("id", id);
            Map<String, Object> args = (Map<String, Object>) request.getOrDefault("args", Map.of());
            answer.put("ok", handle((String) request.get("type"), (String) request.get("op"), args));
        } catch (Unsupported e) {
            answer.remove("ok");
            answer.put("unsupported", e.getMessage());
        } catch (FlakeException e) {
            answer.remove("ok");
            answer.put("error", error(e.getSqlState(), e.getMessage()));
        } catch (RuntimeException e) {
            answer.remove("ok");
            answer.putIfAbsent("id", id);
            answer.put("error", error(null, e.toString()));
        }
        return answer;
    }

    static Map<String, Object> error(String sqlState, String message) {
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("sqlstate", sqlState);
        error.put("message", message);
        return error;
    }

    static Map<String, Object> handle(String type, String op, Map<String, Object> a) {
        if ("hello".equals(op)) {
            return ok("language", "java", "package", "io.github.pgflake:pg-flake 0.5.0", "protocol", 1);
        }
        return switch (type) {
            case "sno", "siq", "distributed_id", "distributed_id128", "flaxid", "kuid96" -> NativeTypes.handle(type, op, a);
            case "kuid64", "snowflake", "bigint" -> BigintTypes.handle(type, op, a);
            default -> throw new Unsupported("no type " + type + " in this package");
        };
    }

    // --- wire values ------------------------------------------------------------------------

    static Map<String, Object> ok(Object... pairs) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            map.put((String) pairs[i], pairs[i + 1]);
        }
        return map;
    }

    static BigInteger integer(Object value) {
        if (value == null) {
            throw new IllegalArgumentException("missing integer");
        }
        return value instanceof BigInteger b ? b : new BigInteger(value.toString());
    }

    static long longArg(Map<String, Object> a, String key) {
        return integer(a.get(key)).longValueExact();
    }

    static int intArg(Map<String, Object> a, String key) {
        BigInteger value = integer(a.get(key));
        // Beyond an int, a field is out of range whatever it is: the package's own check says so.
        return value.bitLength() < 32 ? value.intValue() : value.signum() < 0 ? Integer.MIN_VALUE : Integer.MAX_VALUE;
    }

    static Instant time(Map<String, Object> a, String key) {
        return Times.instant(longArg(a, key));
    }

    /** An integer as the protocol writes it: a number up to 2^53, else a string. */
    static Object wire(BigInteger value) {
        return value.abs().compareTo(WIRE_LIMIT) <= 0 ? value : value.toString();
    }

    static Object wire(long value) {
        return wire(BigInteger.valueOf(value));
    }

    static byte[] bytes(Map<String, Object> a, String key) {
        return HEX.parseHex((String) a.get(key));
    }

    static String hex(byte[] bytes) {
        return HEX.formatHex(bytes);
    }

    static Map<String, Object> bytesOk(FlakeId<?> value) {
        return ok("bytes_hex", value.toHexBytes());
    }

    static Map<String, Object> order(int order, boolean equal) {
        return ok("order", Integer.signum(order), "equal", equal);
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object value) {
        return (Map<String, Object>) value;
    }

    static int interval(Map<String, Object> a) {
        return a.containsKey("interval") ? intArg(a, "interval") : Kuid96.DEFAULT_INTERVAL;
    }

    static long epoch(Map<String, Object> a) {
        return a.containsKey("epoch_ms") ? longArg(a, "epoch_ms") : Snowflake.DISCORD_EPOCH_MS;
    }

    // --- the operations each type shares -------------------------------------------------------

    /** The native types: one value class each. */
    static final class NativeTypes {
        private NativeTypes() {
        }

        static FlakeId<?> fromBytes(String type, byte[] data) {
            return switch (type) {
                case "sno" -> Sno.fromBytes(data);
                case "siq" -> Siq.fromBytes(data);
                case "distributed_id" -> DistributedId.fromBytes(data);
                case "distributed_id128" -> DistributedId128.fromBytes(data);
                case "flaxid" -> FlaxId.fromBytes(data);
                default -> Kuid96.fromBytes(data);
            };
        }

        static FlakeId<?> parse(String type, String text) {
            return switch (type) {
                case "sno" -> Sno.parse(text);
                case "siq" -> Siq.parse(text);
                case "distributed_id" -> DistributedId.parse(text);
                case "distributed_id128" -> DistributedId128.parse(text);
                case "flaxid" -> FlaxId.parse(text);
                default -> Kuid96.parse(text);
            };
        }

        @SuppressWarnings({"unchecked", "rawtypes"})
        static Map<String, Object> handle(String type, String op, Map<String, Object> a) {
            switch (op) {
                case "parse":
                    return bytesOk(parse(type, (String) a.get("text")));
                case "format":
                    return ok("text", fromBytes(type, bytes(a, "bytes_hex")).toString());
                case "parts":
                    return ok("parts", Layouts.parts(type, fromBytes(type, bytes(a, "bytes_hex")), a));
                case "from_parts":
                    return bytesOk(Layouts.fromParts(type, map(a.get("parts")), a));
                case "from_time":
                    return bytesOk(Layouts.fromTime(type, time(a, "time"), a));
                case "encode":
                    return ok("value", Encodings.encode(type, (String) a.get("encoding"),
                        fromBytes(type, bytes(a, "bytes_hex"))));
                case "decode":
                    return bytesOk(Encodings.decode(type, (String) a.get("encoding"), a.get("value")));
                case "compare": {
                    FlakeId x = fromBytes(type, HEX.parseHex((String) a.get("a")));
                    FlakeId y = fromBytes(type, HEX.parseHex((String) a.get("b")));
                    return order(x.compareTo(y), x.equals(y));
                }
                case "domain_hash":
                    requireType(type, "siq", op);
                    return ok("domain_hash", wire(Siq.domainHash((String) a.get("domain"))));
                case "globalize":
                    requireType(type, "kuid96", op);
                    return bytesOk(Kuid96.globalize(longArg(a, "kuid64"), longArg(a, "node"), interval(a)));
                case "localize":
                    requireType(type, "kuid96", op);
                    return ok("kuid64", wire(Kuid96.fromBytes(bytes(a, "bytes_hex")).localize(interval(a))));
                case "node_fingerprint":
                    requireType(type, "kuid96", op);
                    return ok("node", wire(Kuid64.nodeFingerprint((String) a.get("name"))));
                default:
                    throw new Unsupported(type + " has no operation " + op + " in this package");
            }
        }
    }

    static void requireType(String type, String wanted, String op) {
        if (!type.equals(wanted)) {
            throw new Unsupported(op + " is an operation of " + wanted + ", not " + type);
        }
    }

    /** Snowflake, kuid64 and bigint: {@code long}s, compared as signed integers. */
    static final class BigintTypes {
        private BigintTypes() {
        }

        static long value(byte[] data) {
            if (data.length != 8) {
                throw FlakeException.invalidBinary("bigint", "exactly 8", data.length);
            }
            long value = 0;
            for (byte b : data) {
                value = value << 8 | (b & 0xff);
            }
            return value;
        }

        static Map<String, Object> handle(String type, String op, Map<String, Object> a) {
            boolean snowflake = type.equals("snowflake");
            boolean kuid64 = type.equals("kuid64");
            switch (op) {
                case "parse":
                    if (type.equals("bigint")) {
                        break;
                    }
                    long parsed = snowflake ? Snowflake.parse((String) a.get("text")) : Kuid64.decode((String) a.get("text"));
                    return ok("bytes_hex", hex(Snowflake.toBytes(parsed)));
                case "format": {
                    if (type.equals("bigint")) {
                        break;
                    }
                    long value = value(bytes(a, "bytes_hex"));
                    return ok("text", snowflake ? Snowflake.format(value) : Kuid64.encode(value));
                }
                case "parts":
                    if (type.equals("bigint")) {
                        break;
                    }
                    return ok("parts", Layouts.bigintParts(snowflake, value(bytes(a, "bytes_hex")), a));
                case "from_parts": {
                    Map<String, Object> p = map(a.get("parts"));
                    if (snowflake) {
                        long epoch = p.containsKey("epoch_ms") ? longArg(p, "epoch_ms") : epoch(a);
                        return ok("bytes_hex", hex(Snowflake.toBytes(Snowflake.fromParts(time(p, "time"),
                            intArg(p, "worker"), intArg(p, "process"), intArg(p, "sequence"), epoch))));
                    }
                    if (kuid64) {
                        return ok("bytes_hex", hex(Snowflake.toBytes(Kuid64.fromParts(time(p, "time"), intArg(p, "seq")))));
                    }
                    break;
                }
                case "from_time":
                    if (snowflake) {
                        return ok("bytes_hex", hex(Snowflake.toBytes(Snowflake.fromTime(time(a, "time"), epoch(a)))));
                    }
                    if (kuid64) {
                        return ok("bytes_hex", hex(Snowflake.toBytes(Kuid64.fromTime(time(a, "time")))));
                    }
                    break;
                case "encode": {
                    long value = value(bytes(a, "bytes_hex"));
                    String encoding = (String) a.get("encoding");
                    if (type.equals("bigint") && encoding.equals("alphanumeric")) {
                        return ok("value", Alphanumeric.encode(value));
                    }
                    if (kuid64 && encoding.equals("integer")) {
                        Kuid64.parts(value); // a negative bigint is no kuid64
                        return ok("value", wire(value));
                    }
                    throw new Unsupported(type + " has no encoding " + encoding);
                }
                case "decode": {
                    String encoding = (String) a.get("encoding");
                    if (type.equals("bigint") && encoding.equals("alphanumeric")) {
                        return ok("bytes_hex", hex(Snowflake.toBytes(Alphanumeric.decodeLong((String) a.get("value")))));
                    }
                    if (kuid64 && encoding.equals("integer")) {
                        long value = integer(a.get("value")).longValueExact();
                        Kuid64.parts(value); // a negative bigint is no kuid64
                        return ok("bytes_hex", hex(Snowflake.toBytes(value)));
                    }
                    throw new Unsupported(type + " has no encoding " + encoding);
                }
                case "compare": {
                    long x = value(HEX.parseHex((String) a.get("a")));
                    long y = value(HEX.parseHex((String) a.get("b")));
                    return order(Long.compare(x, y), x == y);
                }
                default:
                    break;
            }
            throw new Unsupported(type + " has no operation " + op + " in this package");
        }
    }
}
