package pgflake

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strconv"
)

// Public identities (Architect.Identities 2.1.1; docs/sql-reference.md,
// "Public identities"; core/src/formats/public_id.rs): an internal ID becomes a
// 128-bit public identifier, a uuid, through AES in ECB mode over one
// 16-byte block under a 16-, 24- or 32-byte key. Deterministic (equal IDs
// give equal public IDs) and unauthenticated (a forged public ID decrypts to
// something; for a bigint the 8 zero bytes are the only check).

// PublicIdKey is an expanded key; it never shows the key.
type PublicIdKey struct {
	block cipher.Block
	bits  int
}

const publicIdKeyLengths = "16, 24 or 32 bytes (AES-128, AES-192, AES-256)"

// NewPublicIdKey takes a key of 16, 24 or 32 bytes (22023 otherwise).
func NewPublicIdKey(key []byte) (*PublicIdKey, error) {
	switch len(key) {
	case 16, 24, 32:
	default:
		return nil, invalidParameter(fmt.Sprintf("public id key must be %s, got %d bytes", publicIdKeyLengths, len(key)))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, invalidParameter(fmt.Sprintf("public id key must be %s, got %d bytes", publicIdKeyLengths, len(key)))
	}
	return &PublicIdKey{block, len(key) * 8}, nil
}

// PublicIdKeyFromBase64 takes the key as pg_flake.public_id_key holds it:
// standard base64 with padding, strict.
func PublicIdKeyFromBase64(text string) (*PublicIdKey, error) {
	key, err := base64.StdEncoding.Strict().DecodeString(text)
	if err != nil {
		return nil, invalidParameter("public id key must be standard base64 (with = padding) of " + publicIdKeyLengths)
	}
	return NewPublicIdKey(key)
}

func (k *PublicIdKey) String() string { return fmt.Sprintf("PublicIdKey(AES-%d)", k.bits) }

// guidByteOrder is .NET Guid(byte[])'s order of the first three fields
// (little-endian), which its text (and PostgreSQL's uuid) shows big-endian;
// its own inverse.
func guidByteOrder(b [16]byte) [16]byte {
	return [16]byte{b[3], b[2], b[1], b[0], b[5], b[4], b[7], b[6], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]}
}

func (k *PublicIdKey) encrypt(plaintext [16]byte) [16]byte {
	var out [16]byte
	k.block.Encrypt(out[:], plaintext[:])
	return guidByteOrder(out)
}

func (k *PublicIdKey) decrypt(publicID [16]byte) [16]byte {
	in := guidByteOrder(publicID)
	var out [16]byte
	k.block.Decrypt(out[:], in[:])
	return out
}

// EncryptBigint is public_id_encrypt(bigint): 8 zero bytes, then the value
// little-endian. A negative value is 22003.
func (k *PublicIdKey) EncryptBigint(value int64) ([16]byte, error) {
	if value < 0 {
		return [16]byte{}, valueOutOfRange("a public identity of bigint", strconv.FormatInt(value, 10), nonNegativeBigint)
	}
	var plaintext [16]byte
	binary.LittleEndian.PutUint64(plaintext[8:], uint64(value))
	return k.encrypt(plaintext), nil
}

// EncryptDistributedId is public_id_encrypt(distributed_id): the .NET
// decimal layout: flags (0), hi, lo, mid, each 4 bytes little-endian.
func (k *PublicIdKey) EncryptDistributedId(id DistributedId) [16]byte {
	var plaintext [16]byte
	copy(plaintext[4:8], reverse4(id[0:4]))   // hi: bits 64–95
	copy(plaintext[8:12], reverse4(id[8:12])) // lo: bits 0–31
	copy(plaintext[12:], reverse4(id[4:8]))   // mid: bits 32–63
	return k.encrypt(plaintext)
}

// EncryptUUID is public_id_encrypt(uuid): the 16 bytes in order.
func (k *PublicIdKey) EncryptUUID(uuid [16]byte) [16]byte { return k.encrypt(uuid) }

// DecryptBigint is public_id_decrypt_bigint: false (SQL NULL) unless the
// first 8 plaintext bytes are zero and the value is at most 2^63 − 1.
func (k *PublicIdKey) DecryptBigint(publicID [16]byte) (int64, bool) {
	p := k.decrypt(publicID)
	if binary.BigEndian.Uint64(p[:8]) != 0 {
		return 0, false
	}
	v := binary.LittleEndian.Uint64(p[8:])
	if v>>63 != 0 {
		return 0, false
	}
	return int64(v), true
}

// DecryptDistributedId is public_id_decrypt_distributed_id: false (SQL
// NULL) unless the first 4 plaintext bytes are zero and the value is at
// most 10^28 − 1.
func (k *PublicIdKey) DecryptDistributedId(publicID [16]byte) (DistributedId, bool) {
	p := k.decrypt(publicID)
	if binary.BigEndian.Uint32(p[:4]) != 0 {
		return DistributedId{}, false
	}
	var id DistributedId
	copy(id[0:4], reverse4(p[4:8]))
	copy(id[4:8], reverse4(p[12:16]))
	copy(id[8:12], reverse4(p[8:12]))
	if id.Int().Cmp(distributedIdMax) > 0 {
		return DistributedId{}, false
	}
	return id, true
}

// DecryptUUID is public_id_decrypt_uuid: always a value.
func (k *PublicIdKey) DecryptUUID(publicID [16]byte) [16]byte { return k.decrypt(publicID) }

func reverse4(b []byte) []byte { return []byte{b[3], b[2], b[1], b[0]} }
