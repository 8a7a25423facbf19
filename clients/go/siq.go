package pgflake

import (
	"database/sql/driver"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
	"math/big"
	"strings"
	"time"
)

// Siq is a value of the SQL type siq (SUOU suou.iding 0.14.0): 112 bits =
// 56-bit ticks of 1/65536 s since 1970, an 8-bit shard, a 32-bit domain
// hash and 16 bits holding a kind suffix and a serial. Text: the reference's
// 29-character DID body, base32 (a-z, 2-7) of a CRC-32 and the 14 bytes
// (docs/sql-reference.md, "siq"). Kinds, fields and SiqFromParts are in
// siq_parts.go.
type Siq [14]byte

// DidPrefix is what siq_to_did puts before the text; ParseSiq accepts it.
const DidPrefix = "did:siq:"

const (
	siqExpected       = `29 base32 characters (a-z, 2-7) with a valid checksum, optionally prefixed by "did:siq:"`
	siqExpectedHex    = "1 to 28 hexadecimal digits"
	siqExpectedBase64 = "20 URL-safe base64 characters"
	siqValueRange     = "0 to 5192296858534827628530496329220095"
)

var siq32 = newAlphabet("abcdefghijklmnopqrstuvwxyz234567", func() map[byte]int8 {
	upper := map[byte]int8{}
	for c := byte('A'); c <= 'Z'; c++ {
		upper[c] = int8(c - 'A')
	}
	return upper
}())

// siqMax is 2^112 − 1.
var siqMax = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 112), big.NewInt(1))

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

// SiqFromBytes is bytea::siq: the 14 stored bytes, or 16 whose first two
// are zero (the reference's ORM columns).
func SiqFromBytes(b []byte) (Siq, error) {
	if len(b) == 16 && b[0] == 0 && b[1] == 0 {
		b = b[2:]
	}
	var id Siq
	if len(b) != 14 {
		return Siq{}, invalidBinary("siq", "14, or 16 of which the first two are zero", len(b))
	}
	copy(id[:], b)
	return id, nil
}

// SiqFromInt is numeric::siq: the 112-bit integer.
func SiqFromInt(n *big.Int) (Siq, error) {
	if n.Sign() < 0 || n.Cmp(siqMax) > 0 {
		return Siq{}, valueOutOfRange("siq", n.String(), siqValueRange)
	}
	var id Siq
	n.FillBytes(id[:])
	return id, nil
}

// SiqFromHex is siq_from_hex: 1 to 28 hexadecimal digits, any case.
func SiqFromHex(text string) (Siq, error) {
	if len(text) < 1 || len(text) > 28 {
		return Siq{}, invalidText("siq", text, siqExpectedHex)
	}
	padded := strings.Repeat("0", 28-len(text)) + text
	var id Siq
	if _, err := hex.Decode(id[:], []byte(padded)); err != nil {
		return Siq{}, invalidText("siq", text, siqExpectedHex)
	}
	return id, nil
}

// SiqFromBase64 is the inverse of Base64: 20 URL-safe characters (22P02
// otherwise) whose first byte is zero (22003 otherwise).
func SiqFromBase64(text string) (Siq, error) {
	var framed [15]byte
	n, err := base64.RawURLEncoding.Strict().Decode(framed[:], []byte(text))
	if len(text) != 20 || err != nil || n != 15 {
		return Siq{}, invalidText("siq", text, siqExpectedBase64)
	}
	if framed[0] != 0 {
		return Siq{}, valueOutOfRange("siq", text, siqValueRange)
	}
	var id Siq
	copy(id[:], framed[1:])
	return id, nil
}

func (id Siq) String() string {
	var framed [18]byte
	binary.BigEndian.PutUint32(framed[:4], crc32.ChecksumIEEE(id[:]))
	copy(framed[4:], id[:])
	return siq32.encode(framed[:], 29)
}

// Did is siq_to_did: "did:siq:" and the text.
func (id Siq) Did() string { return DidPrefix + id.String() }

// Hex is siq_to_hex: 28 lower-case digits.
func (id Siq) Hex() string { return hex.EncodeToString(id[:]) }

// Base64 is siq_to_base64: URL-safe base64 of a zero byte and the 14
// bytes (20 characters).
func (id Siq) Base64() string {
	var framed [15]byte
	copy(framed[1:], id[:])
	return base64.RawURLEncoding.EncodeToString(framed[:])
}

// Int is siq::numeric: the 112-bit integer.
func (id Siq) Int() *big.Int { return new(big.Int).SetBytes(id[:]) }

// Bytes returns a copy of the 14 stored bytes (the binary wire format).
func (id Siq) Bytes() []byte { return append([]byte(nil), id[:]...) }

// Compare orders as the server does (by the bytes): -1, 0 or +1.
func (id Siq) Compare(other Siq) int { return compareBytes(id[:], other[:]) }

// Ticks is the 56-bit time field: 1/65536 s since 1970-01-01 UTC.
func (id Siq) Ticks() int64 { return int64(uintN(id[:7])) }

// UnixMicro is the start of the tick rounded down to the microsecond.
func (id Siq) UnixMicro() int64 { return siqTicksToMicros(id.Ticks()) }

// Time is the start of the ID's tick rounded down to the microsecond
// (siq_timestamp), in UTC.
func (id Siq) Time() time.Time { return timeOfMicros(id.UnixMicro()) }

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
