// A consumer of the calendar API through a client generated from its OpenAPI document: types from
// openapi-typescript (generated/schema.d.ts), calls through openapi-fetch. No casts, no `any`:
// whatever the document gets wrong shows up as a compile error here or a failed run in the test.
import createClient, { type Client } from 'openapi-fetch'
import type { components, paths } from './generated/schema.js'

/** An event as the generated types describe it. */
export type Event = components['schemas']['Event']

/** What the consumer saw, for the test to check. */
export interface ConsumerReport {
  created: { venue: number; organizer: number; category: number; tag: number; event: number }
  listTotal: number
  listTotalHeader: string | null
  listedIds: number[]
  /** Read straight off a plain list's items: no narrowing (sync walks have their own path and type). */
  listedTitles: string[]
  bySlugId: number
  featuredAfterUpdate: boolean | null
  venueAfterUnlink: Event['venue']
  trashedStatus: Event['status']
  notFound: { status: number; code: string | undefined }
  badRequest: { status: number; code: string | undefined; params: string[] }
}

function must<T>(data: T | undefined, what: string): T {
  if (data === undefined) throw new Error(`${what} failed`)
  return data
}

/** Creates, lists, reads, updates and trashes through the typed client, as an application would. */
export async function runConsumer(baseUrl: string, token: string): Promise<ConsumerReport> {
  const client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${token}` } })

  const venue = must((await client.POST('/venues', { body: { venue: 'Typed Hall', city: 'Leeds' } })).data, 'create venue')
  const organizer = must((await client.POST('/organizers', { body: { organizer: 'Typed Crew', email: 'crew@example.org' } })).data, 'create organizer')
  const category = must((await client.POST('/categories', { body: { name: 'Typed Talks' } })).data, 'create category')
  const tag = must((await client.POST('/tags', { body: { name: 'typed' } })).data, 'create tag')
  const event = must(
    (
      await client.POST('/events', {
        body: {
          title: 'Typed Meetup',
          start_date: '2027-03-01 18:00:00',
          end_date: '2027-03-01 20:00:00',
          timezone: 'Europe/Berlin',
          venue: venue.id,
          organizer: [organizer.id],
          categories: [category.id],
          tags: [tag.slug],
          cost: '5',
        },
      })
    ).data,
    'create event',
  )

  const list = await client.GET('/events', {
    params: { query: { categories: [category.id], search: 'Typed', per_page: 2, page: 1, start_date: '2027-01-01', end_date: '2027-12-31' } },
  })
  const page = must(list.data, 'list events')

  const byId = must((await client.GET('/events/{id}', { params: { path: { id: event.id } } })).data, 'get event')
  const bySlug = must((await client.GET('/events/by-slug/{slug}', { params: { path: { slug: byId.slug } } })).data, 'get event by slug')
  const updated = must(
    (await client.PATCH('/events/{id}', { params: { path: { id: event.id } }, body: { featured: true, venue: null } })).data,
    'update event',
  )
  const trashed = must((await client.DELETE('/events/{id}', { params: { path: { id: event.id } } })).data, 'delete event')

  const missing = await client.GET('/events/{id}', { params: { path: { id: 2147483647 } } })
  const bad = await client.GET('/venues', { params: { query: { event: 2147483647 } } })

  return {
    created: { venue: venue.id, organizer: organizer.id, category: category.id, tag: tag.id, event: event.id },
    listTotal: page.total,
    listTotalHeader: list.response.headers.get('X-Cal-Total'),
    listedIds: page.events.map((e) => e.id),
    listedTitles: page.events.map((e) => e.title),
    bySlugId: bySlug.id,
    featuredAfterUpdate: updated.featured,
    venueAfterUnlink: updated.venue,
    trashedStatus: trashed.status,
    notFound: { status: missing.response.status, code: missing.error?.code },
    badRequest: {
      status: bad.response.status,
      code: bad.error?.code,
      params: Object.keys(bad.error?.data.params ?? {}),
    },
  }
}

/** Calls the compiler must refuse; never run. Each `@ts-expect-error` fails the build if it stops being an error. */
export function refusedByTheCompiler(client: Client<paths>): void {
  // @ts-expect-error POST /events needs a body (title, start_date, end_date).
  void client.POST('/events', {})
  // @ts-expect-error A title is a string.
  void client.POST('/events', { body: { title: 1, start_date: '2027-01-01', end_date: '2027-01-02' } })
  // @ts-expect-error A venue create needs its name.
  void client.POST('/venues', { body: { city: 'Leeds' } })
  // @ts-expect-error page is an integer.
  void client.GET('/events', { params: { query: { page: 'two' } } })
  // @ts-expect-error status takes the known statuses only.
  void client.GET('/events', { params: { query: { status: ['bogus'] } } })
  // @ts-expect-error strict_dates is a flag.
  void client.GET('/events', { params: { query: { strict_dates: 'maybe' } } })
  // @ts-expect-error order is asc or desc.
  void client.GET('/categories', { params: { query: { order: 'sideways' } } })
  // @ts-expect-error orderby takes the listed keys only.
  void client.GET('/tags', { params: { query: { orderby: 'colour' } } })
  // @ts-expect-error has_events is a flag, not a date.
  void client.GET('/venues', { params: { query: { has_events: '2027-01-01' } } })
  // @ts-expect-error An id in the path is a number.
  void client.GET('/events/{id}', { params: { path: { id: 'seven' } } })
  // @ts-expect-error ml_language is en or es.
  void client.GET('/events', { params: { query: { ml_language: 'fr' } } })
  // @ts-expect-error No such route.
  void client.GET('/eventz')
  void (async () => {
    const res = await client.GET('/events/{id}', { params: { path: { id: 1 } } })
    // @ts-expect-error The codes of a read are a closed list.
    if (res.error?.code === 'term_exists') return
    // @ts-expect-error Events have a title; there is no name.
    void res.data?.name
  })()
}
