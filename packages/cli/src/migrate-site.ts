/**
 * Copies a whole calendar from a live site into a calendar through its script API: categories
 * (parents first), tags, venues, organizers, then events with their links, time zones, all-day
 * flags, costs, flags and image URLs, in every status the source's credentials can see.
 *
 * - Idempotent, so an interrupted run is resumed by running it again: events carry the source's
 *   `global_id` as `origin_uid` (found again by `calendar.events.import()`, as the ICS import
 *   does); terms, venues and organizers are found again by slug (a slug-less draft by name).
 *   What is already equal is left alone, what changed at the source is updated, nothing is
 *   created twice.
 * - Terms are one script-API call each; venues, organizers and events are written by the bulk
 *   imports (`venues.import()`, `organizers.import()`, `events.import()`) in batches, each in a
 *   transaction, so an item is written whole or not at all; a source that answers garbage stops
 *   the run with a `SourceError` naming the URL before anything of that item is written.
 * - Bounded concurrency within each phase (term writes, list pages asked at once); the events
 *   list is read on while its events are written. 429 and 5xx answers are retried with backoff.
 */
import { CalendarError, type Calendar, type CallOptions } from '@cal-events/core'
import type { EventInput, TermInput, TermResource } from '@cal-events/core'
import {
  ALL_DATES,
  costInput,
  eventFacts,
  isDated,
  linkedInput,
  linkedSame,
  obj,
  objs,
  runPool,
  STATUSES,
  str,
  termInput,
  type Json,
  type LinkedFields,
  type TermFields,
} from './migrate-site-input.js'
import { readAhead } from './read-ahead.js'
import { listAll, openSource, SourceError, type Source, type SourceOptions } from './source.js'

export { SourceError }

/** The phases of a run, in order. */
export const PHASES = ['categories', 'tags', 'venues', 'organizers', 'events'] as const
export type Phase = (typeof PHASES)[number]

/** What a run did with one kind of item. */
export interface PhaseCounts {
  /** Items read from the source. */
  seen: number
  created: number
  updated: number
  /** Already equal in the target. */
  unchanged: number
  /** Left alone: trashed in the target, or rejected by it (see `failures`). */
  skipped: number
}

/** What a run did. */
export interface MigrationSummary {
  /** The source's REST root that was read. */
  source: string
  counts: Record<Phase, PhaseCounts>
  /** Items the target refused, with the reason; the rest of the run went on. */
  failures: string[]
  /** The run was stopped through `signal` before it finished; run it again to resume. */
  interrupted: boolean
}

/** Options of `migrateSite()`. */
export interface MigrateSiteOptions extends SourceOptions {
  /** Parallel writes of terms, and pages of a source list asked at once. Default 4. */
  concurrency?: number
  /** Options of every script-API call. Default: administrator. */
  call?: CallOptions
  /**
   * Events hidden from listings (`hide_from_listings`) never appear in the source's event list;
   * find them by asking for each id between the listed ones (one request per unlisted id up to
   * the highest id seen). Default `true`.
   */
  findHidden?: boolean
  /** Called after each item; `total` is the source's count for the phase. */
  onProgress?: (phase: Phase, done: number, total: number) => void
}

/** `Authorization` value for a login and an application password (or one of our tokens). */
export function basicAuth(login: string, password: string): string {
  return `Basic ${Buffer.from(`${login}:${password}`, 'utf8').toString('base64')}`
}

