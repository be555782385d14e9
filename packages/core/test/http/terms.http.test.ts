import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar, CategoryList, TermResource } from '@cal-events/core'
import { freshCalendar } from '../../../../test-support/test-db.js'
import { startServer, type TestServer } from '../../../../test-support/http.js'

const NOW = new Date('2026-11-21T03:39:06Z')
const JSON_TYPE = 'application/json; charset=UTF-8'

describe('categories and tags over HTTP', () => {
  let calendar: Calendar
  let server: TestServer
  let admin: string
  let author: string
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW })
    server = await startServer(calendar)
    admin = (await calendar.tokens.create({ role: 'administrator', login: 'admin' })).token
    author = (await calendar.tokens.create({ role: 'author', login: 'a1' })).token
  })
  afterAll(async () => {
    await server.close()
    await calendar.close()
  })

  it('creates a category: 201, the Term and a Location header', async () => {
    const res = await server.request<TermResource>('POST', '/categories', {
      token: author,
      body: { name: 'Sample Category', description: 'Cat desc', slug: 'sample-category' },
    })
    expect(res.status).toBe(201)
    expect(res.headers.get('content-type')).toBe(JSON_TYPE)
    expect(res.headers.get('location')).toBe(`${server.base}/categories/${res.body.id}`)
    expect(res.headers.get('x-cal-total')).toBeNull()
    const origin = server.base.replace('/cal/events/v1', '')
    expect(res.body).toEqual({
      id: res.body.id,
      count: 0,
      description: 'Cat desc',
      name: 'Sample Category',
      slug: 'sample-category',
      taxonomy: 'cal_events_cat',
      parent: 0,
      meta: [],
      url: `${origin}/events/category/sample-category/`,
      urls: { self: `${server.base}/categories/${res.body.id}`, collection: `${server.base}/categories` },
    })
    const read = await server.request('GET', `/categories/${res.body.id}`)
    expect(read).toMatchObject({ status: 200, body: res.body })
  })

  it('creates a tag from a form body; an author gets 403 and anonymous callers 401', async () => {
    const forbidden = await server.request('POST', '/tags', { token: author, body: { name: 'Sample Tag' } })
    expect(forbidden).toMatchObject({ status: 403, body: { code: 'rest_forbidden', message: expect.any(String), data: { status: 403 } } })
    const anonymous = await server.request('POST', '/categories', { body: { name: 'Anon' } })
    expect(anonymous).toMatchObject({ status: 401, body: { code: 'rest_forbidden', data: { status: 401 } } })
    const created = await server.request<TermResource>('POST', '/tags', {
      token: admin,
      raw: 'name=Sample+Tag&description=Tag+desc',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    expect(created.status).toBe(201)
    expect(created.headers.get('location')).toBe(`${server.base}/tags/${created.body.id}`)
    expect(created.body).toMatchObject({ name: 'Sample Tag', description: 'Tag desc', taxonomy: 'post_tag' })
    expect(created.body).not.toHaveProperty('parent')
  })

  it('lists with the envelope, X-Cal headers and following next/previous URLs', async () => {
    const ids: number[] = []
    for (const name of ['Listed A', 'Listed B', 'Listed C']) {
      ids.push((await server.request<TermResource>('POST', '/categories', { token: admin, body: { name } })).body.id)
    }
    const first = await server.request<CategoryList>('GET', '/categories?per_page=2&hide_empty=false&search=listed')
    expect(first.status).toBe(200)
    expect(first.headers.get('x-cal-total')).toBe('3')
    expect(first.headers.get('x-cal-totalpages')).toBe('2')
    expect(Object.keys(first.body)).toEqual(['rest_url', 'total', 'total_pages', 'categories', 'next_rest_url'])
    expect(first.body.rest_url).toBe(`${server.base}/categories/?page=1&per_page=2&hide_empty=false&search=listed`)
    expect(first.body.categories.map((c: { id: number }) => c.id)).toEqual(ids.slice(0, 2))
    const second = await server.request<CategoryList>('GET', first.body.next_rest_url!.slice(server.base.length))
    expect(second.status).toBe(200)
    expect(second.body.categories.map((c: { id: number }) => c.id)).toEqual([ids[2]])
    expect(second.body.previous_rest_url).toBe(`${server.base}/categories/?per_page=2&hide_empty=false&search=listed`)
    const past = await server.request('GET', '/categories?per_page=2&hide_empty=false&search=listed&page=9')
    expect(past).toMatchObject({ status: 200, body: { total: 3, total_pages: 2, categories: [] } })
    expect(past.headers.get('x-cal-total')).toBe('3')
    // hide_empty defaults to true: none of these has a published event.
    const hidden = await server.request('GET', '/categories?search=listed')
    expect(hidden).toMatchObject({ status: 200, body: { total: 0, total_pages: 0, categories: [] } })
    expect(hidden.headers.get('x-cal-totalpages')).toBe('0')
  })

  it('answers errors in the contract shape', async () => {
    const unknown = await server.request('GET', '/tags/999999')
    expect(unknown).toMatchObject({
      status: 400,
      body: { code: 'rest_invalid_param', message: 'Invalid parameter(s): id', data: { status: 400, params: { id: expect.any(String) }, details: [] } },
    })
    expect((await server.request('DELETE', '/categories/999999')).status).toBe(400)
    expect((await server.request('GET', '/categories/abc')).body).toMatchObject({ code: 'rest_no_route', data: { status: 404 } })
    const order = await server.request('GET', '/categories?order=sideways&orderby=popularity')
    expect(order.body).toMatchObject({ code: 'rest_invalid_param', data: { params: { order: expect.any(String), orderby: expect.any(String) } } })
    const missing = await server.request('POST', '/categories', { body: {} })
    expect(missing).toMatchObject({ status: 400, body: { code: 'rest_missing_callback_param', data: { status: 400, params: ['name'] } } })
    const parent = await server.request('POST', '/tags', { token: admin, body: { name: 'Child tag', parent: 1 } })
    expect(parent).toMatchObject({ status: 400, body: { code: 'rest_taxonomy_not_hierarchical', data: { status: 400 } } })
    const first = await server.request<TermResource>('POST', '/categories', { token: admin, body: { name: 'Clash' } })
    const clash = await server.request('POST', '/categories', { token: admin, body: { name: 'clash' } })
    expect(clash).toMatchObject({ status: 400, body: { code: 'term_exists', data: { status: 400, term_id: first.body.id } } })
    const other = await server.request<TermResource>('POST', '/categories', { token: admin, body: { name: 'Other' } })
    const dup = await server.request('PATCH', `/categories/${other.body.id}`, { token: admin, body: { slug: 'clash' } })
    expect(dup).toMatchObject({ status: 400, body: { code: 'duplicate_term_slug', data: { status: 400 } } })
  })

  it('updates with POST, PUT and PATCH and deletes for good', async () => {
    const made = (await server.request<TermResource>('POST', '/tags', { token: admin, body: { name: 'Methods' } })).body
    for (const [method, name] of [['POST', 'Via post'], ['PUT', 'Via put'], ['PATCH', 'Via patch']] as const) {
      const res = await server.request(method, `/tags/${made.id}`, { token: admin, body: { name } })
      expect(res).toMatchObject({ status: 200, body: { id: made.id, name, slug: 'methods' } })
    }
    expect((await server.request('PATCH', `/tags/${made.id}`, { body: { name: 'x' } })).status).toBe(401)
    const deleted = await server.request('DELETE', `/tags/${made.id}`, { token: admin })
    expect(deleted).toMatchObject({ status: 200, body: { id: made.id, name: 'Via patch', count: 0 } })
    const again = await server.request('DELETE', `/tags/${made.id}`, { token: admin })
    expect(again).toMatchObject({ status: 400, body: { code: 'rest_invalid_param', data: { params: { id: expect.any(String) } } } })
  })
})
