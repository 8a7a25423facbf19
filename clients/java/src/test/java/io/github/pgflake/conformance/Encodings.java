package io.github.pgflake.conformance;

import static io.github.pgflake.conformance.ConformanceAdapter.integer;
import static io.github.pgflake.conformance.ConformanceAdapter.wire;

import io.github.pgflake.DistributedId;
import io.github.pgflake.DistributedId128;
import io.github.pgflake.FlakeId;
import io.github.pgflake.Siq;
import java.math.BigInteger;

/** The protocol's encodings of the native types, both ways. */
final class Encodings {
    private Encodings() {
    }

    static Object encode(String type, String encoding, FlakeId<?> value) {
        switch (type + " " + encoding) {
            case "siq did":
                return ((Siq) value).toDid();
            case "siq hex":
                return ((Siq) value).toHex();
            case "siq base64":
                return ((Siq) value).toBase64();
            case "siq integer":
                return wire(((Siq) value).toInteger());
            case "distributed_id integer":
                return wire(((DistributedId) value).value());
            case "distributed_id hex":
                return ((DistributedId) value).toHex();
            case "distributed_id alphanumeric":
                return ((DistributedId) value).toAlphanumeric();
            case "distributed_id128 numeric":
                return wire(((DistributedId128) value).numeric());
            case "distributed_id128 alphanumeric":
                return ((DistributedId128) value).toAlphanumeric();
            default:
                throw new ConformanceAdapter.Unsupported(type + " has no encoding " + encoding);
        }
    }

    static FlakeId<?> decode(String type, String encoding, Object value) {
        switch (type + " " + encoding) {
            case "siq did":
                return Siq.parse((String) value);
            case "siq hex":
                return Siq.fromHex((String) value);
            case "siq base64":
                return Siq.fromBase64((String) value);
            case "siq integer":
                return Siq.fromInteger(number(value));
            case "distributed_id integer":
                return value instanceof String s && !s.matches("-?[0-9]+")
                    ? DistributedId.of(new java.math.BigDecimal(s)) : DistributedId.of(number(value));
            case "distributed_id hex":
                return DistributedId.fromHex((String) value);
            case "distributed_id alphanumeric":
                return DistributedId.fromAlphanumeric((String) value);
            case "distributed_id128 numeric":
                return DistributedId128.fromNumeric(number(value));
            case "distributed_id128 alphanumeric":
                return DistributedId128.fromAlphanumeric((String) value);
            default:
                throw new ConformanceAdapter.Unsupported(type + " has no encoding " + encoding);
        }
    }

    private static BigInteger number(Object value) {
        return integer(value);
    }
}
