package pgflake

// Architect.Identities' base62 text (docs/sql-reference.md, "Alphanumeric
// encoding"; core/src/formats/alphanumeric.rs): 8 bytes read as a big-endian
// unsigned integer become exactly 11 characters of 0-9A-Za-z. Decoding is
// strict: exact length, the alphabet only, each block below 2^64.

import (
	"math/bits"
	"strconv"
)

const (
	base62              = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	alnumExpectedBigint = "11 characters of 0-9, A-Z, a-z, at most LygHa16AHYF"
	alnumExpectedUUID   = "22 characters of 0-9, A-Z, a-z, each 11-character half at most LygHa16AHYF"
	alnumExpectedDid    = "16 characters of 0-9, A-Z, a-z, the last 11 at most LygHa16AHYF"
	alnumBigintRange    = "00000000000 to AzL8n0Y58m7 (0 to 9223372036854775807)"
	alnumDidRange       = "0000000000000000 to agbFu5KnEQGxp4QB (0 to 9999999999999999999999999999)"
)

func encode62(value uint64, out []byte) {
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = base62[value%62]
		value /= 62
	}
}

// decode62 is the value of base62 digits, false for a character outside the
// alphabet or a value of 2^64 or more.
func decode62(text string) (uint64, bool) {
	var value uint64
	for i := 0; i < len(text); i++ {
		c := text[i]
		var digit uint64
		switch {
		case c >= '0' && c <= '9':
			digit = uint64(c - '0')
		case c >= 'A' && c <= 'Z':
			digit = uint64(c-'A') + 10
		case c >= 'a' && c <= 'z':
			digit = uint64(c-'a') + 36
		default:
			return 0, false
		}
		hi, lo := bits.Mul64(value, 62)
		sum, carry := bits.Add64(lo, digit, 0)
		if hi != 0 || carry != 0 {
			return 0, false
		}
		value = sum
	}
	return value, true
}

// AlphanumericEncodeBigint is alphanumeric_encode(bigint): 11 characters;
// a negative value has none (22003).
func AlphanumericEncodeBigint(value int64) (string, error) {
	if value < 0 {
		return "", valueOutOfRange("the alphanumeric encoding of bigint", strconv.FormatInt(value, 10), nonNegativeBigint)
	}
	var out [11]byte
	encode62(uint64(value), out[:])
	return string(out[:]), nil
}

// AlphanumericDecodeBigint is alphanumeric_decode_bigint: 11 characters,
// at most 2^63 − 1.
func AlphanumericDecodeBigint(text string) (int64, error) {
	value, ok := decode62(text)
	if len(text) != 11 || !ok {
		return 0, invalidText("bigint", text, alnumExpectedBigint)
	}
	if value>>63 != 0 {
		return 0, valueOutOfRange("bigint", text, alnumBigintRange)
	}
	return int64(value), nil
}

// AlphanumericEncodeUUID is alphanumeric_encode(uuid): bytes 0–7 and 8–15
// as two 11-character blocks.
func AlphanumericEncodeUUID(uuid [16]byte) string {
	var out [22]byte
	encode62(uintN(uuid[:8]), out[:11])
	encode62(uintN(uuid[8:]), out[11:])
	return string(out[:])
}

// AlphanumericDecodeUUID is alphanumeric_decode_uuid: 22 characters.
func AlphanumericDecodeUUID(text string) ([16]byte, error) {
	var uuid [16]byte
	if len(text) != 22 {
		return uuid, invalidText("uuid", text, alnumExpectedUUID)
	}
	high, ok1 := decode62(text[:11])
	low, ok2 := decode62(text[11:])
	if !ok1 || !ok2 {
		return uuid, invalidText("uuid", text, alnumExpectedUUID)
	}
	putUintN(uuid[:8], high)
	putUintN(uuid[8:], low)
	return uuid, nil
}
