package io.github.pgflake.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The reference vectors (tests/vectors, see its README) and what reading them needs. */
public final class Vectors {
    private Vectors() {
    }

    /** tests/vectors: {@code -Dpgflake.vectors=DIR}, else found upwards from the working directory. */
    public static Path directory() {
        String given = System.getProperty("pgflake.vectors");
        if (given != null) {
            return Paths.get(given);
        }
        for (Path dir = Paths.get("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve("tests/vectors");
            if (Files.isRegularFile(candidate.resolve("sno.jsonl"))) {
                return candidate;
            }
        }
        throw new IllegalStateException("tests/vectors not found: set -Dpgflake.vectors");
    }

    /** The vectors of {@code <file>.jsonl} of the given kinds (all if none given). */
    @SuppressWarnings("unchecked")
    public static List<Map<String, Object>> of(String file, String... kinds) {
        List<String> wanted = Arrays.asList(kinds);
        List<Map<String, Object>> rows = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(directory().resolve(file + ".jsonl"), StandardCharsets.UTF_8)) {
                if (line.isBlank()) {
                    continue;
                }
                Map<String, Object> row = (Map<String, Object>) Json.parse(line);
                if (wanted.isEmpty() || wanted.contains((String) row.get("kind"))) {
                    rows.add(row);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return rows;
    }

    /** The vectors of a file except those of the given kinds. */
    public static List<Map<String, Object>> except(String file, String... kinds) {
        List<String> unwanted = Arrays.asList(kinds);
        List<Map<String, Object>> rows = new ArrayList<>(of(file));
        rows.removeIf(v -> unwanted.contains((String) v.get("kind")));
        return rows;
    }

    public static String name(Map<String, Object> vector) {
        return (String) vector.get("name");
    }

    /** Vectors write integers above 2^53 as strings. */
    public static BigInteger integer(Object value) {
        return value instanceof BigInteger b ? b : new BigInteger(value.toString());
    }

    public static long longOf(Object value) {
        return integer(value).longValueExact();
    }

    public static int intOf(Object value) {
        return integer(value).intValueExact();
    }

    /** The accepted SQLSTATEs of an error vector (one code or a list). */
    @SuppressWarnings("unchecked")
    public static List<String> sqlStates(Map<String, Object> vector) {
        Object states = vector.get("sqlstate");
        return states instanceof List ? (List<String>) states : List.of((String) states);
    }

    @SuppressWarnings("unchecked")
    public static Map<String, Object> map(Object value) {
        return (Map<String, Object>) value;
    }

    private static final Pattern RFC3339 =
        Pattern.compile("(\\d{4,})-(\\d\\d)-(\\d\\d)T(\\d\\d):(\\d\\d):(\\d\\d)(?:\\.(\\d{1,9}))?Z");

    /** Nanoseconds of the fraction and seconds since 1970 of an RFC 3339 UTC time, any year. */
    public static Instant instant(String text) {
        Matcher m = RFC3339.matcher(text);
        if (!m.matches()) {
            throw new IllegalArgumentException("not an RFC 3339 UTC time: " + text);
        }
        long year = Long.parseLong(m.group(1));
        int month = Integer.parseInt(m.group(2));
        int day = Integer.parseInt(m.group(3));
        long seconds = daysFromCivil(year, month, day) * 86400 + Integer.parseInt(m.group(4)) * 3600L
            + Integer.parseInt(m.group(5)) * 60L + Integer.parseInt(m.group(6));
        String fraction = m.group(7) == null ? "" : m.group(7);
        long nanos = Long.parseLong((fraction + "000000000").substring(0, 9));
        return Instant.ofEpochSecond(seconds, nanos);
    }

    /** Microseconds since 1970 of an RFC 3339 UTC time, rounded down. */
    public static long micros(String text) {
        Instant t = instant(text);
        return t.getEpochSecond() * 1_000_000 + t.getNano() / 1000;
    }

    /** H. Hinnant's algorithm, as core/src/time.rs: exact for any year. */
    static long daysFromCivil(long year, int month, int day) {
        long y = month <= 2 ? year - 1 : year;
        long era = Math.floorDiv(y, 400);
        long yoe = y - era * 400;
        long doy = (153L * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
        long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        return era * 146097 + doe - 719468;
    }

    public static byte[] hex(String hex) {
        return java.util.HexFormat.of().parseHex(hex);
    }
}
