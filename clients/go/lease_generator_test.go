package pgflake

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// Generator on the real monotonic clock with a stand-in source: the
// renewal goroutine, goroutines sharing a generator (run with -race),
// expiry and release.

func TestGeneratorSharedByGoroutines(t *testing.T) {
	source := realFake("sno")
	source.renewDelay = 10 * time.Millisecond // renewals take a round trip
	// Renewals due every ~0.2 s: eight busy goroutines on two cores (with
	// -race) must not keep the renewal goroutine from running that long.
	g, err := TakeSno(context.Background(), source, "goroutines", 500*time.Millisecond, 0)
	if err != nil {
		t.Fatal(err)
	}
	const workers, each = 8, 20_000
	results := make([][]Sno, workers)
	var wg sync.WaitGroup
	began := time.Now()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			out := make([]Sno, 0, each)
			for i := 0; i < each; i++ {
				id, err := g.Generate()
				if err != nil {
					t.Error(err)
					return
				}
				out = append(out, id)
			}
			results[w] = out
		}(w)
	}
	wg.Wait()
	elapsed := time.Since(began)
	lease := g.Lease()
	seen := make(map[Sno]bool, workers*each)
	for _, out := range results {
		for _, id := range out {
			if seen[id] {
				t.Fatalf("%v twice", id)
			}
			seen[id] = true
			if id.Partition() != 255<<8|7 || id.Time().Before(lease.NotBefore) || !id.Time().Before(lease.Expires) {
				t.Fatalf("%v outside its lease %+v", id, lease)
			}
		}
	}
	if len(seen) != workers*each {
		t.Fatalf("%d IDs", len(seen))
	}
	if source.overlaps != 0 {
		t.Errorf("%d renewals overlapped", source.overlaps)
	}
	if elapsed > time.Second && source.renewalCount() < 2 {
		t.Errorf("%d renewals in %v", source.renewalCount(), elapsed)
	}
	t.Logf("%d IDs in %v, %d renewals", len(seen), elapsed, source.renewalCount())
	if held, err := g.Release(context.Background()); !held || err != nil {
		t.Error(held, err)
	}
}