/** Copies the calendar at `source` (a REST root or a site URL) into `target`. */
export async function migrateSite(target: Calendar, source: string, options: MigrateSiteOptions = {}): Promise<MigrationSummary> {
  const site = await openSource(source, options)
  const call = options.call ?? {}
  const limit = options.concurrency ?? 4
  const signal = options.signal
  const counts = Object.fromEntries(PHASES.map((p) => [p, { seen: 0, created: 0, updated: 0, unchanged: 0, skipped: 0 }])) as Record<Phase, PhaseCounts>
  const failures: string[] = []
  // Source id → target id, per kind; filled by the phases and by events naming items not listed.
  const ids = { categories: new Map<number, number>(), tags: new Map<number, number>(), venues: new Map<number, number>(), organizers: new Map<number, number>() }

  // Post ids the source listed (events, venues, organizers share one sequence): the rest may be hidden events.
  const listedPosts = new Set<number>()

  /** A list's pages, `limit` asked at a time, noting the post ids listed. */
  async function* pagesOf(phase: Phase, path: string): AsyncGenerator<{ items: Json[]; total: number }> {
    for await (const page of listAll(site, `${site.root}/${path}`, phase, limit)) {
      if (phase === 'venues' || phase === 'organizers' || phase === 'events') for (const item of page.items) listedPosts.add(Number(item.id))
      yield page
      if (signal?.aborted) return
    }
  }

  async function collect(pages: AsyncIterable<{ items: Json[] }>): Promise<Json[]> {
    const out: Json[] = []
    for await (const page of pages) out.push(...page.items)
    return out
  }

  /** Lists with every status when the credentials allow it, else what anonymous callers see. */
  async function* postPages(phase: 'venues' | 'organizers' | 'events', query: string): AsyncGenerator<{ items: Json[]; total: number }> {
    let pages = pagesOf(phase, `${phase}?per_page=50&status=${STATUSES}${query}`)
    let first: IteratorResult<{ items: Json[]; total: number }>
    try {
      first = await pages.next()
    } catch (err) {
      if (!(err instanceof Error && / 400 /.test(err.message))) throw err
      pages = pagesOf(phase, `${phase}?per_page=50${query}`)
      first = await pages.next()
    }
    if (first.done) return
    yield first.value
    yield* pages
  }

  function record(phase: Phase, label: string, outcome: keyof PhaseCounts | Error): void {
    if (outcome instanceof Error) {
      counts[phase].skipped++
      failures.push(`${phase} ${label}: ${outcome.message}`)
    } else counts[phase][outcome]++
  }

  // --- terms -------------------------------------------------------------------------------
  async function targetTerms(kind: 'categories' | 'tags'): Promise<Map<string, TermResource>> {
    const bySlug = new Map<string, TermResource>()
    for (let page = 1; ; page++) {
      const list = await target[kind].list({ per_page: 50, page, hide_empty: false }, call)
      const terms: TermResource[] = kind === 'categories' && 'categories' in list ? list.categories : 'tags' in list ? list.tags : []
      for (const term of terms) bySlug.set(term.slug, term)
      if (page >= list.total_pages) return bySlug
    }
  }

  async function copyTerms(kind: 'categories' | 'tags'): Promise<void> {
    const terms = await collect(pagesOf(kind, `${kind}?per_page=50&hide_empty=0`))
    counts[kind].seen = terms.length
    const existing = await targetTerms(kind)
    // Parents before children: a level at a time.
    const depth = new Map<number, number>()
    const byId = new Map(terms.map((t) => [Number(t.id), t]))
    const depthOf = (t: Json, guard = 0): number => {
      const id = Number(t.id)
      if (depth.has(id)) return depth.get(id)!
      const parent = byId.get(Number(t.parent ?? 0))
      const d = parent && guard < 100 ? depthOf(parent, guard + 1) + 1 : 0
      depth.set(id, d)
      return d
    }
    const levels = new Map<number, Json[]>()
    for (const t of terms) levels.set(depthOf(t), [...(levels.get(depthOf(t)) ?? []), t])
    let done = 0
    for (const level of [...levels.keys()].sort((a, b) => a - b)) {
      await runPool(levels.get(level)!, limit, signal, async (term) => {
        const input = termInput(term)
        if (kind === 'categories' && Number(term.parent) > 0) {
          const parent = ids.categories.get(Number(term.parent))
          if (parent !== undefined) input.parent = parent
        }
        try {
          const found = existing.get(input.slug)
          if (found) {
            ids[kind].set(Number(term.id), found.id)
            const same = found.name === input.name && str(found.description) === str(input.description) && (input.parent ?? found.parent ?? 0) === (found.parent ?? 0)
            if (same) record(kind, input.slug, 'unchanged')
            else {
              const { slug: _slug, ...changes } = input
              await target[kind].update(found.id, changes, call)
              record(kind, input.slug, 'updated')
            }
          } else {
            const created = await createTerm(kind, input)
            ids[kind].set(Number(term.id), created.id)
            existing.set(created.slug, created)
            record(kind, input.slug, 'created')
          }
        } catch (err) {
          record(kind, input.slug, err as Error)
        }
        options.onProgress?.(kind, ++done, terms.length)
      })
    }
  }

  async function createTerm(kind: 'categories' | 'tags', input: TermFields): Promise<TermResource> {
    try {
      return await target[kind].create(input satisfies TermInput, call)
    } catch (err) {
      // Same name at the same level under another slug: that term is this one.
      const termId = err instanceof CalendarError && err.code === 'TERM_EXISTS' ? Number(err.data?.term_id) : NaN
      if (!Number.isInteger(termId)) throw err
      return await target[kind].get(termId, call)
    }
  }

  // --- venues and organizers ---------------------------------------------------------------
  const linkedDone = new Map<string, Promise<number | undefined>>()

  /**
   * Writes source venues/organizers through the bulk import (issue 33): found again by the
   * source's slug (a slug-less draft by name), left alone when equal, updated when not; a
   * trashed copy stays trashed. Returns each item's target id (`undefined`: refused).
   */
  async function importLinked(kind: 'venues' | 'organizers', items: Json[], onBatch?: (done: number) => void): Promise<(number | undefined)[]> {
    const inputs = items.map((item) => linkedInput(kind, item))
    const labelOf = (i: number) => str(items[i]!.slug) || `#${str(items[i]!.id)}`
    const withSlugs = inputs.map((input, i) => (items[i]!.slug ? { ...input, slug: str(items[i]!.slug) } : input))
    const inputOf = new Map<object, LinkedFields>(withSlugs.map((item, i) => [item, inputs[i]!]))
    const result = await target[kind].import(withSlugs, {
      ...call,
      existing: (current, item) => (linkedSame(kind, current, inputOf.get(item)!) ? 'skip' : 'update'),
      onProgress: (p) => onBatch?.(p.done),
    })
    const failed = new Set(result.errors.map((e) => e.index))
    result.ids.forEach((id, i) => {
      if (failed.has(i)) return
      if (id !== undefined) ids[kind].set(Number(items[i]!.id), id)
    })
    counts[kind].created += result.created
    counts[kind].updated += result.updated
    counts[kind].unchanged += result.unchanged
    // Trashed in the target: left alone.
    counts[kind].skipped += result.skipped
    for (const { index, error } of result.errors) record(kind, labelOf(index), error)
    return result.ids
  }

  /** The target id of a source venue/organizer the listing did not show, copying it first (once per run). */
  function ensureLinked(kind: 'venues' | 'organizers', item: Json): Promise<number | undefined> {
    const known = ids[kind].get(Number(item.id))
    if (known !== undefined) return Promise.resolve(known)
    const key = `${kind}:${str(item.id)}`
    let pending = linkedDone.get(key)
    if (!pending) {
      pending = importLinked(kind, [item]).then((got) => got[0])
      linkedDone.set(key, pending)
    }
    return pending
  }

  async function copyLinkedPhase(kind: 'venues' | 'organizers'): Promise<void> {
    const items = await collect(postPages(kind, ''))
    counts[kind].seen = items.length
    if (signal?.aborted || items.length === 0) return
    await importLinked(kind, items, (done) => options.onProgress?.(kind, done, items.length))
  }

  // --- events ------------------------------------------------------------------------------
  async function termIds(kind: 'categories' | 'tags', terms: unknown): Promise<number[]> {
    const out: number[] = []
    for (const term of objs(terms)) {
      let id = ids[kind].get(Number(term.id))
      if (id === undefined) {
        // A term the list did not show (e.g. hidden): copy it from the event's own copy.
        const created = await createTerm(kind, termInput(term))
        id = created.id
        ids[kind].set(Number(term.id), id)
      }
      out.push(id)
    }
    return out
  }

  async function eventInput(event: Json): Promise<EventInput> {
    const facts = eventFacts(event)
    const sourceVenue = obj(event.venue)
    const venue = sourceVenue ? await ensureLinked('venues', sourceVenue) : undefined
    const organizers: number[] = []
    for (const o of objs(event.organizer)) {
      const id = await ensureLinked('organizers', o)
      if (id !== undefined) organizers.push(id)
    }
    const input: EventInput & Record<string, unknown> = {
      title: facts.title,
      description: facts.description,
      excerpt: facts.excerpt,
      // The target checks it: a status it does not know is refused (4xx) for that item alone.
      status: facts.status as EventInput['status'],
      start_date: facts.start_date,
      end_date: facts.end_date,
      timezone: facts.timezone,
      all_day: facts.all_day,
      cost: costInput(event),
      website: facts.website === '' ? null : facts.website,
      show_map: facts.show_map,
      show_map_link: facts.show_map_link,
      hide_from_listings: facts.hide_from_listings,
      sticky: facts.sticky,
      featured: facts.featured,
      image: facts.image,
      venue: venue ?? null,
      organizer: organizers,
      categories: await termIds('categories', event.categories),
      tags: await termIds('tags', event.tags),
    }
    if (facts.slug) input.slug = facts.slug
    // The publication date of what is published (in UTC: a local `date` would be read in the
    // event's own zone); drafts keep "not yet dated".
    if (isDated(facts.status) && event.date_utc) input.date_utc = str(event.date_utc)
    // `""` is rejected for texts (CONTRACT 12): leave out what the source left empty.
    for (const key of ['description', 'excerpt', 'image']) if (input[key] === '') delete input[key]
    return input
  }

  /** Events the list cannot show: asked for one by one among the ids it did not list. */
  async function hiddenEvents(): Promise<Json[]> {
    const max = Math.max(0, ...[...listedPosts].filter(Number.isSafeInteger))
    const unlisted = Array.from({ length: max }, (_, i) => i + 1).filter((id) => !listedPosts.has(id))
    const found: Json[] = []
    await runPool(unlisted, limit, signal, async (id) => {
      try {
        const event = await site.getJson(`${site.root}/events/${id}`)
        if (event.id === id && typeof event.title === 'string') found.push(event)
      } catch (err) {
        // Not an event, gone, or not readable with these credentials: nothing to copy.
        if (!(err instanceof SourceError && err.status !== undefined && err.status >= 400 && err.status < 500)) throw err
      }
    })
    return found.sort((a, b) => Number(a.id) - Number(b.id))
  }

  async function copyEvents(): Promise<void> {
    const originOf = (event: Json) => str(event.global_id) || `${site.root}/events/${str(event.id)}`
    const byOrigin = new Map<string, Json>()
    const labelOf = (origin: string) => `${origin} (${str(byOrigin.get(origin)?.title)})`
    let total = 0
    async function* listed(): AsyncGenerator<Json> {
      for await (const page of postPages('events', `&${ALL_DATES}`)) {
        total = Math.max(total, page.total)
        yield* page.items
      }
      if (options.findHidden !== false && !signal?.aborted) {
        const hidden = await hiddenEvents()
        total += hidden.length
        yield* hidden
      }
    }
    // The source's list is read on while the import writes (its pages are round trips of their
    // own), not only when the import asks for its next item. Written in batches by the bulk
    // import (issue 33): a transaction and a few multi-row statements per batch.
    const ahead = readAhead(listed())
    async function* inputs(): AsyncIterable<EventInput> {
      for await (const event of ahead.items) {
        if (signal?.aborted) return
        counts.events.seen++
        byOrigin.set(originOf(event), event)
        yield { ...(await eventInput(event)), origin_uid: originOf(event) }
      }
    }
    try {
      const result = await target.events.import(inputs(), {
        ...call,
        // What is already equal is left alone; what changed at the source is updated.
        existing: (current, item) =>
          JSON.stringify(eventFacts(current)) === JSON.stringify(eventFacts(byOrigin.get(String(item.origin_uid))!)) ? 'skip' : 'update',
        onProgress: (p) => options.onProgress?.('events', p.done, Math.max(total, p.done)),
      })
      counts.events.created += result.created
      counts.events.updated += result.updated
      counts.events.unchanged += result.unchanged
      // Trashed in the target: left alone.
      counts.events.skipped += result.skipped
      for (const { origin_uid, error } of result.errors) record('events', labelOf(String(origin_uid)), error)
    } finally {
      await ahead.stop()
    }
  }

  for (const phase of PHASES) {
    if (signal?.aborted) break
    if (phase === 'categories' || phase === 'tags') await copyTerms(phase)
    else if (phase === 'venues' || phase === 'organizers') await copyLinkedPhase(phase)
    else await copyEvents()
  }
  return { source: site.root, counts, failures, interrupted: Boolean(signal?.aborted) }
}

export type { Source }
