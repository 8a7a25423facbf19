package pgflake

import (
	"database/sql/driver"
	"time"
)

// FlaxId is a value of the SQL type flaxid (python-flax-id 1.1.0): 96 bits
// = 40 bits of milliseconds since 2015-01-01 and 56 random bits. Text: 16
// characters over -0-9A-Z_a-z.
type FlaxId [12]byte

const flaxEpochMillis = 1_420_070_400_000 // 2015-01-01T00:00:00Z

var flax64 = newAlphabet("-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz", nil)

// ParseFlaxId reads the canonical text, strictly (flaxid's text input).
func ParseFlaxId(text string) (FlaxId, error) {
	var id FlaxId
	if !flax64.decode(text, 16, id[:]) {
		return FlaxId{}, invalidText("flaxid", text, "16 characters from '-', 0-9, A-Z, '_' and a-z")
	}
	return id, nil
}

// FlaxIdFromBytes takes exactly the 12 stored bytes (bytea::flaxid).
func FlaxIdFromBytes(b []byte) (FlaxId, error) { return fromBytes[FlaxId](b) }

func (id FlaxId) String() string { return flax64.encode(id[:], 16) }

// Bytes returns a copy of the 12 stored bytes (the binary wire format).
func (id FlaxId) Bytes() []byte { return append([]byte(nil), id[:]...) }

// Time is the ID's millisecond (flaxid_timestamp), in UTC.
func (id FlaxId) Time() time.Time {
	return time.UnixMilli(flaxEpochMillis + int64(uintN(id[:5]))).UTC()
}

func (id FlaxId) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

func (id *FlaxId) UnmarshalText(text []byte) error {
	v, err := ParseFlaxId(string(text))
	if err == nil {
		*id = v
	}
	return err
}

// Scan implements sql.Scanner: the canonical text, as string or []byte.
func (id *FlaxId) Scan(src interface{}) error { return scanID[FlaxId](id, src) }

// Value implements driver.Valuer: the canonical text.
func (id FlaxId) Value() (driver.Value, error) { return id.String(), nil }

func (FlaxId) typeName() string            { return "flaxid" }
func (id *FlaxId) setBytes(b []byte) error { return copyExact(id[:], b, "flaxid") }
