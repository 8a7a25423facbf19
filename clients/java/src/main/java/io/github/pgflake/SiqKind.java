package io.github.pgflake;

import java.util.Locale;

/**
 * The kinds of SIQ (docs/sql-reference.md "siq"): each is a suffix of 3 to 5 bits at the low end
 * of the last 16 bits; the serial has the remaining {@code 16 - width} bits.
 */
public enum SiqKind {
    USER(0b00000, 5),
    APPLICATION(0b10000, 5),
    EVENT(0b01000, 5),
    PREMIUM(0b11000, 5),
    GROUP(0b00100, 5),
    COLLECTION(0b10100, 5),
    INVITE(0b01100, 5),
    TAG(0b00010, 5),
    CHANNEL(0b01010, 5),
    THREAD(0b0110, 4),
    MESSAGE(0b1110, 4),
    TERNARY(0b001, 3),
    MANYTOMANY(0b101, 3),
    MULTI(0b011, 3),
    CONTENT(0b111, 3);

    private final int suffix;
    private final int width;

    SiqKind(int suffix, int width) {
        this.suffix = suffix;
        this.width = width;
    }

    public int suffix() {
        return suffix;
    }

    /** The suffix's width in bits. */
    public int width() {
        return width;
    }

    /** The largest serial of this kind in one tick. */
    public int maxSerial() {
        return (1 << (16 - width)) - 1;
    }

    /** The name as SQL spells it ({@code user}, {@code manytomany}, …). */
    public String sqlName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The kind of a name, any case (22023 for an unknown one, as {@code siq_generate}). */
    public static SiqKind named(String name) {
        for (SiqKind kind : values()) {
            if (kind.name().equalsIgnoreCase(name)) {
                return kind;
            }
        }
        StringBuilder accepted = new StringBuilder();
        for (SiqKind kind : values()) {
            accepted.append(accepted.length() == 0 ? "" : ", ").append(kind.sqlName());
        }
        throw FlakeException.invalidParameter("unknown SIQ kind \"" + name + "\"; accepted kinds: " + accepted);
    }

    /** The kind whose suffix ends {@code low16}, or null for an unassigned suffix. */
    public static SiqKind of(int low16) {
        int width = (low16 & 1) != 0 ? 3 : (low16 & 0b111) == 0b110 ? 4 : 5;
        int suffix = low16 & ((1 << width) - 1);
        for (SiqKind kind : values()) {
            if (kind.width == width && kind.suffix == suffix) {
                return kind;
            }
        }
        return null;
    }

    /** The suffix width read from {@code low16}: a final 1 is 3 bits, a final 110 is 4, else 5. */
    static int widthOf(int low16) {
        return (low16 & 1) != 0 ? 3 : (low16 & 0b111) == 0b110 ? 4 : 5;
    }
}
