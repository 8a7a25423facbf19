package pgflake

import (
	"encoding/hex"
	"math/big"
	"testing"
	"time"

	"pg-flake.invalid/pgflake/internal/vectors"
)

// The reference vectors (tests/vectors/README.md), file by file, in
// vectors_*_test.go: every value both ways, its parts and time, what it is
// built from, and every error vector's SQLSTATE.

func load(t *testing.T, name string) []vectors.Vector {
	t.Helper()
	dir, err := vectors.Dir()
	if err != nil {
		t.Fatal(err)
	}
	vs, err := vectors.Load(dir, name)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) == 0 {
		t.Fatalf("no vectors in %s", name)
	}
	return vs
}

func mustTime(t *testing.T, text string) time.Time {
	t.Helper()
	tm, err := vectors.ParseTime(text)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

func mustHex(t *testing.T, text string) []byte {
	t.Helper()
	b, err := hex.DecodeString(text)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sameTime checks a decoded time against the vector's text, in the
// vector's precision.
func sameTime(t *testing.T, name string, got time.Time, want string) {
	t.Helper()
	if s := vectors.FormatTime(got, vectors.Digits(want)); s != want {
		t.Errorf("%s: time %s, want %s", name, s, want)
	}
}

// wantState checks err's SQLSTATE against the vector's (one code or a list).
func wantState(t *testing.T, v vectors.Vector, err error) {
	t.Helper()
	got := SQLState(err)
	switch want := v["sqlstate"].(type) {
	case string:
		if got == want {
			return
		}
	case []interface{}:
		for _, w := range want {
			if got == w {
				return
			}
		}
	}
	t.Errorf("%s: %v (SQLSTATE %q), want %v", v.Str("name"), err, got, v["sqlstate"])
}

func isError(v vectors.Vector) bool { return v.Str("expect") == "error" }

func bigOf(t *testing.T, s string) *big.Int {
	t.Helper()
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		t.Fatalf("no integer: %q", s)
	}
	return n
}

func intField(v vectors.Vector, key string) int { return int(v.Int64(key)) }

// counted fails a test that checked fewer vectors than it should: a file
// that lost its lines must not pass silently.
func counted(t *testing.T, what string, n, least int) {
	t.Helper()
	t.Logf("%s: %d vectors", what, n)
	if n < least {
		t.Errorf("%s: only %d vectors checked, want at least %d", what, n, least)
	}
}
