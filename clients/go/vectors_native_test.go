package pgflake

import (
	"bytes"
	"strings"
	"testing"

	"pg-flake.invalid/pgflake/internal/vectors"
)

func TestSnoVectors(t *testing.T) {
	n := 0
	for _, v := range load(t, "sno") {
		name := v.Str("name")
		if isError(v) {
			in := v.Obj("input")
			_, err := SnoFromParts(mustTime(t, in.Str("time")), intField(in, "meta"), intField(in, "partition"), intField(in, "sequence"), false)
			wantState(t, v, err)
			_, err = SnoFromTime(mustTime(t, in.Str("time")))
			wantState(t, v, err)
			continue
		}
		want := mustHex(t, v.Str("bytes_hex"))
		id, err := ParseSno(v.Str("text"))
		if err != nil || !bytes.Equal(id.Bytes(), want) {
			t.Errorf("%s: ParseSno = %x, %v", name, id, err)
			continue
		}
		if back, err := SnoFromBytes(want); err != nil || back.String() != v.Str("text") {
			t.Errorf("%s: from bytes %v, %v", name, back, err)
		}
		p := v.Obj("parts")
		sameTime(t, name, id.Time(), p.Str("time"))
		if id.TickTock() != p["tick_tock"].(bool) || id.Meta() != intField(p, "meta") ||
			id.Partition() != intField(p, "partition") || id.Sequence() != intField(p, "sequence") {
			t.Errorf("%s: parts %v %d %d %d, want %v", name, id.TickTock(), id.Meta(), id.Partition(), id.Sequence(), p)
		}
		from := mustTime(t, p.Str("time"))
		if v.Has("input_time") {
			from = mustTime(t, v.Str("input_time"))
			if from.UnixNano() != v.Int64("unix_ns") {
				t.Errorf("%s: input_time and unix_ns differ", name)
			}
		}
		built, err := SnoFromParts(from, id.Meta(), id.Partition(), id.Sequence(), id.TickTock())
		if err != nil || built != id {
			t.Errorf("%s: SnoFromParts = %v, %v", name, built, err)
		}
		n++
	}
	counted(t, "sno", n, 70)
}

func TestSnoInvalidVectors(t *testing.T) {
	for _, v := range load(t, "sno-invalid") {
		var err error
		switch v.Str("kind") {
		case "invalid_text":
			_, err = ParseSno(v.Str("input"))
		case "invalid_bytes":
			_, err = SnoFromBytes(mustHex(t, v.Str("input_bytes_hex")))
		default:
			t.Fatalf("unknown kind %v", v["kind"])
		}
		wantState(t, v, err)
	}
}

func TestSiqVectors(t *testing.T) {
	n := 0
	for _, v := range load(t, "siq") {
		name := v.Str("name")
		if isError(v) {
			in := v.Obj("input")
			var err error
			switch v.Str("kind") {
			case "invalid_domain":
				_, err = SiqDomainHash(v.Str("input"))
			default:
				_, err = SiqFromPartsTicks(bigTicks(in), intField(in, "shard"), in.Int64("domain_hash"), in.Str("kind"), intField(in, "serial"))
			}
			wantState(t, v, err)
			continue
		}
		want := mustHex(t, v.Str("bytes_hex"))
		id, err := ParseSiq(v.Str("text"))
		if err != nil || !bytes.Equal(id.Bytes(), want) {
			t.Errorf("%s: ParseSiq = %x, %v", name, id, err)
			continue
		}
		for _, form := range []string{v.Str("did"), strings.ToUpper(v.Str("did")), strings.ToUpper(v.Str("text"))} {
			if other, err := ParseSiq(form); err != nil || other != id {
				t.Errorf("%s: ParseSiq(%q) = %v, %v", name, form, other, err)
			}
		}
		if id.String() != v.Str("text") || id.Did() != v.Str("did") || id.Hex() != v.Str("hex") || id.Base64() != v.Str("base64") || id.Int().Cmp(v.Int("integer")) != 0 {
			t.Errorf("%s: forms %s %s %s %s %s", name, id, id.Did(), id.Hex(), id.Base64(), id.Int())
		}
		for _, from := range []func() (Siq, error){
			func() (Siq, error) { return SiqFromBytes(want) },
			func() (Siq, error) { return SiqFromBytes(append([]byte{0, 0}, want...)) },
			func() (Siq, error) { return SiqFromHex(v.Str("hex")) },
			func() (Siq, error) { return SiqFromHex(strings.ToUpper(v.Str("hex"))) },
			func() (Siq, error) { return SiqFromHex(shortHex(v.Str("hex"))) },
			func() (Siq, error) { return SiqFromBase64(v.Str("base64")) },
			func() (Siq, error) { return SiqFromInt(v.Int("integer")) },
		} {
			if back, err := from(); err != nil || back != id {
				t.Errorf("%s: %v, %v", name, back, err)
			}
		}
		p := v.Obj("parts")
		sameTime(t, name, id.Time(), p.Str("time"))
		kind, ok := id.Kind()
		wantKind, hasKind := p["kind"].(string)
		if id.Ticks() != p.Int64("ticks") || id.Shard() != intField(p, "shard") || int64(id.DomainHash()) != p.Int64("domain_hash") ||
			id.Low16() != intField(p, "low16") || ok != hasKind || kind != wantKind || (hasKind && id.Serial() != intField(p, "serial")) {
			t.Errorf("%s: parts %d %d %d %d %s %d, want %v", name, id.Ticks(), id.Shard(), id.DomainHash(), id.Low16(), kind, id.Serial(), p)
		}
		if hasKind {
			built, err := SiqFromPartsTicks(id.Ticks(), id.Shard(), int64(id.DomainHash()), kind, id.Serial())
			if err != nil || built != id {
				t.Errorf("%s: SiqFromPartsTicks = %v, %v", name, built, err)
			}
		}
		if domain, ok := v["domain"].(string); ok {
			hash, err := SiqDomainHash(domain)
			if err != nil {
				t.Errorf("%s: SiqDomainHash(%q): %v", name, domain, err)
			}
			if v.Has("domain_hash_of_domain") && int64(hash) != v.Int64("domain_hash_of_domain") {
				t.Errorf("%s: hash %d", name, hash)
			}
			if v.Has("node") {
				hash = SiqApplyNode(hash, uint8(v.Int64("node")))
			}
			if hash != id.DomainHash() && v.Str("kind") != "raw" {
				t.Errorf("%s: domain hash %d, id has %d", name, hash, id.DomainHash())
			}
		}
		if v.Has("input_time") {
			ticks, err := SiqTicksAt(mustTime(t, v.Str("input_time")))
			if err != nil || ticks != id.Ticks() {
				t.Errorf("%s: ticks at input_time %d, %v", name, ticks, err)
			}
			if id.Low16() == 0 && id.Shard() == 0 && id.DomainHash() == 0 {
				if built, err := SiqFromTime(mustTime(t, v.Str("input_time"))); err != nil || built != id {
					t.Errorf("%s: SiqFromTime = %v, %v", name, built, err)
				}
			}
		}
		n++
	}
	counted(t, "siq", n, 30)
}

