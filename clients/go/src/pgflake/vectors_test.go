package pgflake

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The repository's reference vectors (tests/vectors), four directories up
// from this package (clients/go/src/pgflake).
func vectors(t *testing.T, file string) []map[string]interface{} {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "..", "..", "tests", "vectors", file+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]interface{}
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 1<<20), 1<<20)
	for scanner.Scan() {
		var v map[string]interface{}
		if err := json.Unmarshal(scanner.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if err := scanner.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("no vectors in %s", file)
	}
	return out
}

// rfc3339 formats a time as the vectors do: UTC, with as many fraction
// digits as want has, and five-digit years past 9999.
func rfc3339(tm time.Time, want string) string {
	digits := 0
	if dot := strings.LastIndexByte(want, '.'); dot >= 0 {
		digits = len(want) - dot - 2 // minus the dot and the Z
	}
	layout := "2006-01-02T15:04:05"
	if digits > 0 {
		layout += "." + strings.Repeat("0", digits)
	}
	return tm.UTC().Format(layout + "Z")
}

type vectorType struct {
	file   string
	size   int
	parse  func(string) (flakeID, error)
	from   func([]byte) (flakeID, error)
	timeOf func(flakeID, map[string]interface{}) time.Time
}

func wrap[T flakeID](f func(string) (T, error)) func(string) (flakeID, error) {
	return func(s string) (flakeID, error) { v, err := f(s); return v, err }
}

func wrapBytes[T flakeID](f func([]byte) (T, error)) func([]byte) (flakeID, error) {
	return func(b []byte) (flakeID, error) { v, err := f(b); return v, err }
}

var vectorTypes = []vectorType{
	{"sno", 10, wrap(ParseSno), wrapBytes(SnoFromBytes), func(id flakeID, _ map[string]interface{}) time.Time { return id.(Sno).Time() }},
	{"siq", 14, wrap(ParseSiq), wrapBytes(SiqFromBytes), func(id flakeID, _ map[string]interface{}) time.Time { return id.(Siq).Time() }},
	{"flaxid", 12, wrap(ParseFlaxId), wrapBytes(FlaxIdFromBytes), func(id flakeID, _ map[string]interface{}) time.Time { return id.(FlaxId).Time() }},
	{"distributedid", 12, wrap(ParseDistributedId), wrapBytes(DistributedIdFromBytes), func(id flakeID, _ map[string]interface{}) time.Time { return id.(DistributedId).Time() }},
	{"kuid96", 12, wrap(ParseKuid96), wrapBytes(Kuid96FromBytes), func(id flakeID, v map[string]interface{}) time.Time {
		parts, err := id.(Kuid96).Parts(int(v["interval"].(float64)))
		if err != nil {
			panic(err)
		}
		return parts.Time
	}},
}

// Every vector with a value: text ↔ bytes both ways, byte for byte, and the
// time of its parts.
func TestVectors(t *testing.T) {
	for _, vt := range vectorTypes {
		checked := 0
		for _, v := range vectors(t, vt.file) {
			text, ok1 := v["text"].(string)
			bytesHex, ok2 := v["bytes_hex"].(string)
			if !ok1 || !ok2 {
				continue
			}
			name := vt.file + "/" + v["name"].(string)
			want, err := hex.DecodeString(bytesHex)
			if err != nil || len(want) != vt.size {
				t.Fatalf("%s: bad bytes_hex %q", name, bytesHex)
			}
			id, err := vt.parse(text)
			if err != nil {
				t.Errorf("%s: parse %q: %v", name, text, err)
				continue
			}
			if !bytes.Equal(id.Bytes(), want) {
				t.Errorf("%s: parse %q = %x, want %s", name, text, id.Bytes(), bytesHex)
			}
			back, err := vt.from(want)
			if err != nil {
				t.Errorf("%s: from bytes: %v", name, err)
				continue
			}
			if back.String() != text {
				t.Errorf("%s: text of %s = %q, want %q", name, bytesHex, back.String(), text)
			}
			if back != id {
				t.Errorf("%s: values differ", name)
			}
			if parts, ok := v["parts"].(map[string]interface{}); ok {
				if wantTime, ok := parts["time"].(string); ok {
					if got := rfc3339(vt.timeOf(id, v), wantTime); got != wantTime {
						t.Errorf("%s: time %s, want %s", name, got, wantTime)
					}
				}
			}
			checked++
		}
		t.Logf("%s: %d vectors", vt.file, checked)
		if checked < 10 {
			t.Errorf("%s: only %d vectors checked", vt.file, checked)
		}
	}
}

