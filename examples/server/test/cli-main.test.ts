import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { scratchDatabase } from '../../../test-support/scratch-db.js'
import { runCliMain } from '@cal-events/cli'
import { FEED_KEYS_CLI } from '@cal-events/cli'
import { TOKENS_CLI } from '@cal-events/cli'

// The two command-line tools as `pnpm tokens …` and `pnpm feed-keys …` run them: the server's
// environment, the exit code, and what goes to stdout and to stderr.

const database = scratchDatabase('cli_main')

interface Run {
  code: number
  stdout: string
  stderr: string
}

async function run(tool: 'tokens' | 'feed-keys', args: string[], more: Record<string, string> = {}): Promise<Run> {
  const env = { DATABASE_URL: database.url, CAL_PUBLIC_URL: 'https://cal.example.org', ...more }
  let stdout = ''
  let stderr = ''
  const print = { out: (line: string) => void (stdout += `${line}\n`), err: (line: string) => void (stderr += `${line}\n`) }
  const code = tool === 'tokens' ? await runCliMain(TOKENS_CLI, args, env, print) : await runCliMain(FEED_KEYS_CLI, args, env, print)
  return { code, stdout, stderr }
}

describe('tokens and feed-keys command lines', () => {
  beforeAll(() => database.create())
  afterAll(() => database.drop())

  it('issue a token and a feed key on the configured database and list them', async () => {
    const token = await run('tokens', ['create', '--role', 'author', '--login', 'cli-ann', '--name', 'laptop'])
    expect(token).toMatchObject({ code: 0, stderr: '' })
    expect(token.stdout).toMatch(/^Created token \d+ \(prefix [a-z0-9]+\) for cli-ann, role author\.\nThe token is shown only once:\ncal_[a-z0-9]+_\S+\n$/)

    const key = await run('feed-keys', ['create', '--login', 'cli-ann'])
    expect(key).toMatchObject({ code: 0, stderr: '' })
    const secret = /^calfeed_\S+$/m.exec(key.stdout)![0]
    expect(key.stdout).toContain(`\nhttps://cal.example.org/cal/events/v1/events/ical?key=${secret}\n`)

    const tokens = await run('tokens', ['list'])
    expect(tokens.code).toBe(0)
    expect(tokens.stdout).toMatch(/^ID +PREFIX +ROLE +LOGIN +NAME +CREATED \(UTC\) +LAST USED \(UTC\) +STATUS\n.*author +cli-ann +laptop .* active\n$/)
    const keys = await run('feed-keys', ['list', '--login', 'cli-ann'])
    expect(keys.code).toBe(0)
    expect(keys.stdout).toMatch(/^ID +PREFIX +LOGIN +ROLE +NAME +CREATED \(UTC\) +LAST USED \(UTC\) +STATUS\n.*cli-ann +author .* active\n$/)
    expect(keys.stdout).not.toContain(secret)
  })

  it('print the usage on --help and with a mistake, and exit 2 on a mistake', async () => {
    const help = await run('feed-keys', ['--help'])
    expect(help).toMatchObject({ code: 0, stderr: '' })
    expect(help.stdout).toMatch(/^Usage:\n {2}cal-events feed-keys create/)
    for (const [tool, args, message] of [
      ['tokens', [], 'Name a command: create, list or revoke.'],
      ['tokens', ['frobnicate'], 'Unknown command "frobnicate".'],
      ['tokens', ['list', 'extra'], 'Unexpected argument "extra".'],
      ['feed-keys', ['toString'], 'Unknown command "toString".'],
      ['feed-keys', ['create'], 'feed-keys create needs --login.'],
    ] as const) {
      const mistake = await run(tool, [...args])
      expect(mistake.code, `${tool} ${args.join(' ')}`).toBe(2)
      expect(mistake.stdout).toBe('')
      expect(mistake.stderr).toMatch(new RegExp(`^${message.replace(/[.()"]/g, '\\$&')}\n\nUsage:\n`))
    }
  })

  it('work in the schema CAL_DB_SCHEMA names, as the server does', async () => {
    const own = { CAL_DB_SCHEMA: 'cli_own' }
    expect((await run('tokens', ['create', '--role', 'editor', '--login', 'cli-schema'], own)).code).toBe(0)
    expect((await run('tokens', ['list'], own)).stdout).toContain('cli-schema')
    expect((await run('tokens', ['list'])).stdout).not.toContain('cli-schema')
    expect((await run('feed-keys', ['create', '--login', 'cli-schema'], own)).code).toBe(0)
    expect((await run('feed-keys', ['list'], own)).stdout).toContain('cli-schema')
  })
})
