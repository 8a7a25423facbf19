package io.github.pgflake.testing;

import io.github.pgflake.FlakeException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/** Assertions, and running one check per vector with every failure named. */
public final class Check {
    private Check() {
    }

    public static void equal(Object expected, Object actual, String what) {
        if (!Objects.equals(expected, actual)) {
            throw new AssertionError(what + ": expected " + expected + ", got " + actual);
        }
    }

    public static void that(boolean condition, String what) {
        if (!condition) {
            throw new AssertionError(what);
        }
    }

    /** What {@code body} throws; fails if it throws nothing or something else. */
    public static <E extends Throwable> E raises(Class<E> type, Runnable body, String what) {
        try {
            body.run();
        } catch (Throwable e) {
            if (type.isInstance(e)) {
                return type.cast(e);
            }
            throw new AssertionError(what + ": expected " + type.getSimpleName() + ", got " + e, e);
        }
        throw new AssertionError(what + ": expected " + type.getSimpleName() + ", nothing was thrown");
    }

    /** A {@link FlakeException} with one of {@code sqlStates}. */
    public static FlakeException rejects(List<String> sqlStates, Runnable body, String what) {
        FlakeException e = raises(FlakeException.class, body, what);
        if (!sqlStates.contains(e.getSqlState())) {
            throw new AssertionError(what + ": SQLSTATE " + e.getSqlState() + " not in " + sqlStates + ": "
                + e.getMessage());
        }
        return e;
    }

    public static FlakeException rejects(String sqlState, Runnable body, String what) {
        return rejects(Arrays.asList(sqlState), body, what);
    }

    /** {@code check} for every item; fails with the names (from {@code name}) of all that failed. */
    public static <T> int each(List<T> items, java.util.function.Function<T, String> name, Consumer<T> check) {
        List<String> failures = new ArrayList<>();
        for (T item : items) {
            try {
                check.accept(item);
            } catch (RuntimeException | AssertionError e) {
                failures.add(name.apply(item) + ": " + e.getMessage());
            }
        }
        if (!failures.isEmpty()) {
            throw new AssertionError(failures.size() + " of " + items.size() + " failed:\n  "
                + String.join("\n  ", failures));
        }
        if (items.isEmpty()) {
            throw new AssertionError("no items to check");
        }
        return items.size();
    }
}
