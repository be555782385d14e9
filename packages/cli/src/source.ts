/**
 * Reading a live calendar site over HTTP: this API (`/cal/events/v1`) or the reference plugin's
 * (`/wp-json/tribe/events/v1`). Retries what may pass (429, 5xx, a dropped connection) with
 * backoff, follows redirects itself so a loop is named as one, and turns anything that is not the
 * calendar's JSON into a `SourceError` naming the URL.
 */

/** The source answered something a calendar API never answers; `url` is the request that did. */
export class SourceError extends Error {
  override name = 'SourceError'
  constructor(
    readonly url: string,
    problem: string,
    /** The HTTP status when the source answered one (a 404 of a probe is not an error). */
    readonly status?: number,
  ) {
    super(`${url}: ${problem}`)
  }
}

/** How the source is read. */
export interface SourceOptions {
  /** `Authorization` header sent to the source's origin (never to another origin a redirect names). */
  authorization?: string
  /** Tries per request for 429/5xx/connection failures. Default 5. */
  retries?: number
  /** First backoff delay; doubled each retry (a `Retry-After` of up to a minute wins). Default 500 ms. */
  backoffMs?: number
  /** Stops waiting and retrying. */
  signal?: AbortSignal
  /** Default: the global `fetch`. */
  fetch?: typeof fetch
}

export const NAMESPACES = ['cal/events/v1', 'wp-json/tribe/events/v1'] as const
const MAX_REDIRECTS = 5

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms)
    signal?.addEventListener('abort', () => {
      clearTimeout(timer)
      resolve()
    }, { once: true })
  })

function retryAfterMs(value: string | null): number | undefined {
  if (!value) return undefined
  const seconds = Number(value)
  if (Number.isFinite(seconds)) return Math.min(60_000, Math.max(0, seconds * 1000))
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.min(60_000, Math.max(0, date - Date.now()))
}

/** A reader of one source. */
export interface Source {
  /** The REST root, e.g. `https://site.example/wp-json/tribe/events/v1`. */
  readonly root: string
  /** GETs a URL and returns its JSON object (or throws `SourceError`). */
  getJson(url: string): Promise<Record<string, unknown>>
}

/** Opens a source from its REST root or its site URL (the namespace is then found by asking). */
export async function openSource(location: string, options: SourceOptions = {}): Promise<Source> {
  let base: URL
  try {
    base = new URL(location)
  } catch {
    throw new SourceError(location, 'not a URL (expected e.g. https://site.example or https://site.example/wp-json/tribe/events/v1)')
  }
  if (!/^https?:$/.test(base.protocol)) throw new SourceError(location, 'only http and https sources can be read')
  const trimmed = base.href.replace(/\/+$/, '')
  const getJson = (url: string) => fetchJson(url, new URL(trimmed).origin, options)
  if (NAMESPACES.some((ns) => trimmed.endsWith(`/${ns}`))) return { root: trimmed, getJson }
  // A site URL: the reference's namespace first (a WordPress site), then ours.
  const problems: string[] = []
  for (const ns of [...NAMESPACES].reverse()) {
    const root = `${trimmed}/${ns}`
    try {
      await getJson(`${root}/events?per_page=1`)
      return { root, getJson }
    } catch (err) {
      if (!(err instanceof SourceError)) throw err
      problems.push(err.message)
    }
  }
  throw new SourceError(location, `no calendar API found here (${problems.join('; ')})`)
}

