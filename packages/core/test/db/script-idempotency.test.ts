import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar } from '@cal-events/core'
import { BACKEND, freshCalendar, querySql } from '../../../../test-support/test-db.js'

const WHEN = { start_date: '2027-02-01 10:00:00', end_date: '2027-02-01 11:00:00' }
const count = async (where: string) => Number((await querySql<{ n: string }>(`select count(*) as n from ${where}`))[0]!.n)

// Issue 15 item 10: the script API's creates take the same idempotency key as HTTP creates.
describe(`script API creates with an idempotencyKey (${BACKEND})`, () => {
  let calendar: Calendar
  beforeAll(async () => {
    calendar = await freshCalendar()
  })
  afterAll(() => calendar.close())

  it('returns the first result to a retry and writes nothing new, for every create', async () => {
    const first = await calendar.events.create({ title: 'Scripted once', ...WHEN }, { idempotencyKey: 'script-1' })
    const again = await calendar.events.create({ title: 'Scripted once', ...WHEN }, { idempotencyKey: 'script-1' })
    expect(again).toEqual(first)
    expect(await count(`events where title = 'Scripted once'`)).toBe(1)
    const calls = [
      (key: string) => calendar.venues.create({ venue: 'Scripted hall' }, { idempotencyKey: key }),
      (key: string) => calendar.organizers.create({ organizer: 'Scripted crew' }, { idempotencyKey: key }),
      (key: string) => calendar.categories.create({ name: 'Scripted category' }, { idempotencyKey: key }),
      (key: string) => calendar.tags.create({ name: 'scripted-tag' }, { idempotencyKey: key }),
    ]
    for (const [i, create] of calls.entries()) {
      const a = await create(`script-kind-${i}`)
      const b = await create(`script-kind-${i}`)
      expect(b, `call ${i}`).toEqual(a)
    }
    // Without a key, a create runs every time (terms refuse the same name: term_exists).
    await expect(calendar.categories.create({ name: 'Scripted category' })).rejects.toMatchObject({ code: 'TERM_EXISTS' })
  })

  it('refuses the same key with another body (422) and an empty key (400), writing nothing', async () => {
    await calendar.events.create({ title: 'Keyed A', ...WHEN }, { idempotencyKey: 'script-reuse' })
    await expect(calendar.events.create({ title: 'Keyed B', ...WHEN }, { idempotencyKey: 'script-reuse' })).rejects.toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSED',
    })
    await expect(calendar.events.create({ title: 'Keyed C', ...WHEN }, { idempotencyKey: '' })).rejects.toMatchObject({
      code: 'IDEMPOTENCY_KEY_INVALID',
    })
    expect(await count(`events where title in ('Keyed B', 'Keyed C')`)).toBe(0)
  })

  it('a create that fails inside its transaction leaves the key free', async () => {
    const taken = await calendar.tags.create({ name: 'taken' })
    // The name clash is found inside the create's transaction, after the key was claimed there.
    await expect(calendar.tags.create({ name: 'taken' }, { idempotencyKey: 'script-fails' })).rejects.toMatchObject({ code: 'TERM_EXISTS' })
    expect(await count(`cal_idempotency_keys where key = 'script-fails'`)).toBe(0)
    await calendar.tags.delete(taken.id)
    const created = await calendar.tags.create({ name: 'taken' }, { idempotencyKey: 'script-fails' })
    expect(created).toMatchObject({ name: 'taken' })
  })
})
