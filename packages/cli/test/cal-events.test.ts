import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCalEvents } from '@cal-events/cli'
import { scratchDatabase } from '../../../test-support/scratch-db.js'

// The `cal-events` command as a user runs it: a process of its own, the environment, exit codes,
// stdout and stderr; `serve` answered over real HTTP on PGlite and on PostgreSQL.

const BIN = fileURLToPath(new URL('../src/bin.ts', import.meta.url))
const TSX = fileURLToPath(new URL('../../../node_modules/tsx/dist/loader.mjs', import.meta.url))
const SAMPLE_ICS = fileURLToPath(new URL('../../../examples/import-ics/data/sample.ics', import.meta.url))

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

function start(args: string[], env: Record<string, string>, cwd: string): ChildProcess {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CAL_') && k !== 'DATABASE_URL' && k !== 'PORT'))
  return spawn(process.execPath, ['--import', TSX, '--conditions=source', BIN, ...args], { cwd, env: { ...clean, CAL_LOG_LEVEL: 'silent', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
}

function cal(args: string[], env: Record<string, string> = {}, cwd = tmpdir()): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = start(args, env, cwd)
    let stdout = ''
    let stderr = ''
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()))
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

/** Starts `cal-events serve`, waits for its URL, and hands back a stop that sends SIGTERM. */
async function serve(env: Record<string, string>, cwd: string): Promise<{ url: string; stop(): Promise<Run> }> {
  const child = start(['serve', '--port', '0'], env, cwd)
  let stdout = ''
  let stderr = ''
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()))
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve))
  const url = await new Promise<string>((resolve, reject) => {
    // Generous: a loaded machine running test files side by side took over 60 s to open PGlite.
    const timer = setTimeout(() => reject(new Error(`no URL within 150 s: ${stdout} ${stderr}`)), 150_000)
    child.stdout!.on('data', (c: Buffer) => {
      stdout += c.toString()
      const found = /listening at (http:\S+)/.exec(stdout)
      if (found) {
        clearTimeout(timer)
        resolve(found[1]!)
      }
    })
    void closed.then((code) => reject(new Error(`exited ${code}: ${stdout} ${stderr}`)))
  })
  return {
    url,
    async stop() {
      child.kill('SIGTERM')
      const code = await closed
      return { code, stdout, stderr }
    },
  }
}

describe('cal-events', { timeout: 180_000 }, () => {
  const database = scratchDatabase('cli_bin')
  let dir: string
  beforeAll(async () => {
    await database.create()
    dir = mkdtempSync(join(tmpdir(), 'cal-cli-'))
  })
  afterAll(async () => {
    await database.drop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('--help lists the commands; each command has its own --help; a mistake exits 2 with the usage', async () => {
    const help = await cal(['--help'])
    expect(help).toMatchObject({ code: 0, stderr: '' })
    for (const command of ['serve', 'migrate', 'tokens', 'feed-keys', 'import-ics', 'migrate-site']) expect(help.stdout).toContain(`  ${command} `)
    expect(help.stdout).toContain('Exit codes')
    const serveHelp = await cal(['serve', '--help'])
    expect(serveHelp.code).toBe(0)
    expect(serveHelp.stdout).toMatch(/^Usage:\n {2}cal-events serve /)
    // The others in this process: the same function the bin runs.
    for (const command of ['migrate', 'tokens', 'feed-keys', 'import-ics', 'migrate-site']) {
      let out = ''
      const code = await runCalEvents([command, '--help'], {}, { out: (line) => void (out += `${line}\n`), err: () => {} })
      expect(code, command).toBe(0)
      expect(out, command).toMatch(new RegExp(`^Usage:\\n {2}cal-events ${command}`))
    }
    const unknown = await cal(['frobnicate'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('Unknown command "frobnicate"')
    const bad = await cal(['tokens', 'create'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('tokens create needs --role.')
  })

  it('migrate applies the migrations once; tokens create issues a token on the same database', async () => {
    const env = { DATABASE_URL: database.url }
    const first = await cal(['migrate'], env)
    expect(first).toMatchObject({ code: 0, stderr: '' })
    expect(first.stdout).toMatch(/^Applied \d+ migration\(s\) to cal_events: /)
    expect((await cal(['migrate'], env)).stdout).toBe('Schema cal_events is up to date.\n')
    const token = await cal(['tokens', 'create', '--role', 'editor', '--login', 'cli-ed'], env)
    expect(token).toMatchObject({ code: 0, stderr: '' })
    expect(token.stdout).toMatch(/^Created token \d+ \(prefix [a-z0-9]+\) for cli-ed, role editor\.\nThe token is shown only once:\ncal_[a-z0-9]+_\S+\n$/)
    const broken = await cal(['migrate'], { DATABASE_URL: 'mysql://nope' })
    expect(broken.code).toBe(1)
    expect(broken.stderr).toContain('DATABASE_URL')
  })

  it('serve answers over HTTP on PostgreSQL and stops cleanly on SIGTERM', async () => {
    const env = { DATABASE_URL: database.url, CAL_ADMIN_TOKEN: 'cli-admin-token-0123456789' }
    const server = await serve(env, dir)
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/cal\/events\/v1$/)
      const created = await fetch(`${server.url}/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${env.CAL_ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Served', start_date: '2031-01-01 10:00:00', end_date: '2031-01-01 11:00:00' }),
      })
      expect(created.status).toBe(201)
      expect((await fetch(`${new URL(server.url).origin}/readyz`)).status).toBe(200)
    } finally {
      const stopped = await server.stop()
      expect(stopped.code).toBe(0)
      expect(stopped.stdout).toContain('Stopped.')
    }
  })

  it('serve keeps an embedded PGlite calendar in .data/pglite of the working directory, with the demo data and a first administrator token', async () => {
    const server = await serve({}, dir)
    let stopped: Run | undefined
    try {
      const list = await fetch(`${server.url}/events`)
      expect(list.status).toBe(200)
      expect(Number(list.headers.get('x-cal-total'))).toBeGreaterThan(0)
    } finally {
      stopped = await server.stop()
    }
    expect(stopped.code).toBe(0)
    expect(stopped.stdout).toContain(`embedded PGlite in ${join(dir, '.data/pglite')}`)
    expect(stopped.stdout).toMatch(/Administrator token \(shown only once[^\n]*\n {2}cal_\S+/)
  })

  it('import-ics imports a file into the configured database, then updates on a second run', async () => {
    const env = { DATABASE_URL: database.url, CAL_TIMEZONE: 'Europe/Berlin' }
    const first = await cal(['import-ics', SAMPLE_ICS], env)
    expect(first.code, first.stderr).toBe(0)
    expect(first.stdout).toContain('created 18, updated 1, skipped 1, removed 0')
    const second = await cal(['import-ics', SAMPLE_ICS], env)
    expect(second.stdout).toContain('created 0, updated 19, skipped 1, removed 0')
    const missing = await cal(['import-ics', join(dir, 'nothing.ics')], env)
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('Cannot read')
  })
})
