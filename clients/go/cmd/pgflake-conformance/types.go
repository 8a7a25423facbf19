package main

import (
	"fmt"
	"strings"

	pgflake "pg-flake.invalid/pgflake"
)

type handler func(args) (result, error)

// value is what every native type and DistributedId128 has.
type value[T any] interface {
	Bytes() []byte
	String() string
	Compare(T) int
}

type encoding[T any] struct {
	encode func(T) interface{}
	decode func(args) (T, error) // reads args["value"]
}

// native is the protocol's operations over one value type.
func native[T value[T]](
	parse func(string) (T, error),
	fromBytes func([]byte) (T, error),
	parts func(T, args) (result, error),
	fromParts func(args, args) (T, error), // (parts, options)
	fromTime func(args) (T, error),
	encodings map[string]encoding[T],
) map[string]handler {
	valueOf := func(a args, key string) (T, error) { return fromBytes(rawBytes(a, key)) }
	bytesOf := func(v T, err error) (result, error) {
		if err != nil {
			return nil, err
		}
		return hexOf(v.Bytes()), nil
	}
	return map[string]handler{
		"parse": func(a args) (result, error) { return bytesOf(parse(a.Str("text"))) },
		"format": func(a args) (result, error) {
			v, err := valueOf(a, "bytes_hex")
			if err != nil {
				return nil, err
			}
			return result{"text": v.String()}, nil
		},
		"parts": func(a args) (result, error) {
			v, err := valueOf(a, "bytes_hex")
			if err != nil {
				return nil, err
			}
			p, err := parts(v, a)
			if err != nil {
				return nil, err
			}
			return result{"parts": p}, nil
		},
		"from_parts": func(a args) (result, error) { return bytesOf(fromParts(a.Obj("parts"), a)) },
		"from_time":  func(a args) (result, error) { return bytesOf(fromTime(a)) },
		"encode": func(a args) (result, error) {
			e, ok := encodings[a.Str("encoding")]
			if !ok {
				return nil, fmt.Errorf("no encoding %q", a.Str("encoding"))
			}
			v, err := valueOf(a, "bytes_hex")
			if err != nil {
				return nil, err
			}
			return result{"value": e.encode(v)}, nil
		},
		"decode": func(a args) (result, error) {
			e, ok := encodings[a.Str("encoding")]
			if !ok {
				return nil, fmt.Errorf("no encoding %q", a.Str("encoding"))
			}
			return bytesOf(e.decode(a))
		},
		"compare": func(a args) (result, error) {
			x, err := valueOf(a, "a")
			if err != nil {
				return nil, err
			}
			y, err := valueOf(a, "b")
			if err != nil {
				return nil, err
			}
			return order(x.Compare(y)), nil
		},
	}
}

func text[T any](f func(string) (T, error)) func(args) (T, error) {
	return func(a args) (T, error) { return f(a.Str("value")) }
}

