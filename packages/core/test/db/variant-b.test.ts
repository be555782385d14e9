import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar, VenueResource } from '@cal-events/core'
import { BACKEND, execSql, freshCalendar, querySql } from '../../../../test-support/test-db.js'

const NOW = new Date('2026-11-21T03:39:06Z')
const when = { start_date: '2026-12-05 19:00:00', end_date: '2026-12-05 22:00:00' }
const titles = (list: { events: { title: string }[] }) => list.events.map((e) => e.title)

describe(`variant B with three configured languages (${BACKEND})`, () => {
  let calendar: Calendar
  beforeAll(async () => {
    calendar = await freshCalendar({ variant: 'B', languages: ['en', 'es', 'fr'], now: () => NOW })
  })
  afterAll(() => calendar.close())

  it('declares ml_language with the configured languages and refuses others', async () => {
    const described = await calendar.discovery.describe()
    const listArgs = described.routes['/cal/events/v1/events']!.endpoints[0]!.args
    expect(listArgs).toMatchObject({ ml_language: { type: 'string', enum: ['en', 'es', 'fr'], required: false } })
    for (const route of Object.values(described.routes)) {
      for (const endpoint of route.endpoints) expect(endpoint.args).toHaveProperty('ml_language')
    }
    await expect(calendar.events.list({ ml_language: 'de' })).rejects.toMatchObject({
      code: 'INVALID_PARAM',
      data: { params: { ml_language: 'ml_language is not one of en, es and fr.' } },
    })
  })

  it('assigns the active language to events, inline venues and organizers, and implicit terms; updates keep it', async () => {
    const event = await calendar.events.create(
      { title: 'Soirée', ...when, venue: { venue: 'Salle Pleyel' }, organizer: [{ organizer: 'Orchestre' }], categories: ['Concert'], tags: ['jazz'] },
      { language: 'fr' },
    )
    const venueId = (event.venue as VenueResource).id
    const rows = await querySql<{ kind: string; language: string }>(`
      select 'event' as kind, language from events where id = ${event.id}
      union all select 'venue', language from venues where id = ${venueId}
      union all select 'organizer', language from organizers where id = ${event.organizer[0]!.id}
      union all select 'term', language from terms where id in (${event.categories[0]!.id}, ${event.tags[0]!.id})`)
    expect(rows.map((r) => r.language)).toEqual(['fr', 'fr', 'fr', 'fr', 'fr'])
    await calendar.events.update(event.id, { title: 'Soirée 2' }, { language: 'es' })
    expect((await querySql<{ language: string }>(`select language from events where id = ${event.id}`))[0]!.language).toBe('fr')
    expect(Object.keys(event)).not.toContain('language')
  })

  it('filters event and term lists by language, but not venue and organizer lists', async () => {
    await calendar.events.create({ title: 'Party', ...when, categories: ['Music'] })
    await calendar.events.create({ title: 'Fiesta', ...when, categories: ['Música'] }, { language: 'es' })
    expect(titles(await calendar.events.list({}))).toEqual(['Party'])
    expect(titles(await calendar.events.list({}, { language: 'es' }))).toEqual(['Fiesta'])
    expect(titles(await calendar.events.list({ ml_language: 'fr' }))).toEqual(['Soirée 2'])
    expect((await calendar.categories.list({})).categories.map((c) => c.name)).toEqual(['Music'])
    expect((await calendar.categories.list({}, { language: 'fr' })).categories.map((c) => c.name)).toEqual(['Concert'])
    const venues = await calendar.venues.list({}, { language: 'es' })
    expect(venues.venues.map((v) => v.venue)).toContain('Salle Pleyel')
    expect((await calendar.events.get((await calendar.events.list({}, { language: 'es' })).events[0]!.id)).title).toBe('Fiesta')
  })

  it('keeps slugs unique per language and resolves by-slug in the active language, then the default', async () => {
    const en = await calendar.events.create({ title: 'Gala', ...when })
    const fr = await calendar.events.create({ title: 'Gala', ...when }, { language: 'fr' })
    const en2 = await calendar.events.create({ title: 'Gala', ...when })
    expect([en.slug, fr.slug, en2.slug]).toEqual(['gala', 'gala', 'gala-2'])
    expect((await calendar.events.getBySlug('gala', { language: 'fr' })).id).toBe(fr.id)
    expect((await calendar.events.getBySlug('gala', { language: 'en' })).id).toBe(en.id)
    expect((await calendar.events.getBySlug('gala', { language: 'es' })).id).toBe(en.id)
  })

  it('matches the venue filter across a translation group', async () => {
    const a = await calendar.events.create({ title: 'At the hall', ...when, venue: { venue: 'Town Hall' } })
    const b = await calendar.events.create({ title: 'At the hall (en)', ...when, venue: { venue: 'Mairie' } })
    const hall = (a.venue as VenueResource).id
    const mairie = (b.venue as VenueResource).id
    expect(titles(await calendar.events.list({ venue: [hall] }))).toEqual(['At the hall'])
    // The API cannot link translations (CONTRACT 15.4); the column can, and the filter honours it.
    await execSql(`update venues set translation_group = ${hall} where id in (${hall}, ${mairie})`)
    expect(titles(await calendar.events.list({ venue: [hall] }))).toEqual(['At the hall', 'At the hall (en)'])
  })
})
