import { describe, expect, it } from 'vitest'
import { feedTextMessages, MESSAGE_ROWS } from '../../src/ical/feed-messages.js'
import type { FeedTextTask } from '../../src/ical/feed-text.js'
import { EVENT_FIELDS, feedRow, ORGANIZER_FIELDS, TERM_FIELDS, VENUE_FIELDS } from '../../src/ical/feed-row.js'
import type { EventRow } from '../../src/events/event.serializer.js'

// Issue 28: a feed page's rows cross to the worker in pieces (each row the JSON text the database
// answered) whose posting holds the event loop a fraction of what posting the page's objects at
// once did (a structured clone of ~1 MB, 14-50 ms on the bench machine), and arrive as the same rows.

/** Rows shaped like a feed page's (the fields and relations the list statement reads). */
function page(n: number): EventRow[] {
  return Array.from({ length: n }, (_, i) => ({
    id: i + 1,
    title: `Concert ${i} in the Großer Saal`,
    slug: `concert-${i}`,
    status: 'publish',
    description: '<p>An evening of <b>chamber music</b>, with <a href="https://example.org">a link</a>.</p>'.repeat(3),
    excerpt: '',
    password: null,
    start_local: '2026-04-01 19:30:00',
    end_local: '2026-04-01 22:00:00',
    start_utc: '2026-04-01 17:30:00',
    end_utc: '2026-04-01 20:00:00',
    modified_utc: '2026-03-01 12:00:00',
    timezone: 'Europe/Berlin',
    all_day: false,
    cost_values: ['10', '20'],
    recurrence: i % 10 === 0 ? ['RRULE:FREQ=WEEKLY;BYDAY=MO'] : null,
    revision: 3,
    venue: { id: 7, title: 'Kulturhaus', address: 'Hauptstraße 1', city: 'Berlin', country: 'Germany', geo_lat: '52.5', geo_lng: '13.4', status: 'publish' },
    organizers: [{ id: 9, title: 'Ensemble', email: 'info@example.org', status: 'publish' }],
    terms: [{ taxonomy: 'tribe_events_cat', name: 'Music', slug: 'music', id: 3 }],
  })) as unknown as EventRow[]
}

type Fields = Record<string, unknown>
const pick = (fields: readonly string[], row: Fields) => fields.map((f) => row[f] ?? null)

/** A row as the feed's statement answers it: a JSON array of the fields `feed-row.ts` lists. */
const feedJson = (row: EventRow) => {
  const r = row as unknown as Fields & { venue: Fields | null; organizers: Fields[]; terms: Fields[] }
  return JSON.stringify([
    ...pick(EVENT_FIELDS, r),
    r.venue && pick(VENUE_FIELDS, r.venue),
    r.organizers.map((o) => pick(ORGANIZER_FIELDS, o)),
    r.terms.map((t) => pick(TERM_FIELDS, t)),
  ])
}

/** What a VEVENT reads of `row`: its `IcalRow`. */
const icalRowOf = (row: EventRow) => {
  const r = row as unknown as Fields & { venue: Fields | null; organizers: Fields[]; terms: Fields[] }
  const only = (fields: readonly string[], x: Fields) => Object.fromEntries(fields.map((f) => [f, x[f] ?? null]))
  return {
    ...only(EVENT_FIELDS, r),
    venue: r.venue && only(VENUE_FIELDS, r.venue),
    organizers: r.organizers.map((o) => only(ORGANIZER_FIELDS, o)),
    terms: r.terms.map((t) => only(TERM_FIELDS, t)),
  }
}

const task = (rows: EventRow[]): FeedTextTask => ({
  kind: 'events',
  calendar: { name: 'Events' },
  rows: rows.map(feedJson),
  ctx: { principal: { kind: 'anonymous' }, urls: { globalIdBase: 'cal.example.org' }, now: new Date('2026-03-01T12:00:00Z') } as never,
})

describe('feed text messages to a worker (issue 28)', () => {
  it('carry a page in pieces of at most MESSAGE_ROWS rows, which arrive as the same rows in order', () => {
    const rows = page(500)
    const pieces = [...feedTextMessages(task(rows))].map((m) => structuredClone(m))
    expect(pieces.length).toBe(Math.ceil(500 / MESSAGE_ROWS))
    for (const p of pieces) expect(p.kind === 'events' && p.rows.length).toBeLessThanOrEqual(MESSAGE_ROWS)
    expect(pieces.flatMap((p) => (p.kind === 'events' ? p.rows : [])).map(feedRow)).toEqual(rows.map(icalRowOf))
    expect(pieces.every((p) => p.kind === 'events' && p.ctx.now.getTime() === Date.parse('2026-03-01T12:00:00Z'))).toBe(true)
  })

  it('hold the event loop a fraction of what posting the page at once did', () => {
    const rows = page(500)
    const whole = task(rows)
    // What postMessage does with a message: a structured clone. Before: the page's objects at once.
    const atOnce = () => {
      const t0 = performance.now()
      structuredClone(rows)
      return performance.now() - t0
    }
    // Now: each piece made and cloned, one per turn; the longest counts.
    const longestPiece = () => {
      let longest = 0
      const pieces = feedTextMessages(whole)
      for (;;) {
        const t0 = performance.now()
        const next = pieces.next()
        if (next.done) break
        structuredClone(next.value)
        longest = Math.max(longest, performance.now() - t0)
      }
      return longest
    }
    // Alternated rounds, the best of each: the machine is shared, only the ratio counts.
    let before = Infinity
    let after = Infinity
    for (let round = 0; round < 7; round++) {
      before = Math.min(before, atOnce())
      after = Math.min(after, longestPiece())
    }
    expect(after / before).toBeLessThan(0.4)
  })
})
