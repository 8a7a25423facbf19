package pgflake

import (
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
)

var (
	_ sql.Scanner   = (*Sno)(nil)
	_ driver.Valuer = Sno{}
	_ sql.Scanner   = (*Siq)(nil)
	_ sql.Scanner   = (*Kuid96)(nil)
	_ sql.Scanner   = (*DistributedId)(nil)
	_ sql.Scanner   = (*FlaxId)(nil)
)

func mustSno(t *testing.T, text string) Sno {
	t.Helper()
	id, err := ParseSno(text)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestScanValueJSON(t *testing.T) {
	id := mustSno(t, "brpk4q72xwf2m63l")
	var s Sno
	for _, src := range []interface{}{"brpk4q72xwf2m63l", []byte("brpk4q72xwf2m63l"), id} {
		s = Sno{}
		if err := s.Scan(src); err != nil || s != id {
			t.Errorf("Scan(%#v) = %v, %v", src, s, err)
		}
	}
	for _, src := range []interface{}{nil, 42, id.Bytes(), Kuid96{}} {
		if err := s.Scan(src); err == nil {
			t.Errorf("Scan(%#v) accepted", src)
		}
	}
	if v, err := id.Value(); err != nil || v != "brpk4q72xwf2m63l" {
		t.Errorf("Value() = %v, %v", v, err)
	}
	out, err := json.Marshal(map[string]Sno{"id": id})
	if err != nil || string(out) != `{"id":"brpk4q72xwf2m63l"}` {
		t.Errorf("json %s %v", out, err)
	}
	var back map[string]Sno
	if err := json.Unmarshal(out, &back); err != nil || back["id"] != id {
		t.Errorf("json back %v %v", back, err)
	}
	if err := json.Unmarshal([]byte(`{"id":"BRPK4Q72XWF2M63L"}`), &back); err == nil {
		t.Error("json accepted upper case")
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
		if _, err := c.parse(c.text); SQLState(err) != c.state {
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
	if _, err := DistributedIdFromBytes(above); SQLState(err) != "22003" {
		t.Errorf("10^28 from bytes: %v", err)
	}
	if _, err := SiqFromBytes(make([]byte, 13)); SQLState(err) != "22P03" {
		t.Errorf("13 bytes: %v", err)
	}
}

func wrap[T flakeID](f func(string) (T, error)) func(string) (flakeID, error) {
	return func(s string) (flakeID, error) { v, err := f(s); return v, err }
}
