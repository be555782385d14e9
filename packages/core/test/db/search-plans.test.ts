import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import pg from 'pg'
import type { Calendar } from '@cal-events/core'
import { BACKEND, execSql, freshCalendar, workerDatabaseUrl } from '../../../../test-support/test-db.js'

const NOW = new Date('2026-11-21T10:00:00Z')
const ROWS = 20_000

interface PlanNode {
  'Node Type': string
  'Index Name'?: string
  Plans?: PlanNode[]
}

function indexesOf(node: PlanNode, into: string[] = []): string[] {
  if (node['Index Name']) into.push(node['Index Name'])
  for (const child of node.Plans ?? []) indexesOf(child, into)
  return into
}

// A search must reach its trigram index: the searched expression has to be the index's expression,
// character for character, and the pattern a literal (`db/sql-literals.ts`). Either slip turns a
// rare word's search into a scan of every row (at 1M events: 27 requests a second instead of 900).
describe.skipIf(BACKEND !== 'postgres')('search plans (postgres)', () => {
  let calendar: Calendar
  let client: pg.Client
  let seen: { sql: string; parameters: readonly unknown[] }[] = []

  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW, onQuery: (sql, _ms, parameters) => seen.push({ sql, parameters }) })
    // Many rows with common words, a few with a rare one.
    const text = (n: string) => `case when ${n} % 5000 = 0 then 'Zanzibar night' else 'Open evening ' || ${n} end`
    await execSql(`
      insert into events (title, excerpt, description, status, date_utc, modified_utc, start_local, end_local, start_utc, end_utc)
      select ${text('n')}, 'An excerpt', 'A description of the evening', 'publish', t, t, t, t + interval '1 hour', t, t + interval '1 hour'
        from (select n, timestamp '2026-11-22 00:00' + n * interval '1 hour' as t from generate_series(1, ${ROWS}) n) s;
      insert into venues (title, status, date_utc, modified_utc, city)
      select ${text('n')}, 'publish', now(), now(), 'Leeds' from generate_series(1, ${ROWS}) n;
      insert into organizers (title, status, date_utc, modified_utc, email)
      select ${text('n')}, 'publish', now(), now(), 'org' || n || '@example.org' from generate_series(1, ${ROWS}) n`)
    // VACUUM moves the GIN indexes' pending entries into the index proper (ANALYZE alone does not);
    // until then a trigram scan must read the whole pending list, and the planner rightly avoids it.
    for (const table of ['events', 'venues', 'organizers']) await execSql(`vacuum analyze ${table}`)
    client = new pg.Client({ connectionString: await workerDatabaseUrl() })
    await client.connect()
  })
  afterAll(async () => {
    await client?.end()
    await calendar.close()
  })

  /** The indexes in the plan of the statement of `list` that reads `table`, with its own values. */
  async function planIndexes(list: () => Promise<unknown>, marker: RegExp): Promise<string[]> {
    seen = []
    await list()
    const statement = seen.find((s) => marker.test(s.sql))
    expect(statement, seen.map((s) => s.sql).join('\n')).toBeDefined()
    const { rows } = await client.query(`explain (format json) ${statement!.sql}`, [...statement!.parameters])
    return indexesOf((rows[0]['QUERY PLAN'] as { Plan: PlanNode }[])[0]!.Plan)
  }

  it('searches events through events_search', async () => {
    const list = () => calendar.events.list({ search: 'zanzibar' }, { as: null })
    // The default window (24 months) holds 3 of the 4.
    expect((await list() as { total: number }).total).toBe(3)
    expect(await planIndexes(list, /cal_event_relations/)).toContain('events_search')
    const twoWords = () => calendar.events.list({ search: 'night zanzibar' }, { as: null })
    expect(await planIndexes(twoWords, /cal_event_relations/)).toContain('events_search')
  })

  it('searches venues through venues_search', async () => {
    const list = () => calendar.venues.list({ search: 'zanzibar' }, { as: null })
    expect((await list() as { total: number }).total).toBe(4)
    expect(await planIndexes(list, /from "venues"/)).toContain('venues_search')
  })

  it('searches organizers through organizers_search', async () => {
    const list = () => calendar.organizers.list({ search: 'zanzibar' }, { as: null })
    expect((await list() as { total: number }).total).toBe(4)
    expect(await planIndexes(list, /from "organizers"/)).toContain('organizers_search')
  })
})
