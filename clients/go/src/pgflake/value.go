package pgflake

import (
	"database/sql/driver"
	"fmt"
)

// What the five types share, for the generic helpers below and the pgx
// codecs (pgx.go).
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

// scanID is every type's sql.Scanner: database/sql drivers deliver these
// types as their text (a string, or []byte holding the text).
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
		return invalidBinary(typeName, len(dst), len(src))
	}
	copy(dst, src)
	return nil
}

// uintN reads up to 8 big-endian bytes.
func uintN(b []byte) uint64 {
	var n uint64
	for _, c := range b {
		n = n<<8 | uint64(c)
	}
	return n
}
