import { createCalendar, type EventInput } from '@cal-events/core'
import { migrateSite, type Phase } from '@cal-events/cli'
import { cpuMark } from './cpu.js'
import { dropDatabase, freshDatabase, pgSession } from './db.js'
import { preparePostgres } from './prepare.js'
import { DB_PREFIX } from './series.js'
import type { Targets } from './scenarios.js'
import { ADMIN_TOKEN, startCalendarServer } from './server.js'

// Issue 33's bulk scenarios: `calendar.events.import()` into the seeded database (events/s, then
// the database checked against its own truth), and a timed migrate-site of a seeded source served
// by the project's own server into an empty calendar.

export interface ImportResult {
  events: number
  seconds: number
  perSecond: number
  batchSize: number
  /** Checks after the import: all must hold. */
  checks: { created: number; failed: number; rowChanges: number; occurrencesOk: boolean; countsOk: boolean }
  /** CPU milliseconds per imported event: this process (the import's JavaScript) and the database's own backends. */
  cpu: { node: number; postgres: number }
  /** Time in the database per kind of statement (its first words), as the driver saw it, most first. */
  statements: { sql: string; calls: number; ms: number }[]
}

/**
 * `n` events through `calendar.events.import()` on the database at `url`, as an importer sends
 * them: venues and organizers by id, categories and tags by name (existing ones), one in 50 a
 * weekly series of 10; then the change log, the occurrences and the term counts are checked.
 */
export async function importRun(url: string, targets: Targets, n: number, batchSize = 1000): Promise<ImportResult> {
  const statements = new Map<string, { calls: number; ms: number }>()
  const onQuery = (text: string, ms: number) => {
    const key = text.replace(/\s+/g, ' ').slice(0, 70)
    const entry = statements.get(key) ?? { calls: 0, ms: 0 }
    entry.calls++
    entry.ms += ms
    statements.set(key, entry)
  }
  const calendar = await createCalendar({ database: { url, poolSize: 4 }, onQuery })
  const session = await pgSession(url)
  try {
    const tag = Date.now().toString(36)
    const day = (i: number) => new Date(Date.parse(`${targets.window.start}T00:00:00Z`) + (i % 300) * 86_400_000).toISOString().slice(0, 10)
    function* items(): Iterable<EventInput> {
      for (let i = 0; i < n; i++) {
        yield {
          origin_uid: `bench-import-${tag}-${i}`,
          title: `Imported ${tag} ${i % 500}`,
          description: 'Imported by the benchmark.',
          status: 'publish',
          start_date: `${day(i)} 19:00:00`,
          end_date: `${day(i)} 21:00:00`,
          timezone: 'Europe/Berlin',
          venue: targets.venueId,
          organizer: [targets.organizerIds[i % targets.organizerIds.length]!],
          categories: ['jazz'],
          tags: [`bench-import-${i % 20}`],
          cost: '$10',
          ...(i % 50 === 7 ? { recurrence: ['RRULE:FREQ=WEEKLY;COUNT=10'] } : {}),
        }
      }
    }
    // Post ids share one sequence and only grow: the import's events are those above the highest before.
    const maxId = (await session.query<{ id: number }>(`select coalesce(max(id), 0)::int as id from events`))[0]!.id
    const database = new URL(url).pathname.slice(1)
    const c0 = cpuMark(process.pid, process.pid, database)
    const t0 = performance.now()
    const summary = await calendar.events.import(items(), { batchSize })
    const seconds = (performance.now() - t0) / 1000
    const c1 = cpuMark(process.pid, process.pid, database)
    const tick = (a: number) => Math.round((a * 10 * 1000) / n) / 1000
    console.log(`  ${n} events in ${seconds.toFixed(1)} s; checking`)
    const [changes] = await session.query<{ n: number }>(
      `select count(distinct id)::int as n from cal_row_changes where kind = 'event' and id > $1`,
      [maxId],
    )
    const [occ] = await session.query<{ bad: number }>(
      `select count(*)::int as bad from events e where id > $1 and recurrence is not null
         and (select count(*) from event_occurrences o where o.series_id = e.id) <> 10`,
      [maxId],
    )
    const [counts] = await session.query<{ bad: number }>(
      `select count(*)::int as bad from terms t
        where (t.count + coalesce((select sum(delta) from cal_term_count_deltas d where d.term_id = t.id), 0))
           <> (select count(*) from event_terms et join events e on e.id = et.event_id where et.term_id = t.id and e.status = 'publish')`,
    )
    return {
      events: n,
      seconds,
      perSecond: n / seconds,
      batchSize,
      checks: { created: summary.created, failed: summary.failed, rowChanges: changes!.n, occurrencesOk: occ!.bad === 0, countsOk: counts!.bad === 0 },
      cpu: { node: tick(c1.server - c0.server), postgres: tick([...c1.postgresOwn!].reduce((sum, [pid, t]) => sum + t - (c0.postgresOwn!.get(pid) ?? 0), 0)) },
      statements: [...statements].map(([sql, e]) => ({ sql, calls: e.calls, ms: Math.round(e.ms) })).sort((a, b) => b.ms - a.ms).slice(0, 12),
    }
  } finally {
    await session.close()
    await calendar.close()
  }
}

