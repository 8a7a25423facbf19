package pgxflake

import (
	"database/sql/driver"
	"strings"
	"testing"

	"github.com/jackc/pgtype"

	pgflake "pg-flake.invalid/pgflake"
)

var (
	_ pgtype.ValueTranscoder = (*codec[pgflake.Sno])(nil)
	_ pgtype.TypeValue       = (*codec[pgflake.Sno])(nil)
)

// pgx makes each column's and parameter's value with pgtype.NewValue: a
// codec that works, not a zero one without its functions.
func TestNewValueKeepsTheFunctions(t *testing.T) {
	v := pgtype.NewValue(codecFor("siq")().(pgtype.Value)).(*codec[pgflake.Siq])
	if err := v.Set("mpzijbyagku7racaaaamgzymuoaaa"); err != nil || v.TypeName() != "siq" {
		t.Fatal(err, v.TypeName())
	}
	if err := v.DecodeBinary(nil, make([]byte, 14)); err != nil {
		t.Fatal(err)
	}
}

func mustSno(t *testing.T, text string) pgflake.Sno {
	t.Helper()
	id, err := pgflake.ParseSno(text)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestCodec(t *testing.T) {
	id := mustSno(t, "brpk4q72xwf2m63l")
	c := codecFor("sno")().(*codec[pgflake.Sno])
	for _, src := range []interface{}{id, &id, "brpk4q72xwf2m63l", id.Bytes()} {
		if err := c.Set(src); err != nil {
			t.Fatalf("Set(%#v): %v", src, err)
		}
		buf, err := c.EncodeBinary(nil, []byte("x"))
		if err != nil || string(buf[1:]) != string(id[:]) {
			t.Errorf("Set(%#v) EncodeBinary = %x, %v", src, buf, err)
		}
		buf, err = c.EncodeText(nil, nil)
		if err != nil || string(buf) != "brpk4q72xwf2m63l" {
			t.Errorf("Set(%#v) EncodeText = %q, %v", src, buf, err)
		}
	}
	for _, src := range []interface{}{nil, (*pgflake.Sno)(nil), (*string)(nil), []byte(nil)} {
		if err := c.Set(src); err != nil || c.Get() != nil {
			t.Errorf("Set(%#v) = %v, %v", src, c.Get(), err)
		}
		if buf, err := c.EncodeBinary(nil, nil); buf != nil || err != nil {
			t.Errorf("NULL encodes as %x, %v", buf, err)
		}
	}
	// Refused: wrong text or length directly, other IDs (driver.Valuers) at
	// encoding, so that pgx never falls back to sending their text.
	for _, src := range []interface{}{"nope", make([]byte, 9), 42} {
		if err := c.Set(src); err == nil {
			t.Errorf("Set(%#v) accepted", src)
		}
	}
	for _, src := range []interface{}{pgflake.Kuid96{}, pgflake.DistributedId{}, driver.Valuer(pgflake.Siq{})} {
		if err := c.Set(src); err != nil {
			t.Errorf("Set(%#v) failed early: %v", src, err)
		}
		if _, err := c.EncodeBinary(nil, nil); err == nil || !strings.Contains(err.Error(), "cannot encode") {
			t.Errorf("Set(%#v) then EncodeBinary: %v", src, err)
		}
	}

	if err := c.DecodeBinary(nil, id.Bytes()); err != nil {
		t.Fatal(err)
	}
	var got pgflake.Sno
	var ptr *pgflake.Sno
	var text string
	if err := c.AssignTo(&got); err != nil || got != id {
		t.Errorf("AssignTo(*Sno) = %v, %v", got, err)
	}
	if err := c.AssignTo(&ptr); err != nil || ptr == nil || *ptr != id {
		t.Errorf("AssignTo(**Sno) = %v, %v", ptr, err)
	}
	if err := c.AssignTo(&text); err != nil || text != "brpk4q72xwf2m63l" {
		t.Errorf("AssignTo(*string) = %q, %v", text, err)
	}
	var b []byte
	if err := c.AssignTo(&b); err == nil {
		t.Error("AssignTo(*[]byte) accepted")
	}
	if err := c.DecodeBinary(nil, make([]byte, 11)); pgflake.SQLState(err) != "22P03" {
		t.Errorf("11 bytes: %v", err)
	}
	if err := c.DecodeText(nil, []byte("brpk4q72xwf2m63l")); err != nil || c.Get() != id {
		t.Errorf("DecodeText: %v %v", c.Get(), err)
	}
	if err := c.DecodeBinary(nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.AssignTo(&got); err == nil {
		t.Error("NULL into *Sno accepted")
	}
	if err := c.AssignTo(&ptr); err != nil || ptr != nil {
		t.Errorf("NULL into **Sno: %v, %v", ptr, err)
	}

	d := codecFor("distributed_id")()
	above := []byte{0x20, 0x4f, 0xce, 0x5e, 0x3e, 0x25, 0x02, 0x61, 0x10, 0, 0, 0}
	if err := d.DecodeBinary(nil, above); pgflake.SQLState(err) != "22003" {
		t.Errorf("10^28 in binary: %v", err)
	}
}
