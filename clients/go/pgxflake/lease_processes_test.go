package pgxflake_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v4/pgxpool"

	pgflake "pg-flake.invalid/pgflake"
	"pg-flake.invalid/pgflake/pgxflake"
)

// Leases across roles and processes: a renewal no other role can take
// over, a lease a superuser ends, and lease writer processes (this test
// binary again, internal/leasewriter) killed with SIGKILL and paused with
// SIGSTOP past their lease while the database generates its own IDs into
// the same table (tests/servers/test_lease_load.py, in short).

func splitArgs(encoded string) []string {
	var args []string
	if err := json.Unmarshal([]byte(encoded), &args); err != nil {
		panic(err)
	}
	return args
}

// asRole is a pool connected as role (made here, LOGIN, granted the lease
// functions), on the DSN's server and database.
func asRole(t *testing.T, p *pgxpool.Pool, dsn, role string) *pgxpool.Pool {
	t.Helper()
	ctx := context.Background()
	_, err := p.Exec(ctx, fmt.Sprintf(`DO $$ BEGIN
		IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '%[1]s') THEN CREATE ROLE %[1]s LOGIN; END IF;
		END $$;
		GRANT EXECUTE ON FUNCTION pg_flake_lease(text, text, interval), pg_flake_renew(bigint, interval),
			pg_flake_release(bigint, timestamptz) TO %[1]s`, role))
	if err != nil {
		t.Fatal(err)
	}
	// After the role's pool has closed (cleanups run last first): the
	// server is left as found.
	t.Cleanup(func() {
		_, err := p.Exec(context.Background(), fmt.Sprintf("DROP OWNED BY %[1]s; DROP ROLE %[1]s", role))
		if err != nil {
			t.Errorf("dropping role %s: %v", role, err)
		}
	})
	config, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	config.ConnConfig.User = role
	rp, err := pgxpool.ConnectConfig(ctx, config)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rp.Close)
	return rp
}

