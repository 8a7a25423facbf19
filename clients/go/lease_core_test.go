package pgflake

import (
	"context"
	"errors"
	"testing"
	"time"
)

var leasedNames = []string{"sno", "snowflake", "kuid96", "siq"}

func TestLeaseWaitsForNotBeforeAndUsesOnlyWholeUnits(t *testing.T) {
	for _, name := range leasedNames {
		clock := &scripted{now: 10 * sNs}
		source := newFake(clock, name)
		source.notBeforeIn = 2_500_001_700 // inside a unit of every format
		d := &driven{t: t, c: scriptedCore(t, source, 30*time.Second), source: source}
		notBefore := d.c.lease.NotBefore.UnixNano()
		id, unit, err := d.generate(0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(d.sleeps) == 0 || d.c.now() < notBefore {
			t.Errorf("%s: did not wait for not_before", name)
		}
		f := d.c.f
		if f.decodedMicros(unit)*1000 < notBefore {
			t.Errorf("%s: unit %d starts before not_before", name, unit)
		}
		if unit != d.c.first || id != f.assemble(d.c.first, 0, 0) {
			t.Errorf("%s: first ID %v in unit %d, want the window's first unit %d", name, id, unit, d.c.first)
		}
	}
}

func TestLeaseStopsAtTheEndOfTheWindowWhenRenewalFails(t *testing.T) {
	for _, name := range leasedNames {
		clock := &scripted{now: 10 * sNs}
		source := newFake(clock, name)
		d := &driven{t: t, c: scriptedCore(t, source, 2*time.Second), source: source}
		expires := d.c.lease.Expires.UnixNano()
		source.renewErr = errTransient // retried, never succeeds
		count := 0
		var last uint64
		var err error
		for {
			var unit uint64
			if _, unit, err = d.generate(0); err != nil {
				break
			}
			next, _ := d.c.f.after(unit)
			if end := d.c.f.startOf(next); end > expires-200*msNs {
				t.Fatalf("%s: unit %d ends at %d, past the limit", name, unit, end)
			}
			last = unit
			count++
			clock.now += 97_000 // 97 µs between IDs
		}
		var expired *LeaseExpiredError
		if !errors.As(err, &expired) || !errors.Is(err, ErrLeaseExpired) || !errors.Is(err, errTransient) || expired.LeaseID != 1 {
			t.Fatalf("%s: %v", name, err)
		}
		// The window is used up to its limit (expires − 0.2 s): the last unit
		// ends within one step (or one unit, the longer) of it.
		next, _ := d.c.f.after(last)
		end, limit := d.c.f.startOf(next), expires-200*msNs
		if gap := limit - end; gap >= 97_000 && gap >= end-d.c.f.startOf(last) {
			t.Errorf("%s: the last unit ends %d ns before the limit", name, gap)
		}
		if count < 10_000 {
			t.Errorf("%s: only %d IDs", name, count)
		}
		n := source.renewalCount()
		if n < 3 || n > 200 {
			t.Errorf("%s: %d renewal attempts", name, n)
		}
		for _, r := range source.renewals {
			if r >= expires {
				t.Errorf("%s: a renewal after the window", name)
			}
		}
		if _, _, err := d.generate(0); !errors.Is(err, ErrLeaseExpired) {
			t.Errorf("%s: not expired for good: %v", name, err)
		}
		if us, ok := d.c.lastUsedMicros(); !ok || us != d.c.f.decodedMicros(last) {
			t.Errorf("%s: last used %d", name, us)
		}
	}
}

func TestLeaseExpiredIsFinalAfterAPause(t *testing.T) {
	clock := &scripted{now: 10 * sNs}
	source := newFake(clock, "sno")
	d := &driven{t: t, c: scriptedCore(t, source, 5*time.Second), source: source}
	if _, _, err := d.generate(0); err != nil {
		t.Fatal(err)
	}
	clock.now += 6 * sNs // paused (SIGSTOP) past expires
	_, _, err := d.generate(0)
	if !errors.Is(err, ErrLeaseExpired) {
		t.Fatalf("%v", err)
	}
	if n := source.renewalCount(); n != 0 {
		t.Errorf("%d renewals after the window's end: pg_flake_renew could only refuse", n)
	}
	if _, _, err := d.generate(0); !errors.Is(err, ErrLeaseExpired) || source.renewalCount() != 0 {
		t.Errorf("%v, %d renewals", err, source.renewalCount())
	}
}

func TestLeaseRefusedRenewalIsFinal(t *testing.T) {
	clock := &scripted{now: 10 * sNs}
	source := newFake(clock, "sno")
	d := &driven{t: t, c: scriptedCore(t, source, 5*time.Second), source: source}
	due, _ := d.c.renewalDue()
	clock.now = due - source.offset
	source.renewErr = stateError("55000") // released or ended meanwhile
	var err error
	for err == nil {
		_, _, err = d.generate(0)
		clock.now += msNs
	}
	if !errors.Is(err, ErrLeaseExpired) || !errors.Is(err, source.renewErr) || source.renewalCount() != 1 {
		t.Errorf("%v after %d renewals: 55000 is final", err, source.renewalCount())
	}
}

func TestLeaseWaitsForARenewalUnderWayAtTheLimit(t *testing.T) {
	clock := &scripted{now: 10 * sNs}
	source := newFake(clock, "snowflake")
	c := scriptedCore(t, source, 10*time.Second)
	clock.now = c.limit - source.offset + msNs // past the usable window, before expires
	c.renewing = true
	if _, _, until, err := c.step(0); err != nil || until == 0 {
		t.Fatalf("with a renewal under way: %v, wait until %d", err, until)
	}
	row, _ := source.Renew(context.Background(), 1, 10*time.Second)
	c.renewing = false
	if err := c.renewed(row, clock.now); err != nil {
		t.Fatal(err)
	}
	if _, _, until, err := c.step(0); err != nil || until != 0 {
		t.Errorf("after the renewal: %v, wait until %d", err, until)
	}
}

func TestLeaseFinalRenewalErrorStillUsesTheRestOfTheWindow(t *testing.T) {
	clock := &scripted{now: 10 * sNs}
	source := newFake(clock, "snowflake")
	d := &driven{t: t, c: scriptedCore(t, source, 10*time.Second), source: source}
	expires := d.c.lease.Expires.UnixNano()
	clock.now += 5 * sNs // the renewal is due (halfway to expires − 1 s)
	source.renewErr = stateError("55000")
	if _, _, err := d.generate(0); err != nil {
		t.Fatal(err)
	}
	limit := expires - sNs
	clock.now = limit - source.offset - 2*msNs
	a, _, err1 := d.generate(0)
	_, _, err2 := d.generate(0)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if p, _ := a.(Snowflake).Parts(DiscordEpochMs); p.Time.UnixNano() != limit-2*msNs {
		t.Errorf("time %v", p.Time)
	}
	clock.now += msNs
	if _, _, err := d.generate(0); err != nil {
		t.Errorf("the last millisecond (ends at the limit): %v", err)
	}
	clock.now += msNs
	if _, _, err := d.generate(0); !errors.Is(err, ErrLeaseExpired) {
		t.Errorf("past the limit: %v", err)
	}
	if n := source.renewalCount(); n != 1 {
		t.Errorf("%d renewals", n)
	}
}

func TestLeaseRenewsHalfwayToTheLimit(t *testing.T) {
	clock := &scripted{now: 10 * sNs}
	source := newFake(clock, "sno")
	d := &driven{t: t, c: scriptedCore(t, source, 30*time.Second), source: source}
	notBefore, expires := d.c.lease.NotBefore.UnixNano(), d.c.lease.Expires.UnixNano()
	due := notBefore + (expires-sNs-notBefore)/2 // safety 1 s (min(1 s, ttl/10))
	clock.now = due - source.offset - 1000
	d.generate(0)
	if n := source.renewalCount(); n != 0 {
		t.Fatalf("%d renewals before due", n)
	}
	clock.now += 1000
	d.generate(0)
	if n := source.renewalCount(); n != 1 || source.renewals[0] != due {
		t.Fatalf("renewals %v, want one at %d", source.renewals, due)
	}
	if got := d.c.lease.Expires.UnixNano(); got != at(due+30*sNs).UnixNano() {
		t.Errorf("expires %d, want %d", got, due+30*sNs)
	}
	d.generate(0)
	if n := source.renewalCount(); n != 1 {
		t.Errorf("%d renewals: not again until the next due time", n)
	}
	// Short TTL: the safety margin is a tenth of it.
	clock2 := &scripted{now: 10 * sNs}
	source2 := newFake(clock2, "siq")
	d2 := &driven{t: t, c: scriptedCore(t, source2, 2*time.Second), source: source2}
	if d2.c.limit != d2.c.lease.Expires.UnixNano()-200*msNs {
		t.Errorf("limit %d", d2.c.limit)
	}
}

func TestLeaseRenewalFailureIsRetriedAndRecovers(t *testing.T) {
	clock := &scripted{now: 10 * sNs}
	source := newFake(clock, "kuid96")
	d := &driven{t: t, c: scriptedCore(t, source, 4*time.Second), source: source}
	expires := d.c.lease.Expires.UnixNano()
	due, _ := d.c.renewalDue()
	clock.now = due - source.offset
	source.renewErr = errTransient
	d.generate(0)
	d.generate(0)
	if n := source.renewalCount(); n != 1 || d.c.renewErr != errTransient {
		t.Fatalf("%d renewals, %v: one try, then a pause", n, d.c.renewErr)
	}
	clock.now += 1600 * msNs // halfway to the limit
	source.renewErr = nil
	d.generate(0)
	if n := source.renewalCount(); n != 2 || d.c.renewErr != nil || d.c.lease.Expires.UnixNano() <= expires {
		t.Fatalf("%d renewals, %v, expires %v", n, d.c.renewErr, d.c.lease.Expires)
	}
	clock.now = expires - source.offset + sNs // past the first expires: still fine
	if _, _, err := d.generate(0); err != nil {
		t.Error(err)
	}
}

func TestLeaseRenewalMovingTheClockBackNeverRepeatsAnID(t *testing.T) {
	clock := &scripted{now: 10 * sNs}
	source := newFake(clock, "snowflake")
	d := &driven{t: t, c: scriptedCore(t, source, 2*time.Second), source: source}
	due, _ := d.c.renewalDue()
	clock.now = due - source.offset - 1000 // just before due
	seen := map[any]bool{}
	for i := 0; i < 100; i++ {
		id, _, _ := d.generate(0)
		seen[id] = true
	}
	source.offset -= 3 * msNs // the renewal's server_time reads 3 ms earlier
	clock.now += 1000
	for i := 0; i < 20_000; i++ {
		id, _, err := d.generate(0)
		if err != nil {
			t.Fatal(err)
		}
		if seen[id] {
			t.Fatalf("%v again after the clock went back", id)
		}
		seen[id] = true
	}
	if n := source.renewalCount(); n != 1 {
		t.Errorf("%d renewals", n)
	}
}

func TestLeaseClockBackBeyondTheLeadRefuses(t *testing.T) {
	clock := &scripted{now: 10 * sNs}
	source := newFake(clock, "sno")
	d := &driven{t: t, c: scriptedCore(t, source, 300*time.Second), source: source}
	due, _ := d.c.renewalDue()
	clock.now = due - source.offset - 1000
	if _, _, err := d.generate(0); err != nil {
		t.Fatal(err)
	}
	source.offset -= 61 * sNs // the server's clock stepped back 61 s
	clock.now += 1000
	// The first IDs reuse the unit's sequence (logical time); once logical
	// time would run more than a minute ahead of the clock: 55000.
	var err error
	for i := 0; i < 70_000 && err == nil; i++ {
		_, _, err = d.generate(0)
	}
	if SQLState(err) != "55000" {
		t.Fatalf("%v", err)
	}
	source.offset += 61 * sNs // the clock put right: IDs again
	clock.now += 2 * msNs
	d.c.renewAt = d.c.now()
	if _, _, err := d.generate(0); err != nil {
		t.Errorf("after the clock came back: %v", err)
	}
}

func TestLeaseUsedUpUnitWaitsForTheNext(t *testing.T) {
	for _, c := range []struct {
		name    string
		kind    int
		perUnit int
	}{{"snowflake", 0, 4096}, {"kuid96", 0, 16384}, {"sno", 0, 65536}, {"siq", 0, 2048}, {"siq", 13, 8192}} {
		clock := &scripted{now: 10 * sNs}
		source := newFake(clock, c.name)
		d := &driven{t: t, c: scriptedCore(t, source, 30*time.Second), source: source}
		seen := map[any]bool{}
		var first, last uint64
		for i := 0; i <= c.perUnit; i++ {
			id, unit, err := d.generate(c.kind)
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				first = unit
			}
			last = unit
			seen[id] = true
		}
		next, _ := d.c.f.after(first)
		if len(seen) != c.perUnit+1 || last != next || len(d.sleeps) == 0 || d.c.now() < d.c.f.startOf(last) {
			t.Errorf("%s: %d IDs, units %d → %d, %d sleeps", c.name, len(seen), first, last, len(d.sleeps))
		}
	}
}
