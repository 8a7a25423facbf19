package pgflake

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strings"
	"time"
)

// The fields of a Siq, its kinds, and building one from parts
// (siq_from_parts, siq_from_time, siq_domain_hash).

const (
	siqTicksPerSecond = 65_536
	siqMaxTicks       = 1<<56 - 1
	siqTimeRange      = "1970-01-01 00:00:00+00 to 36812-02-20 00:36:15.999999+00"
)

// SiqKind is one of the reference's 15 kinds: a suffix of 3, 4 or 5 bits
// at the low end of the last 16 bits; the serial has the rest.
type SiqKind struct {
	Name   string
	suffix uint16
	width  uint
}

// SiqKinds are the kinds in the reference's order.
var SiqKinds = []SiqKind{
	{"user", 0b00000, 5},
	{"application", 0b10000, 5},
	{"event", 0b01000, 5},
	{"premium", 0b11000, 5},
	{"group", 0b00100, 5},
	{"collection", 0b10100, 5},
	{"invite", 0b01100, 5},
	{"tag", 0b00010, 5},
	{"channel", 0b01010, 5},
	{"thread", 0b0110, 4},
	{"message", 0b1110, 4},
	{"ternary", 0b001, 3},
	{"manytomany", 0b101, 3},
	{"multi", 0b011, 3},
	{"content", 0b111, 3},
}

// MaxSerial is the largest serial of the kind (2^(16 − suffix bits) − 1).
func (k SiqKind) MaxSerial() int { return 1<<(16-k.width) - 1 }

func (k SiqKind) low16(serial int) uint16 { return uint16(serial)<<k.width | k.suffix }

// SiqKindNamed finds a kind by name, in any case (22023 for another name).
func SiqKindNamed(name string) (SiqKind, error) {
	lower := strings.ToLower(name)
	names := make([]string, len(SiqKinds))
	for i, k := range SiqKinds {
		if k.Name == lower {
			return k, nil
		}
		names[i] = k.Name
	}
	return SiqKind{}, invalidParameter(fmt.Sprintf("unknown SIQ kind %q; accepted kinds: %s", name, strings.Join(names, ", ")))
}

// siqSuffixWidth reads the suffix from the least significant end: a final
// 1 is a 3-bit suffix, a final 110 a 4-bit one, anything else 5 bits.
func siqSuffixWidth(low16 uint16) uint {
	switch {
	case low16&1 == 1:
		return 3
	case low16&0b111 == 0b110:
		return 4
	}
	return 5
}

// SiqDomainHash is siq_domain_hash(text): the last 4 bytes of SHA-256 of
// an ASCII domain, big-endian; "" and "0" give 0 (22023 if not ASCII).
func SiqDomainHash(domain string) (uint32, error) {
	for i := 0; i < len(domain); i++ {
		if domain[i] >= 0x80 {
			return 0, invalidParameter(fmt.Sprintf("SIQ domain %q is not ASCII; pass the punycode (IDNA) form of the domain", domain))
		}
	}
	if domain == "" || domain == "0" {
		return 0, nil
	}
	sum := sha256.Sum256([]byte(domain))
	return binary.BigEndian.Uint32(sum[28:]), nil
}

// SiqApplyNode is the domain hash of IDs generated with pg_flake.siq_node =
// node: a non-zero node replaces the top byte.
func SiqApplyNode(hash uint32, node uint8) uint32 {
	if node == 0 {
		return hash
	}
	return uint32(node)<<24 | hash&0x00FF_FFFF
}

// SiqTicksAt is the tick containing t: floor(µs × 65536 / 10^6) (22008
// before 1970 or after the 56 bits).
func SiqTicksAt(t time.Time) (int64, error) { return siqTicksAtMicros(unixMicros(t)) }

