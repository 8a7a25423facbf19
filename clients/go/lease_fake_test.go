package pgflake

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// A scripted monotonic clock and a stand-in for the SQL functions, for the
// leased generators' tests without a database (lease_core_test.go,
// lease_generator_test.go): the tests of python/tests/test_lease.py and
// core/src/leased/tests.rs, ported.

const (
	msNs = int64(time.Millisecond)
	sNs  = int64(time.Second)
	// 2025-01-01T00:00:00Z: on every format's unit boundary.
	t0 = 1_735_689_600 * sNs
)

type scripted struct{ now int64 }

func (c *scripted) mono() int64 { return c.now }

func at(ns int64) time.Time { return time.Unix(0, ns).UTC().Truncate(time.Microsecond) }

var errTransient = errors.New("renewal failed (connection lost)")

// stateError is a server refusal with a SQLSTATE, as pgconn.PgError has.
type stateError string

func (e stateError) Error() string    { return "refused: " + string(e) }
func (e stateError) SQLState() string { return string(e) }

// fakeLeases: the server's time is offset + the scripted clock.
type fakeLeases struct {
	mu          sync.Mutex
	clock       *scripted
	format      string
	node        int64
	process     int32
	notBeforeIn int64
	offset      int64
	epochMs     *int64
	interval    *int32
	renewErr    error
	renewDelay  time.Duration
	renewals    []int64 // server times
	inFlight    int
	overlaps    int
	released    []*time.Time
	row         Lease
	domain      string // siq
}

func newFake(clock *scripted, format string) *fakeLeases {
	f := &fakeLeases{clock: clock, format: format, node: 255, process: 7, offset: t0 - 10*sNs}
	switch format {
	case "snowflake":
		epoch := int64(DiscordEpochMs)
		f.node, f.epochMs = 31, &epoch
	case "kuid96":
		interval := int32(8)
		f.node, f.process, f.interval = 4_294_967_040, 0, &interval
	}
	return f
}

func (f *fakeLeases) serverNs() int64 {
	if f.clock == nil { // the process's monotonic clock, as Generator's
		return monotonicNanos() + f.offset
	}
	return f.clock.mono() + f.offset
}

// realFake is a fake on the process's monotonic clock, its server at t0.
func realFake(format string) *fakeLeases {
	f := newFake(&scripted{}, format)
	f.clock, f.offset = nil, t0-monotonicNanos()
	return f
}

func (f *fakeLeases) makeRow(notBefore, expires int64) Lease {
	return Lease{1, f.format, f.node, f.process, at(notBefore), at(expires), at(f.serverNs()), f.epochMs, f.interval}
}

func (f *fakeLeases) Lease(_ context.Context, format, _ string, ttl time.Duration) (Lease, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	nb := f.serverNs() + f.notBeforeIn
	f.row = f.makeRow(nb, nb+int64(ttl))
	return f.row, nil
}

func (f *fakeLeases) Renew(_ context.Context, _ int64, ttl time.Duration) (Lease, error) {
	f.mu.Lock()
	f.inFlight++
	if f.inFlight > 1 {
		f.overlaps++
	}
	f.renewals = append(f.renewals, f.serverNs())
	delay, fail := f.renewDelay, f.renewErr
	f.mu.Unlock()
	time.Sleep(delay)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.inFlight--
	if fail != nil {
		return Lease{}, fail
	}
	expires := f.row.Expires.UnixNano()
	if e := f.serverNs() + int64(ttl); e > expires {
		expires = e
	}
	f.row = f.makeRow(f.row.NotBefore.UnixNano(), expires)
	return f.row, nil
}

func (f *fakeLeases) Release(_ context.Context, _ int64, lastUsed *time.Time) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.released = append(f.released, lastUsed)
	return true, nil
}

func (f *fakeLeases) renewalCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.renewals)
}

// makeFormat is each format's leasedFormat constructor, by name (sno meta
// 0, siq domain "" and kind user unless told).
func makeFormat(name string) func(Lease) (leasedFormat[any], error) {
	return makeFormatDomain(name, "")
}

func makeFormatDomain(name, domain string) func(Lease) (leasedFormat[any], error) {
	return func(l Lease) (leasedFormat[any], error) {
		switch name {
		case "sno":
			f, err := newSnoLease(l, 0)
			return anyFormat[Sno]{f}, err
		case "snowflake":
			f, err := newSnowflakeLease(l)
			return anyFormat[Snowflake]{f}, err
		case "kuid96":
			f, err := newKuid96Lease(l)
			return anyFormat[Kuid96]{f}, err
		}
		f, err := newSiqLease(l, domain, "user")
		return anyFormat[Siq]{f}, err
	}
}

// anyFormat erases a format's ID type, for tests over every format.
type anyFormat[T any] struct{ leasedFormat[T] }

func (a anyFormat[T]) assemble(unit uint64, seq uint32, kind int) any {
	return a.leasedFormat.assemble(unit, seq, kind)
}

// scriptedCore takes a lease from source on the scripted clock.
func scriptedCore(t *testing.T, source *fakeLeases, ttl time.Duration) *leaseCore[any] {
	t.Helper()
	l, err := source.Lease(context.Background(), source.format, "test", ttl)
	if err != nil {
		t.Fatal(err)
	}
	f, err := leasedFormatFor(l, source.format, makeFormatDomain(source.format, source.domain))
	if err != nil {
		t.Fatal(err)
	}
	c, err := newLeaseCore(f, l, int64(ttl), source.clock.mono, source.clock.mono())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// driven is a core driven the way Generator drives it, synchronously on
// the scripted clock: a renewal exactly when due (its round trip takes no
// time), waits by moving the clock.
type driven struct {
	t      *testing.T
	c      *leaseCore[any]
	source *fakeLeases
	sleeps []int64
}

func (d *driven) renewIfDue() {
	due, ok := d.c.renewalDue()
	if !ok || d.c.now() < due {
		return
	}
	row, err := d.source.Renew(context.Background(), d.c.lease.LeaseID, time.Duration(d.c.ttl))
	if err != nil {
		state := sqlStateOf(err)
		d.c.renewalFailed(err, state != "55000" && state != "22023")
		return
	}
	if err := d.c.renewed(row, d.source.clock.mono()); err != nil {
		d.t.Fatal(err)
	}
}

func (d *driven) generate(kind int) (any, uint64, error) {
	for {
		d.renewIfDue()
		unit, seq, until, err := d.c.step(kind)
		if err != nil {
			return nil, 0, err
		}
		if until == 0 {
			return d.c.f.assemble(unit, seq, kind), unit, nil
		}
		wait := until - d.c.now()
		if wait < 1000 {
			wait = 1000
		}
		if wait > int64(maxSleep) {
			wait = int64(maxSleep)
		}
		d.sleeps = append(d.sleeps, wait)
		d.source.clock.now += wait
	}
}
