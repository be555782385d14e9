import type { SqlSession } from './db.js'
import { feedWindow } from './feed.js'
import type { LoadSpec } from './load.js'
import type { SeedLayout } from './seed.js'
import { ADMIN_TOKEN } from './server.js'

/** Ids and slugs the scenarios address, read from the seeded database. */
export interface Targets {
  eventIds: number[]
  eventSlugs: string[]
  venueId: number
  categorySlug: string
  searchWord: string
  organizerIds: number[]
  categoryIds: number[]
  tagIds: number[]
  /** `YYYY-MM-DD` bounds of the date-window scenario. */
  window: { start: string; end: string }
  /** `YYYY-MM-DD` bounds of the feed scenario's window (about 20,000 events). */
  feed: { start: string; end: string }
  /** The `ETag` of the default list on the server with the cache on (set just before the conditional scenario). */
  listTag?: string
}

const day = (d: Date) => d.toISOString().slice(0, 10)

export async function pickTargets(session: SqlSession, layout: SeedLayout): Promise<Targets> {
  // Published, unprotected events spread over the whole id range: what by-id/by-slug readers hit.
  const step = Math.max(1, Math.floor(layout.events / 2000))
  const events = await session.query<{ id: number; slug: string }>(
    `select id, slug from events where status = 'publish' and password is null and (id - $1) % $2 = 0 order by id limit 1000`,
    [layout.firstEventId, step],
  )
  // A venue of middling popularity among those with upcoming events.
  const venues = await session.query<{ venue_id: number }>(
    `select venue_id from events where venue_id is not null and status = 'publish' and start_local >= now()
      group by venue_id order by count(*) desc, venue_id limit 1 offset 20`,
  )
  const now = new Date(`${layout.now.replace(' ', 'T')}Z`)
  return {
    eventIds: events.map((e) => e.id),
    eventSlugs: events.map((e) => e.slug),
    venueId: venues[0]?.venue_id ?? 1,
    categorySlug: 'jazz',
    searchWord: 'jazz',
    organizerIds: [layout.firstOrganizerId + 3, layout.firstOrganizerId + 42],
    categoryIds: [14, 2],
    tagIds: [layout.firstTagId + 5, layout.firstTagId + 17],
    window: { start: day(new Date(now.getTime() + 30 * 86_400_000)), end: day(new Date(now.getTime() + 90 * 86_400_000)) },
    feed: await feedWindow(session),
  }
}

export interface Scenario {
  name: string
  title: string
  spec: LoadSpec
  /** Measured on a server with the hot-read cache on (every other scenario runs with it off). */
  cache?: boolean
  /** Issue 19's: run by default only with `--series-share` (named in `--scenarios`, always). */
  series?: boolean
}

/** The scenarios of the issues, in run order (writes last, so reads see the seeded data only; a series' creation right after a single one's). */
export function scenarios(t: Targets): Scenario[] {
  const runTag = Date.now().toString(36)
  return [
    { name: 'list', title: 'default event list', spec: { path: '/events' } },
    {
      name: 'list-window-category',
      title: 'date window + category',
      spec: { path: `/events?start_date=${t.window.start}&end_date=${t.window.end}&categories=${t.categorySlug}` },
    },
    { name: 'search', title: 'search', spec: { path: `/events?search=${t.searchWord}` } },
    { name: 'list-venue', title: 'venue filter', spec: { path: `/events?venue=${t.venueId}` } },
    {
      name: 'event-id',
      title: 'single event by id',
      spec: { path: `/events/${t.eventIds[0]}`, next: (i) => ({ path: `/events/${t.eventIds[i % t.eventIds.length]}` }) },
    },
    {
      name: 'event-slug',
      title: 'single event by slug',
      spec: {
        path: `/events/by-slug/${t.eventSlugs[0]}`,
        next: (i) => ({ path: `/events/by-slug/${t.eventSlugs[i % t.eventSlugs.length]}` }),
      },
    },
    { name: 'venues', title: 'venue list', spec: { path: '/venues' } },
    { name: 'categories', title: 'category list', spec: { path: '/categories' } },
    createScenario('create', 'event creation', t, runTag),
    createScenario('create-series', 'weekly series creation (104 occ.)', t, `${runTag} series`, [SERIES_RULE]),
    updateScenario(t, runTag),
  ]
}

