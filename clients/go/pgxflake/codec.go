package pgxflake

import (
	"database/sql/driver"
	"fmt"

	"github.com/jackc/pgtype"
)

// value is what the native types of package pgflake have.
type value interface {
	comparable
	String() string
	Bytes() []byte
}

// codec is the pgtype value registered for one type: the value, or NULL.
// pgx calls Set with a parameter, then EncodeBinary; DecodeBinary or
// DecodeText with a result, then AssignTo with the destination.
type codec[T value] struct {
	name      string
	parse     func(string) (T, error)
	fromBytes func([]byte) (T, error)

	id     T
	status pgtype.Status
	// err is a Set error kept for EncodeBinary: when Set fails on a
	// driver.Valuer, pgx retries with the Valuer's text, which it would send
	// as if it were the binary value (see Set).
	err error
}

func newCodec[T value](name string, parse func(string) (T, error), fromBytes func([]byte) (T, error)) func() pgtype.ValueTranscoder {
	return func() pgtype.ValueTranscoder { return &codec[T]{name: name, parse: parse, fromBytes: fromBytes} }
}

// NewTypeValue is how pgx makes a value of a registered type for each
// column and parameter (pgtype.TypeValue): with this type's functions, which
// a zero codec (what pgx would make without it) lacks.
func (c *codec[T]) NewTypeValue() pgtype.Value {
	return &codec[T]{name: c.name, parse: c.parse, fromBytes: c.fromBytes}
}

// TypeName is the SQL type's name (pgtype.TypeValue).
func (c *codec[T]) TypeName() string { return c.name }

func (c *codec[T]) setText(text string) error {
	c.status = pgtype.Undefined
	id, err := c.parse(text)
	if err != nil {
		return err
	}
	c.id, c.status = id, pgtype.Present
	return nil
}

func (c *codec[T]) setBytes(b []byte) error {
	c.status = pgtype.Undefined
	id, err := c.fromBytes(b)
	if err != nil {
		return err
	}
	c.id, c.status = id, pgtype.Present
	return nil
}

// Set takes a T, a *T (nil is NULL), the canonical text (string; pgx sends a
// plain string parameter as text itself, so this is for arrays of strings)
// or the stored bytes ([]byte). Any other value is an error, and never
// converted through its text: a DistributedId bound to a kuid96 parameter
// is refused, not read as kuid96 text.
func (c *codec[T]) Set(src interface{}) error {
	c.err = nil
	c.status = pgtype.Null
	switch v := src.(type) {
	case nil:
		return nil
	case T:
		c.id, c.status = v, pgtype.Present
		return nil
	case *T:
		if v != nil {
			c.id, c.status = *v, pgtype.Present
		}
		return nil
	case string:
		return c.setText(v)
	case *string:
		if v != nil {
			return c.setText(*v)
		}
		return nil
	case []byte:
		if v != nil {
			return c.setBytes(v)
		}
		return nil
	}
	err := fmt.Errorf("pgflake: cannot encode %T as %s: give a %T, its text or its bytes", src, c.name, c.id)
	if _, ok := src.(driver.Valuer); ok {
		// pgx would call Value() and send the text in the binary format:
		// the server then reads those characters as the stored bytes. Keep
		// the error for EncodeBinary instead.
		c.err, c.status = err, pgtype.Present
		return nil
	}
	return err
}

func (c *codec[T]) Get() interface{} {
	switch c.status {
	case pgtype.Present:
		if c.err != nil {
			return c.err
		}
		return c.id
	case pgtype.Null:
		return nil
	}
	return c.status
}

// AssignTo fills a *T, a **T (nil for NULL) or a *string (the text).
func (c *codec[T]) AssignTo(dst interface{}) error {
	if c.err != nil {
		return c.err
	}
	if c.status == pgtype.Undefined {
		return fmt.Errorf("pgflake: cannot assign an undefined %s", c.name)
	}
	null := c.status == pgtype.Null
	switch d := dst.(type) {
	case *T:
		if !null {
			*d = c.id
			return nil
		}
	case **T:
		if null {
			*d = nil
		} else {
			v := c.id
			*d = &v
		}
		return nil
	case *string:
		if !null {
			*d = c.id.String()
			return nil
		}
	case **string:
		if null {
			*d = nil
		} else {
			s := c.id.String()
			*d = &s
		}
		return nil
	default:
		return fmt.Errorf("pgflake: cannot assign %s to %T: scan into a %T, a *%T or a string; for the bytes select id::bytea", c.name, dst, &c.id, &c.id)
	}
	return fmt.Errorf("pgflake: cannot assign NULL to %T: scan into a *%T", dst, &c.id)
}

func (c *codec[T]) DecodeText(_ *pgtype.ConnInfo, src []byte) error {
	c.err = nil
	if src == nil {
		c.status = pgtype.Null
		return nil
	}
	return c.setText(string(src))
}

func (c *codec[T]) DecodeBinary(_ *pgtype.ConnInfo, src []byte) error {
	c.err = nil
	if src == nil {
		c.status = pgtype.Null
		return nil
	}
	return c.setBytes(src)
}

// encodable says whether the codec holds a value to encode: false and no
// error for NULL (pgx sends NULL), an error for a refused or undefined value.
func (c *codec[T]) encodable() (bool, error) {
	switch {
	case c.err != nil:
		return false, c.err
	case c.status == pgtype.Null:
		return false, nil
	case c.status != pgtype.Present:
		return false, fmt.Errorf("pgflake: cannot encode an undefined %s", c.name)
	}
	return true, nil
}

func (c *codec[T]) EncodeText(_ *pgtype.ConnInfo, buf []byte) ([]byte, error) {
	if ok, err := c.encodable(); !ok {
		return nil, err
	}
	return append(buf, c.id.String()...), nil
}

func (c *codec[T]) EncodeBinary(_ *pgtype.ConnInfo, buf []byte) ([]byte, error) {
	if ok, err := c.encodable(); !ok {
		return nil, err
	}
	return append(buf, c.id.Bytes()...), nil
}

// Value is what pgx hands a sql.Scanner destination (a *Sno, …): the value
// itself, so that a kuid96 column scanned into a *FlaxId is an error even
// where the text would parse as the other type. (The codecs are never a
// database/sql driver.Value; the package's types are, as their text.)
func (c *codec[T]) Value() (driver.Value, error) {
	switch {
	case c.err != nil:
		return nil, c.err
	case c.status == pgtype.Null:
		return nil, nil
	case c.status != pgtype.Present:
		return nil, fmt.Errorf("pgflake: undefined %s", c.name)
	}
	return c.id, nil
}
