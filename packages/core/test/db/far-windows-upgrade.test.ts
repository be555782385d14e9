import { afterAll, describe, expect, it } from 'vitest'
import pg from 'pg'
import { createCalendar, type Calendar, type CalendarOptions } from '@cal-events/core'
import { scratchDatabase } from '../../../../test-support/scratch-db.js'
import { BACKEND } from '../../../../test-support/test-db.js'

// Issue 28 item 3: an install whose lists stored far years (up to 1.5 M rows) upgrades in place:
// the rows stored past the horizon for open-ended series go, with the table of years; changed
// occurrences' places and bounded series stay, and far lists still show every occurrence.
const NOW = new Date('2026-11-21T03:39:06Z')
const cleanups: (() => Promise<void>)[] = []
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** A database of its own (the calendar's schema is `cal_events`) and a session on it. */
async function ownDatabase(): Promise<{ database: NonNullable<CalendarOptions['database']>; sql: <R>(s: string) => Promise<R[]> }> {
  if (BACKEND === 'pglite') {
    const [{ PGlite }, { pg_trgm }] = await Promise.all([import('@electric-sql/pglite'), import('@electric-sql/pglite/contrib/pg_trgm')])
    const pglite = await PGlite.create({ extensions: { pg_trgm } })
    cleanups.push(() => pglite.close())
    return { database: { pglite }, sql: async (s) => ((await pglite.exec(s)).at(-1)?.rows ?? []) as never[] }
  }
  const scratch = scratchDatabase(`far${process.env.VITEST_POOL_ID ?? 0}`)
  await scratch.create()
  const client = new pg.Client({ connectionString: scratch.url })
  await client.connect()
  cleanups.push(async () => {
    await client.end()
    await scratch.drop()
  })
  return { database: { url: scratch.url, poolSize: 2 }, sql: async (s) => (await client.query(s)).rows as never[] }
}

describe(`upgrading an install that stored far years (${BACKEND})`, () => {
  it('deletes the far rows of open-ended series, keeps changed places and bounded series, drops the years', async () => {
    const own = await ownDatabase()
    let calendar: Calendar = await createCalendar({ database: own.database, migrate: true, now: () => NOW })
    const open = await calendar.events.create({
      title: 'Weekly forever', start_date: '2026-12-07 18:00:00', end_date: '2026-12-07 19:00:00', timezone: 'UTC', recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=MO'],
    })
    const bounded = await calendar.events.create({
      title: 'Long course', start_date: '2026-12-08 18:00:00', end_date: '2026-12-08 19:00:00', timezone: 'UTC', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=400'],
    })
    await calendar.events.updateOccurrence(open.id, '20400102T180000Z', { title: 'Moved far' })
    await calendar.close()
    // The database as the previous version left it (before migration 0019), with what its far
    // lists stored: the year 2040 of the open-ended series, recorded in event_occurrence_years.
    await own.sql(`delete from cal_events.cal_migrations where name = '0019-far-occurrences'`)
    await own.sql(`create table cal_events.event_occurrence_years (year integer primary key)`)
    await own.sql(`insert into cal_events.event_occurrence_years values (2040)`)
    await own.sql(`insert into cal_events.event_occurrences (series_id, occurrence_key, start_local, end_local, start_utc, end_utc, status, language,
        featured, hide_from_listings, venue_id, date_utc, author_id)
      select ${open.id}, to_char(d, 'YYYYMMDD"T"HH24MISS"Z"'), d, d + interval '1 hour', d, d + interval '1 hour', 'publish', 'en', false, false, null, now(), null
        from generate_series(timestamp '2040-01-09 18:00:00', timestamp '2040-12-31 18:00:00', interval '7 days') as d`)
    const count = async (where: string) =>
      (await own.sql<{ n: number }>(`select count(*)::int as n from cal_events.event_occurrences where ${where}`))[0]!.n
    const boundedRows = await count(`series_id = ${bounded.id}`)
    expect(boundedRows).toBe(400)
    expect(await count(`series_id = ${open.id} and start_utc > '2030-01-01'`)).toBe(53)

    calendar = await createCalendar({ database: own.database, migrate: true, now: () => NOW })
    cleanups.push(() => calendar.close())
    expect(await count(`series_id = ${open.id} and start_utc > '2030-01-01' and not overridden`)).toBe(0)
    expect(await count(`series_id = ${open.id} and overridden`)).toBe(1)
    expect(await count(`series_id = ${bounded.id}`)).toBe(boundedRows)
    expect(await count(`series_id = ${open.id} and start_utc < '2029-11-01'`)).toBeGreaterThan(150)
    const [years] = await own.sql<{ t: string | null }>(`select to_regclass('cal_events.event_occurrence_years')::text as t`)
    expect(years!.t).toBeNull()

    const january = await calendar.events.list({ start_date: '2040-01-01', end_date: '2040-01-31' })
    expect(january.events.map((i) => [i.title, i.start_date])).toEqual([
      ['Moved far', '2040-01-02 18:00:00'],
      ['Weekly forever', '2040-01-09 18:00:00'],
      ['Weekly forever', '2040-01-16 18:00:00'],
      ['Weekly forever', '2040-01-23 18:00:00'],
      ['Weekly forever', '2040-01-30 18:00:00'],
    ])
  })
})
