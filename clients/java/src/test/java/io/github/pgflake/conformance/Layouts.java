package io.github.pgflake.conformance;

import static io.github.pgflake.conformance.ConformanceAdapter.epoch;
import static io.github.pgflake.conformance.ConformanceAdapter.intArg;
import static io.github.pgflake.conformance.ConformanceAdapter.integer;
import static io.github.pgflake.conformance.ConformanceAdapter.interval;
import static io.github.pgflake.conformance.ConformanceAdapter.longArg;
import static io.github.pgflake.conformance.ConformanceAdapter.ok;
import static io.github.pgflake.conformance.ConformanceAdapter.time;
import static io.github.pgflake.conformance.ConformanceAdapter.wire;

import io.github.pgflake.DistributedId;
import io.github.pgflake.DistributedId128;
import io.github.pgflake.FlakeId;
import io.github.pgflake.FlaxId;
import io.github.pgflake.Kuid64;
import io.github.pgflake.Kuid96;
import io.github.pgflake.Siq;
import io.github.pgflake.SiqKind;
import io.github.pgflake.Sno;
import io.github.pgflake.Snowflake;
import java.time.Instant;
import java.util.Map;

/** The protocol's {@code parts}, {@code from_parts} and {@code from_time} of each type. */
final class Layouts {
    private Layouts() {
    }

    static Map<String, Object> parts(String type, FlakeId<?> value, Map<String, Object> a) {
        switch (type) {
            case "sno": {
                Sno s = (Sno) value;
                return ok("time", wire(s.unixMicros()), "tick_tock", s.tickTock(), "meta", s.meta(),
                    "partition", s.partition(), "sequence", s.sequence());
            }
            case "siq": {
                Siq s = (Siq) value;
                return ok("time", wire(s.unixMicros()), "ticks", wire(s.ticks()), "shard", s.shard(),
                    "domain_hash", wire(s.domainHash()), "kind", s.kind() == null ? null : s.kind().sqlName(),
                    "serial", s.serial(), "low16", s.low16());
            }
            case "distributed_id": {
                DistributedId d = (DistributedId) value;
                return ok("time", wire(d.unixMicros()), "random", wire(d.random()));
            }
            case "distributed_id128": {
                DistributedId128 d = (DistributedId128) value;
                return ok("time", wire(d.unixMicros()), "random", wire(d.random()));
            }
            case "flaxid": {
                FlaxId f = (FlaxId) value;
                return ok("time", wire(f.unixMicros()), "random", wire(f.random()));
            }
            default: {
                Kuid96.Parts p = ((Kuid96) value).parts(interval(a));
                return ok("time", wire(p.unixMicros()), "node", wire(p.node()), "seq", p.seq());
            }
        }
    }

    static FlakeId<?> fromParts(String type, Map<String, Object> p, Map<String, Object> a) {
        switch (type) {
            case "sno":
                return Sno.fromParts(time(p, "time"), intArg(p, "meta"), intArg(p, "partition"), intArg(p, "sequence"),
                    Boolean.TRUE.equals(p.get("tick_tock")));
            case "siq":
                return Siq.fromPartsTicks(longArg(p, "ticks"), intArg(p, "shard"), longArg(p, "domain_hash"),
                    SiqKind.named((String) p.get("kind")), intArg(p, "serial"));
            case "distributed_id":
                return DistributedId.fromParts(time(p, "time"), longArg(p, "random"));
            case "distributed_id128":
                return DistributedId128.fromParts(time(p, "time"), integer(p.get("random")));
            case "flaxid":
                return FlaxId.fromParts(time(p, "time"), longArg(p, "random"));
            default:
                return Kuid96.fromParts(time(p, "time"), longArg(p, "node"), intArg(p, "seq"), interval(a));
        }
    }

    static FlakeId<?> fromTime(String type, Instant time, Map<String, Object> a) {
        return switch (type) {
            case "sno" -> Sno.fromTime(time);
            case "siq" -> Siq.fromTime(time);
            case "distributed_id" -> DistributedId.fromTime(time);
            case "distributed_id128" -> DistributedId128.fromTime(time);
            case "flaxid" -> FlaxId.fromTime(time);
            default -> Kuid96.fromTime(time, interval(a));
        };
    }

    static Map<String, Object> bigintParts(boolean snowflake, long value, Map<String, Object> a) {
        if (snowflake) {
            Snowflake.Parts p = Snowflake.parts(value, epoch(a));
            return ok("time", wire(p.unixMicros()), "worker", p.worker(), "process", p.process(),
                "sequence", p.sequence());
        }
        Kuid64.Parts p = Kuid64.parts(value);
        return ok("time", wire(p.unixMicros()), "megaseconds", wire(p.megaseconds()), "seconds", wire(p.seconds()),
            "microseconds", wire(p.microseconds()), "seq", p.seq());
    }
}
