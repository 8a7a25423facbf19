package pgflake

import (
	"database/sql/driver"
	"encoding/hex"
	"fmt"
	"math/big"
	"time"
)

// DistributedId128 (Architect.Identities 2.1.1), stored in PostgreSQL's
// uuid: U = ts·2^80 + 7·2^76 + (R >> 63)·2^64 + (R mod 2^63), with ts 48
// bits of milliseconds since 1700-01-01 UTC, the version nibble 0111 and a
// 75-bit random value R split around bit 63, which is always 0
// (docs/sql-reference.md, "distributed_id128 (on uuid)"). Any 16 bytes are a uuid, so
// any value is accepted; Time and Random read the fields of any uuid.
type DistributedId128 [16]byte

const (
	did128EpochMillis = -8_520_336_000_000 // 1700-01-01T00:00:00Z
	did128MaxTs       = 1<<48 - 1
	did128TimeRange   = "1700-01-01 00:00:00+00 to 10619-08-04 05:31:50.655999+00"
	did128ValueRange  = "0 to 340282366920938463463374607431768211455"
	uuidExpected      = "a uuid as 8-4-4-4-12 hexadecimal digits"
)

var (
	did128MaxRandom = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 75), big.NewInt(1))
	uuidMax         = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 128), big.NewInt(1))
)

// ParseDistributedId128 reads the canonical uuid text (8-4-4-4-12
// hexadecimal digits, either case).
func ParseDistributedId128(text string) (DistributedId128, error) {
	var id DistributedId128
	if len(text) != 36 || text[8] != '-' || text[13] != '-' || text[18] != '-' || text[23] != '-' {
		return id, invalidText("uuid", text, uuidExpected)
	}
	digits := text[:8] + text[9:13] + text[14:18] + text[19:23] + text[24:]
	if _, err := hex.Decode(id[:], []byte(digits)); err != nil {
		return DistributedId128{}, invalidText("uuid", text, uuidExpected)
	}
	return id, nil
}

// DistributedId128FromBytes takes exactly 16 bytes.
func DistributedId128FromBytes(b []byte) (DistributedId128, error) {
	var id DistributedId128
	return id, copyExact(id[:], b, "uuid")
}

// DistributedId128FromInt is the uuid of a 128-bit integer.
func DistributedId128FromInt(n *big.Int) (DistributedId128, error) {
	if n.Sign() < 0 || n.Cmp(uuidMax) > 0 {
		return DistributedId128{}, valueOutOfRange("uuid", n.String(), did128ValueRange)
	}
	var id DistributedId128
	n.FillBytes(id[:])
	return id, nil
}

// DistributedId128FromNumeric is distributed_id128_from_numeric, from
// PostgreSQL numeric text: negative, fractional, NaN, infinite or 2^128 and
// above is 22003.
func DistributedId128FromNumeric(text string) (DistributedId128, error) {
	n, err := numericInteger(text, "uuid", uuidMax, did128ValueRange)
	if err != nil {
		return DistributedId128{}, err
	}
	return DistributedId128FromInt(n)
}

// DistributedId128FromAlphanumeric is alphanumeric_decode_uuid.
func DistributedId128FromAlphanumeric(text string) (DistributedId128, error) {
	b, err := AlphanumericDecodeUUID(text)
	return DistributedId128(b), err
}

// DistributedId128FromParts is distributed_id128_from_parts: random
// 0 … 2^75 − 1; the time rounds down to the millisecond.
func DistributedId128FromParts(t time.Time, random *big.Int) (DistributedId128, error) {
	ms := floorDiv(unixMicros(t), 1000) - did128EpochMillis
	if ms < 0 || ms > did128MaxTs {
		return DistributedId128{}, timeOutOfRange("distributed_id128", did128TimeRange)
	}
	if random.Sign() < 0 || random.Cmp(did128MaxRandom) > 0 {
		return DistributedId128{}, &Error{"22003", fmt.Sprintf("distributed_id128 field %q out of range: %s (accepted: 0 to %s)", "random", random, did128MaxRandom), ""}
	}
	var r [16]byte
	random.FillBytes(r[:])
	high, low := uintN(r[:8]), uintN(r[8:]) // R = high·2^64 + low, high < 2^11
	var id DistributedId128
	putUintN(id[:6], uint64(ms))
	// The 16 bits after ts: the version nibble and R's bits 63–74.
	putUintN(id[6:8], 7<<12|(high<<1|low>>63))
	putUintN(id[8:], low&(1<<63-1))
	return id, nil
}

// DistributedId128FromTime is distributed_id128_from_time: the smallest
// value at that instant (R = 0).
func DistributedId128FromTime(t time.Time) (DistributedId128, error) {
	return DistributedId128FromParts(t, new(big.Int))
}

// String is the canonical uuid text, lower case.
func (id DistributedId128) String() string {
	h := hex.EncodeToString(id[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// Int is the 128-bit integer (distributed_id128_to_numeric).
func (id DistributedId128) Int() *big.Int { return new(big.Int).SetBytes(id[:]) }

// Alphanumeric is alphanumeric_encode(uuid).
func (id DistributedId128) Alphanumeric() string { return AlphanumericEncodeUUID(id) }

// Bytes returns a copy of the 16 bytes.
func (id DistributedId128) Bytes() []byte { return append([]byte(nil), id[:]...) }

// Compare orders as the server's uuid does (by the bytes): -1, 0 or +1.
func (id DistributedId128) Compare(other DistributedId128) int {
	return compareBytes(id[:], other[:])
}

// TimestampMs is the top 48 bits: milliseconds since 1700-01-01.
func (id DistributedId128) TimestampMs() int64 { return int64(uintN(id[:6])) }

// Random is R: the 12 bits below the version nibble, then the low 63 bits
// (for an arbitrary uuid it ignores the nibble and bit 63).
func (id DistributedId128) Random() *big.Int {
	high := uintN(id[6:8]) & 0xFFF
	low := uintN(id[8:]) & (1<<63 - 1)
	r := new(big.Int).SetUint64(high)
	r.Lsh(r, 63)
	return r.Or(r, new(big.Int).SetUint64(low))
}

// Time is the ID's millisecond (distributed_id128_timestamp), in UTC.
func (id DistributedId128) Time() time.Time {
	return time.UnixMilli(did128EpochMillis + id.TimestampMs()).UTC()
}

func (id DistributedId128) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

func (id *DistributedId128) UnmarshalText(text []byte) error {
	v, err := ParseDistributedId128(string(text))
	if err == nil {
		*id = v
	}
	return err
}

// Scan implements sql.Scanner: the uuid text (string or []byte), the 16
// bytes, or a [16]byte (pgx's uuid).
func (id *DistributedId128) Scan(src interface{}) error {
	switch v := src.(type) {
	case [16]byte:
		*id = v
		return nil
	case []byte:
		if len(v) == 16 {
			copy(id[:], v)
			return nil
		}
		return id.UnmarshalText(v)
	case string:
		return id.UnmarshalText([]byte(v))
	case nil:
		return fmt.Errorf("pgflake: cannot scan NULL into %T: scan into a **%T", id, *id)
	}
	return fmt.Errorf("pgflake: cannot scan %T into %T", src, id)
}

// Value implements driver.Valuer: the uuid text.
func (id DistributedId128) Value() (driver.Value, error) { return id.String(), nil }
