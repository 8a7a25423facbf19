package pgflake

import (
	"context"
	"database/sql/driver"
	"fmt"

	"github.com/jackc/pgtype"
	"github.com/jackc/pgx/v4"
)

// TypeNames are the SQL types this package registers, in the order of
// Register's query.
var TypeNames = []string{"distributed_id", "flaxid", "kuid96", "siq", "sno"}

// TypeQuery finds pg_flake's native types in whatever schema the extension
// was created in, with their current OIDs and their arrays' OIDs (the query
// of python/pg_flake/_catalog.py).
const TypeQuery = `SELECT t.typname::text, t.oid::int8, t.typarray::int8
FROM pg_catalog.pg_extension e
JOIN pg_catalog.pg_type t ON t.typnamespace = e.extnamespace
WHERE e.extname = 'pg_flake'
  AND t.typname IN ('distributed_id', 'flaxid', 'kuid96', 'siq', 'sno')
ORDER BY t.typname`

// Register looks pg_flake's types up by name (TypeQuery) and registers a
// codec for each type and its array on conn's ConnInfo, so that pgx sends
// and receives them in binary (the stored bytes). It returns the OIDs it
// registered by type name; types that are not installed (no extension in
// this database) are skipped, which is no error.
//
// The OIDs change when the extension is dropped and created again or a
// dump is restored into a new database: call Register again on a
// connection that was registered before. When an OID changed, Register also
// clears the connection's statement cache, whose statements the server
// would refuse ("cache lookup failed for type …", SQLSTATE XX000).
func Register(ctx context.Context, conn *pgx.Conn) (map[string]uint32, error) {
	rows, err := conn.Query(ctx, TypeQuery)
	if err != nil {
		return nil, fmt.Errorf("pgflake: looking up the types: %w", err)
	}
	type found struct {
		name       string
		oid, array int64
	}
	var types []found
	for rows.Next() {
		var f found
		if err := rows.Scan(&f.name, &f.oid, &f.array); err != nil {
			rows.Close()
			return nil, fmt.Errorf("pgflake: looking up the types: %w", err)
		}
		types = append(types, f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("pgflake: looking up the types: %w", err)
	}

	ci := conn.ConnInfo()
	oids := make(map[string]uint32, len(types))
	changed := false
	for _, t := range types {
		oid, array := uint32(t.oid), uint32(t.array)
		newCodec := codecFor(t.name)
		if old, ok := ci.DataTypeForName(t.name); ok && old.OID != oid {
			changed = true
		}
		ci.RegisterDataType(pgtype.DataType{Value: newCodec(), Name: t.name, OID: oid})
		ci.RegisterDataType(pgtype.DataType{
			Value: pgtype.NewArrayType("_"+t.name, oid, newCodec),
			Name:  "_" + t.name,
			OID:   array,
		})
		oids[t.name] = oid
	}
	if sc := conn.StatementCache(); changed && sc != nil {
		if err := sc.Clear(ctx); err != nil {
			return nil, fmt.Errorf("pgflake: clearing the statement cache: %w", err)
		}
	}
	return oids, nil
}

// AfterConnect is Register as a connection hook: pgxpool.Config.AfterConnect,
// stdlib.OptionAfterConnect (database/sql), or after pgx.Connect.
func AfterConnect(ctx context.Context, conn *pgx.Conn) error {
	_, err := Register(ctx, conn)
	return err
}

func codecFor(name string) func() pgtype.ValueTranscoder {
	switch name {
	case "sno":
		return func() pgtype.ValueTranscoder { return &codec[Sno, *Sno]{} }
	case "siq":
		return func() pgtype.ValueTranscoder { return &codec[Siq, *Siq]{} }
	case "kuid96":
		return func() pgtype.ValueTranscoder { return &codec[Kuid96, *Kuid96]{} }
	case "distributed_id":
		return func() pgtype.ValueTranscoder { return &codec[DistributedId, *DistributedId]{} }
	case "flaxid":
		return func() pgtype.ValueTranscoder { return &codec[FlaxId, *FlaxId]{} }
	}
	panic("pgflake: no codec for " + name)
}

// codec is the pgtype value registered for one type: the value, or NULL.
// pgx calls Set with a parameter, then EncodeBinary; DecodeBinary or
// DecodeText with a result, then AssignTo with the destination.
type codec[T any, P idPtr[T]] struct {
	id     T
	status pgtype.Status
	// err is a Set error kept for EncodeBinary: when Set fails on a
	// driver.Valuer, pgx retries with the Valuer's text, which it would send
	// as if it were the binary value (see Set).
	err error
}

func (c *codec[T, P]) typeName() string { var id T; return P(&id).typeName() }

func (c *codec[T, P]) setText(text string) error {
	c.status = pgtype.Undefined
	if err := P(&c.id).UnmarshalText([]byte(text)); err != nil {
		return err
	}
	c.status = pgtype.Present
	return nil
}

// Set takes a T, a *T (nil is NULL), the canonical text (string; pgx sends a
// plain string parameter as text itself, so this is for arrays of strings)
// or the stored bytes ([]byte). Any other value is an error, and never
// converted through its text: a DistributedId bound to a kuid96 parameter
// is refused, not read as kuid96 text.
func (c *codec[T, P]) Set(src interface{}) error {
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
			c.status = pgtype.Undefined
			if err := P(&c.id).setBytes(v); err != nil {
				return err
			}
			c.status = pgtype.Present
		}
		return nil
	}
	err := fmt.Errorf("pgflake: cannot encode %T as %s: give a %T, its text or its bytes", src, c.typeName(), c.id)
	if _, ok := src.(driver.Valuer); ok {
		// pgx would call Value() and send the text in the binary format:
		// the server then reads those characters as the stored bytes. Keep
		// the error for EncodeBinary instead.
		c.err, c.status = err, pgtype.Present
		return nil
	}
	return err
}

