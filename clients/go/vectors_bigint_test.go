package pgflake

import (
	"bytes"
	"testing"
)

// The bigint and uuid formats: kuid64, Snowflake, DistributedId128; and
// distributed_id with its alphanumeric and hex forms.

func TestKuid64Vectors(t *testing.T) {
	n := 0
	for _, v := range load(t, "kuid64") {
		name := v.Str("name")
		if isError(v) {
			in := v.Obj("input")
			_, err := Kuid64FromParts(mustTime(t, in.Str("time")), intField(in, "seq"))
			wantState(t, v, err)
			_, err = Kuid64FromTime(mustTime(t, in.Str("time")))
			wantState(t, v, err)
			continue
		}
		k := Kuid64(v.Int64("integer"))
		if !bytes.Equal(k.Bytes(), mustHex(t, v.Str("bytes_hex"))) || k.String() != v.Str("text") {
			t.Errorf("%s: %x %s", name, k.Bytes(), k)
		}
		if text, err := k.Encode(); err != nil || text != v.Str("text") {
			t.Errorf("%s: Encode %q, %v", name, text, err)
		}
		if back, err := ParseKuid64(v.Str("text")); err != nil || back != k {
			t.Errorf("%s: ParseKuid64 = %d, %v", name, back, err)
		}
		p := v.Obj("parts")
		parts, err := k.Parts()
		if err != nil || parts.Megaseconds != p.Int64("megaseconds") || parts.Seconds != p.Int64("seconds") ||
			parts.Microseconds != p.Int64("microseconds") || parts.Seq != intField(p, "seq") {
			t.Errorf("%s: parts %+v, %v", name, parts, err)
		}
		sameTime(t, name, parts.Time, p.Str("time"))
		from := parts.Time
		if v.Has("input_time") {
			from = mustTime(t, v.Str("input_time"))
		}
		if built, err := Kuid64FromParts(from, parts.Seq); err != nil || built != k {
			t.Errorf("%s: Kuid64FromParts = %d, %v", name, built, err)
		}
		n++
	}
	counted(t, "kuid64", n, 15)
	for _, bad := range []string{"", "zzzzzzzzzzz", "..........1", "..........-"} {
		if _, err := ParseKuid64(bad); err == nil {
			t.Errorf("ParseKuid64(%q) accepted", bad)
		}
	}
	if _, err := Kuid64(-1).Parts(); SQLState(err) != "22003" {
		t.Errorf("negative kuid64: %v", err)
	}
}

func TestSnowflakeVectors(t *testing.T) {
	n := 0
	for _, v := range load(t, "snowflake") {
		name := v.Str("name")
		if isError(v) {
			in := v.Obj("input")
			_, err := SnowflakeFromParts(mustTime(t, in.Str("time")), intField(in, "worker"), intField(in, "process"), intField(in, "sequence"), in.Int64("epoch_ms"))
			wantState(t, v, err)
			continue
		}
		s, err := ParseSnowflake(v.Str("text"))
		if err != nil || !bytes.Equal(s.Bytes(), mustHex(t, v.Str("bytes_hex"))) || s.String() != v.Str("text") {
			t.Errorf("%s: %d %x %v", name, s, s.Bytes(), err)
			continue
		}
		epoch := v.Int64("epoch_ms")
		p := v.Obj("parts")
		parts, err := s.Parts(epoch)
		if err != nil || parts.Worker != intField(p, "worker") || parts.Process != intField(p, "process") || parts.Sequence != intField(p, "sequence") {
			t.Errorf("%s: parts %+v, %v", name, parts, err)
		}
		sameTime(t, name, parts.Time, p.Str("time"))
		if built, err := SnowflakeFromParts(parts.Time, parts.Worker, parts.Process, parts.Sequence, epoch); err != nil || built != s {
			t.Errorf("%s: SnowflakeFromParts = %d, %v", name, built, err)
		}
		n++
	}
	counted(t, "snowflake", n, 10)
	if _, err := Snowflake(-5).Parts(DiscordEpochMs); SQLState(err) != "22003" {
		t.Errorf("negative: %v", err)
	}
	if _, err := Snowflake(5).Parts(-1); SQLState(err) != "22023" {
		t.Errorf("epoch -1: %v", err)
	}
}

