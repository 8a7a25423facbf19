package pgflake

import (
	"database/sql/driver"
	"math/big"
	"strings"
	"time"
)

// DistributedId is a value of the SQL type distributed_id
// (Architect.Identities 2.1.1): the non-negative integer ts·2^48 + r, with
// ts 45 bits of milliseconds since 1900-01-01 UTC and r 48 random bits,
// stored in 12 bytes; valid values 0 … 10^28 − 1. Text: the plain decimal
// integer.
type DistributedId [12]byte

const distributedIdEpochMillis = -2_208_988_800_000 // 1900-01-01T00:00:00Z

const distributedIdRange = "0 to 9999999999999999999999999999"

var distributedIdMax, _ = new(big.Int).SetString("9999999999999999999999999999", 10)

// ParseDistributedId reads the decimal text as distributed_id's text input
// does: digits only, surrounded by optional white space, at most 28 digits
// after leading zeros.
func ParseDistributedId(text string) (DistributedId, error) {
	digits := strings.Trim(text, " \t\n\r\v\f")
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

func (id DistributedId) String() string { return id.Int().String() }

// Int is the integer (distributed_id::numeric).
func (id DistributedId) Int() *big.Int { return new(big.Int).SetBytes(id[:]) }

// Bytes returns a copy of the 12 stored bytes (the binary wire format).
func (id DistributedId) Bytes() []byte { return append([]byte(nil), id[:]...) }

// Time is the ID's millisecond (distributed_id_timestamp), in UTC: id >> 48
// milliseconds after 1900-01-01, also where that field is 2^45 or more
// (after 3014-12-13), which no generator makes.
func (id DistributedId) Time() time.Time {
	return time.UnixMilli(distributedIdEpochMillis + int64(uintN(id[:6]))).UTC()
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
