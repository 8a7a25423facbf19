package main

import (
	"context"
	"database/sql"
	"time"

	"github.com/jackc/pgx/v4"

	pgflake "pg-flake.invalid/pgflake"
)

// The formats stored in PostgreSQL's own types: Snowflake and kuid64 in
// bigint (int64 both ways, every bit kept above 2^53), DistributedId128 in
// uuid; through pgx and database/sql.
func bigints(ctx context.Context, conn *pgx.Conn, db *sql.DB) {
	at := time.Date(2084, 9, 6, 15, 47, 0, 0, time.UTC) // near the end of Snowflake's range
	want, err := pgflake.SnowflakeFromParts(at, 31, 31, 4095, pgflake.DiscordEpochMs)
	must(err, "SnowflakeFromParts")
	var s pgflake.Snowflake
	err = conn.QueryRow(ctx, "SELECT snowflake_from_parts($1, 31, 31, 4095)", at).Scan(&s)
	check(err == nil && s == want && int64(s) > 1<<62, "a Snowflake above 2^62 scans into a Snowflake, every bit kept (%d, %v)", s, err)
	var same bool
	err = conn.QueryRow(ctx, "SELECT $1::bigint = snowflake_from_parts($2, 31, 31, 4095)", want, at).Scan(&same)
	check(err == nil && same, "a Snowflake parameter is the bigint (%v)", err)
	var parts struct {
		time                      time.Time
		worker, process, sequence int
	}
	err = conn.QueryRow(ctx, "SELECT time, worker, process, sequence FROM snowflake_parts($1)", want).
		Scan(&parts.time, &parts.worker, &parts.process, &parts.sequence)
	p, _ := want.Parts(pgflake.DiscordEpochMs)
	check(err == nil && parts.time.Equal(p.Time) && parts.worker == p.Worker && parts.sequence == p.Sequence,
		"snowflake_parts agrees with Snowflake.Parts (%v)", err)

	k, err := pgflake.Kuid64FromParts(time.Date(18000, 1, 1, 0, 0, 0, 0, time.UTC), 16383)
	must(err, "Kuid64FromParts")
	var back pgflake.Kuid64
	var text string
	err = conn.QueryRow(ctx, "SELECT $1::bigint, kuid64_encode($1::bigint)", k).Scan(&back, &text)
	check(err == nil && back == k && text == k.String() && int64(k) > 1<<53,
		"a kuid64 above 2^53 both ways, its text kuid64_encode's (%s, %v)", text, err)

	var did pgflake.DistributedId128
	err = conn.QueryRow(ctx, "SELECT distributed_id128_generate()").Scan(&did)
	check(err == nil && did.Time().After(time.Now().Add(-time.Hour)), "a DistributedId128 from a uuid column (%v, %v)", did, err)
	var u string
	err = conn.QueryRow(ctx, "SELECT $1::uuid::text", did).Scan(&u)
	check(err == nil && u == did.String(), "a DistributedId128 parameter is the uuid (%v)", err)

	var s2 pgflake.Snowflake
	var k2 pgflake.Kuid64
	var did2 pgflake.DistributedId128
	err = db.QueryRowContext(ctx, "SELECT $1::bigint, $2::bigint, $3::uuid", want, k, did).Scan(&s2, &k2, &did2)
	check(err == nil && s2 == want && k2 == k && did2 == did, "database/sql: Snowflake, Kuid64 and DistributedId128 both ways (%v)", err)
}
