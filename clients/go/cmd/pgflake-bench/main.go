// pgflake-bench measures one leased generator's IDs per second (make bench,
// scripts/benchlib/measure_holders.py; the reference is the Rust holder,
// core/examples/lease_bench.rs, with the same command line):
//
//	pgflake-bench --dsn DSN --format sno|snowflake|kuid96|siq --seconds S [--threads N]
//
// It takes a lease (TTL 30 s), then N goroutines (default 1) call Generate
// in a loop for S seconds, sharing the generator; it releases the lease and
// prints one JSON line: {"language": "go", "format": …, "threads": N,
// "ids": …, "seconds": …, "ids_per_second": …}.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v4/pgxpool"

	pgflake "pg-flake.invalid/pgflake"
	"pg-flake.invalid/pgflake/pgxflake"
)

type generator interface {
	next() error
	release() error
}

type typed[T any] struct{ g *pgflake.Generator[T] }

func (t typed[T]) next() error    { _, err := t.g.Generate(); return err }
func (t typed[T]) release() error { return t.g.Close() }

func take(ctx context.Context, source pgflake.LeaseSource, format string) (generator, error) {
	ttl := 30 * time.Second
	switch format {
	case "sno":
		g, err := pgflake.TakeSno(ctx, source, "bench", ttl, 0)
		return typed[pgflake.Sno]{g}, err
	case "snowflake":
		g, err := pgflake.TakeSnowflake(ctx, source, "bench", ttl)
		return typed[pgflake.Snowflake]{g}, err
	case "kuid96":
		g, err := pgflake.TakeKuid96(ctx, source, "bench", ttl)
		return typed[pgflake.Kuid96]{g}, err
	case "siq":
		g, err := pgflake.TakeSiq(ctx, source, "bench", ttl, "", "user")
		return typed[pgflake.Siq]{g}, err
	}
	return nil, fmt.Errorf("--format %q: one of sno, snowflake, kuid96, siq", format)
}

func main() {
	dsn := flag.String("dsn", "", "libpq key=value connection string")
	format := flag.String("format", "sno", "sno, snowflake, kuid96 or siq")
	seconds := flag.Float64("seconds", 2, "how long to generate")
	threads := flag.Int("threads", 1, "goroutines sharing the generator")
	flag.Parse()
	if err := run(*dsn, *format, *seconds, *threads); err != nil {
		fmt.Fprintln(os.Stderr, "pgflake-bench:", err)
		os.Exit(1)
	}
}

func run(dsn, format string, seconds float64, threads int) error {
	ctx := context.Background()
	pool, err := pgxpool.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer pool.Close()
	gen, err := take(ctx, pgxflake.NewLeases(pool), format)
	if err != nil {
		return err
	}
	var total int64
	var failed error
	var once sync.Once
	deadline := time.Now().Add(time.Duration(seconds * float64(time.Second)))
	var wg sync.WaitGroup
	began := time.Now()
	for i := 0; i < threads; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := int64(0)
			// The clock is read once per 1024 IDs: the loop measures Generate.
			for time.Now().Before(deadline) {
				for j := 0; j < 1024; j++ {
					if err := gen.next(); err != nil {
						once.Do(func() { failed = err })
						atomic.AddInt64(&total, n)
						return
					}
					n++
				}
			}
			atomic.AddInt64(&total, n)
		}()
	}
	wg.Wait()
	elapsed := time.Since(began).Seconds()
	if err := gen.release(); err != nil {
		return err
	}
	if failed != nil {
		return failed
	}
	line, _ := json.Marshal(map[string]interface{}{"language": "go", "format": format, "threads": threads,
		"ids": total, "seconds": elapsed, "ids_per_second": float64(total) / elapsed})
	fmt.Println(string(line))
	return nil
}
