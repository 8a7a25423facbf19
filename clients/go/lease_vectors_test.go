package pgflake

import (
	"bytes"
	"testing"
	"time"

	"pg-flake.invalid/pgflake/internal/vectors"
)

// Byte-exactness of the leased formats' assembly with the reference
// vectors: the ID a generator makes for a vector's fields is the vector's
// (python/tests/test_lease.py, "byte-exactness with the core").

// throughGenerator is the ID a generator, whose clock reads timeNs, makes
// as its sequence-th in that unit.
func throughGenerator(t *testing.T, source *fakeLeases, timeNs int64, sequence int, kind int) (any, uint64) {
	t.Helper()
	source.offset = timeNs - source.clock.now
	d := &driven{t: t, c: scriptedCore(t, source, 30*time.Second), source: source}
	var id any
	var unit uint64
	var err error
	for i := 0; i <= sequence; i++ {
		if id, unit, err = d.generate(kind); err != nil {
			t.Fatal(err)
		}
	}
	return id, unit
}

func idBytes(id any) []byte { return id.(interface{ Bytes() []byte }).Bytes() }

func TestLeaseVectors(t *testing.T) {
	checked := map[string]int{}
	check := func(v vectors.Vector, source *fakeLeases, timeNs int64, seq int, kind int) {
		t.Helper()
		want := mustHex(t, v.Str("bytes_hex"))
		f, err := leasedFormatFor(source.makeRow(0, sNs), source.format, makeFormat(source.format))
		if source.format == "siq" {
			var sf *siqLease
			sf, err = newSiqLease(source.makeRow(0, sNs), v.Str("domain"), SiqKinds[kind].Name)
			f = anyFormat[Siq]{sf}
		}
		if err != nil {
			t.Fatalf("%s: %v", v.Str("name"), err)
		}
		unit, err := f.unitAt(timeNs)
		if err != nil {
			t.Fatalf("%s: %v", v.Str("name"), err)
		}
		if got := idBytes(f.assemble(unit, uint32(seq), kind)); !bytes.Equal(got, want) {
			t.Errorf("%s: assembled %x, want %x", v.Str("name"), got, want)
		}
		if _, err := f.unitAt(timeNs + 31*sNs); seq <= 16 && err == nil { // a window inside the range
			if id, _ := throughGenerator(t, source, f.startOf(unit), seq, kind); !bytes.Equal(idBytes(id), want) {
				t.Errorf("%s: generated %x, want %x", v.Str("name"), idBytes(id), want)
			}
		}
		checked[source.format]++
	}
	for _, v := range load(t, "sno") {
		p := v.Obj("parts")
		if p == nil || p["tick_tock"] == true || p.Int64("meta") != 0 {
			continue // leased sno IDs have tick-tock 0 and meta 0 here
		}
		source := newFake(&scripted{now: 10 * sNs}, "sno")
		source.node, source.process = p.Int64("partition")>>8, int32(p.Int64("partition")&255)
		check(v, source, mustTime(t, p.Str("time")).UnixNano(), intField(p, "sequence"), 0)
	}
	for _, v := range load(t, "snowflake") {
		p := v.Obj("parts")
		if p == nil {
			continue
		}
		source := newFake(&scripted{now: 10 * sNs}, "snowflake")
		epoch := v.Int64("epoch_ms")
		source.node, source.process, source.epochMs = p.Int64("worker"), int32(p.Int64("process")), &epoch
		check(v, source, mustTime(t, p.Str("time")).UnixNano(), intField(p, "sequence"), 0)
	}
	for _, v := range load(t, "kuid96") {
		p := v.Obj("parts")
		tm := mustTime(t, p.Str("time"))
		if tm.Year() > 2200 {
			continue // beyond the clock's nanoseconds
		}
		source := newFake(&scripted{now: 10 * sNs}, "kuid96")
		interval := int32(v.Int64("interval"))
		source.node, source.interval = p.Int64("node"), &interval
		check(v, source, tm.UnixNano(), intField(p, "seq"), 0)
	}
	for _, v := range load(t, "siq") {
		p := v.Obj("parts")
		if p == nil || !p.Has("kind") || !v.Has("domain") {
			continue
		}
		hash, err := SiqDomainHash(v.Str("domain"))
		if err != nil || int64(hash&0xFFFFFF) != p.Int64("domain_hash")&0xFFFFFF {
			continue // a hash that is not the domain's
		}
		kind, _ := SiqKindNamed(p.Str("kind"))
		index := 0
		for i, k := range SiqKinds {
			if k.Name == kind.Name {
				index = i
			}
		}
		source := newFake(&scripted{now: 10 * sNs}, "siq")
		source.node, source.process = p.Int64("domain_hash")>>24, int32(p.Int64("shard"))
		source.domain = v.Str("domain")
		f := &siqLease{}
		check(v, source, f.startOf(uint64(p.Int64("ticks"))), intField(p, "serial"), index)
	}
	for _, name := range leasedNames {
		if checked[name] < 5 {
			t.Errorf("%s: only %d vectors", name, checked[name])
		}
	}
	t.Logf("%v", checked)
}
