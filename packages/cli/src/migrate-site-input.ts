// Reading the source site's JSON (typed `unknown` until a guard says otherwise) into the target's
// write inputs, and the facts two copies of an event are compared on. Pure: no calls here.

/** A JSON object as the source sent it; each field is narrowed where it is read. */
export type Json = Record<string, unknown>

/** A term's writable fields, as `categories.create`/`tags.create` take them. */
export interface TermFields {
  name: string
  slug: string
  description?: string
  parent?: number
}

/** A venue's or organizer's writable fields (its name field is `venue` or `organizer`). */
export type LinkedFields = Record<string, string | number | boolean>

// Every status an editor may list; a source that refuses the filter (anonymous) lists `publish`.
export const STATUSES = 'publish,future,draft,pending,private'
// The widest window the event list accepts; its default is "from yesterday, two years ahead".
export const ALL_DATES = 'start_date=1900-01-01%2000:00:00&end_date=2999-12-31%2023:59:59'

/** `v` as an object, or `undefined` when it is none (or an array). */
export function obj(v: unknown): Json | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined
}

/** The objects of `v` when it is an array; `[]` else. */
export function objs(v: unknown): Json[] {
  const out: Json[] = []
  if (Array.isArray(v)) for (const x of v as unknown[]) if (obj(x)) out.push(obj(x)!)
  return out
}

/** A field as text: `''` for none; an object (never sent for these fields) as its JSON. */
export function str(v: unknown): string {
  if (typeof v === 'string') return v
  if (v === null || v === undefined) return ''
  if (typeof v === 'object') return JSON.stringify(v)
  return typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint' ? String(v) : ''
}

/** Runs `work` on every item, at most `limit` at a time, until `signal` aborts. */
export async function runPool<T>(items: readonly T[], limit: number, signal: AbortSignal | undefined, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  const worker = async () => {
    while (next < items.length && !signal?.aborted) await work(items[next++]!)
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker))
}

/** A term's writable fields; `""` is rejected for texts (CONTRACT 12), so empty ones are left out. */
export function termInput(term: Json): TermFields {
  const input: TermFields = { name: str(term.name), slug: str(term.slug) }
  if (str(term.description) !== '') input.description = str(term.description)
  return input
}

const VENUE_FIELDS = ['address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'website', 'stateprovince'] as const
const ORGANIZER_FIELDS = ['phone', 'website', 'email'] as const
const DATED = ['publish', 'future', 'private']

/** A source venue's or organizer's writable fields. */
export function linkedInput(kind: 'venues' | 'organizers', item: Json): LinkedFields {
  const nameField = kind === 'venues' ? 'venue' : 'organizer'
  const status = str(item.status) || 'publish'
  const input: LinkedFields = { [nameField]: str(item[nameField]), description: str(item.description), status }
  for (const field of kind === 'venues' ? VENUE_FIELDS : ORGANIZER_FIELDS) input[field] = str(item[field])
  if (kind === 'venues') {
    input.show_map = Boolean(item.show_map)
    input.show_map_link = Boolean(item.show_map_link)
    if (item.geo_lat !== undefined && item.geo_lng !== undefined && item.geo_lat !== '' && item.geo_lng !== '') {
      input.geo_lat = Number(item.geo_lat)
      input.geo_lng = Number(item.geo_lng)
    }
  }
  const image = obj(item.image)
  input.image = image ? str(image.url) : ''
  if (DATED.includes(status) && item.date_utc) input.date_utc = str(item.date_utc)
  return input
}

/** Whether the target's copy `found` already has every field of `input`. */
export function linkedSame(kind: 'venues' | 'organizers', found: Json, input: LinkedFields): boolean {
  const current = linkedInput(kind, found)
  return Object.keys(input).every((k) => String(current[k]) === String(input[k]))
}

/** The fields an event is compared on: its content, with links by slug (ids differ by site). */
export function eventFacts(event: Json) {
  const image = obj(event.image)
  const slugs = (v: unknown) => (Array.isArray(v) ? objs(v).map((x) => str(x.slug)).sort() : [])
  const venue = obj(event.venue)
  return {
    title: str(event.title),
    description: str(event.description),
    excerpt: str(event.excerpt),
    slug: str(event.slug),
    status: str(event.status),
    start_date: str(event.start_date),
    end_date: str(event.end_date),
    timezone: str(event.timezone),
    all_day: Boolean(event.all_day),
    cost: str(event.cost),
    cost_details: JSON.stringify(event.cost_details ?? null),
    // With no website of its own, an event shows its page's URL there (CONTRACT 4.1).
    website: str(event.website) === str(event.url) ? '' : str(event.website),
    show_map: Boolean(event.show_map),
    show_map_link: Boolean(event.show_map_link),
    hide_from_listings: Boolean(event.hide_from_listings),
    sticky: Boolean(event.sticky),
    featured: Boolean(event.featured),
    image: image ? str(image.url) : '',
    venue: venue ? str(venue.slug) : '',
    organizer: slugs(event.organizer),
    categories: slugs(event.categories),
    tags: slugs(event.tags),
  }
}

/**
 * The cost as written: the bare values when the source shows no currency symbol ("$10" with
 * values ["10"] and no symbol is the site's default currency, which writing "$10" would turn
 * into an explicit one), else the text as shown ("€5", "Free").
 */
export function costInput(event: Json): string[] | string | null {
  const details = obj(event.cost_details) ?? {}
  const values = Array.isArray(details.values) ? details.values.map(str) : []
  if (values.length > 0 && !details.currency_symbol) return values
  return str(event.cost) === '' ? null : str(event.cost)
}

/** Whether an event in `status` carries its publication date (drafts keep "not yet dated"). */
export const isDated = (status: string) => DATED.includes(status)
