// The leased generator without a database (a stand-in LeaseSource and a
// monotonic clock the test moves), as python/tests/test_lease.py does for
// the Python one: whole units inside the window, renewal timing, the end of
// the window, clock steps at renewal, used-up units, release, and a
// generator that will not leave its isolate or process.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Kuid96, Siq, Sno, snowflakeParts } from 'pg-flake'
import {
  LeaseClockBehind, LeasedGenerator, LeaseError, LeaseExpired, LeaseForked, LeaseWouldWait,
  type Lease, type LeaseSource, type LeasedFormatName
} from 'pg-flake/lease'

const T0 = 1_700_000_000_000_000n // µs: the database's time when the lease arrives

function row (format: LeasedFormatName, fields: Partial<Lease> = {}): Lease {
  return {
    leaseId: 7n, format, node: format === 'kuid96' ? 4294967040 : 31, process: 2,
    notBefore: T0, expires: T0 + 10_000_000n, serverTime: T0,
    epochMs: format === 'snowflake' ? 1420070400000n : null, kuidInterval: format === 'kuid96' ? 8 : null,
    ...fields
  }
}

/** A source whose renewals answer what the test says; it records the calls. */
class FakeSource implements LeaseSource {
  renewals: Array<Lease | Error> = []
  calls: string[] = []
  released: Array<bigint | null> = []
  async lease (format: LeasedFormatName): Promise<Lease> { this.calls.push('lease'); return row(format) }
  async renew (leaseId: bigint): Promise<Lease> {
    this.calls.push(`renew ${leaseId}`)
    const next = this.renewals.shift()
    if (next === undefined) throw Object.assign(new LeaseError('no renewal scripted'), { sqlstate: '08006' })
    if (next instanceof Error) throw next
    return next
  }

  async release (_id: bigint, lastUsed: bigint | null): Promise<boolean> { this.released.push(lastUsed); return true }
}

/** A clock the test moves (milliseconds). */
function fakeClock (): { now: () => number, advance: (ms: number) => void } {
  let t = 1000
  return { now: () => t, advance: (ms) => { t += ms } }
}

function generator<Id> (format: LeasedFormatName, fields: Partial<Lease> = {}, ttlMs = 10_000) {
  const clock = fakeClock()
  const source = new FakeSource()
  const gen = new LeasedGenerator<Id>(source, row(format, fields), ttlMs, { monotonicMs: clock.now }, clock.now())
  return { gen, clock, source }
}

test('waits for not_before and uses only whole units inside the window', () => {
  // not_before inside a 4 ms sno unit: the first unit is the next one.
  const { gen, clock } = generator<Sno>('sno', { notBefore: T0 + 2_001n })
  let wait = 0
  assert.throws(() => gen.generate(), (e: unknown) => e instanceof LeaseWouldWait && (wait = e.waitMs) > 1.9)
  clock.advance(wait)
  const id = gen.generate()
  assert.ok(id.unixMicros >= T0 + 2_001n)
  assert.equal(id.partition, (31 << 8) | 2)
})

test('stops at the end of the window when renewal fails, never an ID past it', async () => {
  for (const format of ['sno', 'snowflake', 'kuid96', 'siq'] as const) {
    const { gen, clock, source } = generator<unknown>(format, {}, 10_000)
    source.renewals.push(Object.assign(new LeaseError('expired'), { sqlstate: '55000' }))
    await gen.renew() // a final refusal: no more tries, the window still holds
    assert.equal((gen.renewError as LeaseError).sqlstate, '55000')
    const limit = Number(T0) + 10_000_000 - 1_000_000 // expires minus the safety margin
    let last = 0
    for (;;) {
      let id: unknown
      try {
        id = gen.generate()
      } catch (error) {
        assert.ok(error instanceof LeaseExpired, `${format}: ${String(error)}`)
        break
      }
      last = Number(timeOf(id))
      clock.advance(0.5)
    }
    assert.ok(last < limit, `${format}: last ID at ${last}, limit ${limit}`)
    assert.ok(gen.nowMicros() >= limit - 1_100, `${format}: stopped early`)
    assert.throws(() => gen.generate(), LeaseExpired) // final
  }
})

function timeOf (id: unknown): bigint {
  if (typeof id === 'bigint') return snowflakeParts(id).unixMicros
  if (id instanceof Kuid96) return id.parts(8).unixMicros
  return (id as Sno | Siq).unixMicros
}

