import { describe, expect, it } from 'vitest'
import type { AnyOperation } from '../../src/api/operation.js'
import { cacheRules } from '../../src/api/policy.js'
import { wireCalendar } from '../../src/calendar/wiring.js'
import { resolveOptions } from '../../src/config/options.js'
import { httpSteps } from '../../src/http/pipeline/http-pipeline.js'
import { createChangeValidator } from '../../src/http/response-cache.js'
import { syncRefusedParams } from '../../src/sync/sync-walk.js'

// Policies as data (api/policy.ts): the hot-read cache and sync walks read what operations and
// their parameters declare. These tests pin what the declarations add up to over the whole route
// table, so a parameter or route that loses (or gains) its declaration shows here.
describe.each(['A', 'B'] as const)('operation policies (%s)', (variant) => {
  // No statement runs: the validator only queries when a request waits for a check.
  const { routes, operations } = wireCalendar(resolveOptions({ variant }), createChangeValidator(undefined as never))
  const reads = routes.flatMap((route) => route.endpoints.filter((e) => e.methods.includes('GET')).map((e) => ({ route: route.path, rules: cacheRules(e.operation) })))
  const union = (pick: (rules: ReturnType<typeof cacheRules>) => readonly string[]) => [...new Set(reads.flatMap((r) => pick(r.rules)))].sort()

  it('never keeps the root descriptor, /doc, the feeds and the sync walks', () => {
    const never = reads.filter((r) => r.rules.never).map((r) => r.route.replace('/cal/events/v1', ''))
    expect(never.sort()).toEqual(['', '/doc', '/events/:id/ical', '/events/by-slug/:slug/ical', '/events/ical', '/events/sync', '/organizers/sync', '/venues/sync'].sort())
  })

  it('keeps the sync walks, the root descriptor and /doc on the primary with read replicas', () => {
    const primary = routes.filter((route) => route.endpoints.some((e) => e.operation.policy?.replica === 'primary')).map((route) => route.path.replace('/cal/events/v1', ''))
    expect(primary.sort()).toEqual(['', '/doc', '/events/sync', '/organizers/sync', '/venues/sync'].sort())
  })

  it('keeps no request that sends a password guess or a sync parameter', () => {
    const password = variant === 'B' ? ['password'] : []
    expect(union((r) => r.uncachedWith)).toEqual([...password, 'sync', 'sync_page', 'sync_token'].sort())
    expect(cacheRules(operations.events.get).uncachedWith).toEqual(password)
  })

  it('bounds clock-reading answers to the second with a date bound or only_with_upcoming', () => {
    const bounds = variant === 'B' ? ['starts_before', 'starts_after', 'ends_before', 'ends_after', 'strict_dates'] : []
    expect(union((r) => r.secondWith)).toEqual(['start_date', 'end_date', ...bounds, 'only_with_upcoming'].sort())
  })

  it('lets sync walks refuse the event window and the venue filters by events', () => {
    const bounds = variant === 'B' ? ['starts_before', 'starts_after', 'ends_before', 'ends_after', 'strict_dates'] : []
    expect(syncRefusedParams(operations.events.list.args).sort()).toEqual(['start_date', 'end_date', ...bounds].sort())
    expect(syncRefusedParams(operations.venues.list.args).sort()).toEqual(['event', 'has_events', 'only_with_upcoming'])
    expect(Object.keys(operations.events.sync.args)).not.toContain('start_date')
  })

  it('declares what every operation reads and writes, and no read writes', () => {
    const all = Object.entries(operations).flatMap(([resource, ops]) => Object.entries(ops as Record<string, AnyOperation>).map(([name, op]) => ({ name: `${resource}.${name}`, op })))
    expect(all.filter(({ op }) => op.policy?.reads === undefined || op.policy.writes === undefined).map(({ name }) => name)).toEqual([])
    const writingReads = routes.flatMap((route) => route.endpoints.filter((e) => e.methods.includes('GET') && e.operation.policy?.writes?.length).map(() => route.path))
    expect(writingReads).toEqual([])
    // What each kind of answer reads: an answer kept across a change of what it reads would be stale.
    expect(cacheRules(operations.categories.list).reads).toEqual(['terms', 'event_terms', 'events'])
    expect(cacheRules(operations.venues.get).reads).toEqual(['venues', 'images'])
    expect(cacheRules(operations.events.list).reads).toEqual(['events', 'event_occurrences', 'event_terms', 'event_organizers', 'terms', 'venues', 'organizers', 'images'])
  })

  it('declares the guess limits where they are counted: event reads (a password), and the authenticate step (logins)', () => {
    const guessed = routes.flatMap((route) => route.endpoints.filter((e) => e.operation.policy?.guesses).map((e) => `${route.path.replace('/cal/events/v1', '')} ${e.operation.policy!.guesses!}`))
    expect(guessed.sort()).toEqual(
      ['/events/:id', '/events/by-slug/:slug', '/events/:id/occurrences/:key', '/events/:id/ical', '/events/by-slug/:slug/ical'].map((path) => `${path} passwordGuesses`).sort(),
    )
    const options = resolveOptions({ variant })
    const steps = httpSteps({ routes: [], options, db: undefined as never, cors: undefined, preflights: new WeakSet(), cache: undefined })
    expect(steps.filter((step) => step.guesses).map((step) => `${step.name} ${step.guesses!}`)).toEqual(['authenticate loginGuesses'])
  })

  it('marks the creates idempotent, and nothing else', () => {
    const idempotent = routes.flatMap((route) => route.endpoints.filter((e) => e.operation.policy?.idempotent).map((e) => `${e.methods.join()} ${route.path.replace('/cal/events/v1', '')}`))
    expect(idempotent.sort()).toEqual(['POST /categories', 'POST /events', 'POST /organizers', 'POST /tags', 'POST /venues'])
  })
})
