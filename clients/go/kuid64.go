package pgflake

import (
	"database/sql/driver"
	"encoding/binary"
	"fmt"
	"strconv"
	"time"
)

// The k-ordered uid (fogfish/uid 1.3.5): Erlang's timestamp triple (A
// megaseconds, B seconds, C microseconds of which C >> 10 is kept, so the
// unit is 1024 µs) and a 14-bit sequence (docs/sql-reference.md, "k-ordered
// uid"). kuid64 is a positive bigint: Kuid64 here, an int64 with methods.

// Kuid64 is a kuid64: a bigint, never negative. Its text (String,
// kuid64_encode) is 11 characters over .0-9A-Z_a-z; database/sql and pgx
// send and scan it as the integer.
type Kuid64 int64

const (
	kuidMaxSeq      = 1<<14 - 1
	kuid64TimeRange = "1970-01-01 00:00:00+00 to 18584-01-10 03:33:19.999999+00"
	kuid96TimeRange = "1970-01-01 00:00:00+00 to 35198-01-19 07:06:39.999999+00"
	kuid64Expected  = "11 characters from '.', 0-9, A-Z, '_' and a-z whose last two padding bits are zero"
	kuid64MegaLimit = 1 << 19
	kuid96MegaLimit = 1 << 20
)

var kuid64Alphabet = newAlphabet(".0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz", nil)

// Kuid64Parts is what kuid64_parts returns; Microseconds is (C >> 10) << 10.
type Kuid64Parts struct {
	Time         time.Time // start of the 1024 µs unit, UTC
	Megaseconds  int64
	Seconds      int64
	Microseconds int64
	Seq          int
}

// kuidLocalBits is the kuid64 layout of a time (rounded down to its 1024 µs
// unit) and seq, for kuid64 or kuid96 (their megasecond limits differ).
func kuidLocalBits(micros int64, seq int, typeName string, megaLimit int64, accepted string) (uint64, error) {
	seconds := floorDiv(micros, 1_000_000)
	if micros < 0 || seconds/1_000_000 >= megaLimit {
		return 0, timeOutOfRange(typeName, accepted)
	}
	if err := field(typeName, "seq", int64(seq), 0, kuidMaxSeq); err != nil {
		return 0, err
	}
	units := micros % 1_000_000 >> 10
	return uint64(seconds/1_000_000)<<44 | uint64(seconds%1_000_000)<<24 | uint64(units)<<14 | uint64(seq), nil
}

// kuidFields are (megaseconds, seconds, units, seq) of the kuid64 layout.
func kuidFields(local uint64) (int64, int64, int64, int) {
	return int64(local >> 44), int64(local >> 24 & 0xF_FFFF), int64(local >> 14 & 0x3FF), int(local & kuidMaxSeq)
}

func kuidMicros(megaseconds, seconds, units int64) int64 {
	return (megaseconds*1_000_000+seconds)*1_000_000 + units<<10
}

func (k Kuid64) check() error {
	if k < 0 {
		return valueOutOfRange("kuid64", strconv.FormatInt(int64(k), 10), nonNegativeBigint)
	}
	return nil
}

// Kuid64FromParts is kuid64_from_parts: seq 0–16383; the time rounds down
// to its 1024 µs unit.
func Kuid64FromParts(t time.Time, seq int) (Kuid64, error) {
	local, err := kuidLocalBits(unixMicros(t), seq, "kuid64", kuid64MegaLimit, kuid64TimeRange)
	return Kuid64(local), err
}

// Kuid64FromTime is kuid64_from_time: the smallest kuid64 at that instant.
func Kuid64FromTime(t time.Time) (Kuid64, error) { return Kuid64FromParts(t, 0) }

