/** Cross-origin access for browser clients on other sites (off unless configured). */
export interface CorsOptions {
  /**
   * Origins allowed to call every method of the API with credentials (`https://admin.example.org`),
   * and/or `'*'`: any other origin may read (`GET`/`HEAD`) anonymously, without credentials.
   */
  origins: readonly string[]
  /** How long browsers may cache a preflight answer. Default 600 seconds. */
  maxAgeSeconds?: number
}

/** Checks the configured origins once; throws a `TypeError` naming a bad one. */
export function normalizeOrigins(origins: readonly string[]): string[] {
  return origins.map((raw) => {
    const value = raw.trim()
    if (value === '*') return value
    let url: URL
    try {
      url = new URL(value)
    } catch {
      throw new TypeError(`cors.origins: ${JSON.stringify(raw)} is not an origin such as https://app.example.org`)
    }
    // An origin is scheme, host and port only; a browser never sends a path, so one would never match.
    if (!/^https?:$/.test(url.protocol) || url.origin === 'null' || value.replace(/\/$/, '') !== url.origin) {
      throw new TypeError(`cors.origins: ${JSON.stringify(raw)} is not an origin such as https://app.example.org (scheme, host and port only)`)
    }
    return url.origin
  })
}
