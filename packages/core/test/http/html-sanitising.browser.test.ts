import { chromium, type Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar } from '@cal-events/core'
import { freshCalendar } from '../../../../test-support/test-db.js'
import { startServer, type TestServer } from '../../../../test-support/http.js'

// Issue 15 item 9 in a real browser: a page that shows an event's HTML the way clients do
// (innerHTML) must run none of a contributor's script vectors. An editor's unfiltered HTML is the
// control: the same payload does run there, so the probe is known to catch a script.
const NOW = new Date('2026-11-21T03:39:06Z')
const PAYLOAD = [
  '<p>Visible text</p>',
  '<img src="x.png" onerror="window.__pwned = (window.__pwned || []).concat(\'img\')">',
  '<svg><animate onbegin="window.__pwned = (window.__pwned || []).concat(\'svg\')" attributeName="x" dur="1s"></animate></svg>',
  '<details open ontoggle="window.__pwned = (window.__pwned || []).concat(\'details\')"><summary>s</summary></details>',
  '<iframe srcdoc="<script>parent.__pwned = (parent.__pwned || []).concat(\'iframe\')</script>"></iframe>',
  '<a class="probe" href="javascript:window.__pwned = (window.__pwned || []).concat(\'link\')">click</a>',
  '<a class="probe" href="data:text/html,<script>alert(1)</script>">data</a>',
].join('\n')

const PAGE = `<!doctype html><html><body><div id="out"></div><script>
  (async () => {
    const id = new URLSearchParams(location.search).get('id')
    const event = await (await fetch('/cal/events/v1/events/' + id)).json()
    document.getElementById('out').innerHTML = event.title + event.description + event.excerpt
    await new Promise((r) => setTimeout(r, 400))
    for (const a of document.querySelectorAll('a.probe')) a.click()
    await new Promise((r) => setTimeout(r, 400))
    window.__done = true
  })()
</script></body></html>`

describe('sanitised HTML in headless Chromium', () => {
  let calendar: Calendar
  let server: TestServer
  let origin: string
  let browser: Browser
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW })
    server = await startServer(calendar, '', { pages: { '/page': PAGE } })
    origin = new URL(server.base).origin
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--headless', '--no-sandbox'] })
  })
  afterAll(async () => {
    await browser?.close()
    await server.close()
    await calendar.close()
  })

  async function pwnedBy(role: 'contributor' | 'editor'): Promise<unknown> {
    const { token } = await calendar.tokens.create({ role, login: `${role}-${Math.random()}` })
    const res = await fetch(`${origin}/cal/events/v1/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: `<b>By ${role}</b>`, description: PAYLOAD, excerpt: PAYLOAD, start_date: '2026-12-10 20:00:00', end_date: '2026-12-10 21:00:00', status: 'publish' }),
    })
    const event = (await res.json()) as { id: number }
    // Contributors' events are pending: publish it so the anonymous page may read it.
    if (role === 'contributor') await calendar.events.update(event.id, { status: 'publish' })
    const page = await browser.newPage()
    try {
      await page.goto(`${origin}/page?id=${event.id}`)
      await page.waitForFunction(() => (globalThis as unknown as { __done?: boolean }).__done === true, undefined, { timeout: 10_000 })
      expect(await page.textContent('#out')).toContain('Visible text')
      return await page.evaluate(() => (globalThis as unknown as { __pwned?: string[] }).__pwned)
    } finally {
      await page.close()
    }
  }

  it("runs none of a contributor's script vectors", async () => {
    expect(await pwnedBy('contributor')).toBeUndefined()
  })

  it("runs an editor's unfiltered HTML (the control: the probe catches a script)", async () => {
    expect(await pwnedBy('editor')).toEqual(expect.arrayContaining(['img']))
  })
})
