// Package pgflake gives Go programs pg_flake's identifiers as values and
// makes them in the application under leases the database grants.
//
// The native SQL types Sno, Siq, Kuid96, DistributedId and FlaxId are
// fixed-length byte arrays holding exactly the big-endian bytes PostgreSQL
// stores (which are also the binary wire format), so byte order is sort
// order and == compares IDs; Snowflake and Kuid64 are int64 (bigint), and
// DistributedId128 a uuid's 16 bytes. Each has its canonical text
// (String, Parse*), its bytes, Compare, its parts and time, constructors
// from parts and time with the extension's errors (Error, SQLState), and
// database/sql's Scanner and Valuer.
//
// TakeSno, TakeSnowflake, TakeKuid96 and TakeSiq take a lease and return a
// Generator, safe for any number of goroutines (lease.go).
//
// Package pgxflake adds what needs pgx v4: pgtype codecs registered on a
// connection in one call, and the lease functions over pgx. This package
// imports only the standard library.
//
// The codecs follow docs/sql-reference.md of the pg_flake repository and
// python/pg_flake; tests/vectors there checks them byte for byte.
package pgflake
