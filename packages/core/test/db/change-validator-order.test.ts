import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import pg from 'pg'
import { createCalendar, type Calendar, type CalendarResponse } from '@cal-events/core'
import { ORIGIN_POINT, type ChangeKind } from '../../src/changes/change-log.js'
import { openDatabase, type DatabaseHandle } from '../../src/db/create-db.js'
import { createChangeValidator, type Check, type ChangeValidator } from '../../src/http/response-cache.js'
import { BACKEND, freshCalendar, querySql, workerDatabaseUrl } from '../../../../test-support/test-db.js'

// The shared change check's ordering (docs/response-cache.md, "Why a kept answer is never stale"):
// two checks in flight, their results taken in number order, check n asking since the latest check
// taken when its statement was sent. Here the checks' statements answer OUT of order: each really
// runs on PostgreSQL, through a host pool (`database: { pool }`) whose clients can hold a check's
// statement before it is sent, or its answer after it came back, until the test lets it go. Nothing
// is mocked: only when the answer reaches the validator is chosen.
// Not on PGlite: its one session runs statements one after the other and answers them in order, so
// checks cannot overlap there (the doc says so).

const VENUES: readonly ChangeKind[] = ['venues']
const NOW = new Date('2026-11-20T12:00:00Z')

interface Deferred<T> {
  promise: Promise<T>
  resolve: (value: T) => void
  reject: (err: unknown) => void
}
function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void
  let reject!: (err: unknown) => void
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)))
  // A gate nobody waits on may be rejected; that is not an unhandled rejection.
  promise.catch(() => {})
  return { promise, resolve, reject }
}

/** What a check's statement came back with: its snapshot, or the database's error. */
type Arrival = { now: string } | { error: unknown }

/** The change checks' statements through one pool, numbered as they are handed to a connection. */
class CheckGates {
  private count = 0
  private readonly slots = new Map<number, { point?: string; sent: Deferred<void>; arrived: Deferred<Arrival>; send?: Deferred<void>; result?: Deferred<void> }>()

  private slot(n: number) {
    let slot = this.slots.get(n)
    if (!slot) this.slots.set(n, (slot = { sent: deferred(), arrived: deferred() }))
    return slot
  }
  /** Statement n is not sent until `send(n)`. */
  holdSend(n: number) {
    this.slot(n).send = deferred()
  }
  send(n: number) {
    this.slot(n).send!.resolve()
  }
  /** Statement n's answer (after it really ran) is not handed back until `answer(n)` or `fail(n)`. */
  holdAnswer(n: number) {
    this.slot(n).result = deferred()
  }
  answer(n: number) {
    this.slot(n).result!.resolve()
  }
  /** The held answer of statement n is lost: the connection errors as the reply comes. */
  fail(n: number, err: Error) {
    this.slot(n).result!.reject(err)
  }
  /** Settles when the validator hands statement n to its connection; with the point it asks since. */
  async sent(n: number): Promise<string> {
    await within(this.slot(n).sent.promise, `statement ${n} sent`)
    return this.slots.get(n)!.point!
  }
  /** Settles when statement n has come back from PostgreSQL (held or not). */
  arrived(n: number): Promise<Arrival> {
    return within(this.slot(n).arrived.promise, `statement ${n} answered`)
  }
  /** Lets every held statement and answer go (after a failed test, so that its pool can end). */
  releaseAll() {
    for (const slot of this.slots.values()) {
      slot.send?.resolve()
      slot.result?.resolve()
    }
  }
  /** Check statements handed to a connection so far. */
  get statements(): number {
    return this.count
  }
  /** The point statement n asked since. */
  point(n: number): string | undefined {
    return this.slots.get(n)?.point
  }