async function fetchJson(url: string, authOrigin: string, options: SourceOptions): Promise<Record<string, unknown>> {
  const doFetch = options.fetch ?? fetch
  const retries = options.retries ?? 5
  let delay = options.backoffMs ?? 500
  for (let attempt = 1; ; attempt++) {
    let response: Response
    let current = url
    const seen = new Set<string>()
    try {
      for (;;) {
        seen.add(current)
        const headers: Record<string, string> = { accept: 'application/json' }
        if (options.authorization && new URL(current).origin === authOrigin) headers.authorization = options.authorization
        response = await doFetch(current, { headers, redirect: 'manual', signal: options.signal })
        if (response.status < 300 || response.status >= 400 || !response.headers.get('location')) break
        await response.body?.cancel()
        const next = new URL(response.headers.get('location')!, current).href
        if (seen.has(next)) throw new SourceError(url, `redirect loop (${[...seen, next].join(' -> ')})`)
        if (seen.size > MAX_REDIRECTS) throw new SourceError(url, `more than ${MAX_REDIRECTS} redirects`)
        current = next
      }
    } catch (err) {
      if (err instanceof SourceError || options.signal?.aborted) throw err
      const cause = (err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message
      if (attempt >= retries) throw new SourceError(url, `could not connect after ${attempt} tries (${cause})`)
      await sleep(delay, options.signal)
      delay *= 2
      continue
    }
    const status = response!.status
    if (status === 429 || status >= 500) {
      await response!.body?.cancel()
      if (attempt >= retries) throw new SourceError(url, `answered ${status} ${response!.statusText} ${attempt} times; try again later`)
      await sleep(retryAfterMs(response!.headers.get('retry-after')) ?? delay, options.signal)
      delay *= 2
      continue
    }
    const type = response!.headers.get('content-type') ?? ''
    const text = await response!.text()
    if (!/\bjson\b/i.test(type)) {
      const kind = /html/i.test(type) || /^\s*</.test(text) ? 'an HTML page' : `"${type || 'no content type'}"`
      throw new SourceError(url, `answered ${status} with ${kind}, not the calendar API's JSON (is this the API's URL?)`, status)
    }
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      throw new SourceError(url, `answered ${status} with invalid JSON`)
    }
    if (status >= 400) {
      const detail = body && typeof body === 'object' ? (body as { code?: string | number; message?: string }) : {}
      throw new SourceError(url, `answered ${status}${detail.code ? ` ${String(detail.code)}` : ''}${detail.message ? `: ${String(detail.message)}` : ''}`, status)
    }
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw new SourceError(url, 'answered JSON that is not an object')
    return body as Record<string, unknown>
  }
}

/**
 * Every item of a list, page by page through `next_rest_url` (or, with `readAhead` > 1 and a
 * `total_pages`, that many pages asked at once by number). `key` is the envelope's array
 * (`events`, `venues`, …); an answer without it is not this API.
 */
export async function* listAll(
  source: Source,
  firstUrl: string,
  key: string,
  readAhead = 1,
): AsyncGenerator<{ items: Record<string, unknown>[]; total: number }> {
  const page = (url: string, body: Record<string, unknown>) => {
    const items = body[key]
    if (!Array.isArray(items) || !items.every((i) => i && typeof i === 'object')) {
      throw new SourceError(url, `not a calendar API list (no "${key}" array of objects)`)
    }
    return { items: items as Record<string, unknown>[], total: typeof body.total === 'number' ? body.total : items.length }
  }
  const first = await source.getJson(firstUrl)
  yield page(firstUrl, first)
  const next = typeof first.next_rest_url === 'string' && first.next_rest_url !== '' ? first.next_rest_url : undefined
  // With read-ahead, the pages are asked `readAhead` at a time by number (`page=3`, `page=4`, …,
  // as `next_rest_url` names page 2), and yielded in order: a 100,000-event list is 2,000 pages
  // of 50, one round trip each.
  const pages = typeof first.total_pages === 'number' ? first.total_pages : undefined
  const numbered = next !== undefined && new URL(next).searchParams.get('page') === '2'
  if (readAhead > 1 && pages !== undefined && numbered) {
    const urlOf = (n: number) => {
      const url = new URL(next)
      url.searchParams.set('page', String(n))
      return url.href
    }
    const inFlight: Promise<Record<string, unknown>>[] = []
    let asked = 2
    const ask = () => {
      if (asked > pages) return
      const p = source.getJson(urlOf(asked++))
      // Settled later in order; a failure surfaces when its page's turn comes.
      p.catch(() => {})
      inFlight.push(p)
    }
    for (let i = 0; i < readAhead; i++) ask()
    for (let n = 2; n <= pages; n++) {
      const body = await inFlight.shift()!
      ask()
      yield page(urlOf(n), body)
    }
    return
  }
  let url = next
  const visited = new Set<string>([firstUrl])
  while (url) {
    if (visited.has(url)) throw new SourceError(url, 'next_rest_url points back to a page already read')
    visited.add(url)
    const body = await source.getJson(url)
    yield page(url, body)
    const after = body.next_rest_url
    url = typeof after === 'string' && after !== '' ? after : undefined
  }
}
