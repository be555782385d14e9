import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import pg from 'pg'
import type { Calendar } from '@cal-events/core'
import { BACKEND, execSql, freshCalendar, workerDatabaseUrl } from '../../../../test-support/test-db.js'

const NOW = new Date('2026-11-21T10:00:00Z')
const EVENTS = 17_520

interface PlanNode {
  'Node Type': string
  'Relation Name'?: string
  'Plan Rows': number
  'Subplan Name'?: string
  Plans?: PlanNode[]
}

function find(node: PlanNode, match: (n: PlanNode) => boolean): PlanNode | undefined {
  if (match(node)) return node
  for (const child of node.Plans ?? []) {
    const hit = find(child, match)
    if (hit) return hit
  }
  return undefined
}

// A named statement may settle on a generic plan, which never sees the date window. It must still
// reach a deep page by walking the list index in order: a generic plan that guessed a tiny window
// sorted the whole default window instead (210 ms instead of 2 at 1M events, `pnpm bench` sweep).
describe.skipIf(BACKEND !== 'postgres')('event list plans (postgres)', () => {
  let calendar: Calendar
  let client: pg.Client
  let seen: { text: string; values: unknown[] }[] = []

  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW, onQuery: (text, _ms, values) => seen.push({ text, values: [...values] }) })
    // An event every two hours from a year back to three years ahead: the default window (from
    // yesterday, for 24 months) holds half of them.
    await execSql(`
      insert into events (title, status, date_utc, modified_utc, start_local, end_local, start_utc, end_utc)
      select 'Event ' || n, 'publish', t - interval '30 days', t - interval '30 days', t, t + interval '1 hour', t, t + interval '1 hour'
        from (select n, timestamp '2025-11-21 00:00' + n * interval '2 hours' as t from generate_series(1, ${EVENTS}) n) s;
      analyze events`)
    client = new pg.Client({ connectionString: await workerDatabaseUrl() })
    await client.connect()
  })
  afterAll(async () => {
    await client?.end()
    await calendar.close()
  })

  /** The list statement of `query`, as the calendar sends it, with its values (from `onQuery`). */
  async function listStatement(query: Record<string, unknown>): Promise<{ text: string; values: unknown[] }> {
    seen = []
    await calendar.events.list(query, { as: null })
    const list = seen.filter((s) => s.text.includes('cal_event_relations'))
    expect(list).toHaveLength(1)
    return list[0]!
  }

  /** The page CTE of the generic plan PostgreSQL makes for `statement`. */
  async function genericPagePlan(name: string, statement: { text: string; values: unknown[] }): Promise<PlanNode> {
    await client.query('set plan_cache_mode = force_generic_plan')
    await client.query(`prepare ${name} as ${statement.text}`)
    const args = statement.values.map((v) => (typeof v === 'number' ? String(v) : client.escapeLiteral(String(v)))).join(', ')
    const { rows } = await client.query(`explain (format json) execute ${name}(${args})`)
    const plan = (rows[0]['QUERY PLAN'] as { Plan: PlanNode }[])[0]!.Plan
    const page = find(plan, (n) => n['Subplan Name'] === 'CTE page')
    expect(page, JSON.stringify(plan)).toBeDefined()
    return page!
  }

  /** The generic plan's guess of the events a window holds: the rows it expects from the events scan. */
  const windowGuess = (page: PlanNode) => find(page, (n) => n['Relation Name'] === 'events')!['Plan Rows']

  it('guesses a window of a realistic size, so deep pages walk the list index', async () => {
    // Read as one range, the two start bounds made it guess 0.5 % of the table for any window
    // (here 29 events of 8,760), and it sorted the whole default window for page 200 at 1M events.
    const page = await genericPagePlan('default_window', await listStatement({ page: 21, per_page: 10 }))
    expect(windowGuess(page)).toBeGreaterThan(EVENTS / 100)
    const dated = await genericPagePlan('date_window', await listStatement({ start_date: '2026-01-01', end_date: '2027-12-31', page: 21, per_page: 10 }))
    expect(windowGuess(dated)).toBeGreaterThan(EVENTS / 100)
  })

  it('guesses that most events have no password, so a tag page walks the list index', async () => {
    // Anonymous lists filtered by a term hide protected events. Written as `coalesce(password, '')
    // = ''`, PostgreSQL guessed 0.5 % of the window for that test and hash-joined the whole window
    // instead of walking the index to the page (tags=66 at 1M events: 950 ms instead of 3).
    const tag = await calendar.tags.create({ name: 'Everywhere' }, { as: { id: 1, role: 'administrator' } })
    await execSql(`insert into event_terms (event_id, term_id) select id, ${tag.id} from events; analyze event_terms`)
    const page = await genericPagePlan('tag_window', await listStatement({ tags: String(tag.id), page: 21, per_page: 10 }))
    expect(windowGuess(page)).toBeGreaterThan(EVENTS / 100)
  })
})
