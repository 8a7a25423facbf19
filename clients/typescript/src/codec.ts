// Bytes, hexadecimal and the "number in a fixed-width alphabet" text forms
// of sno, flaxid and the kuids: the big-endian bits cut into 5- or 6-bit
// groups, most significant first, zero-padded at the end. Decoding is
// strict (exact length, alphabet only, padding bits zero), so every accepted
// text is canonical (core/src/codec.rs).

export class Alphabet {
  readonly chars: string
  readonly bits: number
  readonly #values: Int8Array

  constructor (chars: string) {
    this.chars = chars
    this.bits = chars.length === 32 ? 5 : 6
    this.#values = new Int8Array(128).fill(-1)
    for (let i = 0; i < chars.length; i++) this.#values[chars.charCodeAt(i)] = i
  }

  /** `length` characters of the bytes' bits, zero-padded at the end. */
  encode (bytes: Uint8Array, length: number): string {
    const bits = this.bits
    const mask = (1 << bits) - 1
    let acc = 0
    let held = 0
    let out = ''
    for (let i = 0; i < bytes.length; i++) {
      acc = ((acc << 8) | bytes[i]) & 0xffff
      held += 8
      while (held >= bits) {
        held -= bits
        out += this.chars[(acc >> held) & mask]
      }
    }
    if (held > 0) out += this.chars[(acc << (bits - held)) & mask]
    return out.length === length ? out : out.padEnd(length, this.chars[0])
  }

  /** The `byteLength` bytes of exactly `length` characters, or null if not canonical. */
  decode (text: string, length: number, byteLength: number): Uint8Array | null {
    if (text.length !== length) return null
    const bits = this.bits
    const out = new Uint8Array(byteLength)
    let acc = 0
    let held = 0
    let at = 0
    for (let i = 0; i < length; i++) {
      const c = text.charCodeAt(i)
      const v = c < 128 ? this.#values[c] : -1
      if (v < 0) return null
      acc = ((acc << bits) | v) & 0xffff
      held += bits
      if (held >= 8) {
        held -= 8
        if (at === byteLength) return null
        out[at++] = (acc >> held) & 0xff
      }
    }
    // What is left are padding bits, which must be zero.
    if (at !== byteLength || (acc & ((1 << held) - 1)) !== 0) return null
    return out
  }
}

const HEX = '0123456789abcdef'

export function toHex (bytes: Uint8Array): string {
  let out = ''
  for (let i = 0; i < bytes.length; i++) out += HEX[bytes[i] >> 4] + HEX[bytes[i] & 15]
  return out
}

export function isHex (text: string): boolean {
  return /^[0-9a-fA-F]*$/.test(text)
}

/** The bytes of an even number of hexadecimal digits (checked by the caller). */
export function fromHex (text: string): Uint8Array {
  const out = new Uint8Array(text.length >> 1)
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.substr(2 * i, 2), 16)
  return out
}

export function bigIntOf (bytes: Uint8Array): bigint {
  return bytes.length === 0 ? 0n : BigInt('0x' + toHex(bytes))
}

/** The low `length` bytes of a non-negative bigint, big-endian. */
export function bytesOf (value: bigint, length: number): Uint8Array {
  const out = new Uint8Array(length)
  for (let i = length - 1; i >= 0; i--, value >>= 8n) out[i] = Number(value & 0xffn)
  return out
}

/** The bytes a caller gave: a Uint8Array (a Buffer is one), copied. */
export function bytesArg (bytes: unknown, what: string): Uint8Array {
  if (!(bytes instanceof Uint8Array)) {
    throw new TypeError(`${what} takes a Uint8Array (or Buffer), not ${bytes === null ? 'null' : typeof bytes}`)
  }
  return Uint8Array.prototype.slice.call(bytes)
}
