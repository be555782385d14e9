import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Validator } from '@seriousme/openapi-schema-validator'
import type { Calendar, DescribedArg, DescribedRoute, EventResource, OpenApiDocument, OrganizerResource, RootDescriptor, TermResource, VenueResource } from '@cal-events/core'
import { freshCalendar } from '../../../../test-support/test-db.js'
import { startServer, type TestServer } from '../../../../test-support/http.js'
import { responseValidator, type Document } from '../../../../test-support/openapi.js'

const NOW = new Date('2026-11-21T03:39:06Z')

/** The arguments of a route's first endpoint, as an object (`[]` is how the wire writes none). */
const argsOf = (route: DescribedRoute) => route.endpoints[0]!.args as Record<string, DescribedArg>

for (const variant of ['A', 'B'] as const) {
  describe(`root descriptor and OpenAPI document, variant ${variant}`, () => {
    let calendar: Calendar
    let server: TestServer
    let token: string
    beforeAll(async () => {
      calendar = await freshCalendar({ variant, now: () => NOW })
      server = await startServer(calendar)
      token = (await calendar.tokens.create({ role: 'administrator', login: 'admin' })).token
    })
    afterAll(async () => {
      await server.close()
      await calendar.close()
    })

    it('describes every route in registration order, generated from the route table', async () => {
      const res = await server.request<RootDescriptor>('GET', '')
      expect(res.status).toBe(200)
      const ns = '/cal/events/v1'
      expect(Object.keys(res.body.routes)).toEqual([
        ns,
        `${ns}/doc`,
        `${ns}/events`,
        `${ns}/events/(?P<id>\\d+)`,
        `${ns}/events/by-slug/(?P<slug>[^/]+)`,
        `${ns}/venues`,
        `${ns}/venues/(?P<id>\\d+)`,
        `${ns}/venues/by-slug/(?P<slug>[^/]+)`,
        `${ns}/organizers`,
        `${ns}/organizers/(?P<id>\\d+)`,
        `${ns}/organizers/by-slug/(?P<slug>[^/]+)`,
        `${ns}/categories`,
        `${ns}/categories/(?P<id>\\d+)`,
        `${ns}/tags`,
        `${ns}/tags/(?P<id>\\d+)`,
        // Extensions after the contract's routes (issue 20).
        `${ns}/events/ical`,
        `${ns}/events/(?P<id>\\d+)/ical`,
        `${ns}/events/by-slug/(?P<slug>[^/]+)/ical`,
        `${ns}/events/(?P<id>\\d+)/occurrences/(?P<key>[^/]+)`,
        `${ns}/events/(?P<id>\\d+)/occurrences/(?P<key>[^/]+)/following`,
        // Sync walks on their own paths (issue 29 item 11).
        `${ns}/events/sync`,
        `${ns}/venues/sync`,
        `${ns}/organizers/sync`,
      ])
      expect(res.body.namespace).toBe('cal/events/v1')
      const root = res.body.routes[ns]!
      expect(argsOf(root).namespace).toEqual({ default: 'cal/events/v1', type: 'string', required: false })
      expect(root._links!.self[0]!.href).toBe(`${server.base}`)
      const byId = res.body.routes[`${ns}/events/(?P<id>\\d+)`]!
      expect(byId.methods).toEqual(['GET', 'DELETE', 'POST', 'PUT', 'PATCH'])
      expect(argsOf(byId).id).toMatchObject({ type: 'integer', required: true })
      expect(byId).not.toHaveProperty('_links')
      const list = argsOf(res.body.routes[`${ns}/events`]!)
      expect(list.per_page).toMatchObject({ default: variant === 'A' ? 5 : 10, required: false })
      expect('starts_before' in list).toBe(variant === 'B')
      if (variant === 'B') expect(list.ml_language).toMatchObject({ enum: ['en', 'es'], required: false })
      else expect(res.body.routes[`${ns}/doc`]!.endpoints[0]!.args).toEqual([])
      expect(res.body._links.up[0]!.href).toBe(`${server.base.slice(0, -'cal/events/v1'.length)}`)
      expect(await server.request('GET', '?namespace=other/v2')).toMatchObject({ status: 404, body: { code: 'rest_invalid_namespace' } })
      expect((await server.request('GET', '?context=edit')).status).toBe(200)
    })

    it('serves a valid OpenAPI 3.1 document with the contract paths and schema names', async () => {
      const res = await server.request<Document & Pick<OpenApiDocument, 'openapi' | 'servers'>>('GET', '/doc')
      expect(res.status).toBe(200)
      const doc = res.body
      expect(doc.openapi).toBe('3.1.0')
      expect(doc.servers).toEqual([{ url: server.base, description: 'This server.' }])
      expect(Object.keys(doc.paths)).toEqual([
        '/', '/doc', '/events', '/events/{id}', '/events/by-slug/{slug}', '/venues', '/venues/{id}', '/venues/by-slug/{slug}',
        '/organizers', '/organizers/{id}', '/organizers/by-slug/{slug}', '/categories', '/categories/{id}', '/tags', '/tags/{id}',
        '/events/ical', '/events/{id}/ical', '/events/by-slug/{slug}/ical', '/events/{id}/occurrences/{key}',
        '/events/{id}/occurrences/{key}/following', '/events/sync', '/venues/sync', '/organizers/sync',
      ])
      for (const name of ['ImageSize', 'CostDetails', 'Term', 'Image', 'DateDetails', 'Event', 'Venue', 'Organizer']) {
        expect(doc.components.schemas).toHaveProperty(name)
      }
      // Wire types told truthfully (O-15): author and date details are strings.
      expect(doc.components.schemas.Event!.properties!.author!.type).toBe('string')
      expect(doc.components.schemas.DateDetails!.properties!.year!.type).toBe('string')
      // The server URL joins with the document's paths, and a doubled slash still finds the route.
      expect((await fetch(`${doc.servers[0]!.url}/events`)).status).toBe(200)
      expect((await fetch(`${server.base}//events`)).status).toBe(200)
      expect((await fetch(`${server.base}/venues//1`)).status).not.toBe(404)
      const result = await new Validator().validate({ ...doc })
      expect(result.errors ?? []).toEqual([])
      expect(result.valid).toBe(true)
    })

    it('answers every route with bodies that conform to the schemas the document declares', async () => {
      const check = responseValidator((await server.request<Document>('GET', '/doc')).body)
      const problems: string[] = []
      async function call<B = unknown>(method: string, docPath: string, path: string, body?: unknown, auth = true) {
        const res = await server.request<B>(method, path, { body, token: auth ? token : undefined })
        problems.push(...check(docPath, method, res.status, res.body))
        return res
      }
      const venue = await call<VenueResource>('POST', '/venues', '/venues', { venue: 'Doc Hall', city: 'Leeds', geo_lat: 53.8, geo_lng: -1.55 })
      const organizer = await call<OrganizerResource>('POST', '/organizers', '/organizers', { organizer: 'Doc Org', email: 'o@example.org' })
      const category = await call<TermResource>('POST', '/categories', '/categories', { name: 'Doc Cat' })
      const tag = await call<TermResource>('POST', '/tags', '/tags', { name: 'Doc Tag' })
      const event = await call<EventResource>('POST', '/events', '/events', {
        title: 'Doc Event',
        start_date: '2026-12-01 10:00:00',
        end_date: '2026-12-01 12:00:00',
        venue: venue.body.id,
        organizer: [organizer.body.id],
        categories: [category.body.id],
        tags: [tag.body.id],
        cost: '$5 - $10',
        image: 'https://example.org/poster.png',
      })
      expect(event.status).toBe(201)
      await call('GET', '/events', '/events')
      await call('GET', '/events/{id}', `/events/${event.body.id}`, undefined, false)
      await call('GET', '/events/by-slug/{slug}', '/events/by-slug/doc-event')
      await call('PATCH', '/events/{id}', `/events/${event.body.id}`, { featured: true })
      await call('PUT', '/events/by-slug/{slug}', '/events/by-slug/doc-event', { sticky: true })
      await call('GET', '/events/{id}', '/events/999999')
      for (const [collection, id, slug] of [
        ['venues', venue.body.id, venue.body.slug],
        ['organizers', organizer.body.id, organizer.body.slug],
      ] as const) {
        await call('GET', `/${collection}`, `/${collection}`)
        await call('GET', `/${collection}/{id}`, `/${collection}/${id}`)
        await call('GET', `/${collection}/by-slug/{slug}`, `/${collection}/by-slug/${slug}`)
        await call('POST', `/${collection}/{id}`, `/${collection}/${id}`, { phone: '123' })
      }
      for (const [collection, id] of [
        ['categories', category.body.id],
        ['tags', tag.body.id],
      ] as const) {
        await call('GET', `/${collection}`, `/${collection}`)
        await call('GET', `/${collection}/{id}`, `/${collection}/${id}`)
        await call('PATCH', `/${collection}/{id}`, `/${collection}/${id}`, { description: 'Described' })
      }
      await call('DELETE', '/events/{id}', `/events/${event.body.id}`)
      await call('DELETE', '/venues/{id}', `/venues/${venue.body.id}`)
      await call('DELETE', '/organizers/by-slug/{slug}', `/organizers/by-slug/${organizer.body.slug}`)
      await call('DELETE', '/tags/{id}', `/tags/${tag.body.id}`)
      await call('DELETE', '/categories/{id}', `/categories/${category.body.id}`)
      expect(problems).toEqual([])
    })
  })
}
