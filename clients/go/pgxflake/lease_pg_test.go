package pgxflake_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgconn"
	"github.com/jackc/pgx/v4"
	"github.com/jackc/pgx/v4/pgxpool"

	pgflake "pg-flake.invalid/pgflake"
	"pg-flake.invalid/pgflake/internal/leasewriter"
	"pg-flake.invalid/pgflake/pgxflake"
)

// The leased generators against a server with pg_flake (PG_FLAKE_TEST_DSN,
// which clients/go/run.sh and scripts/test-clients.sh set): IDs that decode
// in SQL to their lease, goroutines sharing a generator, a released unit's
// successor, renewals no other role can take over, a lease ended by a
// superuser; and writer processes killed (SIGKILL) and paused past their
// lease (SIGSTOP) in lease_processes_test.go. Public API only.

func TestMain(m *testing.M) {
	// The process tests run this binary again as a lease writer.
	if args := os.Getenv("PGFLAKE_TEST_LEASE_WRITER"); args != "" {
		os.Exit(leasewriter.Run(splitArgs(args), os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func dsn(t *testing.T) string {
	t.Helper()
	dsn := os.Getenv("PG_FLAKE_TEST_DSN")
	if dsn == "" {
		t.Skip("PG_FLAKE_TEST_DSN is not set (clients/go/run.sh sets it)")
	}
	return dsn
}

func connectPool(t *testing.T, dsn string) *pgxpool.Pool {
	t.Helper()
	p, err := pgxpool.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	if _, err := p.Exec(context.Background(), "SET client_min_messages = warning; CREATE EXTENSION IF NOT EXISTS pg_flake"); err != nil {
		t.Fatal(err)
	}
	return p
}

// decoded is an ID's node, process and time as SQL decodes it.
type decoded struct {
	node, process int64
	time          time.Time
}

// decodeSQL decodes texts of format in SQL, with the lease's epoch or interval.
func decodeSQL(t *testing.T, p *pgxpool.Pool, format string, l pgflake.Lease, texts []string) []decoded {
	t.Helper()
	queries := map[string]string{
		"sno":       "SELECT sno_partition(x::sno) >> 8, sno_partition(x::sno) & 255, sno_timestamp(x::sno) FROM unnest($1::text[]) WITH ORDINALITY u(x, n) ORDER BY n",
		"siq":       "SELECT siq_domain_hash(x::siq) >> 24, siq_shard(x::siq), siq_timestamp(x::siq) FROM unnest($1::text[]) WITH ORDINALITY u(x, n) ORDER BY n",
		"kuid96":    "SELECT (p).node, 0, (p).time FROM (SELECT kuid96_parts(x::kuid96, $2) p, n FROM unnest($1::text[]) WITH ORDINALITY u(x, n)) s ORDER BY n",
		"snowflake": "SELECT (p).worker, (p).process, (p).time FROM (SELECT snowflake_parts(x::bigint, $2) p, n FROM unnest($1::text[]) WITH ORDINALITY u(x, n)) s ORDER BY n",
	}
	args := []interface{}{texts}
	switch format {
	case "kuid96":
		args = append(args, *l.KuidInterval)
	case "snowflake":
		args = append(args, *l.EpochMs)
	}
	rows, err := p.Query(context.Background(), queries[format], args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []decoded
	for rows.Next() {
		var d decoded
		var process int64
		if err := rows.Scan(&d.node, &process, &d.time); err != nil {
			t.Fatal(err)
		}
		d.process = process
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// leased is a Generator of any format, its IDs as text.
type leased interface {
	next() (string, error)
	lease() pgflake.Lease
	lastUsed() (time.Time, bool)
	release() (bool, error)
}

type gen[T fmt.Stringer] struct{ g *pgflake.Generator[T] }

func (g gen[T]) next() (string, error)       { id, err := g.g.Generate(); return id.String(), err }
func (g gen[T]) lease() pgflake.Lease        { return g.g.Lease() }
func (g gen[T]) lastUsed() (time.Time, bool) { return g.g.LastUsed() }
func (g gen[T]) release() (bool, error)      { return g.g.Release(context.Background()) }

func takeAny(t *testing.T, source pgflake.LeaseSource, format, holder string, ttl time.Duration) leased {
	t.Helper()
	ctx := context.Background()
	var g leased
	var err error
	switch format {
	case "sno":
		var s *pgflake.Generator[pgflake.Sno]
		s, err = pgflake.TakeSno(ctx, source, holder, ttl, 0)
		g = gen[pgflake.Sno]{s}
	case "snowflake":
		var s *pgflake.Generator[pgflake.Snowflake]
		s, err = pgflake.TakeSnowflake(ctx, source, holder, ttl)
		g = gen[pgflake.Snowflake]{s}
	case "kuid96":
		var s *pgflake.Generator[pgflake.Kuid96]
		s, err = pgflake.TakeKuid96(ctx, source, holder, ttl)
		g = gen[pgflake.Kuid96]{s}
	case "siq":
		var s *pgflake.Generator[pgflake.Siq]
		s, err = pgflake.TakeSiq(ctx, source, holder, ttl, "", "")
		g = gen[pgflake.Siq]{s}
	}
	if err != nil {
		t.Fatalf("%s: %v", format, err)
	}
	return g
}

var formats = []string{"sno", "snowflake", "kuid96", "siq"}

func TestServerLeasedIDsDecodeToTheirLease(t *testing.T) {
	p := connectPool(t, dsn(t))
	for _, format := range formats {
		format := format
		t.Run(format, func(t *testing.T) {
			t.Parallel() // each renews after 0.4 s: the four wait together
			leasedIDsDecodeToTheirLease(t, p, format)
		})
	}
}

func leasedIDsDecodeToTheirLease(t *testing.T, p *pgxpool.Pool, format string) {
	{
		g := takeAny(t, pgxflake.NewLeases(p), format, "go test "+format, time.Second)
		first := g.lease()
		var texts []string
		for end := time.Now().Add(1300 * time.Millisecond); time.Now().Before(end); {
			text, err := g.next()
			if err != nil {
				t.Fatalf("%s: %v", format, err)
			}
			texts = append(texts, text)
			time.Sleep(500 * time.Microsecond)
		}
		l := g.lease()
		if l.LeaseID != first.LeaseID || !l.Expires.After(first.Expires) {
			t.Errorf("%s: not renewed: %v → %v", format, first.Expires, l.Expires)
		}
		unique := map[string]bool{}
		for _, text := range texts {
			unique[text] = true
		}
		if len(unique) != len(texts) || len(texts) < 500 {
			t.Errorf("%s: %d distinct of %d", format, len(unique), len(texts))
		}
		rows := decodeSQL(t, p, format, l, texts)
		for i, d := range rows {
			if d.node != l.Node || d.process != int64(l.Process) || d.time.Before(l.NotBefore) || !d.time.Before(l.Expires) {
				t.Fatalf("%s: %s decodes to %+v, outside lease %+v", format, texts[i], d, l)
			}
			if i > 0 && d.time.Before(rows[i-1].time) {
				t.Fatalf("%s: times out of order", format)
			}
		}
		if format != "snowflake" { // as the types order them: the order made
			var sorted []string
			err := p.QueryRow(context.Background(), fmt.Sprintf("SELECT array_agg(x::%[1]s ORDER BY x::%[1]s)::text[] FROM unnest($1::text[]) x", format), texts).Scan(&sorted)
			if err != nil || fmt.Sprint(sorted) != fmt.Sprint(texts) {
				t.Errorf("%s: the server sorts them otherwise (%v)", format, err)
			}
		}
		if held, err := g.release(); !held || err != nil {
			t.Fatalf("%s: release %v %v", format, held, err)
		}
		var state string
		var lastUsed time.Time
		err := p.QueryRow(context.Background(), "SELECT state, last_used FROM pg_flake_leases WHERE lease_id = $1", l.LeaseID).Scan(&state, &lastUsed)
		used, _ := g.lastUsed()
		if err != nil || state != "released" || !lastUsed.Equal(used) {
			t.Errorf("%s: %s, last used %v (generator: %v), %v", format, state, lastUsed, used, err)
		}
	}
}

func TestServerGoroutinesShareAGenerator(t *testing.T) {
	p := connectPool(t, dsn(t))
	const workers, each = 8, 20_000
	for _, format := range formats {
		g := takeAny(t, pgxflake.NewLeases(p), format, "go goroutines "+format, 10*time.Second)
		results := make([][]string, workers)
		var wg sync.WaitGroup
		began := time.Now()
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				for i := 0; i < each; i++ {
					text, err := g.next()
					if err != nil {
						t.Error(err)
						return
					}
					results[w] = append(results[w], text)
				}
			}(w)
		}
		wg.Wait()
		elapsed := time.Since(began)
		l := g.lease()
		if _, err := g.release(); err != nil {
			t.Fatal(err)
		}
		var all []string
		for _, r := range results {
			all = append(all, r...)
		}
		sort.Strings(all)
		dups := 0
		for i := 1; i < len(all); i++ {
			if all[i] == all[i-1] {
				dups++
			}
		}
		t.Logf("%s: %d IDs from %d goroutines in %v, %d duplicates", format, len(all), workers, elapsed, dups)
		if len(all) != workers*each || dups != 0 {
			t.Fatalf("%s: %d IDs, %d duplicates", format, len(all), dups)
		}
		var sample []string // in SQL: every 64th (the duplicates are counted above)
		for i := 0; i < len(all); i += 64 {
			sample = append(sample, all[i])
		}
		for _, d := range decodeSQL(t, p, format, l, sample) {
			if d.node != l.Node || d.process != int64(l.Process) || d.time.Before(l.NotBefore) || !d.time.Before(l.Expires) {
				t.Fatalf("%s: an ID decodes to %+v, outside lease %+v", format, d, l)
			}
		}
	}
}

func TestServerReleasedUnitsSuccessorStartsAfterTheLastUse(t *testing.T) {
	ctx := context.Background()
	config, err := pgxpool.ParseConfig(dsn(t))
	if err != nil {
		t.Fatal(err)
	}
	// Every Snowflake unit (32) may be taken before the released one comes
	// back: more than the half one role may hold by default.
	config.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		_, err := conn.Exec(ctx, "SET pg_flake.lease_max_per_role = 1000")
		return err
	}
	p, err := pgxpool.ConnectConfig(ctx, config)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	source := pgxflake.NewLeases(p)
	g, err := pgflake.TakeSnowflake(ctx, source, "go successor", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	last, err := g.Generate()
	if err != nil {
		t.Fatal(err)
	}
	g.Close()
	used, _ := g.LastUsed()
	// The others are released unused: their role holds their units until
	// their leases end, a second later, which the test waits for (the
	// tests after it take Snowflake leases too).
	var latest time.Time
	defer func() { time.Sleep(time.Until(latest)) }()
	for i := 0; i < 40; i++ {
		next, err := pgflake.TakeSnowflake(ctx, source, "go successor", time.Second)
		if err != nil {
			t.Fatal(err)
		}
		l := next.Lease()
		if l.Expires.After(latest) {
			latest = l.Expires
		}
		if l.Node == g.Lease().Node && l.Process == g.Lease().Process {
			id, err := next.Generate()
			next.Close()
			if l.NotBefore.Before(used) || err != nil || id <= last {
				t.Fatalf("successor: not_before %v, last use %v; %v after %v (%v)", l.NotBefore, used, id, last, err)
			}
			return
		}
		defer next.Close()
	}
	t.Fatal("the released unit did not come back")
}

func sqlState(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	return ""
}
