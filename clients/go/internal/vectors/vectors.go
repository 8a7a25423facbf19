// Package vectors reads the repository's reference vectors
// (tests/vectors/*.jsonl, described in tests/vectors/README.md) for the
// package's tests and its conformance adapter: JSON values, integers given
// as numbers or decimal strings, and RFC 3339 times with years past 9999.
package vectors

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Vector is one line of a vectors file.
type Vector map[string]interface{}

// Dir is the vectors directory: PG_FLAKE_VECTORS, or tests/vectors found
// upwards from the working directory (the tests run in clients/go).
func Dir() (string, error) {
	if dir := os.Getenv("PG_FLAKE_VECTORS"); dir != "" {
		return dir, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		candidate := filepath.Join(dir, "tests", "vectors")
		if st, err := os.Stat(candidate); err == nil && st.IsDir() {
			return candidate, nil
		}
		if filepath.Dir(dir) == dir {
			return "", fmt.Errorf("no tests/vectors above %s: set PG_FLAKE_VECTORS", wd)
		}
	}
}

// Load reads dir/name.jsonl, keeping JSON numbers exact (json.Number).
func Load(dir, name string) ([]Vector, error) {
	data, err := os.ReadFile(filepath.Join(dir, name+".jsonl"))
	if err != nil {
		return nil, err
	}
	var out []Vector
	scanner := bufio.NewScanner(bytes.NewReader(data))
	scanner.Buffer(make([]byte, 1<<20), 1<<20)
	for scanner.Scan() {
		line := Decode(scanner.Bytes())
		if line == nil {
			return nil, fmt.Errorf("%s: a line is no JSON object: %s", name, scanner.Text())
		}
		out = append(out, line)
	}
	return out, scanner.Err()
}

// Decode is one JSON object with exact numbers, nil if it is none.
func Decode(line []byte) Vector {
	decoder := json.NewDecoder(bytes.NewReader(line))
	decoder.UseNumber()
	var v Vector
	if decoder.Decode(&v) != nil {
		return nil
	}
	return v
}

// Str is v[key] as a string, "" if absent or not a string.
func (v Vector) Str(key string) string {
	s, _ := v[key].(string)
	return s
}

// Has says whether v has key with a non-null value.
func (v Vector) Has(key string) bool { return v[key] != nil }

// Obj is v[key] as an object, nil if it is none.
func (v Vector) Obj(key string) Vector {
	switch m := v[key].(type) {
	case map[string]interface{}:
		return Vector(m)
	case Vector:
		return m
	}
	return nil
}

// Int is v[key] as an integer: a JSON number or a decimal string.
func (v Vector) Int(key string) *big.Int {
	n, ok := Integer(v[key])
	if !ok {
		panic(fmt.Sprintf("vector %v: %s is no integer: %v", v["name"], key, v[key]))
	}
	return n
}

// Int64 is v[key] as an int64.
func (v Vector) Int64(key string) int64 {
	n := v.Int(key)
	if !n.IsInt64() {
		panic(fmt.Sprintf("vector %v: %s does not fit int64: %s", v["name"], key, n))
	}
	return n.Int64()
}

// Integer reads a JSON number or a decimal string as an integer.
func Integer(x interface{}) (*big.Int, bool) {
	switch n := x.(type) {
	case json.Number:
		return new(big.Int).SetString(n.String(), 10)
	case string:
		return new(big.Int).SetString(n, 10)
	case float64:
		return big.NewInt(int64(n)), float64(int64(n)) == n
	case int64:
		return big.NewInt(n), true
	case int:
		return big.NewInt(int64(n)), true
	}
	return nil, false
}

// ParseTime reads the vectors' RFC 3339 UTC times, "2010-01-01T00:00:00.003999999Z",
// also with five-digit years ("36812-02-20T00:36:15.999999Z"), which
// time.Parse refuses.
func ParseTime(text string) (time.Time, error) {
	bad := func() (time.Time, error) { return time.Time{}, fmt.Errorf("not an RFC 3339 UTC time: %q", text) }
	date, clock, ok := strings.Cut(text, "T")
	if !ok || !strings.HasSuffix(clock, "Z") {
		return bad()
	}
	dateParts := strings.Split(date, "-")
	clock = strings.TrimSuffix(clock, "Z")
	whole, fraction, _ := strings.Cut(clock, ".")
	clockParts := strings.Split(whole, ":")
	if len(dateParts) != 3 || len(clockParts) != 3 || len(fraction) > 9 {
		return bad()
	}
	var fields [6]int
	for i, s := range append(dateParts, clockParts...) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return bad()
		}
		fields[i] = n
	}
	nanos := 0
	if fraction != "" {
		n, err := strconv.Atoi(fraction + strings.Repeat("0", 9-len(fraction)))
		if err != nil || n < 0 {
			return bad()
		}
		nanos = n
	}
	t := time.Date(fields[0], time.Month(fields[1]), fields[2], fields[3], fields[4], fields[5], nanos, time.UTC)
	if t.Month() != time.Month(fields[1]) || t.Day() != fields[2] {
		return bad()
	}
	return t, nil
}

// FormatTime writes t as the vectors do, UTC with digits fraction digits
// (3 for milliseconds, 6 for microseconds, 9 for nanoseconds).
func FormatTime(t time.Time, digits int) string {
	layout := "2006-01-02T15:04:05"
	if digits > 0 {
		layout += "." + strings.Repeat("0", digits)
	}
	return t.UTC().Format(layout + "Z")
}

// Digits is the number of fraction digits of an RFC 3339 time text.
func Digits(text string) int {
	if dot := strings.LastIndexByte(text, '.'); dot >= 0 {
		return len(strings.TrimSuffix(text[dot+1:], "Z"))
	}
	return 0
}
