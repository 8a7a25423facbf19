// Public identities (Architect.Identities 2.1.1): an internal ID becomes a
// 128-bit public identifier through AES in ECB mode over one 16-byte block,
// without padding, under a 16-, 24- or 32-byte key; the ciphertext is read
// as a .NET Guid, whose first three fields are little-endian
// (docs/sql-reference.md, "Public identities"; reference implementation
// core/src/formats/public_id.rs). Deterministic and unauthenticated, as there.

import { createCipheriv, createDecipheriv } from 'node:crypto'
import { bigIntOf, bytesOf } from './codec.js'
import { invalidParameter, valueOutOfRange } from './errors.js'
import { DistributedId } from './distributed-id.js'
import { DistributedId128 } from './distributed-id128.js'

const KEY_LENGTHS = '16, 24 or 32 bytes (AES-128, AES-192, AES-256)'
const I64 = (1n << 63n) - 1n

function guidByteOrder (b: Uint8Array): Uint8Array {
  const order = [3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15]
  return Uint8Array.from(order, (i) => b[i])
}

function littleEndian (value: bigint, length: number): Uint8Array {
  return bytesOf(value, length).reverse()
}

/** An AES key for public IDs (`pg_flake.public_id_key`); never shown in errors. */
export class PublicIdKey {
  readonly #key: Buffer

  /** A key of 16, 24 or 32 bytes; any other length is 22023. */
  constructor (key: Uint8Array) {
    if (!(key instanceof Uint8Array) || ![16, 24, 32].includes(key.length)) {
      throw invalidParameter(`public id key must be ${KEY_LENGTHS}, got ${key instanceof Uint8Array ? key.length : 0} bytes`)
    }
    this.#key = Buffer.from(key)
    Object.freeze(this)
  }

  /** A key from its standard base64 text (with = padding). */
  static fromBase64 (text: string): PublicIdKey {
    if (typeof text !== 'string' || !/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text) ||
      Buffer.from(Buffer.from(text, 'base64').toString('base64')).toString() !== text) {
      throw invalidParameter(`public id key must be standard base64 (with = padding) of ${KEY_LENGTHS}`)
    }
    return new PublicIdKey(Buffer.from(text, 'base64'))
  }

  get bits (): number { return this.#key.length * 8 }

  #encrypt (plaintext: Uint8Array): DistributedId128 {
    const cipher = createCipheriv(`aes-${this.bits}-ecb`, this.#key, null).setAutoPadding(false)
    const block = Buffer.concat([cipher.update(plaintext), cipher.final()])
    return DistributedId128.fromBytes(guidByteOrder(block))
  }

  #decrypt (publicId: DistributedId128): Uint8Array {
    const decipher = createDecipheriv(`aes-${this.bits}-ecb`, this.#key, null).setAutoPadding(false)
    return new Uint8Array(Buffer.concat([decipher.update(guidByteOrder(publicId.toBytes())), decipher.final()]))
  }

  /** `public_id_encrypt(bigint)`: 8 zero bytes, then the value little-endian; negative is 22003. */
  encryptBigint (value: bigint): DistributedId128 {
    if (typeof value !== 'bigint') throw new TypeError('encryptBigint() takes a bigint')
    if (value < 0n || value > I64) throw valueOutOfRange('bigint', String(value), '0 to 9223372036854775807')
    const plaintext = new Uint8Array(16)
    plaintext.set(littleEndian(value, 8), 8)
    return this.#encrypt(plaintext)
  }

  /** `public_id_encrypt(distributed_id)`: the .NET decimal layout (flags 0, hi, lo, mid, each little-endian). */
  encryptDistributedId (id: DistributedId): DistributedId128 {
    const value = id.toBigInt()
    const plaintext = new Uint8Array(16)
    plaintext.set(littleEndian(value >> 64n, 4), 4)
    plaintext.set(littleEndian(value & 0xffffffffn, 4), 8)
    plaintext.set(littleEndian((value >> 32n) & 0xffffffffn, 4), 12)
    return this.#encrypt(plaintext)
  }

  /** `public_id_encrypt(uuid)`: the uuid's 16 bytes in order. */
  encryptUuid (uuid: DistributedId128): DistributedId128 {
    return this.#encrypt(uuid.toBytes())
  }

  /** `public_id_decrypt_bigint`: null unless the first 8 plaintext bytes are zero and the value fits. */
  decryptBigint (publicId: DistributedId128): bigint | null {
    const p = this.#decrypt(publicId)
    if (p.subarray(0, 8).some((b) => b !== 0)) return null
    const value = bigIntOf(p.slice(8).reverse())
    return value <= I64 ? value : null
  }

  /** `public_id_decrypt_distributed_id`: null unless the first 4 bytes are zero and the value is at most 10^28 − 1. */
  decryptDistributedId (publicId: DistributedId128): DistributedId | null {
    const p = this.#decrypt(publicId)
    if (p.subarray(0, 4).some((b) => b !== 0)) return null
    const word = (at: number): bigint => bigIntOf(p.slice(at, at + 4).reverse())
    const value = (word(4) << 64n) | (word(12) << 32n) | word(8)
    return value <= 10n ** 28n - 1n ? DistributedId.fromBigInt(value) : null
  }

  /** `public_id_decrypt_uuid`: always a value. */
  decryptUuid (publicId: DistributedId128): DistributedId128 {
    return DistributedId128.fromBytes(this.#decrypt(publicId))
  }
}
