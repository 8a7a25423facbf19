package io.github.pgflake;

import io.github.pgflake.testing.Check;
import io.github.pgflake.testing.Db;
import io.github.pgflake.testing.ServerTest;
import io.github.pgflake.testing.Test;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * Every ```java block of docs/applications.md and clients/java/README.md, compiled and run
 * against the test server (scripts/test-readme.py runs the documentation's ```sql blocks; this
 * is its counterpart for Java). Each block becomes the body of a method with the block's
 * {@code import} lines above its class and a {@code String url} (the server's JDBC URL, with its
 * user) in scope; the tables the examples write to are made first.
 */
@ServerTest
public class DocsExamplesTest {
    static final String SETUP = "DROP TABLE IF EXISTS posts, events;"
        + " CREATE TABLE posts (id sno PRIMARY KEY, body text NOT NULL);"
        + " CREATE TABLE events (id sno PRIMARY KEY DEFAULT sno_generate(), kind text NOT NULL)";
    static final String IMPORTS = "import java.sql.*;\nimport java.time.*;\nimport java.util.*;\n";

    record Example(String file, int line, List<String> imports, String body) {
    }

    /** The ```java blocks of a file (the repository's, found from the vectors' directory). */
    static List<Example> examples(String file) throws IOException {
        Path path = io.github.pgflake.testing.Vectors.directory().resolve("../..").resolve(file).normalize();
        List<String> lines = Files.readAllLines(path, StandardCharsets.UTF_8);
        List<Example> found = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (!lines.get(i).trim().equals("```java")) {
                continue;
            }
            int start = i + 1;
            List<String> imports = new ArrayList<>();
            StringBuilder body = new StringBuilder();
            for (i = start; !lines.get(i).trim().equals("```"); i++) {
                String line = lines.get(i);
                if (line.startsWith("import ")) {
                    imports.add(line);
                } else {
                    body.append(line).append('\n');
                }
            }
            found.add(new Example(file, start, imports, body.toString()));
        }
        return found;
    }

    @Test
    public void everyJavaExampleOfTheDocsRuns() throws Exception {
        String dsn = Db.dsn();
        String url = Db.url(dsn) + "?user=" + Db.properties(dsn).getProperty("user");
        try (Connection conn = Db.connect()) {
            Db.execute(conn, "SET client_min_messages = warning", "CREATE EXTENSION IF NOT EXISTS pg_flake", SETUP);
        }
        List<Example> all = new ArrayList<>(examples("docs/applications.md"));
        all.addAll(examples("clients/java/README.md"));
        Check.that(all.size() >= 4, "the docs have Java examples: " + all.size());
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        Path dir = Files.createTempDirectory("pg-flake-java-docs");
        String classpath = System.getProperty("java.class.path");
        List<String> failures = new ArrayList<>();
        // One compilation for every example (javac's start dominates), then each run.
        List<String> files = new ArrayList<>(List.of("-classpath", classpath, "-d", dir.toString()));
        for (int n = 0; n < all.size(); n++) {
            Example example = all.get(n);
            String source = IMPORTS + String.join("\n", example.imports()) + "\n// " + example.file() + ":"
                + example.line() + "\npublic class Example" + n
                + " {\n    public static void run(String url) throws Exception {\n" + example.body() + "    }\n}\n";
            Path file = dir.resolve("Example" + n + ".java");
            Files.writeString(file, source);
            files.add(file.toString());
        }
        java.io.ByteArrayOutputStream errors = new java.io.ByteArrayOutputStream();
        if (compiler.run(null, null, errors, files.toArray(new String[0])) != 0) {
            failures.add("the examples do not compile (each file names its block):\n"
                + errors.toString(StandardCharsets.UTF_8));
        }
        for (int n = 0; failures.isEmpty() && n < all.size(); n++) {
            Example example = all.get(n);
            String where = example.file() + ":" + example.line();
            try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()},
                    DocsExamplesTest.class.getClassLoader())) {
                loader.loadClass("Example" + n).getMethod("run", String.class).invoke(null, url);
                System.out.println("       ran " + where);
            } catch (java.lang.reflect.InvocationTargetException e) {
                failures.add(where + ": " + e.getCause());
            }
        }
        try (Connection conn = Db.connect()) {
            Db.execute(conn, "DROP TABLE posts, events");
        }
        Check.that(failures.isEmpty(), String.join("\n", failures));
        Check.that(Paths.get(dir.toString()).toFile().exists(), "ran in " + dir);
    }
}
