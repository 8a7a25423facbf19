package io.github.pgflake.lease;

import io.github.pgflake.FlakeException;
import io.github.pgflake.Kuid96;
import io.github.pgflake.Siq;
import io.github.pgflake.SiqKind;
import io.github.pgflake.Sno;
import io.github.pgflake.Snowflake;

/**
 * What a format needs to generate under a lease: its time units on the database's time line
 * and its assembly of an ID from the lease's node and process with the package's own
 * constructors (as core/src/leased/{sno,snowflake,kuid96,siq}.rs). A unit is a long that grows
 * with time; {@link #startNanos} is the first whole nanosecond inside it, so "unit u lies inside
 * [a, b)" is exactly {@code startNanos(u) >= a && startNanos(next(u)) <= b}.
 *
 * @param <T> the IDs it makes
 */
abstract class LeasedFormat<T> {
    final String name;

    LeasedFormat(String name) {
        this.name = name;
    }

    abstract long unitAt(long unixNanos);

    abstract long startNanos(long unit);

    long next(long unit) {
        return unit + 1;
    }

    /** The time an ID of {@code unit} decodes to in SQL, in microseconds (the start, rounded down). */
    long decodedMicros(long unit) {
        return Math.floorDiv(startNanos(unit), 1000L);
    }

    /** Sequences per unit are kept per kind (SIQ) or once (the others: kind 0). */
    int kinds() {
        return 1;
    }

    abstract int maxSequence(int kind);

    abstract T build(long unit, int sequence, int kind);

    static LeasedFormat<?> of(Lease lease, LeaseOptions options) {
        return switch (lease.format()) {
            case "sno" -> new SnoFormat(lease, options.meta());
            case "snowflake" -> new SnowflakeFormat(lease);
            case "kuid96" -> new Kuid96Format(lease);
            case "siq" -> new SiqFormat(lease, options.domain(), options.kind());
            default -> throw FlakeException.invalidParameter("no leased generator for format \"" + lease.format()
                + "\"; accepted formats: sno, snowflake, kuid96, siq (kuid64 has no node field: use kuid96)");
        };
    }

    static FlakeException misfit(String message) {
        return FlakeException.invalidParameter(message);
    }

    /** 4 ms units since 2010; partition = node << 8 | process; tick-tock 0. */
    static final class SnoFormat extends LeasedFormat<Sno> {
        private final int partition;
        private final int meta;

        SnoFormat(Lease lease, int meta) {
            super("sno");
            if (lease.node() < 0 || lease.node() > 255 || lease.process() < 0 || lease.process() > 255) {
                throw misfit("lease " + lease.leaseId() + ": sno node " + lease.node() + " or process "
                    + lease.process() + " is outside 0 to 255");
            }
            this.partition = (int) lease.node() << 8 | lease.process();
            this.meta = (int) FlakeException.field("sno", "meta", meta, 0, 255);
        }

        @Override
        long unitAt(long ns) {
            return Math.floorDiv(Math.floorDiv(ns, 1000L) - Sno.EPOCH_MICROS, Sno.UNIT_MICROS);
        }

        @Override
        long startNanos(long unit) {
            return (Sno.EPOCH_MICROS + unit * Sno.UNIT_MICROS) * 1000;
        }

        @Override
        int maxSequence(int kind) {
            return 65535;
        }

        @Override
        Sno build(long unit, int sequence, int kind) {
            return Sno.fromUnits(unit, false, meta, partition, sequence);
        }
    }

    /** Unix milliseconds; worker = node, the lease's epoch. */
    static final class SnowflakeFormat extends LeasedFormat<Long> {
        private final long epochMs;
        private final int worker;
        private final int process;

        SnowflakeFormat(Lease lease) {
            super("snowflake");
            if (lease.epochMs() == null) {
                throw misfit("snowflake lease " + lease.leaseId() + " has no epoch_ms");
            }
            this.epochMs = Snowflake.checkEpoch(lease.epochMs());
            if (lease.node() < 0 || lease.node() > 31 || lease.process() < 0 || lease.process() > 31) {
                throw misfit("lease " + lease.leaseId() + ": snowflake worker " + lease.node() + " or process "
                    + lease.process() + " is outside 0 to 31");
            }
            this.worker = (int) lease.node();
            this.process = lease.process();
        }

