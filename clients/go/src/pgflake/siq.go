package pgflake

import (
	"database/sql/driver"
	"encoding/binary"
	"hash/crc32"
	"strings"
	"time"
)

// Siq is a value of the SQL type siq (SUOU suou.iding 0.14.0): 112 bits =
// 56-bit ticks of 1/65536 s since 1970, an 8-bit shard, a 32-bit domain
// hash and 16 bits holding a kind suffix and a serial. Text: the reference's
// 29-character DID body, base32 (a-z, 2-7) of a CRC-32 and the 14 bytes.
type Siq [14]byte

// DidPrefix is what siq_to_did puts before the text; ParseSiq accepts it.
const DidPrefix = "did:siq:"

var siq32 = newAlphabet("abcdefghijklmnopqrstuvwxyz234567", func() map[byte]int8 {
	upper := map[byte]int8{}
	for c := byte('A'); c <= 'Z'; c++ {
		upper[c] = int8(c - 'A')
	}
	return upper
}())

const siqExpected = `29 base32 characters (a-z, 2-7) with a valid checksum, optionally prefixed by "did:siq:"`

// ParseSiq reads the text as siq's text input does: 29 characters, any
// case, optionally after "did:siq:", with a CRC-32 that must match.
func ParseSiq(text string) (Siq, error) {
	body := text
	if len(body) >= len(DidPrefix) && strings.EqualFold(body[:len(DidPrefix)], DidPrefix) {
		body = body[len(DidPrefix):]
	}
	var framed [18]byte // CRC-32, then the 14 bytes; one leading zero bit
	if !siq32.decode(body, 29, framed[:]) {
		return Siq{}, invalidText("siq", text, siqExpected)
	}
	if crc32.ChecksumIEEE(framed[4:]) != binary.BigEndian.Uint32(framed[:4]) {
		return Siq{}, invalidText("siq", text, siqExpected)
	}
	var id Siq
	copy(id[:], framed[4:])
	return id, nil
}

// SiqFromBytes takes exactly the 14 stored bytes (bytea::siq).
func SiqFromBytes(b []byte) (Siq, error) { return fromBytes[Siq](b) }

func (id Siq) String() string {
	var framed [18]byte
	binary.BigEndian.PutUint32(framed[:4], crc32.ChecksumIEEE(id[:]))
	copy(framed[4:], id[:])
	return siq32.encode(framed[:], 29)
}

// Did is siq_to_did: "did:siq:" and the text.
func (id Siq) Did() string { return DidPrefix + id.String() }

// Bytes returns a copy of the 14 stored bytes (the binary wire format).
func (id Siq) Bytes() []byte { return append([]byte(nil), id[:]...) }

// Ticks is the 56-bit time field: 1/65536 s since 1970-01-01 UTC.
func (id Siq) Ticks() uint64 { return uintN(id[:7]) }

// Time is the start of the ID's tick rounded down to the microsecond
// (siq_timestamp), in UTC.
func (id Siq) Time() time.Time {
	ticks := id.Ticks()
	seconds, fraction := int64(ticks>>16), int64(ticks&0xFFFF)
	return time.Unix(seconds, fraction*1_000_000/65_536*1000).UTC()
}

func (id Siq) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

func (id *Siq) UnmarshalText(text []byte) error {
	v, err := ParseSiq(string(text))
	if err == nil {
		*id = v
	}
	return err
}

// Scan implements sql.Scanner: the text, as string or []byte.
func (id *Siq) Scan(src interface{}) error { return scanID[Siq](id, src) }

// Value implements driver.Valuer: the canonical text.
func (id Siq) Value() (driver.Value, error) { return id.String(), nil }

func (Siq) typeName() string            { return "siq" }
func (id *Siq) setBytes(b []byte) error { return copyExact(id[:], b, "siq") }