// ParseKuid64 is kuid64_decode: strict; a value with the top bit set is no
// positive bigint (22003).
func ParseKuid64(text string) (Kuid64, error) {
	var b [8]byte
	if !kuid64Alphabet.decodeLow(text, 11, b[:]) {
		return 0, invalidText("kuid64", text, kuid64Expected)
	}
	v := binary.BigEndian.Uint64(b[:])
	if v>>63 != 0 {
		return 0, valueOutOfRange("kuid64", text, nonNegativeBigint)
	}
	return Kuid64(v), nil
}

// Encode is kuid64_encode: the 11-character text (22003 for a negative value).
func (k Kuid64) Encode() (string, error) {
	if err := k.check(); err != nil {
		return "", err
	}
	return k.String(), nil
}

// String is the 11-character text (kuid64_encode); a negative value, which
// is no kuid64, shows as its decimal in brackets.
func (k Kuid64) String() string {
	if k < 0 {
		return fmt.Sprintf("kuid64(%d)", int64(k))
	}
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(k))
	return kuid64Alphabet.encodeLow(b[:], 11)
}

// Parts is kuid64_parts: the time (start of its 1024 µs unit) and every field.
func (k Kuid64) Parts() (Kuid64Parts, error) {
	if err := k.check(); err != nil {
		return Kuid64Parts{}, err
	}
	mega, secs, units, seq := kuidFields(uint64(k))
	return Kuid64Parts{timeOfMicros(kuidMicros(mega, secs, units)), mega, secs, units << 10, seq}, nil
}

// Time is the start of the 1024 µs unit (kuid64_timestamp); the zero time
// for a negative value.
func (k Kuid64) Time() time.Time {
	p, err := k.Parts()
	if err != nil {
		return time.Time{}
	}
	return p.Time
}

// Bytes are the 8 bytes of the bigint, big-endian (bytea order is sort order).
func (k Kuid64) Bytes() []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(k))
	return b[:]
}

// Compare orders as the server's bigint does: -1, 0 or +1.
func (k Kuid64) Compare(other Kuid64) int { return compareInt64(int64(k), int64(other)) }

// Value implements driver.Valuer: the bigint.
func (k Kuid64) Value() (driver.Value, error) { return int64(k), nil }

// Scan implements sql.Scanner: the bigint (int64, or its decimal text).
func (k *Kuid64) Scan(src interface{}) error {
	v, err := scanInt64(src, "kuid64")
	if err == nil {
		*k = Kuid64(v)
	}
	return err
}

// KuidNodeFingerprint is kuid_node_fingerprint: the ELF hash the reference
// gets from Erlang's phash2 of the node atom, over the name's Latin-1
// bytes (a UTF-8 character U+0080–U+00FF counts as its Latin-1 byte, any
// other byte as itself, as core/src/formats/kuid.rs does).
func KuidNodeFingerprint(name string) uint32 {
	var h uint32
	for i := 0; i < len(name); i++ {
		c := name[i]
		if (c == 0xC2 || c == 0xC3) && i+1 < len(name) && name[i+1]&0xC0 == 0x80 {
			c = (c&0x03)<<6 | name[i+1]&0x3F
			i++
		}
		h = h<<4 + uint32(c)
		if g := h & 0xF000_0000; g != 0 {
			h ^= g >> 24
			h ^= g
		}
	}
	return h
}

func compareInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// scanInt64 is the sql.Scanner of the bigint formats: an int64, or the
// decimal text (string or []byte).
func scanInt64(src interface{}, typeName string) (int64, error) {
	switch v := src.(type) {
	case int64:
		return v, nil
	case string:
		return parseInt64(v, typeName)
	case []byte:
		return parseInt64(string(v), typeName)
	case nil:
		return 0, fmt.Errorf("pgflake: cannot scan NULL into a %s: scan into a pointer to one", typeName)
	}
	return 0, fmt.Errorf("pgflake: cannot scan %T into a %s", src, typeName)
}

func parseInt64(text, typeName string) (int64, error) {
	v, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return 0, invalidText(typeName, text, "a bigint")
	}
	return v, nil
}
