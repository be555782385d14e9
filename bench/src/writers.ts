import pg from 'pg'
import { dropDatabase, freshDatabase } from './db.js'
import { ADMIN_TOKEN, type RunningServer } from './server.js'

// Writes beside the read load (issue 17): the calendar lives in a host application's database, on
// a server other databases share, and its list must not pay for their commits. Each writer commits
// at a fixed rate from the harness's process until stopped; the load generator runs meanwhile.

/** A writer running in the background. */
export interface BackgroundWriter {
  /** Stops it and reports what it did. */
  stop(): Promise<WriterReport>
}

export interface WriterReport {
  /** Commits (or API updates) that succeeded. */
  writes: number
  errors: number
  seconds: number
  perSecond: number
}

/** Most writes in flight at once: a slow write does not lower the rate, nor do writes pile up. */
const MAX_IN_FLIGHT = 4

/** Starts `write` `perSecond` times a second, on a fixed schedule, until stopped. */
function atRate(perSecond: number, write: () => Promise<void>, close: () => Promise<void>): BackgroundWriter {
  const started = performance.now()
  let writes = 0
  let errors = 0
  let stopped = false
  const inFlight = new Set<Promise<void>>()
  const gap = 1000 / perSecond
  const loop = (async () => {
    let next = performance.now()
    while (!stopped) {
      if (inFlight.size >= MAX_IN_FLIGHT) await Promise.race(inFlight)
      const done: Promise<void> = write().then(
        () => void writes++,
        () => void errors++,
      )
      inFlight.add(done)
      void done.finally(() => inFlight.delete(done))
      next += gap
      const wait = next - performance.now()
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
      else next = performance.now()
    }
    await Promise.all(inFlight)
  })()
  return {
    async stop() {
      stopped = true
      await loop
      await close()
      const seconds = (performance.now() - started) / 1000
      return { writes, errors, seconds, perSecond: writes / seconds }
    },
  }
}

/** Small committed transactions into a table of the host application, in the calendar's database. */
export async function hostWriter(url: string, perSecond: number): Promise<BackgroundWriter> {
  const pool = new pg.Pool({ connectionString: url, max: MAX_IN_FLIGHT })
  await pool.query('create table if not exists bench_host_orders (id bigserial primary key, customer int not null, placed timestamptz not null default now())')
  let i = 0
  return atRate(
    perSecond,
    async () => {
      await pool.query('insert into bench_host_orders (customer) values ($1)', [i++ % 1000])
    },
    () => pool.end(),
  )
}

const FOREIGN_DB = 'cal_bench_foreign'

/** The same small transactions into another database of the same server (created, then dropped). */
export async function foreignWriter(adminUrl: string, perSecond: number): Promise<BackgroundWriter> {
  const url = await freshDatabase(adminUrl, FOREIGN_DB)
  const writer = await hostWriter(url, perSecond)
  return {
    async stop() {
      const report = await writer.stop()
      await dropDatabase(adminUrl, FOREIGN_DB)
      return report
    },
  }
}

/** Updates of listed events through the API (`POST /events/:id`), a title then a description, in turn. */
export function calendarWriter(server: RunningServer, eventIds: readonly number[], perSecond: number): BackgroundWriter {
  let i = 0
  return atRate(
    perSecond,
    async () => {
      const id = eventIds[i % eventIds.length]!
      const body = i % 2 === 0 ? { description: `Updated by the bench, write ${i}.` } : { excerpt: `Bench write ${i}` }
      i++
      const res = await fetch(`${server.base}/events/${id}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      await res.arrayBuffer()
      if (!res.ok) throw new Error(`POST /events/${id} answered ${res.status}`)
    },
    async () => {},
  )
}
