package pgflake

import (
	"database/sql/driver"
	"time"
)

// Sno is a value of the SQL type sno (muyo/sno v1.2.1): 80 bits = 39 bits
// of 4 ms units since 2010-01-01 and a tick-tock bit, a metabyte, a 16-bit
// partition and a 16-bit sequence. Text: 16 characters over
// 23456789abcdefghijklmnopqrstuvwx.
type Sno [10]byte

const snoEpochMicros = 1_262_304_000_000_000 // 2010-01-01T00:00:00Z

var sno32 = newAlphabet("23456789abcdefghijklmnopqrstuvwx", nil)

// ParseSno reads the canonical text, strictly (sno's text input).
func ParseSno(text string) (Sno, error) {
	var id Sno
	if !sno32.decode(text, 16, id[:]) {
		return Sno{}, invalidText("sno", text, "16 characters from 2-9 and a-x")
	}
	return id, nil
}

// SnoFromBytes takes exactly the 10 stored bytes (bytea::sno).
func SnoFromBytes(b []byte) (Sno, error) { return fromBytes[Sno](b) }

func (id Sno) String() string { return sno32.encode(id[:], 16) }

// Bytes returns a copy of the 10 stored bytes (the binary wire format).
func (id Sno) Bytes() []byte { return append([]byte(nil), id[:]...) }

// Time is the start of the ID's 4 ms unit (sno_timestamp), in UTC.
func (id Sno) Time() time.Time {
	units := uintN(id[:5]) >> 1
	return time.UnixMicro(snoEpochMicros + int64(units)*4000).UTC()
}

func (id Sno) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

func (id *Sno) UnmarshalText(text []byte) error {
	v, err := ParseSno(string(text))
	if err == nil {
		*id = v
	}
	return err
}

// Scan implements sql.Scanner: the canonical text, as string or []byte.
func (id *Sno) Scan(src interface{}) error { return scanID[Sno](id, src) }

// Value implements driver.Valuer: the canonical text.
func (id Sno) Value() (driver.Value, error) { return id.String(), nil }

func (Sno) typeName() string            { return "sno" }
func (id *Sno) setBytes(b []byte) error { return copyExact(id[:], b, "sno") }
