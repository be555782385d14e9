import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCalendar, type Calendar, type EventResource } from '@cal-events/core'
import { startPrivatePostgres, type PrivatePostgres } from '../../../../test-support/private-postgres.js'
import { startServer, type TestServer } from '../../../../test-support/http.js'

// Issue 15 item 10: a connection lost while COMMIT runs leaves the outcome unknown to the client.
// The calendar asks PostgreSQL (pg_xact_status) on a fresh connection: a write that committed is
// answered as a success, never as a 503 that invites a duplicating retry.
//
// How COMMIT is caught in the act, on a private server only: synchronous replication to a standby
// that never comes. Transactions that wrote `events` ask for it (a trigger sets synchronous_commit
// locally; everything else commits at once); their COMMIT is then durable locally and waits for
// the standby, and a watcher terminates every backend found waiting. PostgreSQL reports such a
// transaction as committed. Control: a deferred trigger that sleeps at COMMIT, terminated the same
// way before the commit happens: those writes are aborted and must stay 503s.

const dates = { start_date: '2031-05-01 10:00:00', end_date: '2031-05-01 11:00:00' }

describe('connection lost during COMMIT (private PostgreSQL)', () => {
  let postgres: PrivatePostgres
  let calendar: Calendar
  let server: TestServer
  let token: string
  let watcher: ReturnType<typeof setInterval> | undefined
  let terminated = 0

  const count = async (title: string) =>
    Number((await postgres.query<{ n: string }>('select count(*) as n from cal_events.events where title = $1', [title]))[0]!.n)

  /** Terminates, every 30 ms, each backend that waits in `waitEvent`. */
  function watch(waitEvent: 'SyncRep' | 'PgSleep') {
    stopWatching()
    watcher = setInterval(() => {
      postgres
        .query<{ ended: boolean }>(
          `select pg_terminate_backend(pid) as ended from pg_stat_activity where wait_event = $1 and pid <> pg_backend_pid()`,
          [waitEvent],
        )
        .then((rows) => (terminated += rows.filter((r) => r.ended).length))
        .catch(() => {})
    }, 30)
  }
  function stopWatching() {
    if (watcher) clearInterval(watcher)
    watcher = undefined
  }

  beforeAll(async () => {
    postgres = await startPrivatePostgres()
    calendar = await createCalendar({ database: { url: postgres.url } })
    server = await startServer(calendar)
    token = (await calendar.tokens.create({ role: 'administrator', login: 'root' })).token
    await postgres.query(`alter system set synchronous_standby_names = 'nobody'`)
    await postgres.query(`alter system set synchronous_commit = 'local'`)
    await postgres.query('select pg_reload_conf()')
    await postgres.query(`create function cal_events.test_wait_for_standby() returns trigger language plpgsql as $$
      begin perform set_config('synchronous_commit', 'on', true); return null; end $$`)
    await postgres.query(`create function cal_events.test_sleep_at_commit() returns trigger language plpgsql as $$
      begin perform pg_sleep(30); return null; end $$`)
  }, 120_000)
  afterAll(async () => {
    stopWatching()
    await server?.close()
    await calendar?.close()
    await postgres?.destroy()
  })

  const post = (body: Record<string, unknown>, key?: string) =>
    server.request<EventResource>('POST', '/events', { token, body: { ...dates, status: 'publish', ...body }, headers: key ? { 'idempotency-key': key } : {} })

  it('answers 201/200, not 503, for creates and updates whose COMMIT went through', async () => {
    await postgres.query(`create trigger test_wait_for_standby after insert or update on cal_events.events
      for each statement execute function cal_events.test_wait_for_standby()`)
    watch('SyncRep')
    try {
      const before = terminated
      const created = await post({ title: 'Committed once' })
      expect(created.status, JSON.stringify(created.body)).toBe(201)
      expect(created.body).toMatchObject({ id: expect.any(Number), title: 'Committed once' })
      expect(await count('Committed once')).toBe(1)
      const updated = await server.request('PATCH', `/events/${created.body.id}`, { token, body: { title: 'Committed twice' } })
      expect(updated.status, JSON.stringify(updated.body)).toBe(200)
      expect(await count('Committed twice')).toBe(1)
      // The backends really were terminated mid-commit: the path under test ran.
      expect(terminated - before).toBeGreaterThanOrEqual(2)

      // 12 writers at once: no answer is a 503 for a row that exists.
      const titles = Array.from({ length: 12 }, (_, i) => `Parallel ${i}`)
      const answers = await Promise.all(titles.map((title) => post({ title })))
      for (const [i, answer] of answers.entries()) {
        const rows = await count(titles[i]!)
        expect(answer.status === 503 ? 0 : 1, `${titles[i]}: ${answer.status}`).toBe(rows)
        expect(answer.status, JSON.stringify(answer.body)).toBe(201)
      }

      // With an Idempotency-Key, a retry replays the first answer and writes nothing.
      const keyed = await post({ title: 'Keyed' }, 'commit-lost-1')
      expect(keyed.status).toBe(201)
      const retry = await post({ title: 'Keyed' }, 'commit-lost-1')
      expect(retry.status).toBe(201)
      expect(retry.body).toEqual(keyed.body)
      expect(await count('Keyed')).toBe(1)
    } finally {
      stopWatching()
      await postgres.query('drop trigger test_wait_for_standby on cal_events.events')
    }
  }, 60_000)

  it('keeps the 503 for a write terminated before its commit (aborted), and a keyed retry then writes once', async () => {
    await postgres.query(`create constraint trigger test_sleep_at_commit after insert on cal_events.events
      deferrable initially deferred for each row execute function cal_events.test_sleep_at_commit()`)
    watch('PgSleep')
    let failed
    try {
      failed = await post({ title: 'Aborted' }, 'aborted-1')
    } finally {
      stopWatching()
      await postgres.query('drop trigger test_sleep_at_commit on cal_events.events')
    }
    expect(failed.status).toBe(503)
    expect(await count('Aborted')).toBe(0)
    const retry = await post({ title: 'Aborted' }, 'aborted-1')
    expect(retry.status).toBe(201)
    expect(await count('Aborted')).toBe(1)
  }, 60_000)

  it('a duplicate sent while the first create commits waits on the key row lock, then replays', async () => {
    await postgres.query(`create or replace function cal_events.test_sleep_at_commit() returns trigger language plpgsql as $$
      begin perform pg_sleep(1.5); return null; end $$`)
    await postgres.query(`create constraint trigger test_sleep_at_commit after insert on cal_events.events
      deferrable initially deferred for each row execute function cal_events.test_sleep_at_commit()`)
    try {
      const first = post({ title: 'Slow commit' }, 'slow-commit')
      // The first holds its claim (uncommitted) while it sleeps at COMMIT.
      await waitFor(`select 1 from pg_stat_activity where wait_event = 'PgSleep'`)
      const second = post({ title: 'Slow commit' }, 'slow-commit')
      // The duplicate blocks on the first transaction (its claim's row), not on a timer.
      const waiting = await waitFor(
        `select 1 from pg_stat_activity where wait_event_type = 'Lock' and wait_event = 'transactionid' and query like '%cal_idempotency_keys%'`,
      )
      expect(waiting).toBe(true)
      const [a, b] = await Promise.all([first, second])
      expect(a.status).toBe(201)
      expect(b.status).toBe(201)
      expect(b.body).toEqual(a.body)
      expect(await count('Slow commit')).toBe(1)
    } finally {
      await postgres.query('drop trigger if exists test_sleep_at_commit on cal_events.events')
    }
  }, 60_000)

  /** Polls a query on the private server until it returns a row (true) or 10 s pass (false). */
  async function waitFor(query: string): Promise<boolean> {
    const deadline = Date.now() + 10_000
    while (Date.now() < deadline) {
      if ((await postgres.query(query)).length > 0) return true
      await new Promise((r) => setTimeout(r, 20))
    }
    return false
  }
})