test('renews halfway to expires minus the safety margin, and the window grows', async () => {
  const { gen, clock, source } = generator<Sno>('sno')
  // Due at (limit - now) / 2 = 4.5 s after the lease arrived.
  source.renewals.push(row('sno', { expires: T0 + 30_000_000n, serverTime: T0 + 4_600_000n }))
  clock.advance(4_600)
  await gen.renew()
  assert.equal(source.calls.length, 1)
  assert.equal(gen.lease.expires, T0 + 30_000_000n)
  clock.advance(20_000) // past the first window: the renewed one holds
  assert.ok(gen.generate() instanceof Sno)
})

test('a renewal failure that is not final is retried and recovers', async () => {
  const { gen, source } = generator<Sno>('sno')
  source.renewals.push(Object.assign(new LeaseError('connection lost'), { sqlstate: '08006' }))
  await gen.renew()
  assert.ok(gen.renewError instanceof LeaseError)
  source.renewals.push(row('sno', { expires: T0 + 30_000_000n }))
  await gen.renew()
  assert.equal(gen.renewError, undefined)
  assert.equal(gen.lease.expires, T0 + 30_000_000n)
})

test('a renewal answered with another lease is refused, and the generator stops at its window', async () => {
  const { gen, source } = generator<Sno>('sno')
  source.renewals.push(row('sno', { leaseId: 8n, expires: T0 + 60_000_000n }))
  await gen.renew()
  assert.match(String(gen.renewError), /another lease/)
  assert.equal(gen.lease.expires, T0 + 10_000_000n)
})

test('a renewal that moves the clock back never repeats an ID; a minute back refuses', async () => {
  const { gen, clock, source } = generator<Sno>('sno', { expires: T0 + 600_000_000n }, 600_000)
  const seen = new Set<string>()
  for (let i = 0; i < 1000; i++) { seen.add(String(gen.generate())); clock.advance(0.01) }
  clock.advance(2_000)
  for (let i = 0; i < 1000; i++) seen.add(String(gen.generate()))
  // The database's clock stepped back 1.5 s: go on after the last ID, ahead of the clock.
  source.renewals.push(row('sno', { expires: T0 + 600_000_000n, serverTime: T0 + 500_000n }))
  await gen.renew()
  for (let i = 0; i < 70_000; i++) seen.add(String(gen.generate())) // past a unit's 65536
  assert.equal(seen.size, 72_000)
  // Stepped back two minutes: the next ID would be more than a minute ahead.
  source.renewals.push(row('sno', { expires: T0 + 600_000_000n, serverTime: T0 - 120_000_000n }))
  await gen.renew()
  assert.throws(() => gen.generate(), LeaseClockBehind)
  clock.advance(65_000)
  assert.ok(!seen.has(String(gen.generate())))
})

test('a used-up unit goes on in the next one, ahead of the clock, inside the window', () => {
  for (const [format, perUnit] of [['snowflake', 4096], ['kuid96', 16384], ['sno', 65536]] as const) {
    const { gen } = generator<unknown>(format)
    const ids = new Set<string>()
    for (let i = 0; i < perUnit + 10; i++) ids.add(String(gen.generate()))
    assert.equal(ids.size, perUnit + 10, format)
  }
})

test('siq serials are per kind, and kind is for siq only', () => {
  const { gen } = generator<Siq>('siq')
  const user = gen.generate()
  const message = gen.generate('message')
  assert.equal(user.kind, 'user')
  assert.equal(message.kind, 'message')
  assert.equal(message.serial, 0)
  assert.equal(message.domainHash >>> 24, 31) // the node in the top byte
  assert.equal(message.shard, 2) // the process
  assert.throws(() => gen.generate('nope' as any), (e: any) => e.sqlstate === '22023')
  const sno = generator<Sno>('sno').gen
  assert.throws(() => sno.generate('user'), TypeError)
})

test('a released generator refuses and reports its last use', async () => {
  const { gen, source } = generator<Sno>('sno')
  const id = gen.generate()
  assert.equal(await gen.release(), true)
  assert.deepEqual(source.released, [id.unixMicros])
  assert.throws(() => gen.generate(), /released/)
  assert.equal(await gen.release(), false)
})

test('a generator stays in its isolate and its process', () => {
  const { gen } = generator<Sno>('sno')
  assert.throws(() => structuredClone(gen), (e: any) => e.name === 'DataCloneError')
  // A process that did not take the lease (one started from a V8 startup
  // snapshot of the one that did) is refused.
  const pid = process.pid
  Object.defineProperty(process, 'pid', { value: pid + 1, configurable: true, writable: true })
  try {
    assert.throws(() => gen.generate(), LeaseForked)
  } finally {
    Object.defineProperty(process, 'pid', { value: pid, configurable: true, writable: true })
  }
  assert.ok(gen.generate() instanceof Sno)
})