        @Override
        long unitAt(long ns) {
            return Math.floorDiv(ns, 1_000_000L);
        }

        @Override
        long startNanos(long unit) {
            return unit * 1_000_000;
        }

        @Override
        int maxSequence(int kind) {
            return 4095;
        }

        @Override
        Long build(long unit, int sequence, int kind) {
            return Snowflake.fromMillis(unit, worker, process, sequence, epochMs);
        }
    }

    /**
     * 1024 µs units within each second (the last one of a second is 576 µs); a unit is
     * {@code second << 10 | microseconds >> 10}.
     */
    static final class Kuid96Format extends LeasedFormat<Kuid96> {
        private static final long LAST_OF_SECOND = 999_424 >> 10;
        private final long node;
        private final int interval;

        Kuid96Format(Lease lease) {
            super("kuid96");
            if (lease.kuidInterval() == null) {
                throw misfit("kuid96 lease " + lease.leaseId() + " has no kuid_interval");
            }
            this.interval = Kuid96.checkInterval(lease.kuidInterval());
            if (lease.node() < 0 || lease.node() > 0xFFFF_FFFFL || lease.process() != 0) {
                throw misfit("lease " + lease.leaseId() + ": kuid96 node " + lease.node()
                    + " is outside 0 to 4294967295 or process " + lease.process() + " is not 0");
            }
            this.node = lease.node();
        }

        @Override
        long unitAt(long ns) {
            long micros = Math.floorDiv(ns, 1000L);
            return Math.floorDiv(micros, 1_000_000L) << 10 | Math.floorMod(micros, 1_000_000L) >> 10;
        }

        @Override
        long startNanos(long unit) {
            return ((unit >> 10) * 1_000_000 + (unit & 1023) * 1024) * 1000;
        }

        @Override
        long next(long unit) {
            return (unit & 1023) < LAST_OF_SECOND ? unit + 1 : ((unit >> 10) + 1) << 10;
        }

        @Override
        int maxSequence(int kind) {
            return (1 << 14) - 1;
        }

        @Override
        Kuid96 build(long unit, int sequence, int kind) {
            return Kuid96.fromMicros(startNanos(unit) / 1000, node, sequence, interval);
        }
    }

    /** Ticks of 1/65536 s; shard = process; the node in the domain hash's top byte; a serial per kind per tick. */
    static final class SiqFormat extends LeasedFormat<Siq> {
        private static final SiqKind[] KINDS = SiqKind.values();
        private final int shard;
        private final long domainHash;
        final SiqKind kind;

        SiqFormat(Lease lease, String domain, SiqKind kind) {
            super("siq");
            if (lease.node() < 0 || lease.node() > 255 || lease.process() < 0 || lease.process() > 255) {
                throw misfit("lease " + lease.leaseId() + ": siq node " + lease.node() + " or shard "
                    + lease.process() + " is outside 0 to 255");
            }
            this.shard = lease.process();
            this.domainHash = Siq.domainHash(domain) & 0x00FF_FFFFL | lease.node() << 24;
            this.kind = kind;
        }

        @Override
        long unitAt(long ns) {
            return Math.floorDiv(ns, 1_000_000_000L) * 65536 + Math.floorMod(ns, 1_000_000_000L) * 65536 / 1_000_000_000L;
        }

        @Override
        long startNanos(long unit) {
            // The ceiling of the tick's exact start: its first whole nanosecond.
            return (unit >> 16) * 1_000_000_000L + ((unit & 0xFFFF) * 1_000_000_000L + 65535) / 65536;
        }

        @Override
        long decodedMicros(long unit) {
            return Siq.ticksToMicros(unit);
        }

        @Override
        int kinds() {
            return KINDS.length;
        }

        @Override
        int maxSequence(int kind) {
            return KINDS[kind].maxSerial();
        }

        @Override
        Siq build(long unit, int sequence, int kind) {
            return Siq.fromPartsTicks(unit, shard, domainHash, KINDS[kind], sequence);
        }
    }
}
