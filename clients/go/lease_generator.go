package pgflake

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Generator makes IDs of one format under a lease (see lease.go). Safe for
// concurrent use by any number of goroutines: Generate takes the next
// (unit, sequence) under a mutex, with no I/O (the renewals run in a
// goroutine of their own), and builds the ID outside it.
//
// Take one with TakeSno, TakeSnowflake, TakeKuid96 or TakeSiq; end it with
// Release (or Close), which reports the last unit used so that the unit's
// next holder need not wait for the whole window.
type Generator[T any] struct {
	source LeaseSource
	holder string
	ttl    time.Duration

	mu       sync.Mutex
	core     *leaseCore[T]
	released bool

	stop    context.CancelFunc // ends the renewal goroutine
	stopped chan struct{}      // closed when it has ended
}

// The monotonic clock of the process: nanoseconds since the package was
// loaded, from time.Since (Go's monotonic reading, which setting the wall
// clock does not move).
var processStart = time.Now()

func monotonicNanos() int64 { return int64(time.Since(processStart)) }

// maxSleep bounds one wait of Generate, so that a far not_before does not
// keep it from seeing a renewal (the core's MAX_SLEEP_NANOS).
const maxSleep = 100 * time.Millisecond

// DefaultLeaseTTL is the TTL the Take functions use for 0.
const DefaultLeaseTTL = 30 * time.Second

func take[T any](ctx context.Context, source LeaseSource, format, holder string, ttl time.Duration,
	makeFormat func(Lease) (leasedFormat[T], error)) (*Generator[T], error) {
	if err := checkLeasedFormat(format); err != nil {
		return nil, err
	}
	if ttl == 0 {
		ttl = DefaultLeaseTTL
	}
	if ttl < time.Microsecond {
		return nil, invalidParameter("a lease's TTL must be positive")
	}
	lease, err := source.Lease(ctx, format, holder, ttl)
	if err != nil {
		return nil, err
	}
	arrived := monotonicNanos() // the clock starts when the answer has arrived
	f, err := leasedFormatFor(lease, format, makeFormat)
	var core *leaseCore[T]
	if err == nil {
		core, err = newLeaseCore(f, lease, int64(ttl), monotonicNanos, arrived)
	}
	if err != nil {
		// A row this generator cannot use: hand the unit back at once, unused.
		_, _ = source.Release(ctx, lease.LeaseID, nil)
		return nil, err
	}
	return start(source, holder, ttl, core), nil
}

