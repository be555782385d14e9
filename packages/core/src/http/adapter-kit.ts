import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import * as zlib from 'node:zlib'
import type { Transform } from 'node:stream'
import { NAMESPACE, WP_NAMESPACE } from '../api/context.js'
import { CalendarError } from '../errors.js'
import { toErrorResponse } from './error-response.js'

// What every HTTP adapter does the same way, so two adapters answer with the same bytes.

/** The path prefixes a calendar answers under: its namespace, and the WordPress plugin's with `wpCompat`. */
export function calendarPrefixes(options: { wpCompat?: boolean }): string[] {
  return options.wpCompat ? [`/${NAMESPACE}`, `/${WP_NAMESPACE}`] : [`/${NAMESPACE}`]
}

/**
 * The text an adapter writes for an answer of `calendar.handle` that has no `stream`: the JSON the
 * calendar already serialised, else `body` as JSON; `undefined` when there is no body at all (a
 * preflight's 204, a 304). Written as UTF-8 with its `Content-Length`; for `HEAD` only the length.
 */
// Typed by the two fields it reads, so the internal entry's declarations stand alone (no chunk
// shared with the public entry's).
export function responseText(response: { text?: string; body?: unknown }): string | undefined {
  if (response.text === undefined && response.body === undefined) return undefined
  return response.text ?? JSON.stringify(response.body)
}

/**
 * A failure of a host's body reader (the shape of `http-errors`: `status`, `type`) as the
 * calendar's error: too large 413, unsupported encoding or charset 415, any other 4xx an unreadable
 * body (400); anything else is returned as it is (an unexpected error, 500).
 */
export function bodyReadError(err: unknown): unknown {
  if (err instanceof CalendarError) return err
  const { status, type } = (err ?? {}) as { status?: number; type?: string }
  if (status === 413) return new CalendarError('PAYLOAD_TOO_LARGE', 'The request body is too large.')
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') return new CalendarError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported body encoding.')
  if (status !== undefined && status >= 400 && status < 500) return new CalendarError('INVALID_JSON', 'The request body could not be read.')
  return err
}

/**
 * The contract's error answer for a failure before any calendar is known (a calendar set's
 * resolver: a malformed key 400, an unknown one 404); anything but a `CalendarError` is a 500 told
 * to `onError`. Typed by shape, as `responseText`, so the internal entry's declarations stand alone.
 */
export function errorAnswer(err: unknown, onError?: (err: unknown) => void): { status: number; headers: Record<string, string>; body: unknown } {
  return toErrorResponse(err, onError)
}

/** The decoder of a `Content-Encoding` as Express's body reader (body-parser 2) knows them; `null` for identity. */
function decoderFor(encoding: string): Transform | null {
  switch (encoding) {
    case 'identity':
      return null
    case 'deflate':
      return zlib.createInflate()
    case 'gzip':
      return zlib.createGunzip()
    case 'br':
      return zlib.createBrotliDecompress()
    case 'zstd': {
      // Only on Node versions that have it, as body-parser.
      const zstd = (zlib as { createZstdDecompress?: () => Transform }).createZstdDecompress
      if (zstd) return zstd()
    }
  }
  throw bodyReadError({ status: 415, type: 'encoding.unsupported' })
}

/**
 * Reads a request body as the Express adapter's body reader does: `Content-Encoding` decoded
 * (identity, deflate, gzip, br), at most `maxBytes` after decoding. Throws the calendar's error:
 * `PAYLOAD_TOO_LARGE`, `UNSUPPORTED_MEDIA_TYPE` (another encoding) or `INVALID_JSON` (unreadable).
 */
export async function readRequestBody(
  chunks: AsyncIterable<Uint8Array>,
  headers: { contentEncoding?: string | null; contentLength?: string | null },
  maxBytes: number,
): Promise<Uint8Array> {
  const iterator = chunks[Symbol.asyncIterator]()
  // Without `return`: a reader that stops early must not cancel the request, whose rest is drained below.
  const source: AsyncIterable<Uint8Array> = { [Symbol.asyncIterator]: () => ({ next: () => iterator.next() }) }
  const parts: Uint8Array[] = []
  let size = 0
  const collect = async (from: AsyncIterable<Uint8Array>) => {
    for await (const chunk of from) {
      size += chunk.byteLength
      if (size > maxBytes) throw bodyReadError({ status: 413 })
      parts.push(chunk)
    }
  }
  try {
    const decoder = decoderFor((headers.contentEncoding || 'identity').toLowerCase())
    // A declared length over the limit is refused before a byte is kept.
    if (!decoder && Number(headers.contentLength) > maxBytes) throw bodyReadError({ status: 413 })
    if (decoder) await pipeline(Readable.from(source, { objectMode: false }), decoder, collect)
    else await collect(source)
  } catch (err) {
    // As Express's body reader: the rest of the request is read off before the answer, so a
    // client still sending gets the answer instead of a reset connection.
    await drain(iterator)
    throw bodyReadError(err instanceof CalendarError ? err : { status: 400 })
  }
  return Buffer.concat(parts)
}

/** Reads and drops what is left of a body; a failure there (the client left) ends it. */
async function drain(iterator: AsyncIterator<Uint8Array>): Promise<void> {
  try {
    while (!(await iterator.next()).done) {
      // Dropped.
    }
  } catch {
    // Nothing left to answer to.
  }
}
