import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar } from '@cal-events/core'
import { BACKEND, freshCalendar, querySql } from '../../../../test-support/test-db.js'

const NOW = new Date('2026-11-21T03:39:06Z')

/** A term's count as stored: the folded base plus the deltas not folded yet (migration 0020). */
const STORED_COUNT = `(t.count + coalesce((select sum(d.delta) from cal_term_count_deltas d where d.term_id = t.id), 0))::int`

/** Term counts as stored vs as recomputed from the links (published events only). */
const COUNT_DRIFT = `
  select t.id, ${STORED_COUNT} as count, (select count(*)::int from event_terms et join events e on e.id = et.event_id
                          where et.term_id = t.id and e.status = 'publish') as actual
    from terms t`

describe(`concurrent writes (${BACKEND})`, () => {
  let calendar: Calendar
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW })
  })
  afterAll(() => calendar.close())

  it('gives 50 concurrent creates with one title 50 distinct slugs and no error', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, () =>
        calendar.events.create({ title: 'Crowded', start_date: '2027-03-01 10:00:00', end_date: '2027-03-01 11:00:00', categories: ['Busy'], venue: { venue: 'Shared Hall' } }),
      ),
    )
    const failures = results.filter((r) => r.status === 'rejected')
    expect(failures).toEqual([])
    const slugs = results.map((r) => (r as PromiseFulfilledResult<{ slug: string }>).value.slug)
    expect(new Set(slugs).size).toBe(50)
    expect(slugs).toContain('crowded')
    expect(slugs).toContain('crowded-50')
    // The inline venue was de-duplicated under concurrency too.
    const venues = await querySql<{ n: number }>(`select count(*)::int as n from venues where title = 'Shared Hall'`)
    expect(venues[0]!.n).toBe(1)
    const busy = await querySql<{ count: number }>(`select ${STORED_COUNT} as count from terms t where name = 'Busy'`)
    expect(busy[0]!.count).toBe(50)
  })

  it('keeps links and term counts right under concurrent updates and deletes of one event', async () => {
    const event = await calendar.events.create({
      title: 'Contested',
      start_date: '2027-03-02 10:00:00',
      end_date: '2027-03-02 11:00:00',
      categories: ['Red'],
      tags: ['one'],
      organizer: [{ organizer: 'First' }],
    })
    const ops = Array.from({ length: 30 }, (_, i) => {
      if (i === 15) return calendar.events.delete(event.id)
      return calendar.events.update(event.id, {
        categories: [i % 2 ? 'Red' : 'Blue'],
        tags: i % 3 ? ['one', 'two'] : [],
        status: i % 4 === 0 ? 'draft' : 'publish',
        organizer: i % 5 ? [{ organizer: `Org ${i % 3}` }] : [],
      })
    })
    const results = await Promise.allSettled(ops)
    // Updates after the delete may legitimately succeed (editing a trashed event); none may 5xx.
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: expect.stringMatching(/^[A-Z_]+$/) })
    const drift = await querySql<{ id: number; count: number; actual: number }>(`select * from (${COUNT_DRIFT}) c where count <> actual`)
    expect(drift).toEqual([])
    const dangling = await querySql(`select * from event_organizers eo where not exists (select 1 from organizers o where o.id = eo.organizer_id)`)
    expect(dangling).toEqual([])
  })

  it('keeps counts right when many events change status at once', async () => {
    const events = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        calendar.events.create({ title: `Flip ${i}`, start_date: '2027-03-03 10:00:00', end_date: '2027-03-03 11:00:00', categories: ['Flip', 'Red'], tags: ['flip'] }),
      ),
    )
    await Promise.all(events.map((e, i) => (i % 3 === 0 ? calendar.events.delete(e.id) : calendar.events.update(e.id, { status: i % 2 ? 'draft' : 'publish' }))))
    const drift = await querySql(`select * from (${COUNT_DRIFT}) c where count <> actual`)
    expect(drift).toEqual([])
  })
})
