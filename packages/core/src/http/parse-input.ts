import qs from 'qs'
import { CalendarError, invalidParams } from '../errors.js'

const QS_OPTIONS = {
  depth: 5,
  arrayLimit: 100,
  parameterLimit: 1000,
  // Null-prototype objects: `__proto__` and `constructor` keys are plain data.
  plainObjects: true,
  allowPrototypes: false,
  duplicates: 'combine',
} as const

const MALFORMED_ESCAPE = /%(?![0-9a-fA-F]{2})/

/** Parses a raw query string (bracket syntax, repeated keys) into plain values. */
export function parseQueryString(raw: string): Record<string, unknown> {
  if (raw === '') return {}
  for (const part of raw.split('&')) {
    if (MALFORMED_ESCAPE.test(part)) throw invalidParams({ [safeName(part)]: 'Malformed percent-encoding.' })
    try {
      decodeURIComponent(part.replace(/\+/g, ' '))
    } catch {
      throw invalidParams({ [safeName(part)]: 'Malformed percent-encoding or invalid UTF-8.' })
    }
  }
  return qs.parse(raw, QS_OPTIONS)
}

function safeName(part: string): string {
  const name = part.split('=')[0] ?? ''
  try {
    return decodeURIComponent(name).slice(0, 64)
  } catch {
    return name.replace(/%/g, '').slice(0, 64) || 'query'
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true })

/** Parses a request body by content type: JSON object, or form fields with bracket syntax. */
export function parseBody(body: unknown, contentType: string | undefined, maxBytes: number): Record<string, unknown> {
  if (body === undefined || body === null) return {}
  if (!(body instanceof Uint8Array)) {
    // Already parsed by a host middleware (express.json(), urlencoded()).
    if (typeof body === 'object' && !Array.isArray(body)) return body as Record<string, unknown>
    if (typeof body === 'string') return parseBody(new TextEncoder().encode(body), contentType, maxBytes)
    throw new CalendarError('INVALID_JSON', 'The request body must be a JSON object.')
  }
  if (body.byteLength > maxBytes) {
    throw new CalendarError('PAYLOAD_TOO_LARGE', `The request body exceeds ${maxBytes} bytes.`)
  }
  if (body.byteLength === 0) return {}
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase()
  let text: string
  try {
    text = utf8.decode(body)
  } catch {
    throw new CalendarError('INVALID_JSON', 'The request body is not valid UTF-8.')
  }
  if (type === 'application/x-www-form-urlencoded') return parseQueryString(text)
  if (type === '' || type === 'application/json' || type.endsWith('+json') || type === 'text/plain') {
    if (text.trim() === '') return {}
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      throw new CalendarError('INVALID_JSON', 'Invalid JSON body passed.')
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new CalendarError('INVALID_JSON', 'The JSON body must be an object.')
    }
    return value as Record<string, unknown>
  }
  throw new CalendarError(
    'UNSUPPORTED_MEDIA_TYPE',
    `Unsupported content type ${type}; send application/json or application/x-www-form-urlencoded.`,
  )
}
