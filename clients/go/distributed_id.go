package pgflake

import (
	"database/sql/driver"
	"fmt"
	"math/big"
	"strings"
	"time"
)

// DistributedId is a value of the SQL type distributed_id
// (Architect.Identities 2.1.1): the non-negative integer ts·2^48 + r, with
// ts 45 bits of milliseconds since 1900-01-01 UTC and r 48 random bits,
// stored in 12 bytes; valid values 0 … 10^28 − 1. Text: the plain decimal
// integer (docs/sql-reference.md, "distributed_id").
type DistributedId [12]byte

const (
	distributedIdEpochMillis = -2_208_988_800_000 // 1900-01-01T00:00:00Z
	distributedIdMaxTs       = 1<<45 - 1
	distributedIdMaxRandom   = 1<<48 - 1
	distributedIdRange       = "0 to 9999999999999999999999999999"
	distributedIdTimeRange   = "1900-01-01 00:00:00+00 to 3014-12-13 12:41:28.831999+00"
)

var distributedIdMax, _ = new(big.Int).SetString("9999999999999999999999999999", 10)

// ParseDistributedId reads the decimal text as distributed_id's text input
// does: digits only, surrounded by optional white space, at most 28 digits
// after leading zeros.
func ParseDistributedId(text string) (DistributedId, error) {
	digits := strings.Trim(text, cSpace)
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return DistributedId{}, invalidText("distributed_id", text, "1 to 28 decimal digits")
	}
	if len(strings.TrimLeft(digits, "0")) > 28 {
		return DistributedId{}, valueOutOfRange("distributed_id", text, distributedIdRange)
	}
	n, _ := new(big.Int).SetString(digits, 10)
	var id DistributedId
	n.FillBytes(id[:])
	return id, nil
}

// DistributedIdFromBytes takes exactly the 12 stored bytes
// (bytea::distributed_id), refusing a number above 10^28 − 1.
func DistributedIdFromBytes(b []byte) (DistributedId, error) { return fromBytes[DistributedId](b) }

// DistributedIdFromInt is numeric::distributed_id for an integer:
// 0 … 10^28 − 1 (22003 otherwise).
func DistributedIdFromInt(n *big.Int) (DistributedId, error) {
	if n.Sign() < 0 || n.Cmp(distributedIdMax) > 0 {
		return DistributedId{}, valueOutOfRange("distributed_id", n.String(), distributedIdRange)
	}
	var id DistributedId
	n.FillBytes(id[:])
	return id, nil
}

// DistributedIdFromNumeric is numeric::distributed_id from PostgreSQL
// numeric text: negative, fractional, NaN, infinite or above 10^28 − 1 is
// 22003.
func DistributedIdFromNumeric(text string) (DistributedId, error) {
	n, err := numericInteger(text, "distributed_id", distributedIdMax, distributedIdRange)
	if err != nil {
		return DistributedId{}, err
	}
	return DistributedIdFromInt(n)
}

// DistributedIdFromParts is distributed_id_from_parts: random 0 … 2^48 − 1;
// the time rounds down to the millisecond.
func DistributedIdFromParts(t time.Time, random int64) (DistributedId, error) {
	ms := floorDiv(unixMicros(t), 1000) - distributedIdEpochMillis
	if ms < 0 || ms > distributedIdMaxTs {
		return DistributedId{}, timeOutOfRange("distributed_id", distributedIdTimeRange)
	}
	if err := field("distributed_id", "random", random, 0, distributedIdMaxRandom); err != nil {
		return DistributedId{}, err
	}
	var id DistributedId
	putUintN(id[:6], uint64(ms))
	putUintN(id[6:], uint64(random))
	return id, nil
}

// DistributedIdFromTime is distributed_id_from_time: the smallest value at
// that instant (random 0).
func DistributedIdFromTime(t time.Time) (DistributedId, error) { return DistributedIdFromParts(t, 0) }

