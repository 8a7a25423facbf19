// Package leasewriter is an application process that makes its own IDs
// under a lease (pgflake's Generator) and inserts them: the Go holder of
// the nemesis (tests/servers/nemesis/holders.py) and of the package's
// process tests, with the command-line contract of
// tests/servers/lease_writer.py:
//
//	pgflake-lease-writer --dsn 'host=… port=… dbname=…' --format sno --holder go-1 \
//	    --ttl-ms 3000 --table ids_sno --seconds 20 [--threads N] [--ids FILE]
//
// For --seconds it generates an ID and inserts it with INSERT INTO <table>
// (id, lease_id) VALUES ($1::text::<type>, $2) (snowflake: bigint; siq: kind
// user). stdout: one JSON line per lease taken, {"lease_id": …, "node": …,
// "process": …, "pid": …}, written at once (a kill -9 leaves every line). On
// an expired lease it writes "expired <lease_id>" to stderr and takes a new
// lease (never reuses the old one). Exit 0 after releasing its lease at the
// end; 3 on a unique violation (a collision); 1 on anything else. --threads
// N: N goroutines share the one generator, each inserting over a
// connection of its own. --ids FILE: every ID made, with its lease, appended
// to FILE as "<id> <lease_id>", written before the insert, one write per
// line. --fork is refused: Go programs do not fork.
package leasewriter

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/jackc/pgconn"
	"github.com/jackc/pgx/v4/pgxpool"

	pgflake "pg-flake.invalid/pgflake"
	"pg-flake.invalid/pgflake/pgxflake"
)

var sqlType = map[string]string{"sno": "sno", "siq": "siq", "kuid96": "kuid96", "snowflake": "bigint"}

type options struct {
	dsn, format, holder, table, ids string
	ttl                             time.Duration
	seconds                         float64
	threads, fork                   int
}

// generator is a pgflake.Generator of any format, its IDs as text.
type generator interface {
	next() (string, error)
	lease() pgflake.Lease
	release(context.Context) (bool, error)
}

type typed[T fmt.Stringer] struct{ g *pgflake.Generator[T] }

func (t typed[T]) next() (string, error) {
	id, err := t.g.Generate()
	return id.String(), err
}
func (t typed[T]) lease() pgflake.Lease                      { return t.g.Lease() }
func (t typed[T]) release(ctx context.Context) (bool, error) { return t.g.Release(ctx) }

func take(ctx context.Context, source pgflake.LeaseSource, o *options) (generator, error) {
	switch o.format {
	case "sno":
		g, err := pgflake.TakeSno(ctx, source, o.holder, o.ttl, 0)
		return typed[pgflake.Sno]{g}, err
	case "snowflake":
		g, err := pgflake.TakeSnowflake(ctx, source, o.holder, o.ttl)
		return typed[pgflake.Snowflake]{g}, err
	case "kuid96":
		g, err := pgflake.TakeKuid96(ctx, source, o.holder, o.ttl)
		return typed[pgflake.Kuid96]{g}, err
	}
	g, err := pgflake.TakeSiq(ctx, source, o.holder, o.ttl, "", "user")
	return typed[pgflake.Siq]{g}, err
}

// Run is the writer's main: its exit status.
func Run(args []string, stdout, stderr io.Writer) int {
	o, err := parse(args, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "pgflake-lease-writer:", err)
		return 2
	}
	w := &writer{o: o, stdout: stdout, stderr: stderr, deadline: time.Now().Add(time.Duration(o.seconds * float64(time.Second)))}
	return w.run()
}

func parse(args []string, stderr io.Writer) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("pgflake-lease-writer", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var ttlMs int
	fs.StringVar(&o.dsn, "dsn", "", "libpq key=value connection string")
	fs.StringVar(&o.format, "format", "", "sno, siq, snowflake or kuid96")
	fs.StringVar(&o.holder, "holder", "", "the lease's holder name")
	fs.IntVar(&ttlMs, "ttl-ms", 0, "the lease's TTL in milliseconds")
	fs.StringVar(&o.table, "table", "", "the table to insert into")
	fs.Float64Var(&o.seconds, "seconds", 0, "how long to run")
	fs.IntVar(&o.threads, "threads", 1, "goroutines sharing the generator")
	fs.IntVar(&o.fork, "fork", 0, "refused: Go programs do not fork")
	fs.StringVar(&o.ids, "ids", "", "append every ID made, with its lease, to this file")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	o.ttl = time.Duration(ttlMs) * time.Millisecond
	switch {
	case o.dsn == "" || o.holder == "" || o.table == "" || ttlMs <= 0 || o.seconds <= 0:
		return nil, errors.New("--dsn, --format, --holder, --ttl-ms, --table and --seconds are required")
	case sqlType[o.format] == "":
		return nil, fmt.Errorf("--format %q: one of sno, siq, snowflake, kuid96", o.format)
	case o.fork != 0:
		return nil, errors.New("--fork: a Go program cannot fork (its runtime's threads do not survive it); run more processes")
	case o.threads < 1:
		return nil, errors.New("--threads must be at least 1")
	}
	return o, nil
}

