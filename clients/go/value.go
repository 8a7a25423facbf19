package pgflake

import (
	"bytes"
	"database/sql/driver"
	"fmt"
	"time"
)

// What the native types share, for the generic helpers below.
type flakeID interface {
	typeName() string
	Bytes() []byte
	String() string
	driver.Valuer
}

type idPtr[T any] interface {
	*T
	flakeID
	UnmarshalText([]byte) error
	setBytes([]byte) error
}

// scanID is every native type's sql.Scanner: database/sql drivers deliver
// these types as their text (a string, or []byte holding the text).
func scanID[T any, P idPtr[T]](id P, src interface{}) error {
	switch v := src.(type) {
	case string:
		return id.UnmarshalText([]byte(v))
	case []byte:
		return id.UnmarshalText(v)
	case T:
		*id = v
		return nil
	case nil:
		return fmt.Errorf("pgflake: cannot scan NULL into %T: scan into a **%T (or a sql.Null[%T]-like wrapper)", id, *id, *id)
	}
	return fmt.Errorf("pgflake: cannot scan %T into %T", src, id)
}

func fromBytes[T any, P idPtr[T]](b []byte) (T, error) {
	var id T
	err := P(&id).setBytes(b)
	if err != nil {
		var zero T
		return zero, err
	}
	return id, nil
}

func copyExact(dst, src []byte, typeName string) error {
	if len(src) != len(dst) {
		return invalidBinary(typeName, fmt.Sprintf("exactly %d", len(dst)), len(src))
	}
	copy(dst, src)
	return nil
}

// compareBytes orders values as the server does: by their stored bytes.
func compareBytes(a, b []byte) int { return bytes.Compare(a, b) }

// uintN reads up to 8 big-endian bytes.
func uintN(b []byte) uint64 {
	var n uint64
	for _, c := range b {
		n = n<<8 | uint64(c)
	}
	return n
}

// putUintN writes the low len(b) bytes of n, big-endian.
func putUintN(b []byte, n uint64) {
	for i := len(b) - 1; i >= 0; i-- {
		b[i] = byte(n)
		n >>= 8
	}
}

// unixMicros is t in microseconds since 1970-01-01 UTC, rounded down (a
// time inside a format's unit rounds down to the unit, as *_from_time does).
func unixMicros(t time.Time) int64 { return t.UnixMicro() }

// timeOfMicros is the UTC time of microseconds since 1970-01-01.
func timeOfMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

// floorDiv is a / b rounded towards minus infinity (b > 0).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}
