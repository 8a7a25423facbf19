package pgflake

import (
	"database/sql/driver"
	"fmt"
	"time"
)

// Kuid96 is a value of the SQL type kuid96 (fogfish/uid 1.3.5): a kuid64
// (Erlang's timestamp triple in 1024 µs units and a 14-bit sequence) with a
// 32-bit node inserted at a place given by the neighborhood interval I
// (5–10, not stored in the value; the extension's default is 8). Text: 16
// characters over .0-9A-Z_a-z.
type Kuid96 [12]byte

// DefaultKuidInterval is the extension's default neighborhood interval.
const DefaultKuidInterval = 8

var kuid64Alphabet = newAlphabet(".0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz", nil)

// ParseKuid96 reads the canonical text, strictly (kuid96's text input).
func ParseKuid96(text string) (Kuid96, error) {
	var id Kuid96
	if !kuid64Alphabet.decode(text, 16, id[:]) {
		return Kuid96{}, invalidText("kuid96", text, "16 characters from '.', 0-9, A-Z, '_' and a-z")
	}
	return id, nil
}

// Kuid96FromBytes takes exactly the 12 stored bytes (bytea::kuid96).
func Kuid96FromBytes(b []byte) (Kuid96, error) { return fromBytes[Kuid96](b) }

func (id Kuid96) String() string { return kuid64Alphabet.encode(id[:], 16) }

// Bytes returns a copy of the 12 stored bytes (the binary wire format).
func (id Kuid96) Bytes() []byte { return append([]byte(nil), id[:]...) }

// Kuid96Parts is what kuid96_parts returns for one interval.
type Kuid96Parts struct {
	Time time.Time // start of the 1024 µs unit, UTC
	Node uint32
	Seq  uint16
}

// Parts reads the fields with the interval the ID was made with (5–10), as
// kuid96_parts(id, interval).
func (id Kuid96) Parts(interval int) (Kuid96Parts, error) {
	if interval < 5 || interval > 10 {
		return Kuid96Parts{}, &Error{"22023", fmt.Sprintf("kuid interval %d is outside 5 to 10", interval), ""}
	}
	hi, lo := uintN(id[:4]), uintN(id[4:]) // 32 + 64 bits
	low := uint(24 + interval)             // the node sits at bits low … low+31
	node := uint32((hi<<(64-low) | lo>>low) & 0xFFFF_FFFF)
	// The local kuid64 is the value without those 32 bits.
	local := (hi<<32|lo>>32)>>low<<low | lo&(1<<low-1)
	megaseconds, seconds, units := local>>44, local>>24&0xF_FFFF, local>>14&0x3FF
	micros := int64((megaseconds*1_000_000+seconds)*1_000_000 + units<<10)
	return Kuid96Parts{time.UnixMicro(micros).UTC(), node, uint16(local & 0x3FFF)}, nil
}

// Time is the start of the 1024 µs unit read with the default interval 8
// (kuid96_timestamp(id)); use Parts for another interval.
func (id Kuid96) Time() time.Time {
	parts, _ := id.Parts(DefaultKuidInterval)
	return parts.Time
}

func (id Kuid96) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

func (id *Kuid96) UnmarshalText(text []byte) error {
	v, err := ParseKuid96(string(text))
	if err == nil {
		*id = v
	}
	return err
}

// Scan implements sql.Scanner: the canonical text, as string or []byte.
func (id *Kuid96) Scan(src interface{}) error { return scanID[Kuid96](id, src) }

// Value implements driver.Valuer: the canonical text.
func (id Kuid96) Value() (driver.Value, error) { return id.String(), nil }

func (Kuid96) typeName() string            { return "kuid96" }
func (id *Kuid96) setBytes(b []byte) error { return copyExact(id[:], b, "kuid96") }
