package io.github.pgflake.testing;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Runs the {@link Test} methods of the classes named on the command line, in source-name order,
 * each on a fresh instance, and exits non-zero if one failed ({@code -Dpgflake.only=server}: only
 * the {@link ServerTest} classes). No JUnit: no Maven repository is
 * reachable here (clients/java/README.md "Building and testing"). {@code -Dtest=substring} runs only the
 * tests whose class#method contains it.
 */
public final class TestRunner {
    private TestRunner() {
    }

    public static void main(String[] args) throws Exception {
        String filter = System.getProperty("test", "");
        boolean serverOnly = "server".equals(System.getProperty("pgflake.only"));
        int passed = 0;
        int skipped = 0;
        List<String> failed = new ArrayList<>();
        long start = System.nanoTime();
        for (String name : args) {
            Class<?> cls = Class.forName(name);
            ServerTest server = cls.getAnnotation(ServerTest.class);
            if (serverOnly && (server == null || !server.perVersion())) {
                continue;
            }
            Method[] methods = cls.getDeclaredMethods();
            Arrays.sort(methods, Comparator.comparing(Method::getName));
            for (Method method : methods) {
                if (!method.isAnnotationPresent(Test.class)) {
                    continue;
                }
                String id = cls.getSimpleName() + "#" + method.getName();
                if (!id.contains(filter)) {
                    continue;
                }
                long t0 = System.nanoTime();
                try {
                    Object target = Modifier.isStatic(method.getModifiers()) ? null
                        : cls.getDeclaredConstructor().newInstance();
                    method.invoke(target);
                    passed++;
                    System.out.printf("ok   %s (%d ms)%n", id, (System.nanoTime() - t0) / 1_000_000);
                } catch (InvocationTargetException e) {
                    Throwable cause = e.getCause();
                    if (cause instanceof Skip) {
                        skipped++;
                        System.out.println("skip " + id + ": " + cause.getMessage());
                    } else {
                        failed.add(id);
                        System.out.println("FAIL " + id + ": " + cause);
                        for (StackTraceElement frame : cause.getStackTrace()) {
                            if (frame.getClassName().startsWith("io.github.pgflake")) {
                                System.out.println("       at " + frame);
                            }
                        }
                    }
                }
            }
        }
        System.out.printf("java tests: %d passed, %d failed, %d skipped in %.1f s%n", passed, failed.size(),
            skipped, (System.nanoTime() - start) / 1e9);
        if (!failed.isEmpty()) {
            System.out.println("failed: " + String.join(", ", failed));
            System.exit(1);
        }
        if (passed == 0 && skipped == 0) {
            System.out.println("no test ran");
            System.exit(1);
        }
    }
}
