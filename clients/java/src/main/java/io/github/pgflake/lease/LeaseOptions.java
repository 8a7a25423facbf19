package io.github.pgflake.lease;

import io.github.pgflake.SiqKind;

/**
 * What the application chooses about its IDs: sno's metabyte (0), SIQ's domain ("") and
 * default kind (user). The unit comes from the lease.
 */
public record LeaseOptions(int meta, String domain, SiqKind kind) {
    public static final LeaseOptions DEFAULT = new LeaseOptions(0, "", SiqKind.USER);

    public LeaseOptions {
        if (domain == null || kind == null) {
            throw new IllegalArgumentException("domain and kind must not be null");
        }
    }

    public LeaseOptions withMeta(int meta) {
        return new LeaseOptions(meta, domain, kind);
    }

    public LeaseOptions withDomain(String domain) {
        return new LeaseOptions(meta, domain, kind);
    }

    public LeaseOptions withKind(SiqKind kind) {
        return new LeaseOptions(meta, domain, kind);
    }
}
