package pgxflake

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v4"

	pgflake "pg-flake.invalid/pgflake"
)

// Querier is what Leases runs its statements on: a *pgxpool.Pool (safe
// to share: each call takes a connection of the pool), or a *pgx.Conn that
// nothing else uses while the generator lives (a pgx.Conn is not safe for
// concurrent use, and the renewals run in a goroutine of their own).
type Querier interface {
	QueryRow(ctx context.Context, sql string, args ...interface{}) pgx.Row
}

// Leases are the SQL functions pg_flake_lease, pg_flake_renew and
// pg_flake_release over pgx: a pgflake.LeaseSource.
//
// Each call is a statement of its own, committed at once: give it a pool,
// or a connection outside any transaction of the application's (a grant
// rolled back after its answer arrived is no lease). Set statement_timeout
// on the connections if a grant must not wait long for a missing
// synchronous standby; a renewal is also bounded by its generator's window.
type Leases struct {
	q  Querier
	mu *sync.Mutex // for a *pgx.Conn: one statement at a time
}

// NewLeases is a pgflake.LeaseSource over q. Given a *pgx.Conn, it runs one
// statement at a time, so that the generators sharing it (each renewing
// from a goroutine of its own) never use the connection at once; the
// application must still not use that connection while they live.
func NewLeases(q Querier) *Leases {
	s := &Leases{q: q}
	if _, ok := q.(*pgx.Conn); ok {
		s.mu = &sync.Mutex{}
	}
	return s
}

func (s *Leases) lock() func() {
	if s.mu == nil {
		return func() {}
	}
	s.mu.Lock()
	return s.mu.Unlock
}

const leaseColumns = "lease_id, format, node, process, not_before, expires, server_time, epoch_ms, kuid_interval"

func (s *Leases) row(ctx context.Context, sql string, args ...interface{}) (pgflake.Lease, error) {
	defer s.lock()()
	var l pgflake.Lease
	err := s.q.QueryRow(ctx, sql, args...).Scan(&l.LeaseID, &l.Format, &l.Node, &l.Process,
		&l.NotBefore, &l.Expires, &l.ServerTime, &l.EpochMs, &l.KuidInterval)
	return l, err
}

func ttlMicros(ttl time.Duration) int64 { return int64(ttl / time.Microsecond) }

// Lease is pg_flake_lease(format, holder, ttl).
func (s *Leases) Lease(ctx context.Context, format, holder string, ttl time.Duration) (pgflake.Lease, error) {
	return s.row(ctx, "SELECT "+leaseColumns+" FROM pg_flake_lease($1, $2, $3::bigint * interval '1 microsecond')",
		format, holder, ttlMicros(ttl))
}

// Renew is pg_flake_renew(lease_id, ttl).
func (s *Leases) Renew(ctx context.Context, leaseID int64, ttl time.Duration) (pgflake.Lease, error) {
	return s.row(ctx, "SELECT "+leaseColumns+" FROM pg_flake_renew($1, $2::bigint * interval '1 microsecond')",
		leaseID, ttlMicros(ttl))
}

// Release is pg_flake_release(lease_id, last_used): true if the lease was
// held.
func (s *Leases) Release(ctx context.Context, leaseID int64, lastUsed *time.Time) (bool, error) {
	defer s.lock()()
	var held bool
	err := s.q.QueryRow(ctx, "SELECT pg_flake_release($1, $2::timestamptz)", leaseID, lastUsed).Scan(&held)
	if err != nil {
		return false, fmt.Errorf("pgflake: releasing lease %d: %w", leaseID, err)
	}
	return held, nil
}
