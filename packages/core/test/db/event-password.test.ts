import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar } from '@cal-events/core'
import { BACKEND, freshCalendar } from '../../../../test-support/test-db.js'

const NOW = new Date('2026-11-21T03:39:06Z')

describe(`password-protected events, variant B (${BACKEND})`, () => {
  let calendar: Calendar
  let id: number
  beforeAll(async () => {
    calendar = await freshCalendar({ variant: 'B', now: () => NOW })
    const event = await calendar.events.create({
      title: 'Secret party',
      excerpt: 'Bring snacks',
      start_date: '2026-12-10 20:00:00',
      end_date: '2026-12-10 23:00:00',
      venue: { venue: 'Basement' },
      categories: ['Parties'],
      cost: '5',
      featured: true,
    })
    id = event.id
    // O-23: a password on update-by-id protects the event.
    await calendar.events.update(id, { password: 'Open Sesame' })
  })
  afterAll(() => calendar.close())

  it('refuses single reads without the exact password, and never adds json_ld', async () => {
    await expect(calendar.events.get(id, { as: null })).rejects.toMatchObject({ code: 'EVENT_PASSWORD_PROTECTED' })
    await expect(calendar.events.get(id, { as: null, password: 'open sesame' })).rejects.toMatchObject({ code: 'EVENT_PASSWORD_PROTECTED' })
    const unlocked = await calendar.events.get(id, { as: null, password: 'Open Sesame' })
    expect(unlocked).toMatchObject({ title: 'Secret party', excerpt: '<p>Bring snacks</p>', featured: true })
    expect(unlocked).not.toHaveProperty('json_ld')
    const bySlug = await calendar.events.getBySlug('secret-party', { as: null, password: 'Open Sesame' })
    expect(bySlug.id).toBe(id)
    // Callers who can edit the event always see it (O-22).
    expect((await calendar.events.get(id, { as: { id: 77, role: 'editor' } })).title).toBe('Secret party')
  })

  it('blanks the protected fields in lists for everybody else', async () => {
    const [anon] = (await calendar.events.list({}, { as: null })).events
    expect(anon).toMatchObject({
      title: 'Secret party',
      description: '',
      excerpt: '',
      image: false,
      all_day: null,
      cost: '',
      cost_details: { currency_symbol: '', currency_position: '', currency_code: '', values: [] },
      website: '',
      show_map: null,
      featured: null,
      categories: [],
      venue: [],
      organizer: [],
    })
    const [editor] = (await calendar.events.list({}, { as: { id: 77, role: 'editor' } })).events
    expect(editor).toMatchObject({ excerpt: '<p>Bring snacks</p>', featured: true, cost: '$5' })
  })

  it('clears the password with null', async () => {
    await calendar.events.update(id, { password: null })
    expect((await calendar.events.get(id, { as: null })).title).toBe('Secret party')
  })
})
