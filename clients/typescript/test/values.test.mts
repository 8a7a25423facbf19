// The value classes beyond the vectors (which tests/conformance checks):
// immutability, order, equality, 64-bit values as bigint, times, errors
// with the extension's SQLSTATEs, and both module systems. No server.
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { test } from 'node:test'
import {
  DistributedId, DistributedId128, FlakeError, FlakeId, FlaxId, Kuid96, Siq, Sno, TYPES, VERSION, kuid64Decode,
  kuid64Encode, kuid64FromParts, parseSnowflake, parseValue, snowflakeFromParts, snowflakeParts
} from 'pg-flake'

const EXAMPLES = {
  sno: 'brpk4q72xwf2m63l',
  siq: 'crxckuyagku7racaaacmgzymuoabo',
  distributed_id: '1088824355131185736905670087',
  flaxid: '17cQYV3E6XowHpdd',
  kuid96: '.5.tXa0xODNvPN.0'
} as const

test('every native type: text and bytes round-trip, values are immutable', () => {
  for (const [type, text] of Object.entries(EXAMPLES) as Array<[keyof typeof EXAMPLES, string]>) {
    const value = parseValue(type, text)
    assert.ok(value instanceof FlakeId && value instanceof TYPES[type])
    assert.equal(value.typeName, type)
    assert.equal(String(value), text)
    assert.equal(JSON.stringify({ id: value }), `{"id":"${text}"}`)
    assert.equal(value.toPostgres(), text)
    const bytes = value.toBytes()
    assert.equal(bytes.length, TYPES[type].LENGTH)
    bytes[0] ^= 0xff // a copy: the value does not change
    assert.ok(TYPES[type].fromBytes(value.toBytes()).equals(value))
    assert.throws(() => { (value as any).x = 1 }, TypeError)
    assert.ok(Object.isFrozen(value))
  }
})

test('order and equality are the bytes\', across the type only', () => {
  const a = Sno.parse('2222222222222222')
  const b = Sno.parse(EXAMPLES.sno)
  assert.equal(a.compareTo(b), -1)
  assert.equal(b.compareTo(a), 1)
  assert.equal(a.compareTo(Sno.fromBytes(a.toBytes())), 0)
  assert.deepEqual([b, a].sort(FlakeId.compare), [a, b])
  assert.ok(!a.equals(a.toString()))
  const flax = FlaxId.parse(EXAMPLES.flaxid)
  assert.ok(!flax.equals(Kuid96.fromBytes(flax.toBytes())), 'same bytes, another type')
  assert.throws(() => a.compareTo(flax as any), TypeError)
})

test('64-bit values are bigints, never numbers', () => {
  const flake = snowflakeFromParts({ time: new Date('2023-11-14T22:13:20.125Z'), worker: 31, process: 1 })
  assert.equal(typeof flake, 'bigint')
  assert.equal(flake, 1174109841526755328n)
  assert.ok(flake > BigInt(Number.MAX_SAFE_INTEGER))
  assert.equal(parseSnowflake('1174109841526755328'), flake)
  assert.equal(snowflakeParts(flake).worker, 31)
  const kuid = kuid64FromParts({ time: 1_700_000_000_123_456n, seq: 5 })
  assert.equal(typeof kuid, 'bigint')
  assert.equal(kuid64Decode(kuid64Encode(kuid)), kuid)
  assert.throws(() => snowflakeParts(123 as any), TypeError)
  assert.equal(typeof DistributedId.parse(EXAMPLES.distributed_id).toBigInt(), 'bigint')
})

test('times: a Date or bigint microseconds in; Date and exact microseconds out', () => {
  const siq = Siq.fromTime(1_700_000_000_123_456n)
  assert.equal(siq.unixMicros, 1_700_000_000_123_443n) // the tick's start
  assert.equal(siq.time.toISOString(), '2023-11-14T22:13:20.123Z')
  assert.throws(() => Sno.fromTime(1_700_000_000_000 as any), /new Date\(ms\)/)
  assert.throws(() => Sno.fromTime(new Date(Number.NaN)), RangeError)
  const kuid = Kuid96.fromTime(new Date('2023-11-14T22:13:20.5Z'))
  assert.equal(kuid.parts().unixMicros, 1_700_000_000_499_712n)
  assert.equal(DistributedId128.fromTime(new Date('2020-01-01T00:00:00Z')).toString(), '092f2a00-ac00-7000-0000-000000000000')
})

test('errors carry the extension\'s SQLSTATE (also as code)', () => {
  const cases: Array<[() => unknown, string]> = [
    [() => Sno.parse('BRPK4Q72XWF2M63L'), '22P02'],
    [() => Sno.fromBytes(new Uint8Array(9)), '22P03'],
    [() => Sno.fromParts({ time: new Date(), meta: 256 }), '22003'],
    [() => Sno.fromTime(new Date('2009-12-31T23:59:59Z')), '22008'],
    [() => Siq.fromParts({ ticks: 0n, kind: 'nope' }), '22023'],
    [() => DistributedId.fromBytes(new Uint8Array(12).fill(0xff)), '22003'],
    [() => Kuid96.fromTime(new Date(), 4), '22023']
  ]
  for (const [call, state] of cases) {
    assert.throws(call, (error: unknown) => error instanceof FlakeError && error.sqlstate === state && error.code === state)
  }
})

test('the CommonJS build gives the same classes\' behaviour', () => {
  const require = createRequire(import.meta.url)
  const cjs = require('pg-flake')
  assert.equal(cjs.VERSION, VERSION)
  assert.equal(cjs.Sno.parse(EXAMPLES.sno).toString(), EXAMPLES.sno)
  assert.equal(typeof require('pg-flake/lease').LeasedGenerator, 'function')
  assert.equal(typeof require('pg-flake/pg').registerTypes, 'function')
  assert.equal(typeof require('pg-flake/prisma').flakeResults, 'function')
})

test('the leased kuid96 fast path builds what fromParts builds', () => {
  for (const interval of [5, 6, 7, 8, 9, 10]) {
    for (const [micros, node, seq] of [[1_700_000_000_123_456n, 4294967295, 16383], [0n, 0, 0], [1_048_575_999_999_999_999n, 4294967040, 7],
      [1_234_567_890_999_424n, 123456789, 1]] as const) {
      const unit = Number(micros / 1_000_000n) * 1024 + Math.floor(Number(micros % 1_000_000n) / 1024)
      const fast = Kuid96.ofUnit(unit, node, interval, seq)
      assert.ok(fast.equals(Kuid96.fromParts({ time: micros, node, seq }, interval)), `${micros} ${node} ${interval}`)
    }
  }
})
