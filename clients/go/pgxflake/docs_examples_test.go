package pgxflake_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The Go examples of the documentation (docs/applications.md and this
// module's README.md), each a complete program (a ```go block starting
// with "package main"): gofmt-formatted, built together, and each run
// against the server with DATABASE_URL set to PG_FLAKE_TEST_DSN's server
// and a database flake_go_docs in the schema `make run` makes
// (sql/example.sql: the table events). They must exit 0. The SQL examples are scripts/test-readme.py's.

var goBlock = regexp.MustCompile("(?s)\n```go\n(package main\n.*?)```\n")

type example struct {
	source string // file:line
	code   string
}

func docsExamples(t *testing.T) []example {
	t.Helper()
	var out []example
	for _, file := range []string{"../../../docs/applications.md", "../README.md"} {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range goBlock.FindAllSubmatchIndex(text, -1) {
			line := strings.Count(string(text[:m[2]]), "\n") + 1
			out = append(out, example{fmt.Sprintf("%s:%d", file, line), string(text[m[2]:m[3]])})
		}
	}
	return out
}

func TestServerDocsExamples(t *testing.T) {
	dsn := dsn(t)
	t.Parallel() // beside the tests that wait
	examples := docsExamples(t)
	if len(examples) < 5 {
		t.Fatalf("only %d Go examples in the docs", len(examples))
	}
	// A database of the examples' own: the clients' database is shared with
	// the other languages' recipes, which make tables of their own.
	admin := connectPool(t, dsn)
	if _, err := admin.Exec(context.Background(), "CREATE DATABASE flake_go_docs"); err != nil && sqlState(err) != "42P04" {
		t.Fatal(err)
	}
	dsn += " dbname=flake_go_docs"
	p := connectPool(t, dsn)
	schema, err := os.ReadFile("../../../sql/example.sql")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Exec(context.Background(), string(schema)); err != nil {
		t.Fatalf("sql/example.sql: %v", err)
	}
	// Inside the module (they import it), under a name of this run's own.
	dir, err := os.MkdirTemp(".", "docs-examples-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	for i, e := range examples {
		sub := filepath.Join(dir, fmt.Sprintf("ex%02d", i))
		if err := os.Mkdir(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sub, "main.go"), []byte(e.code), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("gofmt", "-l", sub).CombinedOutput(); err != nil || len(out) > 0 {
			t.Errorf("%s: not gofmt-formatted (%s, %v)", e.source, out, err)
		}
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-ldflags=-s -w", "-o", bin+string(os.PathSeparator), "./"+filepath.ToSlash(dir)+"/...")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the examples: %v\n%s", err, out)
	}
	for i, e := range examples {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		run := exec.CommandContext(ctx, filepath.Join(bin, fmt.Sprintf("ex%02d", i)))
		run.Env = append(os.Environ(), "DATABASE_URL="+dsn)
		out, err := run.CombinedOutput()
		cancel()
		if err != nil {
			t.Errorf("%s: %v\n%s", e.source, err, out)
		} else {
			t.Logf("%s: ok %s", e.source, strings.TrimSpace(string(out)))
		}
	}
}
