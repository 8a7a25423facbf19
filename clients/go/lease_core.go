package pgflake

import (
	"fmt"
	"strconv"
	"strings"
)

// leaseCore is the database-free part of a leased generator (the core's
// leased::LeasedGenerator): the window, the database's clock and the
// sequencer. Not safe for concurrent use: Generator holds its mutex around
// every call. Times are nanoseconds since 1970 on the database's clock,
// mono() a monotonic clock in nanoseconds.
type leaseCore[T any] struct {
	f     leasedFormat[T]
	lease Lease
	ttl   int64
	mono  func() int64

	// The database's clock: serverNanos at the monotonic reading at.
	serverNanos, at int64

	first      uint64 // the window's first unit, and its start
	firstStart int64
	mark       uint64 // the last unit that ends by limit
	limit      int64  // expires minus the safety margin
	renewAt    int64  // when to renew (database time)
	renewable  bool   // false: no more renewals (refused, or a row that did not fit)
	renewing   bool   // a renewal's round trip is under way
	renewErr   error  // the last renewal's error, nil after a success

	unit     uint64   // the unit in use (the window's first before any ID)
	next     []uint32 // per kind: the next sequence in unit
	used     bool     // whether an ID was issued
	lastUnit uint64   // the highest unit used
	expired  bool
}

func newLeaseCore[T any](f leasedFormat[T], l Lease, ttl int64, mono func() int64, arrived int64) (*leaseCore[T], error) {
	c := &leaseCore[T]{f: f, lease: l, ttl: ttl, mono: mono, renewable: true}
	c.sync(l.ServerTime.UnixMicro(), arrived)
	notBefore := l.NotBefore.UnixMicro()
	first, err := f.unitAt(notBefore * nanosPerMicro)
	if err != nil {
		return nil, err
	}
	for f.decodedMicros(first) < notBefore {
		if first, err = f.after(first); err != nil {
			return nil, err
		}
	}
	// The window's first unit is the one in use, none of its sequence
	// used: no ID comes before it (step waits for its start).
	c.first, c.firstStart, c.unit = first, f.startOf(first), first
	c.next = make([]uint32, f.kinds())
	return c, c.setWindow()
}

func (c *leaseCore[T]) sync(serverMicros, at int64) {
	c.serverNanos, c.at = serverMicros*nanosPerMicro, at
}

// now is the database's time.
func (c *leaseCore[T]) now() int64 { return c.serverNanos + (c.mono() - c.at) }

// setWindow: units must end by expires − safety (1 s or a tenth of the
// TTL, the smaller); a renewal is due halfway from now (or not_before) to
// that limit.
func (c *leaseCore[T]) setWindow() error {
	safety := c.ttl / 10
	if safety > 1_000_000_000 {
		safety = 1_000_000_000
	}
	c.limit = c.lease.Expires.UnixMicro()*nanosPerMicro - safety
	last, err := c.f.unitAt(c.limit - 1)
	if err != nil {
		return err
	}
	end := int64(1<<63 - 1)
	if next, err := c.f.after(last); err == nil {
		end = c.f.startOf(next)
	}
	c.mark = last
	if end > c.limit && last > 0 {
		c.mark = last - 1
	}
	from := c.now()
	if nb := c.lease.NotBefore.UnixMicro() * nanosPerMicro; nb > from {
		from = nb
	}
	half := (c.limit - from) / 2
	if half < 0 {
		half = 0
	}
	c.renewAt = from + half
	return nil
}

// renewalDue: when the next renewal is due (database time), false when no
// more renewals will be tried: refused, or the window is over (a pause past
// expires: pg_flake_renew could only refuse).
func (c *leaseCore[T]) renewalDue() (int64, bool) {
	if c.now() >= c.expiresNanos() {
		c.renewable = false
	}
	return c.renewAt, c.renewable
}

func (c *leaseCore[T]) expiresNanos() int64 { return c.lease.Expires.UnixMicro() * nanosPerMicro }

// renewed takes a successful renewal's row, read at the monotonic instant
// arrived: the window grows (never shrinks), the clock is read anew.
func (c *leaseCore[T]) renewed(row Lease, arrived int64) error {
	if row.LeaseID != c.lease.LeaseID || row.Node != c.lease.Node || row.Process != c.lease.Process || row.Format != c.lease.Format {
		err := leaseMisfit("renewal row of lease %d (%s node %d process %d) does not match lease %d", row.LeaseID, row.Format, row.Node, row.Process, c.lease.LeaseID)
		c.renewalFailed(err, false)
		return err
	}
	c.sync(row.ServerTime.UnixMicro(), arrived)
	if row.Expires.After(c.lease.Expires) {
		c.lease.Expires = row.Expires
	}
	c.lease.ServerTime = row.ServerTime
	c.renewErr = nil
	return c.setWindow()
}

