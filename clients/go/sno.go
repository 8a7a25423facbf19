package pgflake

import (
	"database/sql/driver"
	"time"
)

// Sno is a value of the SQL type sno (muyo/sno v1.2.1): 80 bits = 39 bits
// of 4 ms units since 2010-01-01 and a tick-tock bit, a metabyte, a 16-bit
// partition and a 16-bit sequence. Text: 16 characters over
// 23456789abcdefghijklmnopqrstuvwx (docs/sql-reference.md, "sno").
type Sno [10]byte

const (
	snoEpochMicros = 1_262_304_000_000_000 // 2010-01-01T00:00:00Z
	snoUnitMicros  = 4_000
	snoMaxUnits    = 1<<39 - 1
	snoTimeRange   = "2010-01-01 00:00:00+00 to 2079-09-07 15:47:35.551999+00"
)

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

// SnoFromParts is sno_from_parts: meta 0–255, partition and sequence
// 0–65535; the time rounds down to its 4 ms unit.
func SnoFromParts(t time.Time, meta, partition, sequence int, tickTock bool) (Sno, error) {
	units, err := snoUnitsAt(unixMicros(t))
	if err != nil {
		return Sno{}, err
	}
	for _, f := range []struct {
		name  string
		value int
		max   int64
	}{{"meta", meta, 255}, {"partition", partition, 65535}, {"sequence", sequence, 65535}} {
		if err := field("sno", f.name, int64(f.value), 0, f.max); err != nil {
			return Sno{}, err
		}
	}
	return snoOf(units, tickTock, uint8(meta), uint16(partition), uint16(sequence)), nil
}

// SnoFromTime is sno_from_time: the smallest sno at that instant.
func SnoFromTime(t time.Time) (Sno, error) { return SnoFromParts(t, 0, 0, 0, false) }

func snoUnitsAt(micros int64) (int64, error) {
	since := micros - snoEpochMicros
	if since < 0 || since/snoUnitMicros > snoMaxUnits {
		return 0, timeOutOfRange("sno", snoTimeRange)
	}
	return since / snoUnitMicros, nil
}

// snoOf assembles range-checked fields.
func snoOf(units int64, tickTock bool, meta uint8, partition, sequence uint16) Sno {
	var id Sno
	head := uint64(units) << 1
	if tickTock {
		head |= 1
	}
	putUintN(id[:5], head)
	id[5] = meta
	putUintN(id[6:8], uint64(partition))
	putUintN(id[8:], uint64(sequence))
	return id
}

func (id Sno) String() string { return sno32.encode(id[:], 16) }

// Bytes returns a copy of the 10 stored bytes (the binary wire format).
func (id Sno) Bytes() []byte { return append([]byte(nil), id[:]...) }

// Compare orders as the server does (by the bytes): -1, 0 or +1.
func (id Sno) Compare(other Sno) int { return compareBytes(id[:], other[:]) }

// Units is the 4 ms units since 2010-01-01.
func (id Sno) Units() int64 { return int64(uintN(id[:5]) >> 1) }

// UnixMicro is the start of the ID's 4 ms unit, in microseconds since 1970.
func (id Sno) UnixMicro() int64 { return snoEpochMicros + id.Units()*snoUnitMicros }

// Time is the start of the ID's 4 ms unit (sno_timestamp), in UTC.
func (id Sno) Time() time.Time { return timeOfMicros(id.UnixMicro()) }

// TickTock is the tick-tock bit (set after the clock went back).
func (id Sno) TickTock() bool { return id[4]&1 == 1 }

// Meta is the metabyte.
func (id Sno) Meta() int { return int(id[5]) }

// Partition is the 16-bit partition (a server's node << 8 | slot; a
// lease's node << 8 | process).
func (id Sno) Partition() int { return int(uintN(id[6:8])) }

// Sequence is the 16-bit sequence within the unit.
func (id Sno) Sequence() int { return int(uintN(id[8:])) }

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
