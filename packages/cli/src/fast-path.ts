import type { IncomingMessage, ServerResponse } from 'node:http'
import compressible from 'compressible'
import Negotiator from 'negotiator'
import vary from 'vary'
import { NAMESPACE, WP_NAMESPACE, type CachedAnswer, type Calendar } from '@cal-events/core'

/** Options of the server's fast path. */
export interface FastPathOptions {
  /** Compress as the `compression` middleware in front of the router does (its threshold), or not at all. */
  compression: { threshold: number } | undefined
}

// What `compression` 1.8 offers and prefers (brotli first when Node has it, as it always has since 11.7).
const SUPPORTED_ENCODINGS = ['br', 'gzip', 'deflate', 'identity']
const PREFERRED_ENCODINGS = ['br', 'gzip']
const NO_TRANSFORM = /(?:^|,)\s*?no-transform\s*?(?:,|$)/

type Encoding = 'br' | 'gzip' | 'deflate'

/**
 * The hot-read cache's fast path in front of Express (docs/response-cache.md): a GET/HEAD under the
 * calendar's namespace whose anonymous answer is kept and still valid is written here, without
 * Express's routing and middleware; anything else returns `undefined` (at once, or once the shared
 * check is done) and goes to the Express app. The answer is what the app would send: the same
 * headers and bytes, compressed as `compression` would compress them, but from bytes compressed
 * once per kept answer (and with a `Content-Length` where `compression` streams chunks).
 *
 * Only for a server whose origin is its own `Host` (no `trust proxy`: then the origin can come from
 * `X-Forwarded-*`, which only Express's trust rules may read) and whose router is mounted at `/`.
 */
export function cacheFastPath(calendar: Calendar, options: FastPathOptions) {
  const prefixes = calendar.options.wpCompat ? [`/${NAMESPACE}`, `/${WP_NAMESPACE}`] : [`/${NAMESPACE}`]
  const under = (path: string) => prefixes.some((p) => path === p || path.startsWith(`${p}/`))
  // Header objects made once per kept answer and variant: `CachedAnswer.headers` is the same
  // object for every hit of one kept answer.
  const variants = new WeakMap<object, Partial<Record<Encoding | 'identity', Record<string, string>>>>()

  function headersFor(answer: CachedAnswer, encoding: Encoding | 'identity', length: number): Record<string, string> {
    let made = variants.get(answer.headers)
    if (!made) variants.set(answer.headers, (made = {}))
    return (made[encoding] ??= (() => {
      const headers: Record<string, string> = { ...answer.headers }
      // As `compression`: every compressible answer varies by Accept-Encoding, compressed or not.
      headers.Vary = headers.Vary ? vary.append(headers.Vary, 'Accept-Encoding') : 'Accept-Encoding'
      if (encoding !== 'identity') {
        headers['Content-Encoding'] = encoding
        headers['Content-Length'] = String(length)
      }
      return headers
    })())
  }

  /** What `compression` would do with this answer: no change, only `Vary`, or an encoding. */
  function encodingFor(req: IncomingMessage, answer: CachedAnswer): Encoding | 'identity' | undefined {
    const threshold = options.compression?.threshold
    const type = answer.headers['Content-Type']
    if (threshold === undefined || type === undefined || !compressible(type)) return undefined
    const cacheControl = answer.headers['Cache-Control']
    if (cacheControl !== undefined && NO_TRANSFORM.test(cacheControl)) return undefined
    if (Number(answer.headers['Content-Length']) < threshold || req.method === 'HEAD') return 'identity'
    if (req.headers['accept-encoding'] === undefined) return 'identity'
    // negotiator 0.6.4 takes the preference list `compression` passes; its typings predate it.
    const negotiator = new Negotiator(req) as unknown as { encoding(available: string[], preferred: string[]): string | undefined }
    const method = negotiator.encoding(SUPPORTED_ENCODINGS, PREFERRED_ENCODINGS)
    return method === 'br' || method === 'gzip' || method === 'deflate' ? method : 'identity'
  }

  /** Writes `answer` as the Express app would. */
  function write(req: IncomingMessage, res: ServerResponse, answer: CachedAnswer): void {
    const encoding = encodingFor(req, answer)
    if (encoding === undefined) {
      res.writeHead(answer.status, answer.headers)
      res.end(answer.body)
      return
    }
    const body = encoding === 'identity' || answer.body === undefined ? answer.body : answer.encoded(encoding)
    res.writeHead(answer.status, headersFor(answer, encoding, body?.length ?? 0))
    res.end(body)
  }

  /**
   * Answers `req` from the cache when it can: resolves `true` when it wrote the answer, `false` when
   * the request must go to the app (which has seen nothing of it yet); `undefined` when that is clear at once.
   */
  return function fastPath(req: IncomingMessage, res: ServerResponse): Promise<boolean> | undefined {
    const url = req.url ?? ''
    if ((req.method !== 'GET' && req.method !== 'HEAD') || url[0] !== '/') return undefined
    // A GET with a body goes the full way: the app reads (and ignores) it.
    if (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined) return undefined
    const queryStart = url.indexOf('?')
    const path = queryStart === -1 ? url : url.slice(0, queryStart)
    if (!under(path)) return undefined
    const found = calendar.cachedAnswer({
      method: req.method,
      path,
      query: queryStart === -1 ? '' : url.slice(queryStart + 1),
      headers: req.headers,
      // As Express without `trust proxy`: the connection's protocol and the Host header as sent.
      origin: `${(req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http'}://${req.headers.host ?? 'localhost'}`,
      mountPath: '',
    })
    if (!found) return undefined
    return found.then((answer) => {
      if (!answer) return false
      write(req, res, answer)
      return true
    })
  }
}