func TestServerRenewalIsNeverTakenOver(t *testing.T) {
	d := dsn(t)
	t.Parallel()
	p := connectPool(t, d)
	owner := asRole(t, p, d, "pgflake_go_owner")
	other := asRole(t, p, d, "pgflake_go_other")
	ctx := context.Background()
	g, err := pgflake.TakeSnowflake(ctx, pgxflake.NewLeases(owner), "go owner", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	l := g.Lease()
	intruder := pgxflake.NewLeases(other)
	if _, err := intruder.Renew(ctx, l.LeaseID, time.Hour); sqlState(err) != "42501" {
		t.Errorf("another role renews: %v", err)
	}
	if _, err := intruder.Release(ctx, l.LeaseID, nil); sqlState(err) != "42501" {
		t.Errorf("another role releases: %v", err)
	}
	time.Sleep(1500 * time.Millisecond) // the owner's renewals go on (due every ~0.45 s)
	if now := g.Lease(); !now.Expires.After(l.Expires.Add(time.Second)) || g.RenewError() != nil {
		t.Errorf("owner's lease: expires %v (was %v), %v", now.Expires, l.Expires, g.RenewError())
	}
	if _, err := g.Generate(); err != nil {
		t.Error(err)
	}
}

func TestServerLeaseEndedByASuperuser(t *testing.T) {
	p := connectPool(t, dsn(t))
	t.Parallel()
	ctx := context.Background()
	g, err := pgflake.TakeSno(ctx, pgxflake.NewLeases(p), "go forced end", time.Second, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	l := g.Lease()
	var ended bool
	if err := p.QueryRow(ctx, "SELECT pg_flake_release($1, '-infinity'::timestamptz)", l.LeaseID).Scan(&ended); err != nil || !ended {
		t.Fatalf("the superuser's end: %v %v", ended, err)
	}
	// The renewals are refused (55000, final); the window the holder was
	// given stays its own until it ends, then Generate refuses.
	count := 0
	for {
		id, err := g.Generate()
		if err != nil {
			if !errors.Is(err, pgflake.ErrLeaseExpired) || sqlState(errors.Unwrap(err)) != "55000" {
				t.Fatalf("%v", err)
			}
			break
		}
		if !id.Time().Before(l.Expires) {
			t.Fatalf("%v at %v, past expires %v", id, id.Time(), l.Expires)
		}
		count++
		time.Sleep(200 * time.Microsecond)
	}
	if count < 100 {
		t.Errorf("%d IDs before the end", count)
	}
}

type writerProc struct {
	name string
	cmd  *exec.Cmd
	out  string
	err  string
}

func startWriter(t *testing.T, dir, dsn, format, name, table string, seconds float64) *writerProc {
	t.Helper()
	args, _ := json.Marshal([]string{"--dsn", dsn, "--format", format, "--holder", name, "--ttl-ms", "1000",
		"--table", table, "--seconds", fmt.Sprint(seconds), "--threads", "2", "--ids", filepath.Join(dir, name+".ids")})
	w := &writerProc{name: name, out: filepath.Join(dir, name+".out"), err: filepath.Join(dir, name+".err")}
	stdout, _ := os.Create(w.out)
	stderr, _ := os.Create(w.err)
	w.cmd = exec.Command(os.Args[0])
	w.cmd.Env = append(os.Environ(), "PGFLAKE_TEST_LEASE_WRITER="+string(args))
	w.cmd.Stdout, w.cmd.Stderr = stdout, stderr
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *writerProc) leases(t *testing.T) []int64 {
	f, err := os.Open(w.out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ids []int64
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		var line struct {
			LeaseID int64 `json:"lease_id"`
		}
		if json.Unmarshal(scanner.Bytes(), &line) == nil {
			ids = append(ids, line.LeaseID)
		}
	}
	return ids
}

func (w *writerProc) stderr() string {
	b, _ := os.ReadFile(w.err)
	return string(b)
}

func TestServerWriterProcessesKilledAndPaused(t *testing.T) {
	d := dsn(t)
	t.Parallel() // mostly waiting: beside the other tests
	p := connectPool(t, d)
	ctx := context.Background()
	types := map[string]string{"sno": "sno", "siq": "siq", "snowflake": "bigint", "kuid96": "kuid96"}
	defaults := map[string]string{"sno": "sno_generate()", "siq": "siq_generate('user')", "snowflake": "snowflake_generate()", "kuid96": "kuid96_generate()"}
	for _, format := range formats {
		table := "go_lease_" + format
		if _, err := p.Exec(ctx, fmt.Sprintf("DROP TABLE IF EXISTS %[1]s; CREATE TABLE %[1]s (id %[2]s PRIMARY KEY DEFAULT %[3]s, lease_id bigint)",
			table, types[format], defaults[format])); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, format := range formats {
			p.Exec(context.Background(), "DROP TABLE IF EXISTS go_lease_"+format)
		}
	})
	dir := t.TempDir()
	const seconds = 6.0
	writers := map[string]*writerProc{}
	for _, format := range formats {
		writers[format] = startWriter(t, dir, d, format, "go-"+format, "go_lease_"+format, seconds)
	}
	// The database's own IDs into the same tables meanwhile.
	stop := make(chan struct{})
	dbDone := make(chan error, 1)
	go func() {
		for {
			select {
			case <-stop:
				dbDone <- nil
				return
			default:
			}
			for _, format := range formats {
				if _, err := p.Exec(ctx, "INSERT INTO go_lease_"+format+" (lease_id) SELECT NULL FROM generate_series(1, 20)"); err != nil {
					dbDone <- err
					return
				}
			}
		}
	}()
	time.Sleep(1500 * time.Millisecond)
	// kill -9 the sno writer; another takes its place.
	killed := writers["sno"]
	killed.cmd.Process.Kill()
	killed.cmd.Wait()
	writers["sno-2"] = startWriter(t, dir, d, "sno", "go-sno-2", "go_lease_sno", seconds-1.5)
	// Pause the snowflake writer past its lease's end (TTL 1 s).
	paused := writers["snowflake"]
	paused.cmd.Process.Signal(syscall.SIGSTOP)
	time.Sleep(2500 * time.Millisecond)
	paused.cmd.Process.Signal(syscall.SIGCONT)
	for name, w := range writers {
		if w == killed {
			continue
		}
		if err := w.cmd.Wait(); err != nil {
			t.Errorf("%s: %v\n%s", name, err, w.stderr())
		}
		if strings.Contains(w.stderr(), "duplicate") {
			t.Errorf("%s: %s", name, w.stderr())
		}
	}
	close(stop)
	if err := <-dbDone; err != nil {
		t.Fatalf("the database's inserts: %v", err)
	}
	// The paused writer found its lease expired and took a new one.
	if !strings.Contains(paused.stderr(), "expired") || len(paused.leases(t)) < 2 {
		t.Errorf("paused writer: leases %v, stderr %q", paused.leases(t), paused.stderr())
	}
	decode := map[string]string{
		"sno":       "sno_timestamp(id), sno_partition(id) >> 8, sno_partition(id) & 255",
		"siq":       "siq_timestamp(id), siq_domain_hash(id) >> 24, siq_shard(id)",
		"kuid96":    "kuid96_timestamp(id), kuid96_node(id), 0",
		"snowflake": "snowflake_timestamp(id), (snowflake_parts(id)).worker, (snowflake_parts(id)).process",
	}
	for _, format := range formats {
		var count, outside, unknown, database int64
		err := p.QueryRow(ctx, fmt.Sprintf(`SELECT count(*) FILTER (WHERE x.lease_id IS NOT NULL),
			count(*) FILTER (WHERE l.lease_id IS NOT NULL AND NOT (t >= l.not_before AND t < l.expires AND n = l.node AND pr = l.process)),
			count(*) FILTER (WHERE x.lease_id IS NOT NULL AND l.lease_id IS NULL),
			count(*) FILTER (WHERE x.lease_id IS NULL)
			FROM (SELECT lease_id, %s FROM go_lease_%s) x (lease_id, t, n, pr)
			LEFT JOIN pg_flake_leases l USING (lease_id)`, decode[format], format)).Scan(&count, &outside, &unknown, &database)
		t.Logf("%s: %d IDs of writers, %d of the database", format, count, database)
		if err != nil || count < 100 || outside != 0 || unknown != 0 || database < 100 {
			t.Errorf("%s: %d writer IDs (%d outside their lease, %d of unknown leases), %d database IDs, %v", format, count, outside, unknown, database, err)
		}
	}
}