func TestSiqVectorsDidAndUpperCase(t *testing.T) {
	for _, v := range vectors(t, "siq") {
		text, ok := v["text"].(string)
		if !ok {
			continue
		}
		id, err := ParseSiq(text)
		if err != nil {
			t.Fatal(err)
		}
		if did := v["did"].(string); id.Did() != did {
			t.Errorf("%s: did %s, want %s", v["name"], id.Did(), did)
		}
		for _, form := range []string{v["did"].(string), strings.ToUpper(v["did"].(string)), strings.ToUpper(text)} {
			if other, err := ParseSiq(form); err != nil || other != id {
				t.Errorf("%s: ParseSiq(%q) = %v, %v", v["name"], form, other, err)
			}
		}
		if parts, ok := v["parts"].(map[string]interface{}); ok {
			if ticks, ok := parts["ticks"].(float64); ok && uint64(ticks) != id.Ticks() {
				t.Errorf("%s: ticks %d, want %v", v["name"], id.Ticks(), ticks)
			}
		}
	}
}

func TestKuid96VectorsParts(t *testing.T) {
	for _, v := range vectors(t, "kuid96") {
		id, err := ParseKuid96(v["text"].(string))
		if err != nil {
			t.Fatal(err)
		}
		parts, err := id.Parts(int(v["interval"].(float64)))
		if err != nil {
			t.Fatal(err)
		}
		want := v["parts"].(map[string]interface{})
		if parts.Node != uint32(want["node"].(float64)) || parts.Seq != uint16(want["seq"].(float64)) {
			t.Errorf("%s: node %d seq %d, want %v %v", v["name"], parts.Node, parts.Seq, want["node"], want["seq"])
		}
	}
	if _, err := (Kuid96{}).Parts(4); sqlState(err) != "22023" {
		t.Errorf("interval 4: %v", err)
	}
}

func sqlState(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.SQLState
	}
	return ""
}

func TestSnoInvalidVectors(t *testing.T) {
	for _, v := range vectors(t, "sno-invalid") {
		var err error
		switch v["kind"] {
		case "invalid_text":
			_, err = ParseSno(v["input"].(string))
		case "invalid_bytes":
			b, _ := hex.DecodeString(v["input_bytes_hex"].(string))
			_, err = SnoFromBytes(b)
		default:
			t.Fatalf("unknown kind %v", v["kind"])
		}
		if got := sqlState(err); got != v["sqlstate"] {
			t.Errorf("%s: %v (SQLSTATE %q), want %v", v["name"], err, got, v["sqlstate"])
		}
	}
}

// Text every type must refuse, and the SQLSTATE it refuses it with.
func TestInvalidText(t *testing.T) {
	cases := []struct {
		parse func(string) (flakeID, error)
		text  string
		state string
	}{
		{wrap(ParseSno), "BRPK4Q72XWF2M63L", "22P02"},
		{wrap(ParseSno), "brpk4q72xwf2m63y", "22P02"},
		{wrap(ParseSiq), "crxckuyagku7racaaacmgzymuoabp", "22P02"}, // checksum
		{wrap(ParseSiq), "did:siq:", "22P02"},
		{wrap(ParseSiq), "zzzzzzzzzzzzzzzzzzzzzzzzzzzzz", "22P02"}, // top bit
		{wrap(ParseFlaxId), "17cQYV3E6XowHpd.", "22P02"},
		{wrap(ParseFlaxId), "17cQYV3E6XowHpdd ", "22P02"},
		{wrap(ParseKuid96), ".5.tXa0xODNvPN-0", "22P02"},
		{wrap(ParseKuid96), "", "22P02"},
		{wrap(ParseDistributedId), "", "22P02"},
		{wrap(ParseDistributedId), "-1", "22P02"},
		{wrap(ParseDistributedId), "1e3", "22P02"},
		{wrap(ParseDistributedId), "10000000000000000000000000000", "22003"},
	}
	for _, c := range cases {
		if _, err := c.parse(c.text); sqlState(err) != c.state {
			t.Errorf("%q: %v, want SQLSTATE %s", c.text, err, c.state)
		}
	}
	for _, text := range []string{" 42 ", "\t0042\n", "0000000000000000000000000000009999999999999999999999999999"} {
		id, err := ParseDistributedId(text)
		if err != nil {
			t.Errorf("%q: %v", text, err)
		} else if want := strings.TrimLeft(strings.TrimSpace(text), "0"); id.String() != want {
			t.Errorf("%q: %s, want %s", text, id, want)
		}
	}
	above, _ := hex.DecodeString("204fce5e3e25026110000000") // 10^28
	if _, err := DistributedIdFromBytes(above); sqlState(err) != "22003" {
		t.Errorf("10^28 from bytes: %v", err)
	}
	if _, err := SiqFromBytes(make([]byte, 13)); sqlState(err) != "22P03" {
		t.Errorf("13 bytes: %v", err)
	}
}
