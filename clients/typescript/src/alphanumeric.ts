// Architect.Identities' base62 text (docs/sql-reference.md, "Alphanumeric encoding";
// reference implementation core/src/formats/alphanumeric.rs): 8 bytes read as a
// big-endian unsigned integer become exactly 11 characters of `0-9A-Za-z`.
// Decoding is strict: exact length, the alphabet only, each block below 2^64.

import { invalidText, valueOutOfRange } from './errors.js'

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const U64 = (1n << 64n) - 1n
const I64 = (1n << 63n) - 1n
const EXPECTED_BIGINT = '11 characters of 0-9, A-Z, a-z, at most LygHa16AHYF'
const EXPECTED_UUID = '22 characters of 0-9, A-Z, a-z, each 11-character half at most LygHa16AHYF'

export function encodeBase62 (value: bigint, length: number): string {
  let out = ''
  for (let i = 0; i < length; i++) {
    out = ALPHABET[Number(value % 62n)] + out
    value /= 62n
  }
  return out
}

/** The value of base62 digits, or null outside the alphabet or above 2^64 − 1. */
export function decodeBase62 (text: string): bigint | null {
  let value = 0n
  for (const c of text) {
    const digit = ALPHABET.indexOf(c)
    if (digit < 0) return null
    value = value * 62n + BigInt(digit)
  }
  return value <= U64 ? value : null
}

/** `alphanumeric_encode(bigint)`: 11 characters; a negative bigint has none (22003). */
export function alphanumericEncodeBigint (value: bigint): string {
  if (typeof value !== 'bigint') throw new TypeError('alphanumericEncodeBigint() takes a bigint')
  if (value < 0n || value > I64) throw valueOutOfRange('bigint', String(value), '0 to 9223372036854775807')
  return encodeBase62(value, 11)
}

/** `alphanumeric_decode_bigint`: 11 characters, at most 2^63 − 1. */
export function alphanumericDecodeBigint (text: string): bigint {
  const value = typeof text === 'string' && text.length === 11 ? decodeBase62(text) : null
  if (value === null) throw invalidText('bigint', String(text), EXPECTED_BIGINT)
  if (value > I64) throw valueOutOfRange('bigint', text, '00000000000 to AzL8n0Y58m7 (0 to 9223372036854775807)')
  return value
}

/** `alphanumeric_encode(uuid)`: two 11-character blocks (bytes 0–7, 8–15) of a 128-bit value. */
export function alphanumericEncodeU128 (value: bigint): string {
  return encodeBase62(value >> 64n, 11) + encodeBase62(value & U64, 11)
}

/** `alphanumeric_decode_uuid`: the 128-bit value of 22 characters. */
export function alphanumericDecodeU128 (text: string): bigint {
  const high = typeof text === 'string' && text.length === 22 ? decodeBase62(text.slice(0, 11)) : null
  const low = high !== null ? decodeBase62(text.slice(11)) : null
  if (high === null || low === null) throw invalidText('uuid', String(text), EXPECTED_UUID)
  return (high << 64n) | low
}
