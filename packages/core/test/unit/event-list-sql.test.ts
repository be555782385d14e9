import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, type Compilable } from 'kysely'
import { describe, expect, it } from 'vitest'
import type { DB } from '../../src/db/generated.js'
import { eventListPageQuery, eventListQuery, openEndedSeriesQuery, orderEventList, type EventListFilters } from '../../src/events/event-list-query.js'

// The event list's SQL text, pinned: its indexes, plan tests, prepared statements and the bench
// sweep were measured against this text, so a change to how the query is built (its typing, say)
// must leave it byte for byte the same. Compiled without a database: only the text is compared.
const db = new Kysely<DB>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new PostgresIntrospector(k),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
})

const anonymous: EventListFilters = {
  bounds: { endGt: '2026-01-01 00:00:00' },
  frame: 'event-local',
  scope: { kind: 'public' },
  editScope: { kind: 'none' },
}
const window: EventListFilters['bounds'] = { startGte: '2026-01-01 00:00:00', endLte: '2026-02-01 00:00:00' }
const page = { limit: 10, offset: 20 }
const known = { snapshot: '10:12:11', total: 42 }

const lists: Record<string, Compilable> = {
  default: eventListPageQuery(db, anonymous, page),
  'default with a known total': eventListPageQuery(db, anonymous, page, known),
  'window and category': eventListPageQuery(db, { ...anonymous, bounds: window, categoryIds: [3, 4] }, page),
  'utc window, tags and organizers': eventListPageQuery(db, { ...anonymous, frame: 'utc', bounds: { startLt: '2026-03-01', startGt: '2026-01-01', endLt: '2026-04-01' }, tagIds: [5], organizerIds: [7, 8] }, page),
  search: eventListPageQuery(db, { ...anonymous, search: ['jazz', "o'brien%"] }, page),
  'search by an editor': eventListPageQuery(db, { ...anonymous, search: ['jazz'], scope: { kind: 'all' }, editScope: { kind: 'all' } }, page),
  'search in a venue': eventListPageQuery(db, { ...anonymous, search: ['jazz'], venueIds: [9] }, page),
  'venue filter': eventListPageQuery(db, { ...anonymous, venueIds: [9, 10] }, page),
  'own drafts, featured, geoloc, language': eventListPageQuery(
    db,
    { ...anonymous, scope: { kind: 'public-and-own', authorId: 2 }, editScope: { kind: 'own', authorId: 2, publishedToo: false }, featured: true, geoloc: false, language: 'fr' },
    page,
  ),
  'statuses, include, post parent': eventListPageQuery(db, { ...anonymous, statuses: ['draft', 'publish'], include: [1, 2, 3], postParent: 4 }, page),
  'computed occurrences past the horizon': eventListPageQuery(db, anonymous, page, known, false, [{ i: 1, k: '20300101T100000', sl: '2030-01-01 10:00:00' }]),
  'series share (sync walk: series as series)': eventListPageQuery(db, { ...anonymous, include: [5, 6] }, { limit: 2, offset: 0 }, undefined, true),
  'feed page': orderEventList(eventListQuery(db, { ...anonymous, categoryIds: [3] }).selectAll('e'), anonymous),
  'feed in utc by date': orderEventList(eventListQuery(db, { ...anonymous, frame: 'utc', include: [1] }).selectAll('e'), { ...anonymous, frame: 'utc', include: [1] }),
  'open-ended series': openEndedSeriesQuery(db, { ...anonymous, bounds: window, tagIds: [5] }, '2027-01-01 00:00:00'),
}

describe('event list SQL', () => {
  it.each(Object.keys(lists))('%s: the compiled text and parameters are unchanged', (name) => {
    const { sql, parameters } = lists[name]!.compile()
    expect({ sql, parameters }).toMatchSnapshot()
  })
})
