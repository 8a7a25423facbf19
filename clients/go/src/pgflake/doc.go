// Package pgflake gives Go programs pg_flake's native SQL types as values:
// Sno, Siq, Kuid96, DistributedId and FlaxId, each a fixed-length byte array
// holding exactly the big-endian bytes PostgreSQL stores (which are also the
// binary wire format), so byte order is sort order and == compares IDs.
//
// Each type has its canonical text (String, Parse*, MarshalText and
// UnmarshalText), its bytes (Bytes, *FromBytes, strict like bytea::T), the
// start of its time unit (Time), and database/sql's Scanner and Valuer (the
// canonical text). Register (or AfterConnect, the same as a pgx hook) adds
// binary and text codecs for the types and their arrays to a pgx v4
// connection, looked up by name in the extension's schema.
//
// The text codecs follow docs/sql-reference.md and python/pg_flake of the
// pg_flake repository; tests/vectors there checks them byte for byte.
package pgflake
