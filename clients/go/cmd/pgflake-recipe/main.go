// pgflake-recipe checks clients/go/README.md against the server of
// PG_FLAKE_TEST_DSN (libpq's key=value form): pg_flake's five native types
// through pgx v4 in binary and text, their arrays, CopyFrom, database/sql,
// a pool, and what happens to the OIDs when the extension is dropped and
// created again. It drops and creates pg_flake in that database: give it a
// database of its own.
package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/jackc/pgconn"
	"github.com/jackc/pgx/v4"
	"github.com/jackc/pgx/v4/pgxpool"
	"github.com/jackc/pgx/v4/stdlib"

	pgflake "pg-flake.invalid/pgflake"
	"pg-flake.invalid/pgflake/pgxflake"
)

var failures int

func check(ok bool, format string, args ...interface{}) {
	if ok {
		fmt.Printf("ok   %s\n", fmt.Sprintf(format, args...))
		return
	}
	failures++
	fmt.Printf("FAIL %s\n", fmt.Sprintf(format, args...))
}

func must(err error, what string) {
	if err != nil {
		fmt.Printf("FAIL %s: %v\n", what, err)
		os.Exit(1)
	}
}

// fails: err is a server error with that SQLSTATE, or a client error
// (SQLSTATE ""), whose message contains text.
func fails(err error, sqlstate, text string) bool {
	var pgErr *pgconn.PgError
	if sqlstate != "" {
		return errors.As(err, &pgErr) && pgErr.Code == sqlstate && strings.Contains(pgErr.Message, text)
	}
	return err != nil && !errors.As(err, &pgErr) && strings.Contains(err.Error(), text)
}

// flakeState is the SQLSTATE of a *pgflake.Error in err's chain.
func flakeState(err error) string {
	var e *pgflake.Error
	if errors.As(err, &e) {
		return e.SQLState
	}
	return ""
}

// One row of every type.
type ids struct {
	Sno    pgflake.Sno
	Siq    pgflake.Siq
	Kuid96 pgflake.Kuid96
	Did    pgflake.DistributedId
	Flax   pgflake.FlaxId
}

func (r *ids) args() []interface{} { return []interface{}{r.Sno, r.Siq, r.Kuid96, r.Did, r.Flax} }
func (r *ids) dest() []interface{} { return []interface{}{&r.Sno, &r.Siq, &r.Kuid96, &r.Did, &r.Flax} }

const columns = "sno sno, siq siq, kuid96 kuid96, did distributed_id, flax flaxid"
const generated = "sno_generate(), siq_generate('event'), kuid96_generate(), distributed_id_generate(), flaxid_generate()"

func examples() ids {
	var r ids
	var err error
	r.Sno, err = pgflake.ParseSno("brpk4q72xwf2m63l")
	must(err, "ParseSno")
	r.Siq, err = pgflake.ParseSiq("did:siq:mpzijbyagku7racaaaamgzymuoaaa")
	must(err, "ParseSiq")
	r.Kuid96, err = pgflake.ParseKuid96(".5.tXa0xODNvPN.0")
	must(err, "ParseKuid96")
	r.Did, err = pgflake.ParseDistributedId("1088824355131185736905670087")
	must(err, "ParseDistributedId")
	r.Flax, err = pgflake.ParseFlaxId("17cQYV3E6XowHpdd")
	must(err, "ParseFlaxId")
	return r
}

func main() {
	dsn := os.Getenv("PG_FLAKE_TEST_DSN")
	if dsn == "" {
		fmt.Println("set PG_FLAKE_TEST_DSN, e.g. host=127.0.0.1 port=5432 user=postgres dbname=flake_clients")
		os.Exit(2)
	}
	ctx := context.Background()
	start := time.Now()
	conn, err := pgx.Connect(ctx, dsn)
	must(err, "connect")
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, "SET client_min_messages = warning")
	must(err, "set")
	_, err = conn.Exec(ctx, "DROP TABLE IF EXISTS go_ids, go_src, go_copy, go_after")
	must(err, "drop tables")
	recreate(ctx, conn)
	oids, err := pgxflake.Register(ctx, conn)
	must(err, "Register")
	check(len(oids) == 5, "Register found the five types: %v", oids)

	values(ctx, conn)
	parameters(ctx, conn)
	arrays(ctx, conn)
	copyFrom(ctx, conn)
	databaseSQL(ctx, conn, dsn)
	pool(ctx, dsn)
	oidChange(ctx, conn, oids)

	fmt.Printf("pgflake-recipe: %d failures (%.1f s)\n", failures, time.Since(start).Seconds())
	if failures > 0 {
		os.Exit(1)
	}
}