/**
 * POST /events with the same payload each time but for the title; `recurrence` makes it a series
 * (issue 19: a weekly series of two years must cost less than 5x one event).
 */
function createScenario(name: string, title: string, t: Targets, tag: string, recurrence?: string[]): Scenario {
  return {
    name,
    title,
    ...(recurrence ? { series: true } : {}),
    spec: {
      method: 'POST',
      path: '/events',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      next: (i) => ({
        path: '/events',
        body: JSON.stringify({
          title: `Bench Meetup ${tag} ${i}`,
          description: 'Created by the benchmark. Doors open at seven.',
          start_date: `${t.window.start} 18:00:00`,
          end_date: `${t.window.start} 21:00:00`,
          timezone: 'Europe/Berlin',
          venue: t.venueId,
          organizer: t.organizerIds,
          categories: t.categoryIds,
          tags: t.tagIds,
          cost: '$10',
          ...(recurrence ? { recurrence } : {}),
        }),
      }),
    },
  }
}

/**
 * PATCH /events/{id} of the seeded events in turn (issue 33): a new title and cost, and the
 * organizers and tags replaced (half of them change on each request).
 */
function updateScenario(t: Targets, tag: string): Scenario {
  return {
    name: 'update',
    title: 'event update',
    spec: {
      method: 'PATCH',
      path: `/events/${t.eventIds[0]}`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      next: (i) => ({
        path: `/events/${t.eventIds[i % t.eventIds.length]}`,
        body: JSON.stringify({
          title: `Bench update ${tag} ${i}`,
          cost: `$${i % 50}`,
          organizer: [t.organizerIds[i % 2]],
          tags: [t.tagIds[i % 2]],
        }),
      }),
    },
  }
}

/** The weekly two-year series of issue 19's creation target (104 occurrences). */
export const SERIES_RULE = 'RRULE:FREQ=WEEKLY;COUNT=104'

/** Extra, beyond the list: a new date window on every request, so the count is never cached. */
function uncachedList(t: Targets): Scenario {
  const start = new Date(`${t.window.start}T00:00:00Z`).getTime() - 30 * 86_400_000
  return {
    name: 'list-uncached',
    title: 'default list, new window per request',
    spec: {
      path: '/events',
      next: (i) => {
        const from = start + (i % 730) * 86_400_000
        const to = from + (30 + (Math.floor(i / 730) % 700)) * 86_400_000
        return { path: `/events?start_date=${day(new Date(from))}&end_date=${day(new Date(to))}` }
      },
    },
  }
}

/**
 * Issue 18: the default list repeated by anonymous readers with the hot-read cache on, and the same
 * with `If-None-Match` carrying the list's current tag (answered 304, which counts as non-2xx).
 */
function cachedReads(t: Targets): Scenario[] {
  return [
    { name: 'hot-list', title: 'default list, cache on', spec: { path: '/events' }, cache: true },
    {
      name: 'conditional',
      title: 'default list, If-None-Match, cache on',
      spec: { path: '/events', headers: t.listTag ? { 'if-none-match': t.listTag } : {} },
      cache: true,
    },
  ]
}

/** The scenarios, the extra uncached list (after the venue filter) and the cached reads, in run order. */
export function allScenarios(t: Targets): Scenario[] {
  const all = scenarios(t)
  all.splice(4, 0, uncachedList(t))
  // Before the writes, which change the list the cached reads repeat.
  all.splice(all.findIndex((s) => s.spec.method === 'POST'), 0, ...cachedReads(t))
  return all
}