var handlers = map[string]map[string]handler{
	"sno": native(pgflake.ParseSno, pgflake.SnoFromBytes,
		func(s pgflake.Sno, _ args) (result, error) {
			return result{"time": s.UnixMicro(), "tick_tock": s.TickTock(), "meta": s.Meta(), "partition": s.Partition(), "sequence": s.Sequence()}, nil
		},
		func(p, _ args) (pgflake.Sno, error) {
			tickTock, _ := p["tick_tock"].(bool)
			return pgflake.SnoFromParts(micros(p, "time"), intOf(p, "meta"), intOf(p, "partition"), intOf(p, "sequence"), tickTock)
		},
		func(a args) (pgflake.Sno, error) { return pgflake.SnoFromTime(micros(a, "time")) },
		nil),
	"siq": native(pgflake.ParseSiq, pgflake.SiqFromBytes,
		func(s pgflake.Siq, _ args) (result, error) {
			var kind interface{}
			if k, ok := s.Kind(); ok {
				kind = k
			}
			return result{"time": s.UnixMicro(), "ticks": wire64(s.Ticks()), "shard": s.Shard(), "domain_hash": s.DomainHash(),
				"kind": kind, "serial": s.Serial(), "low16": s.Low16()}, nil
		},
		func(p, _ args) (pgflake.Siq, error) {
			return pgflake.SiqFromPartsTicks(int64Of(p, "ticks"), intOf(p, "shard"), int64Of(p, "domain_hash"), p.Str("kind"), intOf(p, "serial"))
		},
		func(a args) (pgflake.Siq, error) { return pgflake.SiqFromTime(micros(a, "time")) },
		map[string]encoding[pgflake.Siq]{
			"did":     {func(s pgflake.Siq) interface{} { return s.Did() }, text(pgflake.ParseSiq)},
			"hex":     {func(s pgflake.Siq) interface{} { return s.Hex() }, text(pgflake.SiqFromHex)},
			"base64":  {func(s pgflake.Siq) interface{} { return s.Base64() }, text(pgflake.SiqFromBase64)},
			"integer": {func(s pgflake.Siq) interface{} { return wire(s.Int()) }, func(a args) (pgflake.Siq, error) { return pgflake.SiqFromInt(integer(a, "value")) }},
		}),
	"distributed_id": native(pgflake.ParseDistributedId, pgflake.DistributedIdFromBytes,
		func(d pgflake.DistributedId, _ args) (result, error) {
			return result{"time": d.Time().UnixMicro(), "random": wire64(d.Random())}, nil
		},
		func(p, _ args) (pgflake.DistributedId, error) {
			return pgflake.DistributedIdFromParts(micros(p, "time"), int64Of(p, "random"))
		},
		func(a args) (pgflake.DistributedId, error) { return pgflake.DistributedIdFromTime(micros(a, "time")) },
		map[string]encoding[pgflake.DistributedId]{
			"integer": {func(d pgflake.DistributedId) interface{} { return wire(d.Int()) }, func(a args) (pgflake.DistributedId, error) {
				// numeric::distributed_id: the runner sends integers, and
				// decimal strings that may be negative.
				return pgflake.DistributedIdFromNumeric(integer(a, "value").String())
			}},
			"hex":          {func(d pgflake.DistributedId) interface{} { return d.Hex() }, text(pgflake.DistributedIdFromHex)},
			"alphanumeric": {func(d pgflake.DistributedId) interface{} { return d.Alphanumeric() }, text(pgflake.DistributedIdFromAlphanumeric)},
		}),
	"distributed_id128": native(pgflake.ParseDistributedId128, pgflake.DistributedId128FromBytes,
		func(d pgflake.DistributedId128, _ args) (result, error) {
			return result{"time": d.Time().UnixMicro(), "random": wire(d.Random())}, nil
		},
		func(p, _ args) (pgflake.DistributedId128, error) {
			return pgflake.DistributedId128FromParts(micros(p, "time"), integer(p, "random"))
		},
		func(a args) (pgflake.DistributedId128, error) {
			return pgflake.DistributedId128FromTime(micros(a, "time"))
		},
		map[string]encoding[pgflake.DistributedId128]{
			"numeric": {func(d pgflake.DistributedId128) interface{} { return wire(d.Int()) }, func(a args) (pgflake.DistributedId128, error) {
				return pgflake.DistributedId128FromNumeric(integer(a, "value").String())
			}},
			"alphanumeric": {func(d pgflake.DistributedId128) interface{} { return d.Alphanumeric() }, text(pgflake.DistributedId128FromAlphanumeric)},
		}),
	"flaxid": native(pgflake.ParseFlaxId, pgflake.FlaxIdFromBytes,
		func(f pgflake.FlaxId, _ args) (result, error) {
			return result{"time": f.Time().UnixMicro(), "random": wire64(f.Random())}, nil
		},
		func(p, _ args) (pgflake.FlaxId, error) {
			return pgflake.FlaxIdFromParts(micros(p, "time"), int64Of(p, "random"))
		},
		func(a args) (pgflake.FlaxId, error) { return pgflake.FlaxIdFromTime(micros(a, "time")) },
		nil),
	"kuid96": kuid96Handlers(),
	"kuid64": bigintHandlers(
		func(s string) (int64, error) { k, err := pgflake.ParseKuid64(s); return int64(k), err },
		func(n int64) (string, error) { return pgflake.Kuid64(n).Encode() },
		func(n int64, _ args) (result, error) {
			p, err := pgflake.Kuid64(n).Parts()
			return result{"time": p.Time.UnixMicro(), "megaseconds": wire64(p.Megaseconds), "seconds": wire64(p.Seconds),
				"microseconds": wire64(p.Microseconds), "seq": p.Seq}, err
		},
		func(p, _ args) (int64, error) {
			k, err := pgflake.Kuid64FromParts(micros(p, "time"), intOf(p, "seq"))
			return int64(k), err
		},
		func(a args) (int64, error) { k, err := pgflake.Kuid64FromTime(micros(a, "time")); return int64(k), err },
		map[string]encoding[int64]{
			"integer": {func(n int64) interface{} { return wire64(n) }, func(a args) (int64, error) {
				n := int64Of(a, "value")
				_, err := pgflake.Kuid64(n).Encode() // a negative bigint is no kuid64
				return n, err
			}},
		}),
	"snowflake": bigintHandlers(
		func(s string) (int64, error) { v, err := pgflake.ParseSnowflake(s); return int64(v), err },
		func(n int64) (string, error) {
			_, err := pgflake.Snowflake(n).Parts(pgflake.DiscordEpochMs)
			return pgflake.Snowflake(n).String(), err
		},
		func(n int64, a args) (result, error) {
			p, err := pgflake.Snowflake(n).Parts(epochMs(a))
			return result{"time": p.Time.UnixMicro(), "worker": p.Worker, "process": p.Process, "sequence": p.Sequence}, err
		},
		func(p, a args) (int64, error) {
			epoch := epochMs(a)
			if p.Has("epoch_ms") { // an error vector's input carries its epoch
				epoch = int64Of(p, "epoch_ms")
			}
			s, err := pgflake.SnowflakeFromParts(micros(p, "time"), intOf(p, "worker"), intOf(p, "process"), intOf(p, "sequence"), epoch)
			return int64(s), err
		},
		func(a args) (int64, error) {
			s, err := pgflake.SnowflakeFromTime(micros(a, "time"), epochMs(a))
			return int64(s), err
		},
		nil),
	"bigint": bigintHandlers(nil, nil, nil, nil, nil, map[string]encoding[int64]{
		"alphanumeric": {func(n int64) interface{} {
			s, err := pgflake.AlphanumericEncodeBigint(n)
			if err != nil {
				panic(err)
			}
			return s
		}, text(pgflake.AlphanumericDecodeBigint)},
	}),
	"public_id": publicIdHandlers(),
}

