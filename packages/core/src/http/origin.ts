import { CalendarError } from '../errors.js'

/**
 * A `Host` as RFC 3986 allows it, stricter where browsers would be lenient: a name of letters,
 * digits and `-._~`, an IPv4 address, or an IPv6 literal in brackets, with an optional port.
 * Percent-escapes and sub-delims are refused: no real host needs them, and they only ever reach
 * us to be reflected into `rest_url`s.
 */
const HOST = /^(?:[A-Za-z0-9_~-](?:[A-Za-z0-9._~-]*)|\[[0-9A-Fa-f:.]+\])(?::(\d{1,5}))?$/
const ORIGIN = /^(https?):\/\/([^/?#]*)(\/[^?#]*)?$/i

/**
 * The request's origin (`http://host:port`, plus any path a host app's `origin` hook adds),
 * checked and normalised; a malformed `Host` (`[`, `exa mple`, empty) is a 400, never a 500.
 */
export function checkedOrigin(origin: string | undefined): string | undefined {
  if (origin === undefined) return undefined
  const match = ORIGIN.exec(origin)
  const host = match?.[2] ?? ''
  let parsed: URL | undefined
  const hostMatch = HOST.exec(host)
  // Port 0 names no server a client could have reached (RFC 6335); beyond 65535 URL refuses.
  const port = hostMatch?.[1]
  try {
    if (match && hostMatch && (port === undefined || Number(port) > 0)) parsed = new URL(`${match[1]}://${host}`)
  } catch {
    // Falls through to the 400 below (a port beyond 65535, an invalid IPv6 literal).
  }
  if (!match || !parsed) throw new CalendarError('INVALID_HOST', 'The Host header of the request is malformed.')
  return `${parsed.protocol}//${parsed.host}${(match[3] ?? '').replace(/\/+$/, '')}`
}