func siqTicksAtMicros(micros int64) (int64, error) {
	seconds, rest := micros/1_000_000, micros%1_000_000
	if micros < 0 || seconds > siqMaxTicks>>16 {
		return 0, timeOutOfRange("siq", siqTimeRange)
	}
	// floor((s·10^6 + r)·65536 / 10^6) = s·65536 + floor(r·65536 / 10^6)
	return seconds<<16 + rest*siqTicksPerSecond/1_000_000, nil
}

// siqTicksToMicros is floor(ticks × 10^6 / 65536).
func siqTicksToMicros(ticks int64) int64 {
	seconds, fraction := ticks>>16, ticks&0xFFFF
	return seconds*1_000_000 + fraction*1_000_000/siqTicksPerSecond
}

// SiqFromPartsTicks is siq_from_parts(ticks bigint, shard, domain_hash,
// kind, serial): every field range-checked (22003), the kind by name.
func SiqFromPartsTicks(ticks int64, shard int, domainHash int64, kind string, serial int) (Siq, error) {
	k, err := SiqKindNamed(kind)
	if err != nil {
		return Siq{}, err
	}
	if err := field("siq", "serial", int64(serial), 0, int64(k.MaxSerial())); err != nil {
		return Siq{}, err
	}
	return SiqFromLow16(ticks, shard, domainHash, int(k.low16(serial)))
}

// SiqFromParts is siq_from_parts(time timestamptz, …): the time rounds down
// to its tick.
func SiqFromParts(t time.Time, shard int, domainHash int64, kind string, serial int) (Siq, error) {
	ticks, err := SiqTicksAt(t)
	if err != nil {
		return Siq{}, err
	}
	return SiqFromPartsTicks(ticks, shard, domainHash, kind, serial)
}

// SiqFromLow16 is SiqFromPartsTicks with the raw 16 low bits instead of
// kind and serial (any suffix, also unassigned ones).
func SiqFromLow16(ticks int64, shard int, domainHash int64, low16 int) (Siq, error) {
	if err := field("siq", "ticks", ticks, 0, siqMaxTicks); err != nil {
		return Siq{}, err
	}
	if err := field("siq", "shard", int64(shard), 0, 255); err != nil {
		return Siq{}, err
	}
	if err := field("siq", "domain_hash", domainHash, 0, 0xFFFF_FFFF); err != nil {
		return Siq{}, err
	}
	if err := field("siq", "low16", int64(low16), 0, 0xFFFF); err != nil {
		return Siq{}, err
	}
	return siqOf(ticks, uint8(shard), uint32(domainHash), uint16(low16)), nil
}

// SiqFromTime is siq_from_time: the smallest siq at that instant.
func SiqFromTime(t time.Time) (Siq, error) {
	ticks, err := SiqTicksAt(t)
	if err != nil {
		return Siq{}, err
	}
	return siqOf(ticks, 0, 0, 0), nil
}

func siqOf(ticks int64, shard uint8, domainHash uint32, low16 uint16) Siq {
	var id Siq
	putUintN(id[:7], uint64(ticks))
	id[7] = shard
	binary.BigEndian.PutUint32(id[8:12], domainHash)
	binary.BigEndian.PutUint16(id[12:], low16)
	return id
}

// Shard is the 8-bit shard (a lease's process).
func (id Siq) Shard() int { return int(id[7]) }

// DomainHash is the 32-bit domain hash (its top byte: the node).
func (id Siq) DomainHash() uint32 { return binary.BigEndian.Uint32(id[8:12]) }

// Low16 is the last 16 bits: the kind's suffix and the serial.
func (id Siq) Low16() int { return int(binary.BigEndian.Uint16(id[12:])) }

// Kind is the kind's name, and false for an unassigned suffix.
func (id Siq) Kind() (string, bool) {
	low16 := uint16(id.Low16())
	width := siqSuffixWidth(low16)
	for _, k := range SiqKinds {
		if k.width == width && k.suffix == low16&(1<<width-1) {
			return k.Name, true
		}
	}
	return "", false
}

// Serial is the serial above the suffix.
func (id Siq) Serial() int {
	low16 := uint16(id.Low16())
	return int(low16 >> siqSuffixWidth(low16))
}