func recreate(ctx context.Context, conn *pgx.Conn) {
	_, err := conn.Exec(ctx, "DROP EXTENSION IF EXISTS pg_flake CASCADE")
	must(err, "drop extension")
	_, err = conn.Exec(ctx, "CREATE EXTENSION pg_flake")
	must(err, "create extension")
}

// Values in binary (the default once registered) and in text, against the
// server's own text, bytes and decoders.
func values(ctx context.Context, conn *pgx.Conn) {
	_, err := conn.Exec(ctx, "CREATE TABLE go_ids (n int PRIMARY KEY, "+columns+")")
	must(err, "create table")
	ex := examples()
	_, err = conn.Exec(ctx, "INSERT INTO go_ids VALUES (1, $1, $2, $3, $4, $5)", ex.args()...)
	check(err == nil, "insert every type as parameters (their text) (%v)", err)
	_, err = conn.Exec(ctx, "INSERT INTO go_ids VALUES (2, "+generated+"), (3, NULL, NULL, NULL, NULL, NULL)")
	must(err, "insert generated")

	const q = `SELECT sno, siq, kuid96, did, flax,
	  sno::text, siq::text, kuid96::text, did::text, flax::text,
	  sno::bytea, siq::bytea, kuid96::bytea, did::bytea, flax::bytea,
	  sno_timestamp(sno), siq_timestamp(siq), kuid96_timestamp(kuid96, 8), distributed_id_timestamp(did), flaxid_timestamp(flax)
	  FROM go_ids WHERE n = $1`
	for _, n := range []int{1, 2} {
		for _, format := range []int16{pgx.BinaryFormatCode, pgx.TextFormatCode} {
			var r ids
			var texts [5]string
			var raw [5][]byte
			var times [5]time.Time
			dest := r.dest()
			for i := range texts {
				dest = append(dest, &texts[i])
			}
			for i := range raw {
				dest = append(dest, &raw[i])
			}
			for i := range times {
				dest = append(dest, &times[i])
			}
			formats := make(pgx.QueryResultFormats, len(dest))
			for i := range formats {
				formats[i] = format
			}
			err := conn.QueryRow(ctx, q, formats, n).Scan(dest...)
			if err != nil {
				check(false, "row %d in format %d: %v", n, format, err)
				continue
			}
			got := []interface {
				String() string
				Bytes() []byte
				Time() time.Time
			}{r.Sno, r.Siq, r.Kuid96, r.Did, r.Flax}
			same := true
			for i, v := range got {
				same = same && v.String() == texts[i] && string(v.Bytes()) == string(raw[i]) && v.Time().Equal(times[i])
			}
			check(same, "row %d in format %d: text, bytes and time agree with the server's", n, format)
			if n == 1 {
				check(r == ex, "row 1 in format %d: the values inserted", format)
			}
		}
	}

	rows, err := conn.Query(ctx, "SELECT sno, siq, kuid96, did, flax, ARRAY[sno] FROM go_ids")
	must(err, "formats")
	binary := true
	for _, fd := range rows.FieldDescriptions() {
		binary = binary && fd.Format == pgx.BinaryFormatCode
	}
	rows.Close()
	check(binary, "registered types and arrays are requested in binary")

	var sno pgflake.Sno
	var snoPtr *pgflake.Sno = &sno
	err = conn.QueryRow(ctx, "SELECT sno FROM go_ids WHERE n = 3").Scan(&snoPtr)
	check(err == nil && snoPtr == nil, "NULL into a **Sno is nil (%v)", err)
	err = conn.QueryRow(ctx, "SELECT sno FROM go_ids WHERE n = 3").Scan(&sno)
	check(err != nil, "NULL into a *Sno is an error (%v)", err)
	var s string
	err = conn.QueryRow(ctx, "SELECT sno FROM go_ids WHERE n = 1").Scan(&s)
	check(err == nil && s == ex.Sno.String(), "a sno into a *string is its text (%q)", s)
	var any interface{}
	err = conn.QueryRow(ctx, "SELECT siq FROM go_ids WHERE n = 1").Scan(&any)
	check(err == nil && any == ex.Siq, "a siq into an interface{} is a pgflake.Siq (%T)", any)
	var flax pgflake.FlaxId
	err = conn.QueryRow(ctx, "SELECT 'AAAAAAAAAAAAAAAA'::kuid96").Scan(&flax)
	check(err != nil, "a kuid96 into a *FlaxId is an error, though its text would parse (%v)", err)
	var raw []byte
	err = conn.QueryRow(ctx, "SELECT sno FROM go_ids WHERE n = 1").Scan(&raw)
	check(err != nil, "a sno into a *[]byte is an error: select sno::bytea (%v)", err)
}