  async around(text: string, values: unknown[] | undefined, run: () => Promise<unknown>): Promise<unknown> {
    const slot = this.slot(++this.count)
    // Sent alone, the check's point is written into its text; named, it is its one parameter.
    slot.point = values?.length ? String(values[0]) : /'(\d+:\d+:[\d,]*)'::pg_snapshot/.exec(text)?.[1]
    slot.sent.resolve()
    await slot.send?.promise
    let result: { rows: { now: string }[] }
    try {
      result = (await run()) as typeof result
    } catch (err) {
      slot.arrived.resolve({ error: err })
      await slot.result?.promise.catch(() => {})
      throw err
    }
    slot.arrived.resolve({ now: result.rows[0]!.now })
    await slot.result?.promise
    return result
  }
}

const isCheck = (text: string) => text.includes('cal_change_horizon h')

/** `pool` whose clients pass the change checks' statements through `gates` (every other statement as it is). */
function gatedPool(pool: pg.Pool, gates: CheckGates): pg.Pool {
  const wrapped = new WeakMap<pg.PoolClient, pg.PoolClient>()
  const wrap = (client: pg.PoolClient): pg.PoolClient => {
    let proxy = wrapped.get(client)
    if (!proxy) {
      proxy = new Proxy(client, {
        get(target, prop) {
          if (prop === 'query') {
            return (config: unknown, ...rest: unknown[]) => {
              const run = () => (target.query as (...args: unknown[]) => Promise<unknown>)(config, ...rest)
              const text = typeof config === 'string' ? config : (config as { text?: unknown } | undefined)?.text
              return typeof text === 'string' && isCheck(text) ? gates.around(text, (config as { values?: unknown[] }).values, run) : run()
            }
          }
          const value: unknown = Reflect.get(target, prop, target)
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value
        },
      })
      wrapped.set(client, proxy)
    }
    return proxy
  }
  return new Proxy(pool, {
    get(target, prop) {
      if (prop === 'connect') return async () => wrap(await target.connect())
      const value: unknown = Reflect.get(target, prop, target)
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value
    },
  })
}

