import { createCalendar } from '@cal-events/core'
import { databaseUrl, freshDatabase, openPglite, pgliteSession, pgSession } from './db.js'
import { pickTargets, type Targets } from './scenarios.js'
import { layoutFor, seed, type SeedLayout, type SeedTimings } from './seed.js'

export interface PreparedDatabase {
  layout: SeedLayout
  targets: Targets
  timings: SeedTimings
  /** Seconds the calendar's migrations took on the empty database. */
  migrate: number
}

/** The database `name` left by an earlier `--keep` run, if it holds `events` seeded events. */
async function reusable(adminUrl: string, name: string, events: number, seriesShare: number): Promise<(PreparedDatabase & { url: string }) | undefined> {
  const url = databaseUrl(adminUrl, name)
  let session
  try {
    session = await pgSession(url)
  } catch {
    return undefined
  }
  try {
    const layout = layoutFor(events, new Date(), seriesShare)
    const [row] = await session.query<{ n: number; series: boolean }>(
      `select count(*)::int as n, bool_or(recurrence is not null) as series from events where id between $1 and $2`,
      [layout.firstEventId, layout.firstEventId + events - 1],
    )
    if (row?.n !== events || Boolean(row.series) !== seriesShare > 0) return undefined
    const calendar = await createCalendar({ database: { url, poolSize: 1 } }) // pending migrations
    await calendar.close()
    const none = { base: 0, load: 0, index: 0, finish: 0, total: 0 }
    return { url, layout, timings: none, migrate: 0, targets: await pickTargets(session, layout) }
  } finally {
    await session.close()
  }
}

/** A fresh PostgreSQL database `name`, migrated by the calendar itself, then seeded. */
export async function preparePostgres(
  adminUrl: string,
  name: string,
  events: number,
  reuse = false,
  seriesShare = 0,
): Promise<PreparedDatabase & { url: string }> {
  const kept = reuse ? await reusable(adminUrl, name, events, seriesShare) : undefined
  if (kept) return kept
  const url = await freshDatabase(adminUrl, name)
  const t0 = performance.now()
  const calendar = await createCalendar({ database: { url, poolSize: 1 } })
  await calendar.close()
  const migrate = (performance.now() - t0) / 1000
  const sessions = [await pgSession(url), await pgSession(url)]
  try {
    const layout = layoutFor(events, new Date(), seriesShare)
    const timings = await seed(sessions, layout)
    return { url, layout, timings, migrate, targets: await pickTargets(sessions[0]!, layout) }
  } finally {
    await Promise.all(sessions.map((s) => s.close()))
  }
}

/** A fresh PGlite data directory, migrated by the calendar, then seeded (one session). */
export async function preparePglite(dataDir: string, events: number, seriesShare = 0): Promise<PreparedDatabase> {
  const pglite = await openPglite(dataDir)
  try {
    const t0 = performance.now()
    const calendar = await createCalendar({ database: { pglite } })
    await calendar.close()
    const migrate = (performance.now() - t0) / 1000
    const layout = layoutFor(events, new Date(), seriesShare)
    const session = pgliteSession(pglite)
    const timings = await seed([session], layout, { maintenanceMem: '256MB' })
    return { layout, timings, migrate, targets: await pickTargets(session, layout) }
  } finally {
    await pglite.close()
  }
}
