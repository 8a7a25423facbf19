package pgflake

import (
	"database/sql/driver"
	"fmt"
	"time"
)

// Kuid96 is a value of the SQL type kuid96 (fogfish/uid 1.3.5): a kuid64
// (see kuid64.go) with a 32-bit node inserted at a place given by the
// neighborhood interval I (5–10, not stored in the value; the extension's
// default is 8). Text: 16 characters over .0-9A-Z_a-z.
type Kuid96 [12]byte

// DefaultKuidInterval is the extension's default neighborhood interval.
const DefaultKuidInterval = 8

// Kuid96Parts is what kuid96_parts returns for one interval.
type Kuid96Parts struct {
	Time time.Time // start of the 1024 µs unit, UTC
	Node uint32
	Seq  int
}

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

func checkInterval(interval int) error {
	if interval < 5 || interval > 10 {
		return invalidParameter(fmt.Sprintf("kuid interval %d is outside 5 to 10", interval))
	}
	return nil
}

// Kuid96FromParts is kuid96_from_parts: node 0 … 2^32 − 1, seq 0–16383,
// the interval 5–10; the time rounds down to its 1024 µs unit.
func Kuid96FromParts(t time.Time, node int64, seq, interval int) (Kuid96, error) {
	if err := field("kuid96", "node", node, 0, 0xFFFF_FFFF); err != nil {
		return Kuid96{}, err
	}
	if err := checkInterval(interval); err != nil {
		return Kuid96{}, err
	}
	local, err := kuidLocalBits(unixMicros(t), seq, "kuid96", kuid96MegaLimit, kuid96TimeRange)
	if err != nil {
		return Kuid96{}, err
	}
	return kuid96Of(local, uint32(node), interval), nil
}

// Kuid96FromTime is kuid96_from_time: the smallest kuid96 at that instant
// (node 0, seq 0).
func Kuid96FromTime(t time.Time, interval int) (Kuid96, error) {
	return Kuid96FromParts(t, 0, 0, interval)
}

// Kuid96Globalize is kuid96_globalize: a kuid64 with a node added.
func Kuid96Globalize(local Kuid64, node int64, interval int) (Kuid96, error) {
	if err := field("kuid96", "node", node, 0, 0xFFFF_FFFF); err != nil {
		return Kuid96{}, err
	}
	if err := checkInterval(interval); err != nil {
		return Kuid96{}, err
	}
	if err := local.check(); err != nil {
		return Kuid96{}, err
	}
	return kuid96Of(uint64(local), uint32(node), interval), nil
}

// kuid96Of inserts the node above the low 24 + interval bits of the local
// kuid64 layout: above << (low + 32) | node << low | the low bits, in 96 bits.
func kuid96Of(local uint64, node uint32, interval int) Kuid96 {
	low := uint(24 + interval)
	aHi, aLo := shl128(local>>low, low+32)
	nHi, nLo := shl128(uint64(node), low)
	var id Kuid96
	putUintN(id[:4], aHi|nHi)
	putUintN(id[4:], aLo|nLo|local&(1<<low-1))
	return id
}

// shl128 is x << n as the high and low 64 bits of 128 (n < 128).
func shl128(x uint64, n uint) (uint64, uint64) {
	switch {
	case n == 0:
		return 0, x
	case n >= 64:
		return x << (n - 64), 0
	}
	return x >> (64 - n), x << n
}

// split reads the value's node and local kuid64 layout at the interval.
func (id Kuid96) split(interval int) (uint64, uint32) {
	hi, lo := uintN(id[:4]), uintN(id[4:]) // 32 + 64 bits
	low := uint(24 + interval)             // the node sits at bits low … low+31
	node := uint32((hi<<(64-low) | lo>>low) & 0xFFFF_FFFF)
	local := (hi<<32|lo>>32)>>low<<low | lo&(1<<low-1)
	return local, node
}

// Parts reads the fields with the interval the ID was made with (5–10), as
// kuid96_parts(id, interval).
func (id Kuid96) Parts(interval int) (Kuid96Parts, error) {
	if err := checkInterval(interval); err != nil {
		return Kuid96Parts{}, err
	}
	local, node := id.split(interval)
	mega, secs, units, seq := kuidFields(local)
	return Kuid96Parts{timeOfMicros(kuidMicros(mega, secs, units)), node, seq}, nil
}

// Localize is kuid96_localize: the kuid64 without its node (22008 where the
// time lies beyond kuid64's range).
func (id Kuid96) Localize(interval int) (Kuid64, error) {
	if err := checkInterval(interval); err != nil {
		return 0, err
	}
	local, _ := id.split(interval)
	if local>>63 != 0 {
		return 0, timeOutOfRange("kuid64", kuid64TimeRange)
	}
	return Kuid64(local), nil
}

// Time is the start of the 1024 µs unit read with the default interval 8
// (kuid96_timestamp(id)); use Parts for another interval.
func (id Kuid96) Time() time.Time {
	parts, _ := id.Parts(DefaultKuidInterval)
	return parts.Time
}

// Seq is the sequence: the low 14 bits, whatever the interval.
func (id Kuid96) Seq() int { return int(uintN(id[10:]) & kuidMaxSeq) }

func (id Kuid96) String() string { return kuid64Alphabet.encode(id[:], 16) }

// Bytes returns a copy of the 12 stored bytes (the binary wire format).
func (id Kuid96) Bytes() []byte { return append([]byte(nil), id[:]...) }

// Compare orders as the server does (by the bytes): -1, 0 or +1.
func (id Kuid96) Compare(other Kuid96) int { return compareBytes(id[:], other[:]) }

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