func TestGeneratorRenewsInTheBackground(t *testing.T) {
	source := realFake("kuid96")
	g, err := TakeKuid96(context.Background(), source, "idle", 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	first := g.Lease().Expires
	time.Sleep(800 * time.Millisecond) // no Generate: the goroutine renews
	if n := source.renewalCount(); n < 2 || !g.Lease().Expires.After(first.Add(400*time.Millisecond)) {
		t.Fatalf("%d renewals, expires %v (was %v)", n, g.Lease().Expires, first)
	}
	if _, err := g.Generate(); err != nil {
		t.Errorf("after 0.8 s on a 0.3 s TTL: %v", err)
	}
}

func TestGeneratorExpiresWhenRenewalsFail(t *testing.T) {
	for _, name := range leasedNames {
		source := realFake(name)
		source.renewErr = errTransient
		var g interface {
			Lease() Lease
			Release(context.Context) (bool, error)
		}
		var next func() (time.Time, error)
		ctx := context.Background()
		ttl := 300 * time.Millisecond
		switch name {
		case "sno":
			s, err := TakeSno(ctx, source, name, ttl, 0)
			g, next = s, func() (time.Time, error) { id, err := s.Generate(); return id.Time(), err }
			check(t, err)
		case "snowflake":
			s, err := TakeSnowflake(ctx, source, name, ttl)
			g, next = s, func() (time.Time, error) { id, err := s.Generate(); return id.Time(), err }
			check(t, err)
		case "kuid96":
			s, err := TakeKuid96(ctx, source, name, ttl)
			g, next = s, func() (time.Time, error) { id, err := s.Generate(); return id.Time(), err }
			check(t, err)
		case "siq":
			s, err := TakeSiq(ctx, source, name, ttl, "", "")
			g, next = s, func() (time.Time, error) { id, err := s.Generate(); return id.Time(), err }
			check(t, err)
		}
		limit := g.Lease().Expires.Add(-30 * time.Millisecond) // the safety margin: a tenth of the TTL
		count := 0
		var err error
		for {
			var tm time.Time
			if tm, err = next(); err != nil {
				break
			}
			if !tm.Before(limit) {
				t.Fatalf("%s: an ID at %v, past the limit %v", name, tm, limit)
			}
			count++
		}
		if !errors.Is(err, ErrLeaseExpired) || !errors.Is(err, errTransient) || count < 1000 {
			t.Errorf("%s: %v after %d IDs", name, err, count)
		}
		if n := source.renewalCount(); n < 2 {
			t.Errorf("%s: %d renewal attempts", name, n)
		}
		g.Release(ctx)
	}
}

func check(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestGeneratorReleaseReportsTheLastUse(t *testing.T) {
	source := realFake("sno")
	g, err := TakeSno(context.Background(), source, "release", time.Second, 3)
	check(t, err)
	if _, ok := g.LastUsed(); ok {
		t.Error("a last use before any ID")
	}
	id, err := g.Generate()
	check(t, err)
	if id.Meta() != 3 || id.Partition() != 255<<8|7 || id.TickTock() {
		t.Errorf("%v: meta %d partition %d", id, id.Meta(), id.Partition())
	}
	held, err := g.Release(context.Background())
	if !held || err != nil || len(source.released) != 1 || !source.released[0].Equal(id.Time()) {
		t.Fatalf("%v %v %v", held, err, source.released)
	}
	if _, err := g.Generate(); !errors.Is(err, ErrLeaseReleased) {
		t.Errorf("after release: %v", err)
	}
	if held, err := g.Release(context.Background()); held || err != nil || len(source.released) != 1 {
		t.Errorf("released twice: %v %v", held, err)
	}
	n := source.renewalCount()
	time.Sleep(600 * time.Millisecond)
	if source.renewalCount() != n {
		t.Error("renewals after the release")
	}
}

func TestGeneratorSiqKinds(t *testing.T) {
	source := realFake("siq")
	source.node, source.process = 254, 3
	g, err := TakeSiq(context.Background(), source, "kinds", time.Second, "example.com", "")
	check(t, err)
	defer g.Close()
	a, _ := g.Generate()
	b, _ := g.GenerateKind("message")
	c, _ := g.GenerateKind("USER")
	ka, _ := a.Kind()
	kb, _ := b.Kind()
	if ka != "user" || a.Serial() != 0 || kb != "message" || b.Serial() != 0 || (c.Ticks() == a.Ticks() && c.Serial() != 1) {
		t.Errorf("%s %d, %s %d, %d", ka, a.Serial(), kb, b.Serial(), c.Serial())
	}
	hash, _ := SiqDomainHash("example.com")
	if a.Shard() != 3 || a.DomainHash()>>24 != 254 || a.DomainHash()&0xFFFFFF != hash&0xFFFFFF {
		t.Errorf("shard %d hash %x", a.Shard(), a.DomainHash())
	}
	if _, err := g.GenerateKind("nope"); SQLState(err) != "22023" {
		t.Errorf("unknown kind: %v", err)
	}
	s, err := TakeSno(context.Background(), realFake("sno"), "kinds", time.Second, 0)
	check(t, err)
	defer s.Close()
	if _, err := s.GenerateKind("user"); SQLState(err) != "22023" {
		t.Errorf("a kind for sno: %v", err)
	}
}

func TestTakeRefusesAndHandsBackMisfits(t *testing.T) {
	ctx := context.Background()
	if _, err := take(ctx, realFake("sno"), "kuid64", "x", time.Second, func(Lease) (leasedFormat[Sno], error) { return nil, nil }); SQLState(err) != "22023" {
		t.Errorf("kuid64: %v", err)
	}
	wrong := realFake("sno") // asked for snowflake, the row says sno
	if _, err := TakeSnowflake(ctx, wrong, "x", time.Second); SQLState(err) != "22023" || len(wrong.released) != 1 || wrong.released[0] != nil {
		t.Errorf("another format's row: %v, released %v", err, wrong.released)
	}
	noEpoch := realFake("snowflake")
	noEpoch.epochMs = nil
	if _, err := TakeSnowflake(ctx, noEpoch, "x", time.Second); SQLState(err) != "22023" || len(noEpoch.released) != 1 {
		t.Errorf("no epoch: %v", err)
	}
	if _, err := TakeSno(ctx, realFake("sno"), "x", time.Second, 256); SQLState(err) != "22003" {
		t.Errorf("meta 256: %v", err)
	}
}