/** `promise`, or a failure naming `what` after `ms` (a bug that hangs fails fast, with a reason). */
function within<T>(promise: Promise<T>, what: string, ms = 5000): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out: ${what}`)), ms)))
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

/** Lets every callback that is ready run (a result held back stays held). */
const turns = () => new Promise((resolve) => setTimeout(resolve, 30))

/** Records, in order, when each of `promises` settles. */
function settleLog(promises: Record<string, Promise<Check>>): string[] {
  const log: string[] = []
  for (const [name, promise] of Object.entries(promises)) promise.then((check) => log.push(`${name} ${check.seq}`), () => log.push(`${name} failed`))
  return log
}

/** The venues' titles as a read now sees them: the "answer" a request would build. */
const venueTitles = async () => (await querySql<{ title: string }>('select title from venues order by id')).map((r) => r.title).join('|')

describe.skipIf(BACKEND !== 'postgres')('change checks answered out of order (postgres)', () => {
  let plain: Calendar
  const opened: { pool: pg.Pool; gates: CheckGates; handle?: DatabaseHandle; calendar?: Calendar }[] = []

  beforeAll(async () => {
    // Migrates and empties the worker's database; also the cache-off calendar of the last test.
    plain = await freshCalendar({ responseCache: false, now: () => NOW })
  })
  afterEach(async () => {
    for (const { pool, gates, handle, calendar } of opened.splice(0)) {
      gates.releaseAll()
      await calendar?.close()
      await handle?.close()
      await pool.end()
    }
    await querySql('truncate venues restart identity cascade')
  })
  afterAll(async () => {
    await plain?.close()
  })

  async function rawPool(options: pg.PoolConfig = {}): Promise<pg.Pool> {
    const pool = new pg.Pool({ connectionString: await workerDatabaseUrl(), max: 6, ...options })
    // As pg asks of every host: an idle client that breaks emits 'error' on the pool, which unheard fails the run.
    pool.on('error', () => {})
    return pool
  }

  /** A validator on the worker's database, as a calendar on a host pool makes it, its statements through `gates`. */
  async function gatedValidator(options: pg.PoolConfig = {}): Promise<{ validator: ChangeValidator; gates: CheckGates; pool: pg.Pool; changes: [number, readonly ChangeKind[] | 'all'][] }> {
    const gates = new CheckGates()
    const pool = await rawPool(options)
    const handle = await openDatabase({ pool: gatedPool(pool, gates) })
    opened.push({ pool, gates, handle })
    const validator = createChangeValidator(handle.db, false, handle.qualifiedSchema)
    const changes: [number, readonly ChangeKind[] | 'all'][] = []
    validator.onChange((through, changed) => changes.push([through, changed]))
    return { validator, gates, pool, changes }
  }

  it('takes the results in number order when check 2 answers before check 1', async () => {
    const { validator, gates, changes } = await gatedValidator()
    gates.holdAnswer(1)
    // Two requests arriving together share check 1.
    const one = validator.next()
    const oneAgain = validator.next()
    expect(oneAgain).toBe(one)
    expect(await gates.sent(1)).toBe(ORIGIN_POINT)
    const g1 = await gates.arrived(1)
    // A request arriving once check 1's statement is out gets check 2, sent at once (two in flight).
    const two = validator.next()
    expect(two).not.toBe(one)
    const log = settleLog({ one, oneAgain, two })
    // Nothing was taken when it was sent: it asks since the origin too.
    expect(await gates.sent(2)).toBe(ORIGIN_POINT)
    const g2 = await gates.arrived(2)
    await turns()
    // Check 2 answered, check 1 did not: nobody is answered yet, nothing is counted.
    expect(log).toEqual([])
    expect(validator.checks()).toBe(0)
    expect(validator.staleThrough()).toBe(0)
    // Check 3, sent now (check 2 is done with its connection), still asks since the latest check
    // TAKEN, none: not since check 2's snapshot, answered but not taken. (Asking since that one
    // would be safe too by the doc's argument; this is the documented choice.)
    const three = validator.next()
    const log3 = settleLog({ three })
    expect(await gates.sent(3)).toBe(ORIGIN_POINT)
    await gates.arrived(3)
    await turns()
    expect([...log, ...log3]).toEqual([])

    gates.answer(1)
    const [c1, c2, c3] = await within(Promise.all([one, two, three]), 'checks 1 to 3')
    await turns()
    expect(log).toEqual(['one 1', 'oneAgain 1', 'two 2'])
    expect(log3).toEqual(['three 3'])
    expect([c1.point, c2.point]).toEqual([(g1 as { now: string }).now, (g2 as { now: string }).now])
    expect(validator.checks()).toBe(3)
    // All three asked since the origin, which always counts as a change: through 0, 1, then 2.
    expect(changes.map(([through]) => through)).toEqual([0, 1, 2])
    expect(validator.staleThrough(VENUES)).toBe(2)

    // The next asks since the latest taken: check 3's snapshot.
    const c4 = await within(validator.next(), 'check 4')
    expect(c4.seq).toBe(4)
    expect(gates.point(4)).toBe(c3.point)
    expect(validator.checks()).toBe(4)
  })

  it('sends check 3 while check 2 is held, asking since check 1, the latest taken', async () => {
    const { validator, gates } = await gatedValidator()
    const c1 = await validator.next()
    gates.holdAnswer(2)
    const two = validator.next()
    await gates.arrived(2)
    const three = validator.next()
    // Sent and answered without waiting for check 2's answer, since the point of check 1.
    expect(await gates.sent(3)).toBe(c1.point)
    await gates.arrived(3)
    const log = settleLog({ two, three })
    await turns()
    expect(log).toEqual([])
    gates.answer(2)
    await within(Promise.all([two, three]), 'checks 2 and 3')
    await turns()
    expect(log).toEqual(['two 2', 'three 3'])
    expect(validator.checks()).toBe(3)
    // Nothing was written: neither check 2 nor check 3 found a change since check 1.
    expect(validator.staleThrough()).toBe(0)
  })

  // An answer with base b read after check b was taken; it may be served after a later check n
  // only while base > staleThrough(its kinds); if so it must be what a read after n sees.
  async function expectNoStaleServed(validator: ChangeValidator, answers: { base: number; titles: string }[]) {
    const served = await within(validator.next(), 'the serving check')
    const truth = await venueTitles()
    for (const answer of answers) {
      if (answer.base > validator.staleThrough(VENUES)) expect({ base: answer.base, titles: answer.titles, served: served.seq }).toEqual({ base: answer.base, titles: truth, served: served.seq })
    }
  }

  it('drops the answers of the check taken before an out-of-order check that found a write (check 3 asks since 1, the write lands after 2)', async () => {
    const { validator, gates, changes } = await gatedValidator()
    await querySql(`insert into venues (title, status, date_utc, modified_utc, city) values ('Hall', 'publish', now(), now(), 'Leeds')`)
    const c1 = await validator.next()
    const answers = [{ base: 1, titles: await venueTitles() }]
    gates.holdAnswer(2)
    gates.holdSend(3)
    const two = validator.next()
    await gates.arrived(2)
    // Check 3 is on its way before check 2 is taken: it asks since check 1.
    const three = validator.next()
    expect(await gates.sent(3)).toBe(c1.point)
    gates.answer(2)
    const c2 = await within(two, 'check 2')
    // A request that waited for check 2 reads now, at a snapshot after check 2's.
    answers.push({ base: c2.seq, titles: await venueTitles() })
    // A write by raw SQL, committed after that read and before check 3's statement runs.
    await querySql(`update venues set title = 'Hall (renamed)' where title = 'Hall'`)
    gates.send(3)
    const c3 = await within(three, 'check 3')
    answers.push({ base: c3.seq, titles: await venueTitles() })
    // Check 3 found the write since check 1: every answer on check 2's snapshot or before may miss it.
    expect(validator.staleThrough(VENUES)).toBe(2)
    expect(validator.staleThrough(['organizers'])).toBe(0)
    expect(changes).toEqual([
      [0, 'all'],
      [2, ['venues']],
    ])
    await expectNoStaleServed(validator, answers)
  })

  // Check 2's answer is held and check 3 answers first; the write lands before check 2's
  // statement, between the two, or after both (then check 4, sent after, finds it).
  for (const lands of ['before check 2', 'between checks 2 and 3', 'after check 3'] as const) {
    it(`covers every answer that could miss a write landing ${lands}, whichever check finds it`, async () => {
      const { validator, gates, changes } = await gatedValidator()
      const write = () => querySql(`insert into venues (title, status, date_utc, modified_utc, city) values ('Annex', 'publish', now(), now(), 'York')`)
      const c1 = await validator.next()
      const answers = [{ base: 1, titles: await venueTitles() }]
      gates.holdAnswer(2)
      if (lands === 'before check 2') await write()
      const two = validator.next()
      await gates.arrived(2)
      if (lands === 'between checks 2 and 3') await write()
      const three = validator.next()
      expect(await gates.sent(3)).toBe(c1.point)
      await gates.arrived(3)
      if (lands === 'after check 3') await write()
      // Answers are read as soon as their check is taken (check 3 right after check 2).
      const reads = [two, three].map((check) => check.then(async (c) => ({ base: c.seq, titles: await venueTitles() })))
      gates.answer(2)
      answers.push(...(await within(Promise.all(reads), 'answers on checks 2 and 3')))
      await expectNoStaleServed(validator, answers)
      // The listeners hear of changes in increasing order, whichever statement answered first.
      const throughs = changes.map(([through]) => through)
      expect(throughs).toEqual([...throughs].sort((a, b) => a - b))
      expect(new Set(throughs).size).toBe(throughs.length)
      expect(validator.staleThrough(VENUES)).toBe({ 'before check 2': 2, 'between checks 2 and 3': 2, 'after check 3': 3 }[lands])
    })
  }

  it('rejects only the waiters of a check whose answer is lost, after the earlier ones and before the later ones', async () => {
    const { validator, gates } = await gatedValidator()
    const c1 = await validator.next()
    gates.holdAnswer(2)
    const two = validator.next()
    const twoAgain = validator.next()
    await gates.arrived(2)
    const three = validator.next()
    expect(await gates.sent(3)).toBe(c1.point)
    await gates.arrived(3)
    const log = settleLog({ two, twoAgain, three })
    await turns()
    expect(log).toEqual([])
    gates.fail(2, new Error('Connection terminated unexpectedly'))
    await expect(within(two, 'check 2')).rejects.toThrow('Connection terminated unexpectedly')
    const c3 = await within(three, 'check 3')
    await turns()
    expect(log).toEqual(['two failed', 'twoAgain failed', 'three 3'])
    expect(validator.checks()).toBe(2)
    // The next starts afresh, since the latest check taken (3).
    const c4 = await within(validator.next(), 'check 4')
    expect([c4.seq, gates.point(4)]).toEqual([4, c3.point])
  })

  it('holds a check PostgreSQL failed until the check before it is taken, and asks on since the latest taken', async () => {
    const { validator, gates } = await gatedValidator()
    const blocker = new pg.Client({ connectionString: await workerDatabaseUrl(), application_name: 'test-blocker' })
    await blocker.connect()
    try {
      const c1 = await validator.next()
      gates.holdAnswer(2)
      const two = validator.next()
      await gates.arrived(2)
      // Check 3 waits for a lock in PostgreSQL and is cancelled there: a real error of the database.
      await blocker.query('begin; lock table cal_events.cal_change_horizon in access exclusive mode')
      const three = validator.next()
      expect(await gates.sent(3)).toBe(c1.point)
      let cancelled = 0
      for (let i = 0; i < 250 && cancelled === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20))
        cancelled = (await blocker.query<{ n: number }>(`select count(pg_cancel_backend(pid))::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock' and query like '%cal_change_horizon h%' and pid <> pg_backend_pid()`)).rows[0]!.n
      }
      expect(cancelled).toBe(1)
      const arrival = await gates.arrived(3)
      expect(String((arrival as { error: unknown }).error)).toMatch(/cancel/)
      await blocker.query('rollback')
      // Sent while check 2 is still held and check 3 failed: since check 1 still.
      const four = validator.next()
      expect(await gates.sent(4)).toBe(c1.point)
      await gates.arrived(4)
      const log = settleLog({ two, three, four })
      await turns()
      expect(log).toEqual([])
      gates.answer(2)
      await within(Promise.allSettled([two, three, four]), 'checks 2 to 4')
      await turns()
      expect(log).toEqual(['two 2', 'three failed', 'four 4'])
      expect(validator.checks()).toBe(3)
      const c5 = await within(validator.next(), 'check 5')
      expect([c5.seq, gates.point(5)]).toEqual([5, (await four).point])
    } finally {
      await blocker.query('rollback').catch(() => {})
      await blocker.end()
    }
  })

  it('starts a new check after one that never got a connection, for the requests that arrive after it failed', async () => {
    const { validator, gates, pool } = await gatedValidator({ max: 2, connectionTimeoutMillis: 200 })
    const c1 = await validator.next()
    // Every connection of the pool taken: the next check waits for one, and gives up.
    const held = await Promise.all([pool.connect(), pool.connect()])
    const failing = validator.next()
    const joined = validator.next()
    expect(joined).toBe(failing)
    try {
      await expect(within(failing, 'the check without a connection')).rejects.toThrow(/timeout/i)
      await expect(joined).rejects.toThrow(/timeout/i)
    } finally {
      for (const client of held) client.release()
    }
    const after = validator.next()
    expect(after).not.toBe(failing)
    const c3 = await within(after, 'the check after the failed one')
    await turns()
    // Numbered 3 (the failed one was 2), asking since check 1: the second statement sent, and the
    // last. The failed check is not sent again behind its requests' backs: with the database away
    // that would double the attempts, each holding one of the two places in flight.
    expect(c3.seq).toBe(3)
    expect(gates.point(2)).toBe(c1.point)
    expect(gates.statements).toBe(2)
    expect(validator.checks()).toBe(2)
  })

  it('sends a check once when the check before it ends while it still waits for a connection', async () => {
    const { validator, gates, pool } = await gatedValidator({ max: 2 })
    const c1 = await within(validator.next(), 'check 1')
    // One of the pool's two connections taken: check 2 gets the other, and check 3 must wait.
    const held = await pool.connect()
    try {
      gates.holdAnswer(2)
      const two = validator.next()
      await gates.arrived(2)
      const three = validator.next()
      const joined = validator.next()
      expect(joined).toBe(three)
      await turns()
      expect(gates.statements).toBe(2)
      // Check 2 ends while check 3 still waits: check 3 gets its connection and is sent, once.
      gates.answer(2)
      const [c2, c3] = await within(Promise.all([two, three]), 'checks 2 and 3')
      expect([c2.seq, c3.seq]).toEqual([2, 3])
      expect(gates.point(3)).toBe(c1.point)
    } finally {
      held.release()
    }
    await turns()
    // Started a second time (it was, once: its place in flight was given back while it still
    // waited, so the end of check 2 started it again), it would send a fourth statement once the
    // held connection came back, numbered 4, behind its requests' backs.
    expect(gates.statements).toBe(3)
    const c4 = await within(validator.next(), 'check 4')
    expect(c4.seq).toBe(4)
  })

  it('serves no kept answer after a raw write an out-of-order later check found (a calendar on the gated pool)', async () => {
    const gates = new CheckGates()
    const pool = await rawPool()
    const calendar = await createCalendar({ database: { pool: gatedPool(pool, gates) }, migrate: false, now: () => NOW })
    opened.push({ pool, gates, calendar })
    const [hall] = await querySql<{ id: number }>(`insert into venues (title, status, date_utc, modified_utc, city) values ('Hall', 'publish', now(), now(), 'Leeds') returning id`)
    const get = (target: Calendar, path: string): Promise<CalendarResponse> =>
      target.handle({ method: 'GET', path: `/cal/events/v1${path}`, query: '', headers: {}, origin: 'http://cal.test' })
    const item = `/venues/${hall!.id}`
    const other = '/venues'
    // First sightings cost no check; the second request of `other` waits for check 1.
    await get(calendar, item)
    await get(calendar, other)
    await get(calendar, other)
    expect(await gates.sent(1)).toBe(ORIGIN_POINT)
    const c1Point = (await gates.arrived(1)) as { now: string }

    gates.holdAnswer(2)
    gates.holdSend(3)
    // The item's second request waits for check 2 (held), then reads and keeps its answer on it.
    const kept = get(calendar, item)
    await gates.arrived(2)
    // Another request meanwhile gets check 3, sent while check 2 is in flight: since check 1.
    const meanwhile = get(calendar, other)
    expect(await gates.sent(3)).toBe(c1Point.now)
    gates.answer(2)
    expect((await within(kept, 'the answer kept on check 2')).status).toBe(200)
    // The venue renamed by raw SQL after that answer was read, before check 3's statement.
    await querySql(`update venues set title = 'Hall (renamed)' where id = ${hall!.id}`)
    gates.send(3)
    expect((await within(meanwhile, 'the request on check 3')).status).toBe(200)

    // A request arriving now waits for check 4 (since check 3: nothing new); check 3 found the
    // rename, so the answer kept on check 2 must not be served.
    const after = await within(get(calendar, item), 'the read after the write')
    const truth = await get(plain, item)
    expect((after.body as { venue: string }).venue).toBe('Hall (renamed)')
    expect(after.text ?? JSON.stringify(after.body)).toBe(truth.text ?? JSON.stringify(truth.body))
    expect(after.headers.ETag).toBe(truth.headers.ETag)
    // Kept again on check 4, and served from the cache: still the cache-off answer.
    const again = await within(get(calendar, item), 'the hit')
    expect(again.text ?? JSON.stringify(again.body)).toBe(truth.text ?? JSON.stringify(truth.body))
  })
})
