/** Largest accepted `per_page`; larger values are capped silently (CONTRACT 5.3). */
export const MAX_PER_PAGE = 50

/** Page numbers of a list request, `per_page` capped (CONTRACT 5.3). */
export interface Paging {
  page: number
  perPage: number
  offset: number
}

/** Effective paging from parsed `page`/`per_page`. */
export function paging(page: number | undefined, perPage: number | undefined, perPageDefault: number): Paging {
  const p = page ?? 1
  const pp = Math.min(perPage ?? perPageDefault, MAX_PER_PAGE)
  return { page: p, perPage: pp, offset: (p - 1) * pp }
}

/** `ceil(total / per_page)`, 0 when empty. */
export function totalPages(total: number, perPage: number): number {
  return total === 0 ? 0 : Math.ceil(total / perPage)
}

function scalar(value: unknown): string | undefined {
  if (Array.isArray(value)) return value.map((v) => scalar(v) ?? '').join(',')
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value)
  return undefined
}

/**
 * `rest_url`, `next_rest_url` and `previous_rest_url` (CONTRACT 5.4, O-9): the collection URL with
 * a trailing slash, `page` and `per_page`, then every declared parameter the client sent (never `password`), percent-encoded.
 */
export function listUrls(collection: string, sent: Readonly<Record<string, unknown>>, p: Paging, pages: number) {
  const build = (page: number | undefined) => {
    const parts: string[] = []
    if (page !== undefined) parts.push(`page=${page}`)
    parts.push(`per_page=${p.perPage}`)
    for (const [key, value] of Object.entries(sent)) {
      // A password is a secret even where a route declares it; URLs end up in logs and caches.
      if (key === 'page' || key === 'per_page' || key === 'password') continue
      const text = scalar(value)
      if (text !== undefined) parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(text)}`)
    }
    return `${collection}/?${parts.join('&')}`
  }
  return {
    rest_url: build(p.page),
    next_rest_url: p.page < pages ? build(p.page + 1) : undefined,
    previous_rest_url: p.page > 1 ? build(p.page - 1 === 1 ? undefined : p.page - 1) : undefined,
  }
}

/** The `X-Cal-Total` / `X-Cal-TotalPages` headers of every list response. */
export function listHeaders(total: number, pages: number): Record<string, string> {
  return { 'X-Cal-Total': String(total), 'X-Cal-TotalPages': String(pages) }
}

/** The list body of events, venues and organizers (CONTRACT 5.1), keys in the order emitted. */
export function postListBody(
  key: string,
  items: unknown[],
  urls: ReturnType<typeof listUrls>,
  total: number,
  pages: number,
): Record<string, unknown> {
  const body: Record<string, unknown> = { [key]: items, rest_url: urls.rest_url }
  if (urls.next_rest_url) body.next_rest_url = urls.next_rest_url
  if (urls.previous_rest_url) body.previous_rest_url = urls.previous_rest_url
  body.total = total
  body.total_pages = pages
  return body
}
