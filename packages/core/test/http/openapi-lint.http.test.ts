import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar } from '@cal-events/core'
import { freshCalendar } from '../../../../test-support/test-db.js'
import { startServer, type TestServer } from '../../../../test-support/http.js'

const run = promisify(execFile)
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url))
const BIN = join(ROOT, 'node_modules/.bin')
// Offline: no telemetry, no update check; both linters use only their bundled rule sets.
const ENV = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_UPDATE_NOTIFIER: '1' }

/** Runs a linter that exits non-zero on findings; its JSON report is on stdout either way. */
async function lint(file: string, args: string[]): Promise<string> {
  try {
    return (await run(file, args, { cwd: ROOT, env: ENV, maxBuffer: 64 * 1024 * 1024 })).stdout
  } catch (err) {
    const stdout = (err as { stdout?: string }).stdout
    if (stdout) return stdout
    throw err
  }
}

for (const variant of ['A', 'B'] as const) {
  describe(`the served OpenAPI document passes both linters, variant ${variant}`, () => {
    let calendar: Calendar
    let server: TestServer
    let dir: string
    let file: string
    beforeAll(async () => {
      calendar = await freshCalendar({ variant })
      server = await startServer(calendar)
      dir = mkdtempSync(join(tmpdir(), 'cal-openapi-'))
      file = join(dir, 'openapi.json')
      writeFileSync(file, JSON.stringify((await server.request('GET', '/doc')).body))
    })
    afterAll(async () => {
      rmSync(dir, { recursive: true, force: true })
      await server.close()
      await calendar.close()
    })

    it('Redocly (recommended rules, redocly.yaml): 0 errors, 0 warnings', async () => {
      const out = await lint(join(BIN, 'redocly'), ['lint', file, '--config', join(ROOT, 'redocly.yaml'), '--format=json', '--max-problems=1000'])
      const report = JSON.parse(out.slice(out.indexOf('{')))
      const problems = report.problems.map((p: { ruleId: string; message: string; location?: { pointer?: string }[] }) => `${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer}`)
      expect(problems).toEqual([])
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 })
    }, 120_000)

    it('Spectral (spectral:oas, .spectral.yaml): no findings of any severity', async () => {
      const out = await lint(join(BIN, 'spectral'), ['lint', file, '--ruleset', join(ROOT, '.spectral.yaml'), '--format', 'json', '--fail-severity', 'hint', '--quiet'])
      const findings = JSON.parse(out.slice(out.indexOf('['))) as { code: string; message: string; path: string[] }[]
      expect(findings.map((f) => `${f.code}: ${f.message} at ${f.path.join('.')}`)).toEqual([])
    }, 120_000)
  })
}