// renewalFailed: generation goes on until the window ends. With retry, the
// next try comes halfway to the end (at least 10 ms later); without (the
// database said the lease is gone), never.
func (c *leaseCore[T]) renewalFailed(err error, retry bool) {
	c.renewErr = err
	if !retry {
		c.renewable = false
		return
	}
	now := c.now()
	wait := (c.limit - now) / 2
	if wait < 10_000_000 {
		wait = 10_000_000
	}
	c.renewAt = now + wait
}

// step is one attempt: an ID's (unit, sequence), or the database time to
// wait for (the window's start, or the next unit when this one's sequence
// is used up), or an error: expired (the clock left the usable part of the
// window, or its last unit is used up) or the clock too far behind.
func (c *leaseCore[T]) step(kind int) (unit uint64, seq uint32, waitUntil int64, err error) {
	if c.expired {
		return 0, 0, 0, c.expiredError()
	}
	nanos := c.now()
	if nanos < c.firstStart {
		return 0, 0, c.firstStart, nil // before the window: wait, never run ahead
	}
	now, err := c.f.unitAt(nanos)
	if err != nil {
		return 0, 0, 0, err
	}
	fresh := false
	switch {
	case now > c.unit:
		unit, fresh = now, true
	case c.next[kind] <= c.f.maxSequence(kind):
		unit = c.unit
	case now == c.unit:
		next, err := c.f.after(c.unit)
		if err != nil {
			return 0, 0, 0, err
		}
		return 0, 0, c.f.startOf(next), nil
	default: // the clock is behind the unit in use: go on in logical time
		if unit, err = c.f.after(c.unit); err != nil {
			return 0, 0, 0, err
		}
		fresh = true
	}
	if unit > now {
		if lead := c.f.startOf(unit) - nanos; lead > int64(MaxClockLead) {
			return 0, 0, 0, clockBehind(c.f.name(), lead)
		}
	}
	if unit > c.mark {
		// Beyond the usable window: the end, unless the clock is still
		// inside the last unit (its sequence used up).
		if now > c.mark || c.first > c.mark {
			// While a renewal is under way or will be tried again, and the
			// window lasts, wait for it: it may extend the window. Else the end.
			expires := c.expiresNanos()
			if nanos < expires && (c.renewing || c.renewable) {
				until := nanos + 1_000_000
				if !c.renewing && c.renewAt > until {
					until = c.renewAt
				}
				if until > expires {
					until = expires
				}
				return 0, 0, until, nil
			}
			c.expired = true
			return 0, 0, 0, c.expiredError()
		}
		next, err := c.f.after(c.mark)
		if err != nil {
			return 0, 0, 0, err
		}
		return 0, 0, c.f.startOf(next), nil
	}
	if fresh {
		c.unit = unit
		for k := range c.next {
			c.next[k] = 0
		}
	}
	seq = c.next[kind]
	c.next[kind]++
	c.used = true
	if unit > c.lastUnit {
		c.lastUnit = unit
	}
	return unit, seq, 0, nil
}

func (c *leaseCore[T]) expiredError() error {
	return &LeaseExpiredError{c.lease.LeaseID, c.lease.Format, c.lease.Expires, c.renewErr}
}

// lastUsedMicros is the start of the last unit used, as its IDs decode,
// for pg_flake_release(lease_id, last_used); false before any ID.
func (c *leaseCore[T]) lastUsedMicros() (int64, bool) {
	if !c.used {
		return 0, false
	}
	return c.f.decodedMicros(c.lastUnit), true
}

// clockBehind is the core's Error::ClockBehind (55000).
func clockBehind(typeName string, lead int64) error {
	return &Error{"55000",
		fmt.Sprintf("%s generation stopped: the clock is %s behind the last %s IDs issued", typeName, seconds(lead), typeName),
		fmt.Sprintf("IDs may run at most %s ahead of the clock.", seconds(int64(MaxClockLead)))}
}

// seconds writes nanoseconds as "7203.5 s" or "0.004 s" (core/src/error.rs).
func seconds(nanos int64) string {
	text := strconv.FormatFloat(float64(nanos)/1e9, 'f', 3, 64)
	text = strings.TrimRight(strings.TrimRight(text, "0"), ".")
	return text + " s"
}