func init() {
	handlers["siq"]["domain_hash"] = func(a args) (result, error) {
		h, err := pgflake.SiqDomainHash(a.Str("domain"))
		return result{"domain_hash": h}, err
	}
}

func kuid96Handlers() map[string]handler {
	h := native(pgflake.ParseKuid96, pgflake.Kuid96FromBytes,
		func(k pgflake.Kuid96, a args) (result, error) {
			p, err := k.Parts(interval(a))
			return result{"time": p.Time.UnixMicro(), "node": p.Node, "seq": p.Seq}, err
		},
		func(p, a args) (pgflake.Kuid96, error) {
			return pgflake.Kuid96FromParts(micros(p, "time"), int64Of(p, "node"), intOf(p, "seq"), interval(a))
		},
		func(a args) (pgflake.Kuid96, error) { return pgflake.Kuid96FromTime(micros(a, "time"), interval(a)) },
		nil)
	h["globalize"] = func(a args) (result, error) {
		k, err := pgflake.Kuid96Globalize(pgflake.Kuid64(int64Of(a, "kuid64")), int64Of(a, "node"), interval(a))
		if err != nil {
			return nil, err
		}
		return hexOf(k.Bytes()), nil
	}
	h["localize"] = func(a args) (result, error) {
		k, err := pgflake.Kuid96FromBytes(rawBytes(a, "bytes_hex"))
		if err != nil {
			return nil, err
		}
		local, err := k.Localize(interval(a))
		return result{"kuid64": wire64(int64(local))}, err
	}
	h["node_fingerprint"] = func(a args) (result, error) {
		return result{"node": pgflake.KuidNodeFingerprint(a.Str("name"))}, nil
	}
	return h
}