export interface MigrateSiteResult {
  sourceEvents: number
  seconds: number
  eventsPerSecond: number
  counts: Record<string, { created: number; failed: number }>
  targetEvents: number
  /** Seconds of each phase, reading its source lists included: terms (categories and tags), venues, organizers, events. */
  phases: { terms: number; venues: number; organizers: number; events: number }
  /**
   * CPU milliseconds per copied event over the whole run: this process (`migrateSite` and the
   * target calendar), the source's server, and the PostgreSQL backends of each database.
   */
  cpu: { migrate: number; sourceServer: number; targetPostgres: number; sourcePostgres: number }
}

/** A migrate-site of a seeded `n`-event source, served by the project's server, into an empty calendar. */
export async function migrateSiteRun(adminUrl: string, n: number, keep: boolean): Promise<MigrateSiteResult> {
  const sourceName = `${DB_PREFIX}_source_${n}`
  const targetName = `${DB_PREFIX}_target_${n}`
  const source = await preparePostgres(adminUrl, sourceName, n, keep)
  const server = await startCalendarServer(source.url)
  const targetUrl = await freshDatabase(adminUrl, targetName)
  const target = await createCalendar({ database: { url: targetUrl, poolSize: 4 } })
  try {
    // A phase ends at its last progress report; the next one starts there (its lists read first).
    const ends: Partial<Record<Phase, number>> = {}
    const c0 = { target: cpuMark(process.pid, server.pid, targetName), source: cpuMark(process.pid, server.pid, sourceName) }
    // Backends are sampled through the run: the source's pool closes its idle connections once
    // the lists are read, and a backend gone by the end would otherwise count for nothing.
    const seen = { target: new Map(c0.target.postgresOwn), source: new Map(c0.source.postgresOwn) }
    const sample = () => {
      for (const [which, name] of [['target', targetName], ['source', sourceName]] as const) {
        for (const [pid, ticks] of cpuMark(process.pid, server.pid, name).postgresOwn!) seen[which].set(pid, ticks)
      }
    }
    const sampler = setInterval(sample, 500)
    const t0 = performance.now()
    const summary = await migrateSite(target, server.base, {
      authorization: `Bearer ${ADMIN_TOKEN}`,
      findHidden: false,
      onProgress: (phase) => void (ends[phase] = performance.now()),
    })
    const t1 = performance.now()
    clearInterval(sampler)
    sample()
    const c1 = { target: cpuMark(process.pid, server.pid, targetName), source: cpuMark(process.pid, server.pid, sourceName) }
    const seconds = (t1 - t0) / 1000
    const session = await pgSession(targetUrl)
    const [row] = await session.query<{ n: number }>(`select count(*)::int as n from events`)
    await session.close()
    const counts = Object.fromEntries(Object.entries(summary.counts).map(([k, c]) => [k, { created: c.created, failed: c.skipped }]))
    let from = t0
    const span = (phase: Phase) => {
      const end = ends[phase] ?? from
      const s = (end - from) / 1000
      from = end
      return s
    }
    const terms = span('categories') + span('tags')
    const phases = { terms, venues: span('venues'), organizers: span('organizers'), events: (ends.events ?? t1) / 1000 - from / 1000 }
    const events = Math.max(1, row!.n)
    const perEvent = (ticks: number) => Math.round((ticks * 10 * 1000) / events) / 1000
    const own = (a: Map<string, number> | undefined, b: Map<string, number> | undefined) => [...(b ?? [])].reduce((sum, [pid, t]) => sum + t - (a?.get(pid) ?? 0), 0)
    const cpu = {
      migrate: perEvent(c1.target.server - c0.target.server),
      sourceServer: perEvent(c1.target.loadgen - c0.target.loadgen),
      targetPostgres: perEvent(own(c0.target.postgresOwn, seen.target)),
      sourcePostgres: perEvent(own(c0.source.postgresOwn, seen.source)),
    }
    return { sourceEvents: n, seconds, eventsPerSecond: row!.n / seconds, counts, targetEvents: row!.n, phases, cpu }
  } finally {
    await target.close()
    await server.stop()
    if (!keep) {
      await dropDatabase(adminUrl, targetName)
      await dropDatabase(adminUrl, sourceName)
    }
  }
}