func parameters(ctx context.Context, conn *pgx.Conn) {
	ex := examples()
	var ok bool
	err := conn.QueryRow(ctx, "SELECT $1::sno = sno FROM go_ids WHERE n = 1", "brpk4q72xwf2m63l").Scan(&ok)
	check(err == nil && ok, "a string parameter is sent as text (%v)", err)
	err = conn.QueryRow(ctx, "SELECT $1::sno = sno FROM go_ids WHERE n = 1", ex.Sno.Bytes()).Scan(&ok)
	check(err == nil && ok, "a []byte parameter is the stored bytes (%v)", err)
	var s string
	err = conn.QueryRow(ctx, "SELECT $1::text", ex.Did).Scan(&s)
	check(err == nil && s == "1088824355131185736905670087", "a DistributedId bound to a text parameter is its text (%q, %v)", s, err)
	var back ids
	err = conn.QueryRow(ctx, "SELECT $1::sno, $2::siq, $3::kuid96, $4::distributed_id, $5::flaxid",
		append([]interface{}{pgx.QuerySimpleProtocol(true)}, ex.args()...)...).Scan(back.dest()...)
	check(err == nil && back == ex, "simple protocol: parameters as text (driver.Valuer), results as text (%v)", err)
	var sno pgflake.Sno
	err = conn.QueryRow(ctx, "SELECT $1::sno", &ex.Sno).Scan(&sno)
	check(err == nil && sno == ex.Sno, "a *Sno parameter (%v)", err)
	var null *pgflake.Sno
	err = conn.QueryRow(ctx, "SELECT $1::sno", null).Scan(&null)
	check(err == nil && null == nil, "a nil *Sno parameter is NULL (%v)", err)
	// Scalar parameters are text (pgx calls Value() first): the server
	// reads the text as the placeholder's type.
	_, err = conn.Exec(ctx, "SELECT $1::kuid96", ex.Did)
	check(fails(err, "22P02", "invalid input syntax for type kuid96"), "a DistributedId bound to a kuid96 parameter: its text is no kuid96 (%v)", err)
	var flax pgflake.FlaxId
	kuid, _ := pgflake.ParseKuid96("AAAAAAAAAAAAAAAA")
	err = conn.QueryRow(ctx, "SELECT $1::flaxid", kuid).Scan(&flax)
	check(err == nil && flax.String() == kuid.String(), "but a Kuid96 whose text has no '.' binds to a flaxid parameter as flaxid text (%v)", err)
	_, err = conn.Exec(ctx, "SELECT $1::sno", "BRPK4Q72XWF2M63L")
	check(fails(err, "22P02", "invalid input syntax for type sno"), "bad text is the server's 22P02 (%v)", err)
	_, err = conn.Exec(ctx, "SELECT $1::sno", []byte{1, 2, 3})
	check(flakeState(err) == "22P03", "bytes of the wrong length are refused before sending (%v)", err)
}

func arrays(ctx context.Context, conn *pgx.Conn) {
	ex := examples()
	var gen ids
	must(conn.QueryRow(ctx, "SELECT sno, siq, kuid96, did, flax FROM go_ids WHERE n = 2").Scan(gen.dest()...), "row 2")
	for i, name := range []string{"sno", "siq", "kuid96", "distributed_id", "flaxid"} {
		a, b := ex.args()[i], gen.args()[i]
		slice := reflect.MakeSlice(reflect.SliceOf(reflect.TypeOf(a)), 0, 2)
		slice = reflect.Append(slice, reflect.ValueOf(a), reflect.ValueOf(b))
		for _, format := range []int16{pgx.BinaryFormatCode, pgx.TextFormatCode} {
			out := reflect.New(slice.Type())
			err := conn.QueryRow(ctx, "SELECT $1::"+name+"[]", pgx.QueryResultFormats{format}, slice.Interface()).Scan(out.Interface())
			check(err == nil && reflect.DeepEqual(out.Elem().Interface(), slice.Interface()),
				"%s[] both ways, results in format %d (%v)", name, format, err)
		}
	}
	var n int
	err := conn.QueryRow(ctx, "SELECT count(*) FROM go_ids WHERE sno = ANY ($1)", []pgflake.Sno{ex.Sno, gen.Sno}).Scan(&n)
	check(err == nil && n == 2, "sno = ANY ($1) with a []Sno (%d, %v)", n, err)
	var withNull []*pgflake.Sno
	err = conn.QueryRow(ctx, "SELECT array_agg(sno ORDER BY n) FROM go_ids").Scan(&withNull)
	check(err == nil && len(withNull) == 3 && *withNull[0] == ex.Sno && withNull[2] == nil, "array_agg with a NULL into []*Sno (%v)", err)
	var strict []pgflake.Sno
	err = conn.QueryRow(ctx, "SELECT array_agg(sno ORDER BY n) FROM go_ids").Scan(&strict)
	check(err != nil, "... and into []Sno an error (%v)", err)
	var texts []string
	err = conn.QueryRow(ctx, "SELECT $1::flaxid[]::text[]", []string{ex.Flax.String()}).Scan(&texts)
	check(err == nil && len(texts) == 1 && texts[0] == ex.Flax.String(), "a []string as flaxid[] (%v)", err)
}

