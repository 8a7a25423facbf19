package io.github.pgflake.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a test class that needs the server (PG_FLAKE_TEST_DSN). With {@code -Dpgflake.only=server}
 * the runner runs only these: test.sh does so once the other tests passed for the same build,
 * since they do not depend on the server's version.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface ServerTest {
    /**
     * false: what the class tests does not depend on the server's version (the holder processes
     * under faults), so it runs with the other tests once per build, not in every version's run.
     */
    boolean perVersion() default true;
}