// bigTicks is the ticks of an error vector, -1 where they pass int64.
func bigTicks(in vectors.Vector) int64 {
	if n := in.Int("ticks"); n.IsInt64() {
		return n.Int64()
	}
	return -1
}

// shortHex drops the leading zeros siq_from_hex does not need.
func shortHex(h string) string {
	if s := strings.TrimLeft(h, "0"); s != "" {
		return s
	}
	return "0"
}

func TestKuid96Vectors(t *testing.T) {
	n := 0
	for _, v := range load(t, "kuid96") {
		name := v.Str("name")
		want := mustHex(t, v.Str("bytes_hex"))
		id, err := ParseKuid96(v.Str("text"))
		if err != nil || !bytes.Equal(id.Bytes(), want) {
			t.Errorf("%s: ParseKuid96 = %x, %v", name, id, err)
			continue
		}
		if back, err := Kuid96FromBytes(want); err != nil || back.String() != v.Str("text") {
			t.Errorf("%s: from bytes %v, %v", name, back, err)
		}
		n++
		if v.Str("kind") == "encoding" {
			continue
		}
		interval := intField(v, "interval")
		p := v.Obj("parts")
		parts, err := id.Parts(interval)
		if err != nil || int64(parts.Node) != p.Int64("node") || parts.Seq != intField(p, "seq") || id.Seq() != parts.Seq {
			t.Errorf("%s: parts %+v, %v", name, parts, err)
		}
		sameTime(t, name, parts.Time, p.Str("time"))
		if v.Has("node_name") && int64(KuidNodeFingerprint(v.Str("node_name"))) != v.Int64("node") {
			t.Errorf("%s: fingerprint of %q = %d", name, v.Str("node_name"), KuidNodeFingerprint(v.Str("node_name")))
		}
		from := parts.Time
		if v.Has("input_time") {
			from = mustTime(t, v.Str("input_time"))
		}
		if built, err := Kuid96FromParts(from, int64(parts.Node), parts.Seq, interval); err != nil || built != id {
			t.Errorf("%s: Kuid96FromParts = %v, %v", name, built, err)
		}
		if v.Has("kuid64") {
			local := Kuid64(v.Int64("kuid64"))
			if got, err := id.Localize(interval); err != nil || got != local {
				t.Errorf("%s: Localize = %d, %v", name, got, err)
			}
			if got, err := Kuid96Globalize(local, int64(parts.Node), interval); err != nil || got != id {
				t.Errorf("%s: Globalize = %v, %v", name, got, err)
			}
		} else if _, err := id.Localize(interval); SQLState(err) != "22008" {
			t.Errorf("%s: Localize beyond kuid64: %v", name, err)
		}
	}
	counted(t, "kuid96", n, 20)
	if _, err := (Kuid96{}).Parts(4); SQLState(err) != "22023" {
		t.Errorf("interval 4: %v", err)
	}
}

func TestFlaxIdVectors(t *testing.T) {
	n := 0
	for _, v := range load(t, "flaxid") {
		name := v.Str("name")
		if isError(v) {
			in := v.Obj("input")
			_, err := FlaxIdFromParts(mustTime(t, in.Str("time")), in.Int64("random"))
			wantState(t, v, err)
			_, err = FlaxIdFromTime(mustTime(t, in.Str("time")))
			wantState(t, v, err)
			continue
		}
		want := mustHex(t, v.Str("bytes_hex"))
		id, err := ParseFlaxId(v.Str("text"))
		if err != nil || !bytes.Equal(id.Bytes(), want) {
			t.Errorf("%s: ParseFlaxId = %x, %v", name, id, err)
			continue
		}
		if back, err := FlaxIdFromBytes(want); err != nil || back.String() != v.Str("text") {
			t.Errorf("%s: from bytes %v, %v", name, back, err)
		}
		p := v.Obj("parts")
		sameTime(t, name, id.Time(), p.Str("time"))
		if id.Random() != p.Int64("random") {
			t.Errorf("%s: random %d", name, id.Random())
		}
		if built, err := FlaxIdFromParts(mustTime(t, p.Str("time")), id.Random()); err != nil || built != id {
			t.Errorf("%s: FlaxIdFromParts = %v, %v", name, built, err)
		}
		n++
	}
	counted(t, "flaxid", n, 20)
}