// CopyFrom writes the binary format, which needs the registered types.
func copyFrom(ctx context.Context, conn *pgx.Conn) {
	_, err := conn.Exec(ctx, "CREATE TABLE go_src (n int PRIMARY KEY, "+columns+");"+
		"INSERT INTO go_src SELECT g, "+generated+" FROM generate_series(1, 1000) g;"+
		"INSERT INTO go_src VALUES (0, NULL, NULL, NULL, NULL, NULL);"+
		"CREATE TABLE go_copy (LIKE go_src)")
	must(err, "go_src")
	rows, err := conn.Query(ctx, "SELECT n, sno, siq, kuid96, did, flax FROM go_src")
	must(err, "read go_src")
	var data [][]interface{}
	for rows.Next() {
		var n int
		var r struct {
			Sno    *pgflake.Sno
			Siq    *pgflake.Siq
			Kuid96 *pgflake.Kuid96
			Did    *pgflake.DistributedId
			Flax   *pgflake.FlaxId
		}
		must(rows.Scan(&n, &r.Sno, &r.Siq, &r.Kuid96, &r.Did, &r.Flax), "scan go_src")
		data = append(data, []interface{}{n, r.Sno, r.Siq, r.Kuid96, r.Did, r.Flax})
	}
	must(rows.Err(), "read go_src")
	copied, err := conn.CopyFrom(ctx, pgx.Identifier{"go_copy"}, []string{"n", "sno", "siq", "kuid96", "did", "flax"}, pgx.CopyFromRows(data))
	check(err == nil && copied == 1001, "CopyFrom 1001 rows of all five types, NULLs included (%d, %v)", copied, err)
	// In CopyFrom (binary, through the codecs) a value of another type is
	// refused: pgx would otherwise write its text as the stored bytes (12
	// digits are 12 bytes, a kuid96).
	twelve, _ := pgflake.ParseDistributedId("123456789012")
	_, err = conn.CopyFrom(ctx, pgx.Identifier{"go_copy"}, []string{"kuid96"}, pgx.CopyFromRows([][]interface{}{{twelve}}))
	check(fails(err, "57014", "cannot encode pgflake.DistributedId as kuid96"), "CopyFrom refuses a DistributedId for a kuid96 column (%v)", err)
	var differ int
	err = conn.QueryRow(ctx, "SELECT count(*) FROM ((TABLE go_src EXCEPT TABLE go_copy) UNION ALL (TABLE go_copy EXCEPT TABLE go_src)) d").Scan(&differ)
	check(err == nil && differ == 0, "... and the tables are equal (%d rows differ, %v)", differ, err)
}