func start[T any](source LeaseSource, holder string, ttl time.Duration, core *leaseCore[T]) *Generator[T] {
	g := &Generator[T]{source: source, holder: holder, ttl: ttl, core: core,
		stopped: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	g.stop = cancel
	go g.renewals(ctx)
	return g
}

// TakeSno takes a lease of sno for holder: partition = node << 8 |
// process, the metabyte meta (0–255). ttl 0: DefaultLeaseTTL.
func TakeSno(ctx context.Context, source LeaseSource, holder string, ttl time.Duration, meta int) (*Generator[Sno], error) {
	return take(ctx, source, "sno", holder, ttl, func(l Lease) (leasedFormat[Sno], error) { return newSnoLease(l, meta) })
}

// TakeSnowflake takes a lease of Snowflake: worker = node, the lease's
// process and epoch.
func TakeSnowflake(ctx context.Context, source LeaseSource, holder string, ttl time.Duration) (*Generator[Snowflake], error) {
	return take(ctx, source, "snowflake", holder, ttl, func(l Lease) (leasedFormat[Snowflake], error) { return newSnowflakeLease(l) })
}

// TakeKuid96 takes a lease of kuid96: the lease's 32-bit node and interval.
func TakeKuid96(ctx context.Context, source LeaseSource, holder string, ttl time.Duration) (*Generator[Kuid96], error) {
	return take(ctx, source, "kuid96", holder, ttl, func(l Lease) (leasedFormat[Kuid96], error) { return newKuid96Lease(l) })
}

// TakeSiq takes a lease of SIQ: shard = process, the node in the top byte
// of domain's hash ("" for none); kind is what Generate makes ("" for
// user), GenerateKind any other.
func TakeSiq(ctx context.Context, source LeaseSource, holder string, ttl time.Duration, domain, kind string) (*Generator[Siq], error) {
	return take(ctx, source, "siq", holder, ttl, func(l Lease) (leasedFormat[Siq], error) { return newSiqLease(l, domain, kind) })
}

// Generate makes the next ID. It waits for not_before and for the next
// unit when a unit's sequence is used up; answers a *LeaseExpiredError
// (errors.Is ErrLeaseExpired) once no unit fits in the window and renewing
// failed, ErrLeaseReleased after Release, and 55000 when the database's
// clock went back further than MaxClockLead.
func (g *Generator[T]) Generate() (T, error) { return g.GenerateKind("") }

// GenerateKind is Generate with a SIQ kind ("" for the generator's own;
// 22023 for an unknown one, and for any kind of another format).
func (g *Generator[T]) GenerateKind(kind string) (T, error) {
	var zero T
	k, err := g.core.f.kindIndex(kind)
	if err == nil && kind != "" && g.core.f.kinds() == 1 {
		err = invalidParameter("a kind applies to siq only, not " + g.core.f.name())
	}
	if err != nil {
		return zero, err
	}
	for {
		g.mu.Lock()
		if g.released {
			g.mu.Unlock()
			return zero, ErrLeaseReleased
		}
		unit, seq, until, err := g.core.step(k)
		var wait int64
		if err == nil && until != 0 {
			wait = until - g.core.now()
		}
		g.mu.Unlock()
		switch {
		case err != nil:
			return zero, err
		case until == 0:
			return g.core.f.assemble(unit, seq, k), nil // the pair is this call's alone
		}
		pause(wait)
	}
}

// pause waits ns nanoseconds, at most maxSleep. Go 1.19 wakes a sleep of
// less than a millisecond after about 1.08 ms on Linux (epoll's timeout);
// spinning instead measured slower on a loaded machine (make bench: a
// process that sleeps gets the CPU back sooner than one that spins), and it
// would burn a core.
func pause(ns int64) {
	if ns > int64(maxSleep) {
		ns = int64(maxSleep)
	}
	if ns < 1000 {
		ns = 1000
	}
	time.Sleep(time.Duration(ns))
}

// renewals runs until Release: it sleeps until the next renewal is due,
// renews (pg_flake_renew) and records the outcome. A refusal (the lease
// expired, was released or taken over, 55000; unknown, 22023) stops the
// renewals; any other failure is retried later. Either way Generate goes on
// until the window ends.
func (g *Generator[T]) renewals(ctx context.Context) {
	defer close(g.stopped)
	for {
		g.mu.Lock()
		due, ok := g.core.renewalDue()
		wait := due - g.core.now()
		leaseID, limit := g.core.lease.LeaseID, g.core.limit
		g.mu.Unlock()
		if !ok {
			<-ctx.Done()
			return
		}
		if wait > 0 {
			timer := time.NewTimer(time.Duration(wait))
			select {
			case <-ctx.Done():
				timer.Stop()
				return
			case <-timer.C:
			}
		}
		// A renewal may wait for locks or a synchronous standby: it is given
		// until the window's end, and at least a second.
		timeout := time.Duration(limit - due)
		if timeout < time.Second {
			timeout = time.Second
		}
		g.mu.Lock()
		if _, ok := g.core.renewalDue(); !ok {
			g.mu.Unlock()
			continue // the window ended while this goroutine slept
		}
		g.core.renewing = true
		g.mu.Unlock()
		callCtx, cancel := context.WithTimeout(ctx, timeout)
		row, err := g.source.Renew(callCtx, leaseID, g.ttl)
		arrived := monotonicNanos()
		cancel()
		g.mu.Lock()
		g.core.renewing = false
		g.mu.Unlock()
		if ctx.Err() != nil {
			return // released meanwhile: the outcome no longer matters
		}
		g.mu.Lock()
		if err != nil {
			state := sqlStateOf(err)
			g.core.renewalFailed(err, state != "55000" && state != "22023")
		} else {
			_ = g.core.renewed(row, arrived) // a row that does not fit stops the renewals
		}
		g.mu.Unlock()
	}
}

// Lease is the lease as last granted or renewed.
func (g *Generator[T]) Lease() Lease {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.core.lease
}

// RenewError is the last renewal's error, nil after a successful one.
func (g *Generator[T]) RenewError() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.core.renewErr
}

// LastUsed is the start of the last unit used (as its IDs decode), false
// before the first ID.
func (g *Generator[T]) LastUsed() (time.Time, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	us, ok := g.core.lastUsedMicros()
	return timeOfMicros(us), ok
}

// Release ends the lease (pg_flake_release) with the last unit used: no ID
// after it, the renewal goroutine ends. True if the lease was held, false
// if it had already ended (or was released before).
func (g *Generator[T]) Release(ctx context.Context) (bool, error) {
	g.mu.Lock()
	if g.released {
		g.mu.Unlock()
		return false, nil
	}
	g.released = true
	g.mu.Unlock()
	g.stop()
	<-g.stopped
	g.mu.Lock()
	leaseID := g.core.lease.LeaseID
	var lastUsed *time.Time
	if us, ok := g.core.lastUsedMicros(); ok {
		t := timeOfMicros(us)
		lastUsed = &t
	}
	g.mu.Unlock()
	return g.source.Release(ctx, leaseID, lastUsed)
}

// Close is Release without a deadline (io.Closer).
func (g *Generator[T]) Close() error {
	_, err := g.Release(context.Background())
	return err
}

// sqlStateOf is the SQLSTATE of a server error (pgconn.PgError) or of a
// *Error in err's chain.
func sqlStateOf(err error) string {
	var coded interface{ SQLState() string }
	if errors.As(err, &coded) {
		return coded.SQLState()
	}
	return SQLState(err)
}
