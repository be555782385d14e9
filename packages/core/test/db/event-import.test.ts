import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar, CalendarError, CalendarRequest, EventInput } from '@cal-events/core'
import { inlineParameters } from '../../src/db/inline-parameters.js'
import { BACKEND, execSql, freshCalendar, querySql, whileRefusingTitle } from '../../../../test-support/test-db.js'

/** A page of a sync walk as these tests read it (a deleted item is `{ id, deleted }`). */
type SyncPage = { events: { id: number }[]; next_rest_url?: string; next_sync_token?: string }

// calendar.events.import() (issue 33 item 2): batches in transactions, multi-row writes, every
// rule of a single create; checked against the database's own truth after the fact.
const NOW = new Date('2026-11-21T03:39:06Z')
const ROOT = '/cal/events/v1'

describe(`bulk import (${BACKEND})`, () => {
  let calendar: Calendar
  let statements = 0
  let sent: { sql: string; parameters: readonly unknown[] }[] | undefined
  beforeAll(async () => {
    calendar = await freshCalendar({
      now: () => NOW,
      onQuery: (sql, _ms, parameters) => {
        statements++
        sent?.push({ sql, parameters })
      },
    })
  })
  afterAll(() => calendar.close())

  const day = (i: number) => `2026-12-${String(1 + (i % 28)).padStart(2, '0')}`
  const item = (i: number, extra: Partial<EventInput> = {}): EventInput => ({
    origin_uid: `uid-${i}`,
    title: `Import ${i % 40}`,
    status: 'publish',
    start_date: `${day(i)} 10:00:00`,
    end_date: `${day(i)} 12:00:00`,
    venue: { venue: `Hall ${i % 5}`, city: 'Leeds' },
    organizer: [{ organizer: `Org ${i % 3}` }],
    categories: [`Cat ${i % 4}`],
    tags: [`tag-${i % 6}`, `tag-${(i + 1) % 6}`],
    ...(i % 100 === 7 ? { recurrence: ['RRULE:FREQ=WEEKLY;COUNT=10'] } : {}),
    ...extra,
  })
  const N = 1200
  async function* items(n: number, bad = true): AsyncIterable<EventInput> {
    for (let i = 0; i < n; i++) {
      if (bad && i === 300) yield item(i, { end_date: `${day(i)} 09:00:00` })
      else if (bad && i === 901) yield item(i, { venue: 999_999 })
      else yield item(i)
    }
  }
  const recount = () =>
    querySql<{ id: number; count: number; truth: string }>(`select t.id, (t.count + coalesce((select sum(delta) from cal_term_count_deltas d where d.term_id = t.id), 0))::int as count,
      (select count(*) from event_terms et join events e on e.id = et.event_id where et.term_id = t.id and e.status = 'publish') as truth from terms t`)
  const scalar = async (q: string) => Number(Object.values((await querySql(q))[0]!)[0])

  const get = async (query: string) => {
    const request: CalendarRequest = { method: 'GET', path: `${ROOT}/events`, query, headers: {}, origin: 'http://cal.test' }
    const res = await calendar.handle(request)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body as SyncPage
  }

  it('writes every good item in batches, reports the bad ones by index, and the rest of the batch lands', async () => {
    const first = await get('sync=1&per_page=50')
    const progress: number[] = []
    statements = 0
    const summary = await calendar.events.import(items(N), { batchSize: 500, onProgress: (p) => progress.push(p.done) })
    expect(summary.errors.map((e) => [e.index, e.origin_uid, (e.error as CalendarError).code])).toEqual([
      [300, 'uid-300', 'INVALID_PARAM'],
      [901, 'uid-901', 'INVALID_PARAM'],
    ])
    expect(summary).toMatchObject({ done: N, created: N - 2, updated: 0, failed: 2, unchanged: 0, skipped: 0 })
    expect(progress).toEqual([500, 1000, 1200])
    // Batches, not one write per item: the 12 series cost a few statements each, the rest is set-based.
    expect(statements).toBeLessThan(400)
    expect(await scalar(`select count(*) from events`)).toBe(N - 2)
    // Inline venues, organizers and terms de-duplicated by name.
    expect(await scalar(`select count(*) from venues`)).toBe(5)
    expect(await scalar(`select count(*) from organizers`)).toBe(3)
    expect(await scalar(`select count(*) from terms where taxonomy = 'category'`)).toBe(4)
    expect(await scalar(`select count(*) from event_terms`)).toBe((N - 2) * 3)
    expect(await scalar(`select count(*) from event_organizers`)).toBe(N - 2)
    // Slugs: 40 titles, each event its own slug.
    expect(await scalar(`select count(distinct slug) from events`)).toBe(N - 2)
    expect(await scalar(`select count(*) from events where slug = 'import-1-2'`)).toBe(1)
    // Every series' occurrences stored.
    const series = await querySql<{ id: number; n: string }>(`select e.id, (select count(*) from event_occurrences o where o.series_id = e.id) as n from events e where recurrence is not null`)
    expect(series.length).toBe(12)
    for (const s of series) expect(Number(s.n)).toBe(10)
    // Counts equal a recount.
    for (const t of await recount()) expect(t.count).toBe(Number(t.truth))
    // The change log: a sync delta from before the import lists every imported event.
    const seen = new Set<number>()
    let page = await get(`sync_token=${encodeURIComponent(first.next_sync_token!)}&per_page=500`)
    for (;;) {
      for (const e of page.events) seen.add(e.id)
      if (!page.next_rest_url) break
      page = await get(new URL(page.next_rest_url).search.slice(1))
    }
    expect(seen.size).toBe(N - 2)
    // And the default list shows them (occurrences of the series included).
    const list = await calendar.events.list({ per_page: 1, start_date: '2026-12-01', end_date: '2027-12-31' }, { as: null })
    expect(list.total).toBe(N - 2 - 12 + 12 * 10)
  }, 120_000)

  it('keeps the planner statistics of the table it grows from empty (an ANALYZE each time it doubles)', async () => {
    // The import above grew a never-analysed table to 1,198 events: its statistics count them, so
    // the slug look-up is not planned for an empty table (at 50,000 events: 0.6-7 s a batch).
    const [row] = await querySql<{ n: number }>(`select reltuples::float8 as n from pg_class where oid = to_regclass('events')`)
    expect(Number(row!.n)).toBeGreaterThanOrEqual(1000)
  })

  it('writes a batch in a fixed number of statements, however many of its events are series', async () => {
    const venue = (await calendar.venues.create({ venue: 'Batch hall' })).id
    const organizer = (await calendar.organizers.create({ organizer: 'Batch org' })).id
    const category = (await calendar.categories.create({ name: 'Batch cat' })).id
    const batch = Array.from({ length: 200 }, (_, i) =>
      item(9000 + i, { origin_uid: `batch-${i}`, venue, organizer: [organizer], categories: [category], tags: [], recurrence: i % 10 === 0 ? ['RRULE:FREQ=WEEKLY;COUNT=10'] : null }),
    )
    statements = 0
    const summary = await calendar.events.import(batch, { batchSize: 200 })
    expect(summary).toMatchObject({ created: 200, failed: 0 })
    // Origin ids, existence checks, BEGIN, slug locks, slugs taken, the events with their links,
    // the series' rows, the horizon, their occurrences, COMMIT (and a fold of the counts now and
    // then): not a statement or four per series (20 here), nor one per kind of link.
    expect(statements).toBeLessThanOrEqual(12)
    expect(await scalar(`select count(*) from event_occurrences o join events e on e.id = o.series_id where e.origin_uid like 'batch-%'`)).toBe(20 * 10)
    expect(await scalar(`select count(*) from event_organizers l join events e on e.id = l.event_id where e.origin_uid like 'batch-%'`)).toBe(200)
    expect(await scalar(`select count(*) from event_terms l join events e on e.id = l.event_id where e.origin_uid like 'batch-%'`)).toBe(200)
    expect((await calendar.categories.get(category)).count).toBe(200)
  })

  it('counts links written by one statement with one delta per term (migration 0022)', async () => {
    const tag = (await calendar.tags.create({ name: 'bulk-delta' })).id
    const published = await scalar(`select count(*) from events where status = 'publish'`)
    await execSql(`insert into event_terms (event_id, term_id) select id, ${tag} from events`)
    expect(await scalar(`select count(*) from cal_term_count_deltas where term_id = ${tag}`)).toBe(1)
    expect((await calendar.tags.get(tag)).count).toBe(published)
    await execSql(`delete from event_terms where term_id = ${tag}`)
    expect(await scalar(`select count(*) from cal_term_count_deltas where term_id = ${tag}`)).toBe(2)
    expect((await calendar.tags.get(tag)).count).toBe(0)
    for (const t of await recount()) expect(t.count).toBe(Number(t.truth))
  })

  it('re-imports idempotently: updates (or skips) by origin id, never duplicates, leaves trashed ones', async () => {
    const before = await scalar(`select count(*) from events`)
    const trashed = (await calendar.events.getByOrigin('uid-5'))!
    await calendar.events.delete(trashed.id)
    const again = await calendar.events.import(items(N), { batchSize: 400 })
    expect(again).toMatchObject({ created: 0, updated: N - 3, skipped: 1, failed: 2 })
    expect(await scalar(`select count(*) from events`)).toBe(before)
    expect(await scalar(`select count(*) from events where id = ${trashed.id} and status = 'trash'`)).toBe(1)
    const skip = await calendar.events.import(items(N, false), { existing: 'skip' })
    // The two refused before are new now; the rest is left alone.
    expect(skip).toMatchObject({ created: 2, updated: 0, unchanged: N - 3, skipped: 1 })
    const changed = await calendar.events.import([item(10, { title: 'Changed title' }), item(11)], {
      existing: (current, input) => (current.title === input.title ? 'skip' : 'update'),
    })
    expect(changed).toMatchObject({ updated: 1, unchanged: 1 })
    expect((await calendar.events.getByOrigin('uid-10'))!.title).toBe('Changed title')
    for (const t of await recount()) expect(t.count).toBe(Number(t.truth))
    expect(await scalar(`select count(*) from events`)).toBe(before + 2)
  }, 120_000)

  it('an image URL is registered once, for the creates and the updates of an import, and clears', async () => {
    const url = 'https://img.example/import-poster.png'
    const withImage = (i: number, image: unknown) => item(8000 + i, { image } as Partial<EventInput>)
    const first = await calendar.events.import([withImage(0, url), withImage(1, url), withImage(2, url)])
    expect(first).toMatchObject({ created: 3, failed: 0 })
    // Two updates and a create of one import, the URL's id already known, and one clearing.
    const second = await calendar.events.import([withImage(0, url), withImage(1, ''), withImage(3, url)])
    expect(second).toMatchObject({ created: 1, updated: 2, failed: 0 })
    expect(await scalar(`select count(*) from images where url = '${url}'`)).toBe(1)
    const rows = await querySql<{ origin_uid: string; image: string | null }>(
      `select e.origin_uid, i.url as image from events e left join images i on i.id = e.image_id where e.origin_uid like 'uid-800_' order by e.origin_uid`,
    )
    expect(rows).toEqual([
      { origin_uid: 'uid-8000', image: url },
      { origin_uid: 'uid-8001', image: null },
      { origin_uid: 'uid-8002', image: url },
      { origin_uid: 'uid-8003', image: url },
    ])
  })

  it('an item the database refuses fails alone: its batch is written again item by item', async () => {
    await whileRefusingTitle('events', 'Boom', async () => {
      const batch = Array.from({ length: 10 }, (_, i) => item(7000 + i, i === 4 ? { title: 'Boom' } : {}))
      const summary = await calendar.events.import(batch)
      expect(summary).toMatchObject({ created: 9, failed: 1 })
      expect(summary.errors[0]!.index).toBe(4)
      expect(await scalar(`select count(*) from events where origin_uid like 'uid-700_'`)).toBe(9)
      for (const t of await recount()) expect(t.count).toBe(Number(t.truth))
    })
  })

  it('refuses what a single create refuses: no permission, no origin id, unknown fields', async () => {
    const anonymous = await calendar.events.import([item(5000)], { as: null })
    expect(anonymous.failed).toBe(1)
    expect((anonymous.errors[0]!.error as CalendarError).code).toBe('UNAUTHENTICATED')
    const { origin_uid: _o, ...noOrigin } = item(5001)
    const odd = await calendar.events.import([noOrigin, { ...item(5002), colour: 'red' } as EventInput, item(5003)])
    expect(odd.errors.map((e) => e.index)).toEqual([0, 1])
    expect(odd.created).toBe(1)
  })

  it('a title repeated over many batches gets -2, -3, … in order, and a later batch does not read the title\'s every slug again', async () => {
    const same = Array.from({ length: 600 }, (_, i) => item(20_000 + i, { origin_uid: `same-${i}`, title: 'Same title', recurrence: null }))
    sent = []
    const summary = await calendar.events.import(same, { batchSize: 100 })
    const captured = sent
    sent = undefined
    expect(summary).toMatchObject({ created: 600, failed: 0 })
    const slugs = await querySql<{ origin_uid: string; slug: string }>(`select origin_uid, slug from events where origin_uid like 'same-%'`)
    const bySuffix = new Map(slugs.map((r) => [r.origin_uid, r.slug]))
    for (let i = 0; i < 600; i++) expect(bySuffix.get(`same-${i}`)).toBe(i === 0 ? 'same-title' : `same-title-${i + 1}`)
    const lookups = captured.filter((s) => /b\(base\)/.test(s.sql))
    expect(lookups.length).toBe(6)
    const text = inlineParameters(lookups[5]!.sql, lookups[5]!.parameters.map(sqlArray))!
    // The last batch's look-up, run again: the 100 slugs it took and the probes around them, not
    // the 600 of the title (a batch k read 100 k rows, 153 ms a batch after 100,000 events).
    expect(await rowsRead(text)).toBeLessThan(250)
  })

  it('finds a batch\'s events by origin id one index probe each, not by reading the table or the origin index at large', async () => {
    // Half the batch held by events already (updates), half new; the new ids sort after every
    // other, so a merge join over the origin index would read the index up to them.
    const batch = Array.from({ length: 300 }, (_, i) => (i % 2 === 0 ? item(i) : item(i, { origin_uid: `zz-probe-${i}` })))
    sent = []
    const summary = await calendar.events.import(batch, { batchSize: 300 })
    const captured = sent
    sent = undefined
    expect(summary).toMatchObject({ created: 150, updated: 150, failed: 0 })
    const lookups = captured.filter((s) => /origin_uid = u\.uid/.test(s.sql))
    expect(lookups.length).toBeGreaterThan(0)
    for (const lookup of lookups) {
      const text = inlineParameters(lookup.sql, lookup.parameters.map(sqlArray))!
      // Run again now, it finds the whole batch's events, and reads nothing else (1,500 events
      // hold origin ids; a hash or merge join read 1,564 rows).
      expect(await rowsRead(text), text.slice(0, 200)).toBeLessThanOrEqual(batch.length)
    }
  })

  /** A text array parameter as its literal, for `inlineParameters`. */
  const sqlArray = (v: unknown) => (Array.isArray(v) ? `{${v.map((x) => `"${String(x).replace(/["\\]/g, '\\$&')}"`).join(',')}}` : v)
  /** Rows a statement reads from `events` (EXPLAIN ANALYZE, every scan of the table or its indexes). */
  async function rowsRead(text: string): Promise<number> {
    const [plan] = await querySql<{ 'QUERY PLAN': unknown }>(`explain (analyze, format json) ${text}`)
    let read = 0
    const walk = (node: Record<string, unknown>) => {
      if (node['Relation Name'] === 'events') read += Number(node['Actual Rows']) * Number(node['Actual Loops'])
      for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child)
    }
    const json = plan!['QUERY PLAN']
    walk((typeof json === 'string' ? JSON.parse(json) : json)[0].Plan)
    return read
  }
})
