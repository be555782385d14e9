import { existsSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromium, type Browser } from 'playwright-core'
import { loadConfig } from '@cal-events/cli'
import { startServer, type CalendarServer } from '@cal-events/cli'

const CHROMIUM = process.env.CAL_CHROMIUM ?? '/usr/bin/chromium'

describe('the API reference page in headless Chromium', () => {
  let server: CalendarServer
  let browser: Browser
  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does)`)
    // PGlite in memory: the page needs the document only.
    server = await startServer({ ...loadConfig({ PORT: '0', CAL_DEMO: '0', CAL_LOG_LEVEL: 'silent' }), database: { memory: true } })
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox'] })
  })
  afterAll(async () => {
    await browser?.close()
    await server?.close()
  })

  it('lists every operation of the document, loading nothing from outside the server', async () => {
    const doc = (await (await fetch(`${server.url}/doc`)).json()) as { paths: Record<string, Record<string, { operationId: string }>> }
    const operations = Object.values(doc.paths).flatMap((item) => Object.values(item))
    const page = await browser.newPage()
    const outside: string[] = []
    const failed: string[] = []
    const origin = new URL(server.url).origin
    page.on('request', (req) => {
      if (!req.url().startsWith(origin) && !req.url().startsWith('data:')) outside.push(req.url())
    })
    page.on('requestfailed', (req) => failed.push(req.url()))
    page.on('pageerror', (err) => failed.push(String(err)))

    const res = await page.goto(`${server.url}/reference`)
    expect(res?.status()).toBe(200)
    expect(res?.headers()['content-type']).toMatch(/^text\/html/)
    await page.waitForSelector('.opblock', { timeout: 60_000 })

    expect(await page.locator('.opblock').count()).toBe(operations.length)
    const ids = await page.locator('.opblock').evaluateAll((blocks) => blocks.map((b) => b.id))
    for (const op of operations) expect(ids.some((id) => id.endsWith(`-${op.operationId}`)), op.operationId).toBe(true)
    expect(await page.locator('.opblock-tag').allInnerTexts()).toEqual(
      expect.arrayContaining([expect.stringContaining('Events'), expect.stringContaining('Venues'), expect.stringContaining('Tags')]),
    )
    expect(await page.locator('.info').first().innerText()).toContain('Event calendar REST API')
    expect(outside).toEqual([])
    expect(failed).toEqual([])
    await page.close()
  }, 120_000)
})