func (c *codec[T, P]) Get() interface{} {
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
func (c *codec[T, P]) AssignTo(dst interface{}) error {
	if c.err != nil {
		return c.err
	}
	if c.status == pgtype.Undefined {
		return fmt.Errorf("pgflake: cannot assign an undefined %s", c.typeName())
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
			*d = P(&c.id).String()
			return nil
		}
	case **string:
		if null {
			*d = nil
		} else {
			s := P(&c.id).String()
			*d = &s
		}
		return nil
	default:
		return fmt.Errorf("pgflake: cannot assign %s to %T: scan into a %T, a *%T or a string; for the bytes select id::bytea", c.typeName(), dst, &c.id, &c.id)
	}
	return fmt.Errorf("pgflake: cannot assign NULL to %T: scan into a *%T", dst, &c.id)
}

func (c *codec[T, P]) DecodeText(_ *pgtype.ConnInfo, src []byte) error {
	c.err = nil
	if src == nil {
		c.status = pgtype.Null
		return nil
	}
	return c.setText(string(src))
}

func (c *codec[T, P]) DecodeBinary(_ *pgtype.ConnInfo, src []byte) error {
	c.err = nil
	if src == nil {
		c.status = pgtype.Null
		return nil
	}
	c.status = pgtype.Undefined
	if err := P(&c.id).setBytes(src); err != nil {
		return err
	}
	c.status = pgtype.Present
	return nil
}

// encodable says whether the codec holds a value to encode: false and no
// error for NULL (pgx sends NULL), an error for a refused or undefined value.
func (c *codec[T, P]) encodable() (bool, error) {
	switch {
	case c.err != nil:
		return false, c.err
	case c.status == pgtype.Null:
		return false, nil
	case c.status != pgtype.Present:
		return false, fmt.Errorf("pgflake: cannot encode an undefined %s", c.typeName())
	}
	return true, nil
}

func (c *codec[T, P]) EncodeText(_ *pgtype.ConnInfo, buf []byte) ([]byte, error) {
	if ok, err := c.encodable(); !ok {
		return nil, err
	}
	return append(buf, P(&c.id).String()...), nil
}

func (c *codec[T, P]) EncodeBinary(_ *pgtype.ConnInfo, buf []byte) ([]byte, error) {
	if ok, err := c.encodable(); !ok {
		return nil, err
	}
	return append(buf, P(&c.id).Bytes()...), nil
}

// Value is what pgx hands a sql.Scanner destination (a *Sno, …): the value
// itself, so that a kuid96 column scanned into a *FlaxId is an error even
// where the text would parse as the other type. (The codecs are never a
// database/sql driver.Value; the package's types are, as their text.)
func (c *codec[T, P]) Value() (driver.Value, error) {
	switch {
	case c.err != nil:
		return nil, c.err
	case c.status == pgtype.Null:
		return nil, nil
	case c.status != pgtype.Present:
		return nil, fmt.Errorf("pgflake: undefined %s", c.typeName())
	}
	return c.id, nil
}
