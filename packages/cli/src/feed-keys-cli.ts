import type { Calendar, FeedKeyInfo } from '@cal-events/core'
import { formatTable, parseCommandLine, UsageError, type CliTool } from './cli.js'

const USAGE = `Usage:
  cal-events feed-keys create --login <login> [--name <name>] [--base-url <url>]
  cal-events feed-keys list [--login <login>]
  cal-events feed-keys revoke <id|prefix|key>

A feed key makes a feed URL (…/events/ical?key=…) show what that user may see, for calendar apps
that cannot send a token. Read-only: it works on the feed routes only. The user must exist (make
one with \`tokens create\`). Uses the server's database settings (DATABASE_URL, or PGlite in CAL_DATA_DIR).`

/** One parsed command line. */
export type FeedKeysCommand =
  | { command: 'help' }
  | { command: 'create'; login: string; name?: string; baseUrl?: string }
  | { command: 'list'; login?: string }
  | { command: 'revoke'; which: string }

/** Parses and checks the arguments (no database needed); throws `UsageError`. */
export function parseFeedKeysArgs(argv: readonly string[]): FeedKeysCommand {
  return parseCommandLine(argv, { login: { type: 'string' }, name: { type: 'string' }, 'base-url': { type: 'string' } }, {
    create: ({ values, noMore }) => {
      if (values.login === undefined || values.login.trim() === '') throw new UsageError('feed-keys create needs --login.')
      noMore()
      return { command: 'create', login: values.login, name: values.name, baseUrl: values['base-url'] }
    },
    list: ({ values, noMore }) => {
      noMore()
      return { command: 'list', login: values.login }
    },
    revoke: ({ rest }) => {
      if (rest.length !== 1) throw new UsageError('feed-keys revoke takes exactly one id, prefix or key.')
      return { command: 'revoke', which: rest[0]! }
    },
  })
}

/** Feed keys as an aligned text table. */
export function formatFeedKeyTable(keys: readonly FeedKeyInfo[]): string {
  const header = ['ID', 'PREFIX', 'LOGIN', 'ROLE', 'NAME', 'CREATED (UTC)', 'LAST USED (UTC)', 'STATUS']
  const rows = keys.map((k) => [String(k.id), k.prefix, k.login, k.role, k.name, k.createdUtc, k.lastUsedUtc ?? '-', k.revokedUtc ? `revoked ${k.revokedUtc}` : 'active'])
  return formatTable(header, rows, 'No feed keys.')
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

/** The `feed-keys` tool, for `runCliMain`. */
export const FEED_KEYS_CLI: CliTool<FeedKeysCommand> = { usage: USAGE, parse: parseFeedKeysArgs, execute: executeFeedKeysCommand }
