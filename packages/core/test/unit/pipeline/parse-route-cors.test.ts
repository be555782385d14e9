import { describe, expect, it } from 'vitest'
import { WP_NAMESPACE } from '../../../src/api/context.js'
import { createCorsPolicy } from '../../../src/http/cors.js'
import { corsStep } from '../../../src/http/pipeline/cors.js'
import { namespacedPath, parseStep } from '../../../src/http/pipeline/parse.js'
import { routeStep } from '../../../src/http/pipeline/route.js'
import type { CalendarResponse } from '../../../src/http/request.js'
import { exchange, nextDoing, ROOT, ROUTES } from './exchange.js'

describe('parse step', () => {
  it('cleans the path, checks the origin and matches the route table', async () => {
    const x = exchange({ method: 'get', path: `${ROOT}//things/7/`, origin: 'http://cal.test' })
    const next = nextDoing()
    await parseStep(ROUTES).run(x, next)
    expect(x).toMatchObject({ method: 'GET', path: `${ROOT}/things/7`, origin: 'http://cal.test' })
    expect(x.match?.params).toEqual({ id: '7' })
    expect(next.calls.count).toBe(1)
  })

  it('refuses a malformed origin before anything else', async () => {
    const next = nextDoing()
    await expect(parseStep(ROUTES).run(exchange({ origin: 'http://bad host' }), next)).rejects.toMatchObject({ code: expect.any(String) })
    expect(next.calls.count).toBe(0)
  })

  it('maps the compatibility path onto our namespace', () => {
    expect(namespacedPath(`/${WP_NAMESPACE}/things/`, WP_NAMESPACE)).toBe(`${ROOT}/things`)
  })
})

describe('route step', () => {
  it('picks the endpoint serving the method, HEAD as GET', async () => {
    const x = exchange({ method: 'HEAD' })
    await parseStep(ROUTES).run(x, () => routeStep.run(x, async () => {}))
    expect(x.endpoint?.methods).toEqual(['GET'])
    expect(x.operation).toBe(x.endpoint?.operation)
  })

  it('answers NO_ROUTE for a method the path does not serve, after parse found the route', async () => {
    const x = exchange({ method: 'DELETE' })
    await expect(parseStep(ROUTES).run(x, () => routeStep.run(x, async () => {}))).rejects.toMatchObject({ code: 'NO_ROUTE' })
    expect(x.match?.route).toBe(ROUTES[0])
  })
})

describe('cors step', () => {
  const cors = createCorsPolicy({ origins: ['https://admin.example.org'] })

  it('answers a preflight on a known path with the route methods, remembered as a preflight', async () => {
    const preflights = new WeakSet<CalendarResponse>()
    const x = exchange({ method: 'OPTIONS', headers: { origin: 'https://admin.example.org', 'access-control-request-method': 'POST' } })
    const next = nextDoing()
    await parseStep(ROUTES).run(x, () => corsStep(cors, preflights).run(x, next))
    expect(next.calls.count).toBe(0)
    expect(preflights.has(x.response!)).toBe(true)
    expect(x.response!.headers['Access-Control-Allow-Methods']).toContain('POST')
  })

  it('passes everything on when CORS is off or the request is no OPTIONS', async () => {
    for (const [policy, method] of [[undefined, 'OPTIONS'], [cors, 'GET']] as const) {
      const x = exchange({ method })
      const next = nextDoing()
      await parseStep(ROUTES).run(x, () => corsStep(policy, new WeakSet()).run(x, next))
      expect(next.calls.count).toBe(1)
      expect(x.response).toBeUndefined()
    }
  })
})
