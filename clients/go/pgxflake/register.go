// Package pgxflake connects pg_flake's values (package pgflake) to pgx v4:
// pgtype codecs for the native types and their arrays, registered on a
// connection in one call (Register, AfterConnect), and Leases, the
// LeaseSource of the leased generators over pgx. The values themselves,
// their text and bytes, database/sql's Scanner and Valuer and the leased
// generators need nothing of pgx: they are package pgflake's.
package pgxflake

import (
	"context"
	"fmt"

	"github.com/jackc/pgtype"
	"github.com/jackc/pgx/v4"

	pgflake "pg-flake.invalid/pgflake"
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
		return newCodec("sno", pgflake.ParseSno, pgflake.SnoFromBytes)
	case "siq":
		return newCodec("siq", pgflake.ParseSiq, siqFromWire)
	case "kuid96":
		return newCodec("kuid96", pgflake.ParseKuid96, pgflake.Kuid96FromBytes)
	case "distributed_id":
		return newCodec("distributed_id", pgflake.ParseDistributedId, pgflake.DistributedIdFromBytes)
	case "flaxid":
		return newCodec("flaxid", pgflake.ParseFlaxId, pgflake.FlaxIdFromBytes)
	}
	panic("pgxflake: no codec for " + name)
}

// siqFromWire is siq's binary format: exactly the 14 bytes (siq_recv;
// SiqFromBytes also takes bytea::siq's 16-byte form).
func siqFromWire(b []byte) (pgflake.Siq, error) {
	if len(b) != 14 {
		return pgflake.Siq{}, &pgflake.Error{SQLState: "22P03",
			Message: fmt.Sprintf("invalid binary value for type siq: expected exactly 14, got %d bytes", len(b))}
	}
	return pgflake.SiqFromBytes(b)
}