// DistributedIdFromHex is distributed_id_from_hex: exactly 26 hexadecimal
// digits, any case (a 00 byte, then the 12 bytes).
func DistributedIdFromHex(text string) (DistributedId, error) {
	n, ok := new(big.Int).SetString(text, 16)
	if len(text) != 26 || !ok || strings.Trim(text, "0123456789abcdefABCDEF") != "" {
		return DistributedId{}, invalidText("distributed_id", text, "exactly 26 hexadecimal digits")
	}
	if n.Cmp(distributedIdMax) > 0 {
		return DistributedId{}, valueOutOfRange("distributed_id", text, distributedIdRange)
	}
	var id DistributedId
	n.FillBytes(id[:])
	return id, nil
}

// DistributedIdFromAlphanumeric is alphanumeric_decode_distributed_id: 16
// base62 characters, at most 10^28 − 1.
func DistributedIdFromAlphanumeric(text string) (DistributedId, error) {
	if len(text) != 16 {
		return DistributedId{}, invalidText("distributed_id", text, alnumExpectedDid)
	}
	high, ok1 := decode62(text[:5])
	low, ok2 := decode62(text[5:])
	if !ok1 || !ok2 {
		return DistributedId{}, invalidText("distributed_id", text, alnumExpectedDid)
	}
	var b [16]byte
	putUintN(b[:8], high)
	putUintN(b[8:], low)
	n := new(big.Int).SetBytes(b[:])
	if n.Cmp(distributedIdMax) > 0 {
		return DistributedId{}, valueOutOfRange("distributed_id", text, alnumDidRange)
	}
	var id DistributedId
	n.FillBytes(id[:])
	return id, nil
}

func (id DistributedId) String() string { return id.Int().String() }

// Int is the integer (distributed_id::numeric).
func (id DistributedId) Int() *big.Int { return new(big.Int).SetBytes(id[:]) }

// Bytes returns a copy of the 12 stored bytes (the binary wire format).
func (id DistributedId) Bytes() []byte { return append([]byte(nil), id[:]...) }

// Compare orders as the server does (by the bytes): -1, 0 or +1.
func (id DistributedId) Compare(other DistributedId) int { return compareBytes(id[:], other[:]) }

// TimestampMs is id >> 48: milliseconds since 1900-01-01 UTC.
func (id DistributedId) TimestampMs() int64 { return int64(uintN(id[:6])) }

// Random is the low 48 bits.
func (id DistributedId) Random() int64 { return int64(uintN(id[6:])) }

// Time is the ID's millisecond (distributed_id_timestamp), in UTC: id >> 48
// milliseconds after 1900-01-01, also where that field is 2^45 or more
// (after 3014-12-13), which no generator makes.
func (id DistributedId) Time() time.Time {
	return time.UnixMilli(distributedIdEpochMillis + id.TimestampMs()).UTC()
}

// Hex is distributed_id_to_hex: 26 upper-case digits (a 00 byte, then the
// 12 bytes).
func (id DistributedId) Hex() string { return fmt.Sprintf("00%X", id[:]) }

// Alphanumeric is alphanumeric_encode(distributed_id): 5 characters for
// id >> 64, 11 for the rest.
func (id DistributedId) Alphanumeric() string {
	var out [16]byte
	encode62(uintN(id[:4]), out[:5])
	encode62(uintN(id[4:]), out[5:])
	return string(out[:])
}

func (id DistributedId) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

func (id *DistributedId) UnmarshalText(text []byte) error {
	v, err := ParseDistributedId(string(text))
	if err == nil {
		*id = v
	}
	return err
}

// Scan implements sql.Scanner: the decimal text, as string or []byte.
func (id *DistributedId) Scan(src interface{}) error { return scanID[DistributedId](id, src) }

// Value implements driver.Valuer: the decimal text.
func (id DistributedId) Value() (driver.Value, error) { return id.String(), nil }

func (DistributedId) typeName() string { return "distributed_id" }

func (id *DistributedId) setBytes(b []byte) error {
	var v DistributedId
	if err := copyExact(v[:], b, "distributed_id"); err != nil {
		return err
	}
	if n := v.Int(); n.Cmp(distributedIdMax) > 0 {
		return valueOutOfRange("distributed_id", n.String(), distributedIdRange)
	}
	*id = v
	return nil
}