// bigintHandlers: the formats stored in a bigint (nil: the type has no such
// operation).
func bigintHandlers(
	parse func(string) (int64, error),
	format func(int64) (string, error),
	parts func(int64, args) (result, error),
	fromParts func(args, args) (int64, error),
	fromTime func(args) (int64, error),
	encodings map[string]encoding[int64],
) map[string]handler {
	h := map[string]handler{
		"encode": func(a args) (result, error) {
			n, err := bigint(a, "bytes_hex")
			if err != nil {
				return nil, err
			}
			return result{"value": encodings[a.Str("encoding")].encode(n)}, nil
		},
		"decode": func(a args) (result, error) {
			n, err := encodings[a.Str("encoding")].decode(a)
			if err != nil {
				return nil, err
			}
			return bigintHex(n), nil
		},
		"compare": func(a args) (result, error) {
			x, err := bigint(a, "a")
			if err != nil {
				return nil, err
			}
			y, err := bigint(a, "b")
			if err != nil {
				return nil, err
			}
			return order(pgflake.Snowflake(x).Compare(pgflake.Snowflake(y))), nil
		},
	}
	if parse == nil {
		return h
	}
	built := func(n int64, err error) (result, error) {
		if err != nil {
			return nil, err
		}
		return bigintHex(n), nil
	}
	h["parse"] = func(a args) (result, error) { return built(parse(a.Str("text"))) }
	h["format"] = func(a args) (result, error) {
		n, err := bigint(a, "bytes_hex")
		if err != nil {
			return nil, err
		}
		s, err := format(n)
		return result{"text": s}, err
	}
	h["parts"] = func(a args) (result, error) {
		n, err := bigint(a, "bytes_hex")
		if err != nil {
			return nil, err
		}
		p, err := parts(n, a)
		if err != nil {
			return nil, err
		}
		return result{"parts": p}, nil
	}
	h["from_parts"] = func(a args) (result, error) { return built(fromParts(a.Obj("parts"), a)) }
	h["from_time"] = func(a args) (result, error) { return built(fromTime(a)) }
	return h
}

func publicIdHandlers() map[string]handler {
	key := func(a args) (*pgflake.PublicIdKey, error) { return pgflake.PublicIdKeyFromBase64(a.Str("key_base64")) }
	return map[string]handler{
		"encrypt": func(a args) (result, error) {
			k, err := key(a)
			if err != nil {
				return nil, err
			}
			var out [16]byte
			switch a.Str("input_type") {
			case "bigint":
				out, err = k.EncryptBigint(int64Of(a, "input"))
			case "distributed_id":
				var id pgflake.DistributedId
				if id, err = pgflake.DistributedIdFromNumeric(integer(a, "input").String()); err == nil {
					out = k.EncryptDistributedId(id)
				}
			case "uuid":
				var u pgflake.DistributedId128
				if u, err = pgflake.ParseDistributedId128(a.Str("input")); err == nil {
					out = k.EncryptUUID(u)
				}
			default:
				return nil, fmt.Errorf("no input_type %q", a.Str("input_type"))
			}
			if err != nil {
				return nil, err
			}
			return result{"public_id": pgflake.DistributedId128(out).String()}, nil
		},
		"decrypt": func(a args) (result, error) {
			k, err := key(a)
			if err != nil {
				return nil, err
			}
			id, err := pgflake.ParseDistributedId128(a.Str("public_id"))
			if err != nil {
				return nil, err
			}
			switch strings.ToLower(a.Str("output_type")) {
			case "bigint":
				if n, ok := k.DecryptBigint(id); ok {
					return result{"value": fmt.Sprint(n)}, nil
				}
			case "distributed_id":
				if d, ok := k.DecryptDistributedId(id); ok {
					return result{"value": d.String()}, nil
				}
			case "uuid":
				return result{"value": pgflake.DistributedId128(k.DecryptUUID(id)).String()}, nil
			default:
				return nil, fmt.Errorf("no output_type %q", a.Str("output_type"))
			}
			return result{"value": nil}, nil
		},
	}
}
