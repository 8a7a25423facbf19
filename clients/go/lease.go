package pgflake

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Leased generators: IDs made in the application under a unit and a time
// window the database grants (docs/applications.md, "Generating IDs in
// your application"; the contract of core/src/leased and
// python/pg_flake/lease.py, ported).
//
// pg_flake_lease(format, holder, ttl) hands the application a unit (a
// node, and for sno, siq and Snowflake a process value, from the range
// pg_flake.lease_nodes reserves) and a window [not_before, expires).
// Successive holders of a unit get disjoint windows, so IDs whose time unit
// lies wholly inside the holder's window collide with no one's. A Generator
// (lease_generator.go) keeps that promise on the application's side:
//
//   - its time is the database's: server_time of the last lease or renewal
//     advanced by the monotonic clock, never the machine's wall clock;
//   - it uses a time unit only when the whole unit ends by expires minus a
//     safety margin (1 s or a tenth of the TTL, the smaller), waits for
//     not_before, and for the next unit when a unit's sequence is used up;
//   - a goroutine renews halfway from now to that limit; when renewing
//     fails it retries, IDs keep coming while units fit, and then Generate
//     answers ErrLeaseExpired, never an ID outside the window;
//   - when a renewal moves the clock back (the server's clock stepped back)
//     it goes on in logical time above the last unit used, at most
//     MaxClockLead ahead of the clock, and beyond that refuses (55000);
//   - goroutines share one Generator: the next (unit, sequence) is taken
//     under a mutex, without I/O; the renewal's round trip runs beside them.

// FormatsLeased are the formats with leases (kuid64 has no node field;
// Flax ID and DistributedId are random).
var FormatsLeased = []string{"sno", "siq", "snowflake", "kuid96"}

// MaxClockLead is how far a leased generator's logical time may run ahead
// of the database's clock after that clock went back (the core's
// sequencer::DEFAULT_MAX_LEAD, one minute).
const MaxClockLead = time.Minute

// Lease is a row of pg_flake_lease / pg_flake_renew.
type Lease struct {
	LeaseID      int64
	Format       string
	Node         int64
	Process      int32
	NotBefore    time.Time
	Expires      time.Time
	ServerTime   time.Time // the database's clock_timestamp() just before it answered
	EpochMs      *int64    // snowflake: the epoch
	KuidInterval *int32    // kuid96: the neighborhood interval
}

// LeaseSource is where leases come from: pgxflake.Leases over pgx,
// or a stand-in in tests. Its methods are called from the generator's
// renewal goroutine and from Release: they must be safe for that (one call
// at a time per generator).
type LeaseSource interface {
	Lease(ctx context.Context, format, holder string, ttl time.Duration) (Lease, error)
	Renew(ctx context.Context, leaseID int64, ttl time.Duration) (Lease, error)
	Release(ctx context.Context, leaseID int64, lastUsed *time.Time) (bool, error)
}

// ErrLeaseExpired matches (errors.Is) a *LeaseExpiredError.
var ErrLeaseExpired = errors.New("pgflake: lease expired")

// ErrLeaseReleased: the generator's lease was released (Release, Close).
var ErrLeaseReleased = errors.New("pgflake: the lease was released; take a new one")

// LeaseExpiredError: the lease's window has ended and it could not be
// renewed. Take a new lease (a new Generator) and stop using this one.
type LeaseExpiredError struct {
	LeaseID int64
	Format  string
	Expires time.Time
	Cause   error // the last renewal's error, if a renewal failed
}

func (e *LeaseExpiredError) Error() string {
	msg := fmt.Sprintf("pgflake: lease %d of %s expired at %s and could not be renewed; take a new lease and stop using this one",
		e.LeaseID, e.Format, e.Expires.UTC().Format(time.RFC3339Nano))
	if e.Cause != nil {
		msg += " (last renewal: " + e.Cause.Error() + ")"
	}
	return msg
}

func (e *LeaseExpiredError) Is(target error) bool { return target == ErrLeaseExpired }
func (e *LeaseExpiredError) Unwrap() error        { return e.Cause }

// leaseMisfit is a lease row a generator cannot use (22023).
func leaseMisfit(format string, args ...interface{}) error {
	return invalidParameter(fmt.Sprintf(format, args...))
}

func checkLeasedFormat(format string) error {
	for _, f := range FormatsLeased {
		if f == format {
			return nil
		}
	}
	return invalidParameter(fmt.Sprintf("no leases for format %q; accepted formats: sno, siq, snowflake, kuid96 (kuid64 has no node field: use kuid96)", format))
}
