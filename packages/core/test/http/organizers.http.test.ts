import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar, OrganizerList, OrganizerResource } from '@cal-events/core'
import { freshCalendar } from '../../../../test-support/test-db.js'
import { startServer, type TestServer } from '../../../../test-support/http.js'

const NOW = new Date('2026-11-21T03:39:06Z')

describe('organizers over HTTP', () => {
  let calendar: Calendar
  let server: TestServer
  let admin: string
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW })
    server = await startServer(calendar)
    admin = (await calendar.tokens.create({ role: 'administrator', login: 'admin' })).token
  })
  afterAll(async () => {
    await server.close()
    await calendar.close()
  })

  it('creates, lists with headers, reads with json_ld, updates and trashes', async () => {
    const created = await server.request<OrganizerResource>('POST', '/organizers', {
      token: admin,
      body: { organizer: 'Sample Org', phone: '555-0101', email: 'org@example.com', website: 'https://example.com/org', description: 'A sample organizer.' },
    })
    expect(created.status).toBe(201)
    const id = created.body.id
    expect(Object.keys(created.body)).toEqual([
      'id', 'author', 'status', 'date', 'date_utc', 'modified', 'modified_utc', 'url', 'organizer', 'description', 'slug',
      'phone', 'website', 'email', 'global_id', 'global_id_lineage',
    ])

    const list = await server.request<OrganizerList>('GET', '/organizers?per_page=2')
    expect(list.headers.get('x-cal-total')).toBe('1')
    expect(list.headers.get('x-cal-totalpages')).toBe('1')
    expect(Object.keys(list.body)).toEqual(['organizers', 'rest_url', 'total', 'total_pages'])
    expect(list.body.rest_url).toBe(`${server.base}/organizers/?page=1&per_page=2`)
    expect(list.body.organizers[0]).toEqual(created.body)

    const read = await server.request<OrganizerResource>('GET', '/organizers/by-slug/sample-org')
    expect(read.body.json_ld).toMatchObject({ '@type': 'Person', email: 'org@example.com' })
    const updated = await server.request<OrganizerResource>('PATCH', `/organizers/${id}`, { token: admin, body: { email: '' } })
    expect(updated.body).not.toHaveProperty('email')
    expect(updated.body.phone).toBe('555-0101')

    const anonymousDelete = await server.request('DELETE', `/organizers/${id}`)
    expect(anonymousDelete.body).toEqual({ code: 'rest_forbidden', message: 'Sorry, you are not allowed to do that.', data: { status: 401 } })
    expect((await server.request('DELETE', '/organizers/by-slug/sample-org', { token: admin })).body).toMatchObject({ id, status: 'trash' })
    const again = await server.request('DELETE', `/organizers/${id}`, { token: admin })
    expect(again.status).toBe(410)
    expect(again.body).toEqual({ code: 'organizer-is-in-trash', message: expect.any(String), data: { status: 410 } })
    const anonRead = await server.request('GET', `/organizers/${id}`)
    expect(anonRead.body).toEqual({ code: 'organizer-not-accessible', message: expect.any(String), data: { status: 403 } })
  })

  it('answers list errors in the contract shape', async () => {
    const badSearch = await server.request('GET', '/organizers?search[]=a&search[]=b')
    expect(badSearch.status).toBe(400)
    expect(badSearch.body).toEqual({ code: 'archive-bad-search-string', message: expect.any(String), data: { status: 400 } })
    const pastEnd = await server.request('GET', '/organizers?page=2')
    expect(pastEnd.status).toBe(404)
    expect(pastEnd.body).toEqual({ code: 'organizer-archive-page-not-found', message: expect.any(String), data: { status: 404 } })
    const status = await server.request('GET', '/organizers?status=draft')
    expect(status.body).toMatchObject({ code: 'rest_invalid_param', data: { status: 400, params: { status: expect.any(String) } } })
    expect((await server.request('GET', '/organizers?status=draft', { token: admin })).status).toBe(200)
    expect((await server.request('DELETE', '/organizers/999999')).status).toBe(400)
  })
})
