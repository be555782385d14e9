import { createCalendar, type Calendar, type CalendarResponse } from '@cal-events/core'
import { startReplicatedPair } from '../../test-support/replication.js'

// Issue 32 item 2's figures, on a private primary and a streaming replica replaying 2 s late
// (`recovery_min_apply_delay`), one calendar with `replicas` in this process:
// 1. write-then-read pairs: each caller creates an event, then reads it anonymously sending the
//    create's `Cal-Read-After`; a read that does not show the write is stale;
// 2. anonymous reads of older data (events created more than the delay ago, a query string of
//    their own so the hot-read cache keeps none): the share the replica served;
// 3. the replica stopped for 3 s and started again under that read load: 5xx, and how long until
//    the replica serves again.
// `pnpm --filter @cal-events/bench replica [pairs] [callers]`.

const PAIRS = Number(process.argv[2] ?? 10_000)
const CALLERS = Number(process.argv[3] ?? 8)
const DELAY_MS = 2000
const PATH = '/cal/events/v1'

async function main() {
  const pair = await startReplicatedPair({ applyDelayMs: DELAY_MS })
  let calendar: Calendar | undefined
  try {
    calendar = await createCalendar({ database: { url: pair.primary.url, replicas: [pair.replica.url], poolSize: 6 } })
    const cal = calendar
    const admin = (await cal.tokens.create({ role: 'administrator', login: 'bench' })).token
    let n = 0
    const handle = (method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<CalendarResponse> =>
      cal.handle({
        method,
        path: `${PATH}${path}`,
        query: `n=${++n}`,
        headers: { ...(body ? { 'content-type': 'application/json', authorization: `Bearer ${admin}` } : {}), ...headers },
        body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)),
        origin: 'http://bench',
      })
    const reads = async () => (await cal.health()).reads!

    // 1. Write-then-read pairs.
    let stale = 0
    let fiveXx = 0
    let done = 0
    const ids: number[] = []
    const before = await reads()
    const started = Date.now()
    await Promise.all(
      Array.from({ length: CALLERS }, async () => {
        while (done < PAIRS) {
          done++
          const created = await handle('POST', '/events', {}, { title: `Pair ${done}`, start_date: '2027-02-01 10:00:00', end_date: '2027-02-01 11:00:00' })
          if (created.status >= 500) fiveXx++
          if (created.status !== 201) continue
          const id = (created.body as { id: number }).id
          ids.push(id)
          const read = await handle('GET', `/events/${id}`, { 'cal-read-after': created.headers['Cal-Read-After']! })
          if (read.status >= 500) fiveXx++
          if (read.status !== 200 || (read.body as { id: number }).id !== id) stale++
        }
      }),
    )
    const pairsSeconds = (Date.now() - started) / 1000
    const afterPairs = await reads()
    console.log(
      `write-then-read pairs: ${done} pairs by ${CALLERS} callers in ${pairsSeconds.toFixed(0)} s, replica ${DELAY_MS} ms behind: stale reads ${stale}, 5xx ${fiveXx}; ` +
        `the reads went to the replica ${afterPairs.replicaReads - before.replicaReads}, to the primary ${afterPairs.primaryReads - before.primaryReads} times`,
    )

    // 2. Older data: events created more than the delay ago.
    await pair.caughtUp()
    await new Promise((resolve) => setTimeout(resolve, 1000))
    const older = ids.slice(0, Math.max(1, ids.length - 200))
    const beforeOld = await reads()
    let oldFiveXx = 0
    let oldRead = 0
    // Writes go on meanwhile (one caller), so the primary's position keeps moving.
    let writing = true
    const writer = (async () => {
      while (writing) await handle('POST', '/events', {}, { title: 'Meanwhile', start_date: '2027-02-02 10:00:00', end_date: '2027-02-02 11:00:00' })
    })()
    await Promise.all(
      Array.from({ length: CALLERS }, async (_, c) => {
        for (let i = c; i < 4000; i += CALLERS) {
          const res = await handle('GET', `/events/${older[i % older.length]!}`)
          oldRead++
          if (res.status >= 500) oldFiveXx++
        }
      }),
    )
    const afterOld = await reads()
    const replicaShare = (afterOld.replicaReads - beforeOld.replicaReads) / oldRead
    console.log(`anonymous reads of older data (writes going on): ${oldRead} reads, ${(replicaShare * 100).toFixed(1)} % served by the replica, 5xx ${oldFiveXx}`)

    // 3. The replica stopped under load and started again.
    let loading = true
    let loadFiveXx = 0
    let loadReads = 0
    const load = Array.from({ length: CALLERS }, async (_, c) => {
      for (let i = c; loading; i += CALLERS) {
        const res = await handle('GET', `/events/${older[i % older.length]!}`)
        loadReads++
        if (res.status >= 500) loadFiveXx++
      }
    })
    await new Promise((resolve) => setTimeout(resolve, 1000))
    await pair.replica.stop('fast')
    await new Promise((resolve) => setTimeout(resolve, 3000))
    await pair.replica.start()
    const back = Date.now()
    const base = (await reads()).replicaReads
    let backMs: number | undefined
    while (Date.now() - back < 20_000) {
      if ((await reads()).replicaReads > base) {
        backMs = Date.now() - back
        break
      }
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    loading = false
    writing = false
    await Promise.all([...load, writer])
    console.log(
      `replica stopped 3 s under ${CALLERS} readers and 1 writer: ${loadReads} reads, 5xx ${loadFiveXx}, fallbacks ${(await reads()).fallbacks}; ` +
        `replica serving again ${backMs === undefined ? 'not within 20 s' : `${backMs} ms`} after it accepted connections`,
    )
  } finally {
    await calendar?.close()
    await pair.destroy()
  }
}

await main()