type writer struct {
	o        *options
	stdout   io.Writer
	stderr   io.Writer
	deadline time.Time
	source   *pgxflake.Leases
	ids      *os.File

	mu      sync.Mutex
	gen     generator // nil: no lease could be taken before the deadline
	printed int64
}

func (w *writer) say(format string, args ...interface{}) {
	fmt.Fprintf(w.stderr, format+"\n", args...) // one write: goroutines share stderr
}

func (w *writer) run() int {
	ctx := context.Background()
	leasePool, err := pool(w.o.dsn, 2)
	if err != nil {
		w.say("%v", err)
		return 1
	}
	defer leasePool.Close()
	insertPool, err := pool(w.o.dsn, int32(w.o.threads))
	if err != nil {
		w.say("%v", err)
		return 1
	}
	defer insertPool.Close()
	w.source = pgxflake.NewLeases(leasePool)
	if w.o.ids != "" {
		if w.ids, err = os.OpenFile(w.o.ids, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err != nil {
			w.say("%v", err)
			return 1
		}
		defer w.ids.Close()
	}
	w.gen = w.take(ctx)
	codes := make([]int, w.o.threads)
	var wg sync.WaitGroup
	for n := range codes {
		wg.Add(1)
		go func(n int) {
			defer wg.Done()
			codes[n] = w.write(ctx, insertPool)
		}(n)
	}
	wg.Wait()
	code := 0
	for _, c := range codes {
		if c > code {
			code = c
		}
	}
	if gen := w.current(); gen != nil {
		releaseCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		if _, err := gen.release(releaseCtx); err != nil {
			w.say("release of lease %d failed: %v", gen.lease().LeaseID, err)
		}
		cancel()
	}
	return code
}

// pool: connections made when first needed, so that a server that is away
// at the start (a restart, a failover) is retried like one lost later.
func pool(dsn string, size int32) (*pgxpool.Pool, error) {
	config, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	config.MaxConns = size
	config.LazyConnect = true
	return pgxpool.ConnectConfig(context.Background(), config)
}

func (w *writer) current() generator {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.gen
}

// take is a new lease; it waits while every unit is held (53400) or the
// server is away, until the deadline (then nil).
func (w *writer) take(ctx context.Context) generator {
	for time.Now().Before(w.deadline) {
		callCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		gen, err := take(callCtx, w.source, w.o)
		cancel()
		if err == nil {
			w.note(gen.lease())
			return gen
		}
		if state(err) == "53400" {
			time.Sleep(100 * time.Millisecond)
		} else {
			time.Sleep(200 * time.Millisecond)
		}
	}
	return nil
}

// note prints a lease's line once.
func (w *writer) note(l pgflake.Lease) {
	if l.LeaseID == w.printed {
		return
	}
	w.printed = l.LeaseID
	line, _ := json.Marshal(map[string]interface{}{"lease_id": l.LeaseID, "node": l.Node, "process": l.Process, "pid": os.Getpid()})
	w.stdout.Write(append(line, '\n'))
}

// afterExpiry is the generator to use once gen expired: the next lease,
// taken once for all goroutines.
func (w *writer) afterExpiry(ctx context.Context, gen generator) generator {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.gen == gen {
		w.say("expired %d", gen.lease().LeaseID)
		w.gen = w.take(ctx)
	}
	return w.gen
}

// write is one goroutine's loop: generate, insert; its exit status.
func (w *writer) write(ctx context.Context, p *pgxpool.Pool) int {
	insert := fmt.Sprintf("INSERT INTO %s (id, lease_id) VALUES ($1::text::%s, $2)", w.o.table, sqlType[w.o.format])
	gen := w.current()
	inserted := 0
	for gen != nil && time.Now().Before(w.deadline) {
		text, err := gen.next()
		if errors.Is(err, pgflake.ErrLeaseExpired) {
			gen = w.afterExpiry(ctx, gen)
			continue
		}
		if err != nil {
			w.say("generate: %v", err)
			return 1
		}
		leaseID := gen.lease().LeaseID
		if w.ids != nil {
			w.ids.Write([]byte(fmt.Sprintf("%s %d\n", text, leaseID)))
		}
		callCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, err = p.Exec(callCtx, insert, text, leaseID)
		cancel()
		switch {
		case err == nil:
			inserted++
		case state(err) == "23505":
			w.say("duplicate %s of lease %d: %v", text, leaseID, err)
			return 3
		default:
			// The server went away (restart, failover) or refused: that ID
			// may or may not be stored; the next one is new either way.
			time.Sleep(50 * time.Millisecond)
		}
	}
	w.say("inserted %d", inserted)
	return 0
}

func state(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	return pgflake.SQLState(err)
}