func TestDistributedIdVectors(t *testing.T) {
	n := 0
	for _, v := range load(t, "distributedid") {
		name := v.Str("name")
		switch kind := v.Str("kind"); {
		case kind == "generator_sequence":
			continue // the server's generator (core/src/formats/distributed_id.rs)
		case isError(v):
			var err error
			switch v.Str("function") {
			case "numeric::distributed_id":
				_, err = DistributedIdFromNumeric(v.Str("input"))
			case "alphanumeric_decode_distributed_id":
				_, err = DistributedIdFromAlphanumeric(v.Str("input"))
			case "distributed_id_from_hex":
				_, err = DistributedIdFromHex(v.Str("input"))
			case "alphanumeric_decode_bigint":
				_, err = AlphanumericDecodeBigint(v.Str("input"))
			default:
				in := v.Obj("input")
				_, err = DistributedIdFromParts(mustTime(t, in.Str("time")), in.Int64("random"))
				wantState(t, v, err)
				_, err = DistributedIdFromTime(mustTime(t, in.Str("time")))
			}
			wantState(t, v, err)
			continue
		case kind == "bigint_alphanumeric":
			value := v.Int64("integer")
			if text, err := AlphanumericEncodeBigint(value); err != nil || text != v.Str("alphanumeric") {
				t.Errorf("%s: encode %q, %v", name, text, err)
			}
			if back, err := AlphanumericDecodeBigint(v.Str("alphanumeric")); err != nil || back != value {
				t.Errorf("%s: decode %d, %v", name, back, err)
			}
			n++
			continue
		}
		want := mustHex(t, v.Str("bytes_hex"))
		id, err := ParseDistributedId(v.Str("text"))
		if err != nil || !bytes.Equal(id.Bytes(), want) {
			t.Errorf("%s: ParseDistributedId = %x, %v", name, id, err)
			continue
		}
		if id.Alphanumeric() != v.Str("alphanumeric") || id.Hex() != v.Str("hex") {
			t.Errorf("%s: forms %s %s", name, id.Alphanumeric(), id.Hex())
		}
		for _, from := range []func() (DistributedId, error){
			func() (DistributedId, error) { return DistributedIdFromBytes(want) },
			func() (DistributedId, error) { return DistributedIdFromHex(v.Str("hex")) },
			func() (DistributedId, error) { return DistributedIdFromAlphanumeric(v.Str("alphanumeric")) },
			func() (DistributedId, error) { return DistributedIdFromNumeric(v.Str("text") + ".000") },
		} {
			if back, err := from(); err != nil || back != id {
				t.Errorf("%s: %v, %v", name, back, err)
			}
		}
		switch v.Str("kind") {
		case "alphanumeric_decode":
			if back, err := DistributedIdFromAlphanumeric(v.Str("input")); err != nil || back != id {
				t.Errorf("%s: input %v, %v", name, back, err)
			}
		case "hex_decode":
			if back, err := DistributedIdFromHex(v.Str("input")); err != nil || back != id {
				t.Errorf("%s: input %v, %v", name, back, err)
			}
		}
		if p := v.Obj("parts"); p != nil {
			sameTime(t, name, id.Time(), p.Str("time"))
			if id.Random() != p.Int64("random") {
				t.Errorf("%s: random %d", name, id.Random())
			}
			if built, err := DistributedIdFromParts(id.Time(), id.Random()); err != nil || built != id {
				t.Errorf("%s: DistributedIdFromParts = %v, %v", name, built, err)
			}
		}
		n++
	}
	counted(t, "distributedid", n, 40)
}

func TestDistributedId128Vectors(t *testing.T) {
	n := 0
	for _, v := range load(t, "distributedid128") {
		name := v.Str("name")
		switch {
		case v.Str("kind") == "generator_sequence":
			continue // the server's generator (core/src/formats/distributed_id128.rs)
		case isError(v):
			_, err := DistributedId128FromAlphanumeric(v.Str("input"))
			wantState(t, v, err)
			continue
		}
		want := mustHex(t, v.Str("bytes_hex"))
		id, err := ParseDistributedId128(v.Str("text"))
		if err != nil || !bytes.Equal(id.Bytes(), want) {
			t.Errorf("%s: Parse = %x, %v", name, id, err)
			continue
		}
		if id.String() != v.Str("text") || id.Int().Cmp(v.Int("numeric")) != 0 || id.Alphanumeric() != v.Str("alphanumeric") {
			t.Errorf("%s: forms %s %s %s", name, id, id.Int(), id.Alphanumeric())
		}
		for _, from := range []func() (DistributedId128, error){
			func() (DistributedId128, error) { return DistributedId128FromBytes(want) },
			func() (DistributedId128, error) { return DistributedId128FromNumeric(v.Str("numeric")) },
			func() (DistributedId128, error) { return DistributedId128FromAlphanumeric(v.Str("alphanumeric")) },
		} {
			if back, err := from(); err != nil || back != id {
				t.Errorf("%s: %v, %v", name, back, err)
			}
		}
		if p := v.Obj("parts"); p != nil {
			sameTime(t, name, id.Time(), p.Str("time"))
			if id.Random().Cmp(p.Int("random")) != 0 {
				t.Errorf("%s: random %s", name, id.Random())
			}
			if built, err := DistributedId128FromParts(id.Time(), id.Random()); err != nil || built != id {
				t.Errorf("%s: FromParts = %v, %v", name, built, err)
			}
		}
		n++
	}
	counted(t, "distributedid128", n, 25)
}
