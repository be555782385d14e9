import { noneMatchHits, notModifiedHeaders } from '../conditional.js'
import { header, type HttpExchange, type Step } from './step.js'

/**
 * A read whose fresh answer carries the tag `If-None-Match` names is answered 304 with the headers
 * its 200 would repeat. A kept answer of the hot-read cache is answered by the cache step itself.
 */
export const conditionalStep: Step<HttpExchange> = {
  name: 'conditional',
  async run(x, next) {
    await next()
    const response = x.response
    if (x.read && response?.headers.ETag !== undefined && noneMatchHits(header(x.request, 'if-none-match'), response.headers.ETag)) {
      x.response = { status: 304, headers: notModifiedHeaders(response.headers), body: undefined }
    }
  },
}