// database/sql through pgx's stdlib driver: values travel as text
// (driver.Valuer and sql.Scanner), whether registered or not.
func databaseSQL(ctx context.Context, conn *pgx.Conn, dsn string) {
	config, err := pgx.ParseConfig(dsn)
	must(err, "parse config")
	db := stdlib.OpenDB(*config, stdlib.OptionAfterConnect(pgxflake.AfterConnect))
	defer db.Close()
	bigints(ctx, conn, db)
	ex := examples()
	_, err = db.ExecContext(ctx, "INSERT INTO go_ids VALUES (4, $1, $2, $3, $4, $5)", ex.args()...)
	check(err == nil, "database/sql: insert every type (%v)", err)
	var back ids
	err = db.QueryRowContext(ctx, "SELECT sno, siq, kuid96, did, flax FROM go_ids WHERE n = 4").Scan(back.dest()...)
	check(err == nil && back == ex, "database/sql: scan every type (%v)", err)
	var null sql.NullString
	err = db.QueryRowContext(ctx, "SELECT sno FROM go_ids WHERE n = 3").Scan(&null)
	check(err == nil && !null.Valid, "database/sql: NULL into sql.NullString (%v)", err)
	var sno pgflake.Sno
	err = db.QueryRowContext(ctx, "SELECT sno FROM go_ids WHERE n = 3").Scan(&sno)
	check(err != nil, "database/sql: NULL into a *Sno is an error (%v)", err)
	snoPtr := &sno
	err = db.QueryRowContext(ctx, "SELECT sno FROM go_ids WHERE n = 3").Scan(&snoPtr)
	check(err == nil && snoPtr == nil, "database/sql: NULL into a **Sno is nil (%v)", err)
	err = db.QueryRowContext(ctx, "SELECT sno FROM go_ids WHERE n = 4").Scan(&snoPtr)
	check(err == nil && snoPtr != nil && *snoPtr == ex.Sno, "database/sql: a sno into a **Sno (%v)", err)
}

func pool(ctx context.Context, dsn string) {
	config, err := pgxpool.ParseConfig(dsn)
	must(err, "pool config")
	config.MaxConns = 2
	config.AfterConnect = pgxflake.AfterConnect
	p, err := pgxpool.ConnectConfig(ctx, config)
	must(err, "pool")
	defer p.Close()
	ex := examples()
	var back []pgflake.Siq
	err = p.QueryRow(ctx, "SELECT $1::siq[]", []pgflake.Siq{ex.Siq}).Scan(&back)
	check(err == nil && len(back) == 1 && back[0] == ex.Siq, "pgxpool with AfterConnect: siq[] both ways (%v)", err)
}

// DROP EXTENSION / CREATE EXTENSION gives the types new OIDs.
func oidChange(ctx context.Context, conn *pgx.Conn, old map[string]uint32) {
	ex := examples()
	var sno pgflake.Sno
	const cached = "SELECT $1::sno"
	must(conn.QueryRow(ctx, cached, ex.Sno).Scan(&sno), "cached statement")
	recreate(ctx, conn)
	var newOID uint32
	must(conn.QueryRow(ctx, "SELECT 'sno'::regtype::oid").Scan(&newOID), "new oid")
	check(newOID != old["sno"], "the sno type has a new OID (%d, was %d)", newOID, old["sno"])

	err := conn.QueryRow(ctx, cached, ex.Sno).Scan(&sno)
	check(fails(err, "XX000", "cache lookup failed for type"), "stale: a statement in pgx's cache fails (%v)", err)
	sno = pgflake.Sno{}
	err = conn.QueryRow(ctx, "SELECT $1::sno AS fresh", ex.Sno).Scan(&sno)
	check(err == nil && sno == ex.Sno, "stale: a new statement works, in text (%v)", err)
	var arr []pgflake.Sno
	err = conn.QueryRow(ctx, "SELECT $1::sno[] AS fresh", []pgflake.Sno{ex.Sno}).Scan(&arr)
	check(err != nil, "stale: arrays fail (%v)", err)
	_, err = conn.Exec(ctx, "CREATE TABLE go_after (n int, "+columns+")")
	must(err, "go_after")
	_, err = conn.CopyFrom(ctx, pgx.Identifier{"go_after"}, []string{"sno", "flax"}, pgx.CopyFromRows([][]interface{}{{ex.Sno, ex.Flax}}))
	check(fails(err, "57014", "Cannot encode pgflake.Sno into oid"), "stale: CopyFrom fails in the client (%v)", err)

	oids, err := pgxflake.Register(ctx, conn)
	check(err == nil && oids["sno"] == newOID, "Register again: the new OIDs (%v)", err)
	err = conn.QueryRow(ctx, cached, ex.Sno).Scan(&sno)
	check(err == nil && sno == ex.Sno, "... the cached statement works again (its cache was cleared) (%v)", err)
	arr = nil
	err = conn.QueryRow(ctx, "SELECT $1::sno[] AS fresh", []pgflake.Sno{ex.Sno}).Scan(&arr)
	check(err == nil && len(arr) == 1 && arr[0] == ex.Sno, "... arrays work (%v)", err)
	_, err = conn.CopyFrom(ctx, pgx.Identifier{"go_after"}, []string{"sno", "flax"}, pgx.CopyFromRows([][]interface{}{{ex.Sno, ex.Flax}}))
	check(err == nil, "... CopyFrom works (%v)", err)
	pool(ctx, os.Getenv("PG_FLAKE_TEST_DSN"))
}
