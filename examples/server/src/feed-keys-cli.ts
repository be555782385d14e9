import { parseArgs } from 'node:util'
import { createCalendar, type Calendar, type FeedKeyInfo } from '@cal-events/core'
import { loadConfig } from './config.js'
import { isEntryPoint } from './entry-point.js'
import { UsageError } from './tokens-cli.js'

const USAGE = `Usage:
  feed-keys create --login <login> [--name <name>] [--base-url <url>]
  feed-keys list [--login <login>]
  feed-keys revoke <id|prefix|key>

A feed key makes a feed URL (…/events/ical?key=…) show what that user may see, for calendar apps
that cannot send a token. Read-only: it works on the feed routes only. The user must exist (make
one with \`tokens create\`). Uses the example server's database settings.`

/** One parsed command line. */
export type FeedKeysCommand =
  | { command: 'help' }
  | { command: 'create'; login: string; name?: string; baseUrl?: string }
  | { command: 'list'; login?: string }
  | { command: 'revoke'; which: string }

/** Parses and checks the arguments (no database needed); throws `UsageError`. */
export function parseFeedKeysArgs(argv: readonly string[]): FeedKeysCommand {
  let parsed
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: { login: { type: 'string' }, name: { type: 'string' }, 'base-url': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    })
  } catch (err) {
    throw new UsageError((err as Error).message)
  }
  const { values, positionals } = parsed
  const [command, ...rest] = positionals
  if (values.help) return { command: 'help' }
  if (command === undefined) throw new UsageError('Name a command: create, list or revoke.')
  const noMore = () => {
    if (rest.length > 0) throw new UsageError(`Unexpected argument ${JSON.stringify(rest[0])}.`)
  }
  switch (command) {
    case 'create':
      if (values.login === undefined || values.login.trim() === '') throw new UsageError('feed-keys create needs --login.')
      noMore()
      return { command, login: values.login, name: values.name, baseUrl: values['base-url'] }
    case 'list':
      noMore()
      return { command, login: values.login }
    case 'revoke':
      if (rest.length !== 1) throw new UsageError('feed-keys revoke takes exactly one id, prefix or key.')
      return { command, which: rest[0]! }
    default:
      throw new UsageError(`Unknown command ${JSON.stringify(command)}.`)
  }
}

/** Feed keys as an aligned text table. */
export function formatFeedKeyTable(keys: readonly FeedKeyInfo[]): string {
  if (keys.length === 0) return 'No feed keys.'
  const header = ['ID', 'PREFIX', 'LOGIN', 'ROLE', 'NAME', 'CREATED (UTC)', 'LAST USED (UTC)', 'STATUS']
  const rows = keys.map((k) => [String(k.id), k.prefix, k.login, k.role, k.name, k.createdUtc, k.lastUsedUtc ?? '-', k.revokedUtc ? `revoked ${k.revokedUtc}` : 'active'])
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  return [header, ...rows].map((r) => r.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n')
}

/** The subscribe URLs of a key, https and webcal forms. */
export function feedUrls(baseUrl: string, key: string): string[] {
  const https = `${baseUrl.replace(/\/+$/, '')}/cal/events/v1/events/ical?key=${encodeURIComponent(key)}`
  return [https, https.replace(/^https?:/, 'webcal:')]
}

/** Runs a parsed command against an open calendar; returns the exit code. */
export async function executeFeedKeysCommand(cmd: FeedKeysCommand, calendar: Calendar, out: (line: string) => void = console.log): Promise<number> {
  switch (cmd.command) {
    case 'help':
      out(USAGE)
      return 0
    case 'create': {
      let created
      try {
        created = await calendar.feedKeys.create({ login: cmd.login, ...(cmd.name !== undefined ? { name: cmd.name } : {}) })
      } catch (err) {
        if (err instanceof TypeError) throw new UsageError(err.message)
        throw err
      }
      out(`Created feed key ${created.info.id} (prefix ${created.info.prefix}) for ${created.info.login}.`)
      out('The key is shown only once; the feed URL shows what this user may see:')
      out(created.key)
      const base = cmd.baseUrl ?? calendar.options.publicBaseUrl
      if (base) for (const url of feedUrls(base, created.key)) out(url)
      return 0
    }
    case 'list':
      out(formatFeedKeyTable(await calendar.feedKeys.list(cmd.login)))
      return 0
    case 'revoke': {
      const which = cmd.which.trim()
      const done = (/^\d+$/.test(which) && (await calendar.feedKeys.revoke(Number(which)))) || (await calendar.feedKeys.revoke(which))
      out(done ? `Revoked ${which.startsWith('calfeed_') ? 'the key' : which}.` : `No active feed key matches ${JSON.stringify(which)}.`)
      return done ? 0 : 1
    }
  }
}

/** Parses `argv` and runs it against an open calendar; returns the exit code. */
export async function runFeedKeysCli(argv: readonly string[], calendar: Calendar, out: (line: string) => void = console.log): Promise<number> {
  return executeFeedKeysCommand(parseFeedKeysArgs(argv), calendar, out)
}

/** Entry point: checks the arguments, opens the configured database (running migrations), runs, closes. */
async function main(argv: readonly string[]): Promise<number> {
  let calendar: Calendar | undefined
  try {
    const cmd = parseFeedKeysArgs(argv)
    if (cmd.command === 'help') {
      console.log(USAGE)
      return 0
    }
    const config = loadConfig()
    calendar = await createCalendar({
      variant: config.variant,
      siteTimezone: config.siteTimezone,
      database: config.database,
      ...(config.publicBaseUrl ? { publicBaseUrl: config.publicBaseUrl } : {}),
    })
    return await executeFeedKeysCommand(cmd, calendar)
  } catch (err) {
    if (err instanceof UsageError) console.error(`${err.message}\n\n${USAGE}`)
    else console.error(err instanceof Error ? err.message : err)
    return 1
  } finally {
    await calendar?.close()
  }
}

if (isEntryPoint(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2))
}
