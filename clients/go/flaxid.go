package pgflake

import (
	"database/sql/driver"
	"time"
)

// FlaxId is a value of the SQL type flaxid (python-flax-id 1.1.0): 96 bits
// = 40 bits of milliseconds since 2015-01-01 and 56 random bits. Text: 16
// characters over -0-9A-Z_a-z (docs/sql-reference.md, "flaxid").
type FlaxId [12]byte

const (
	flaxEpochMillis = 1_420_070_400_000 // 2015-01-01T00:00:00Z
	flaxMaxMillis   = 1<<40 - 1
	flaxMaxRandom   = 1<<56 - 1
	flaxTimeRange   = "2015-01-01 00:00:00+00 to 2049-11-03 19:53:47.775+00"
)

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

// FlaxIdFromParts is flaxid_from_parts: random 0 … 2^56 − 1; the time
// rounds down to the millisecond.
func FlaxIdFromParts(t time.Time, random int64) (FlaxId, error) {
	millis := floorDiv(unixMicros(t), 1000) - flaxEpochMillis
	if millis < 0 || millis > flaxMaxMillis {
		return FlaxId{}, timeOutOfRange("flaxid", flaxTimeRange)
	}
	if err := field("flaxid", "random", random, 0, flaxMaxRandom); err != nil {
		return FlaxId{}, err
	}
	var id FlaxId
	putUintN(id[:5], uint64(millis))
	putUintN(id[5:], uint64(random))
	return id, nil
}

// FlaxIdFromTime is flaxid_from_time: the smallest flaxid at that instant.
func FlaxIdFromTime(t time.Time) (FlaxId, error) { return FlaxIdFromParts(t, 0) }

func (id FlaxId) String() string { return flax64.encode(id[:], 16) }

// Bytes returns a copy of the 12 stored bytes (the binary wire format).
func (id FlaxId) Bytes() []byte { return append([]byte(nil), id[:]...) }

// Compare orders as the server does (by the bytes): -1, 0 or +1.
func (id FlaxId) Compare(other FlaxId) int { return compareBytes(id[:], other[:]) }

// UnixMilli is the ID's millisecond since 1970.
func (id FlaxId) UnixMilli() int64 { return flaxEpochMillis + int64(uintN(id[:5])) }

// Time is the ID's millisecond (flaxid_timestamp), in UTC.
func (id FlaxId) Time() time.Time { return time.UnixMilli(id.UnixMilli()).UTC() }

// Random is the 56 random bits.
func (id FlaxId) Random() int64 { return int64(uintN(id[5:])) }

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
