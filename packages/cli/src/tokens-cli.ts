import { ROLES, type Calendar, type Role, type TokenInfo } from '@cal-events/core'
import { formatTable, parseCommandLine, UsageError, type CliTool } from './cli.js'


const USAGE = `Usage:
  cal-events tokens create --role <${ROLES.join('|')}> [--name <name>] [--login <login>] [--expires <ISO date-time>]
  cal-events tokens list
  cal-events tokens revoke <id|prefix|token>

Uses the server's database settings (DATABASE_URL, or PGlite in CAL_DATA_DIR).
With the embedded database, stop the server first: PGlite allows one process only.`

function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value)
}

/** `tokens create`: issues a token for a user (created with that role when new). */
export async function createTokenCommand(
  calendar: Calendar,
  input: { role: string; name?: string; login?: string; expires?: string },
): Promise<{ token: string; info: TokenInfo }> {
  if (!isRole(input.role)) throw new UsageError(`Unknown role ${JSON.stringify(input.role)}; use one of ${ROLES.join(', ')}.`)
  try {
    return await calendar.tokens.create({ role: input.role, name: input.name, login: input.login, ...(input.expires !== undefined ? { expires: input.expires } : {}) })
  } catch (err) {
    // A malformed or past --expires is the caller's mistake, told with the usage text.
    if (err instanceof TypeError && err.message.startsWith('expires ')) throw new UsageError(`--${err.message}`)
    throw err
  }
}

/** `tokens list`: every token, newest first. */
export function listTokensCommand(calendar: Calendar): Promise<TokenInfo[]> {
  return calendar.tokens.list()
}

/**
 * `tokens revoke`: by numeric id, by prefix, or by the whole token (`cal_<prefix>_…`).
 * A numeric argument that matches no id is tried as a prefix.
 */
export async function revokeTokenCommand(calendar: Calendar, idOrPrefix: string): Promise<boolean> {
  const key = idOrPrefix.trim()
  if (key === '') throw new UsageError('Name the token to revoke: its id or prefix.')
  const whole = /^cal_([a-z0-9]+)_/.exec(key)
  if (whole) return calendar.tokens.revoke(whole[1]!)
  if (/^\d+$/.test(key) && (await calendar.tokens.revoke(Number(key)))) return true
  return calendar.tokens.revoke(key)
}

/** Tokens as an aligned text table. */
export function formatTokenTable(tokens: readonly TokenInfo[]): string {
  const now = new Date().toISOString().slice(0, 19).replace('T', ' ')
  const header = ['ID', 'PREFIX', 'ROLE', 'LOGIN', 'NAME', 'CREATED (UTC)', 'LAST USED (UTC)', 'STATUS']
  const rows = tokens.map((t) => [
    String(t.id),
    t.prefix,
    t.role,
    t.login,
    t.name,
    t.createdUtc,
    t.lastUsedUtc ?? '-',
    t.revokedUtc ? `revoked ${t.revokedUtc}` : t.expiresUtc && t.expiresUtc <= now ? `expired ${t.expiresUtc}` : t.expiresUtc ? `expires ${t.expiresUtc}` : 'active',
  ])
  return formatTable(header, rows, 'No tokens.')
}

/** One parsed command line. */
export type TokensCommand =
  | { command: 'help' }
  | { command: 'create'; role: string; name?: string; login?: string; expires?: string }
  | { command: 'list' }
  | { command: 'revoke'; idOrPrefix: string }

/** Parses and checks the arguments (no database needed); throws `UsageError`. */
export function parseTokensArgs(argv: readonly string[]): TokensCommand {
  return parseCommandLine(argv, { role: { type: 'string' }, name: { type: 'string' }, login: { type: 'string' }, expires: { type: 'string' } }, {
    create: ({ values, noMore }) => {
      if (values.role === undefined) throw new UsageError('tokens create needs --role.')
      if (!isRole(values.role)) throw new UsageError(`Unknown role ${JSON.stringify(values.role)}; use one of ${ROLES.join(', ')}.`)
      noMore()
      return { command: 'create', role: values.role, name: values.name, login: values.login, ...(values.expires !== undefined ? { expires: values.expires } : {}) }
    },
    list: ({ noMore }) => {
      noMore()
      return { command: 'list' }
    },
    revoke: ({ rest }) => {
      if (rest.length !== 1) throw new UsageError('tokens revoke takes exactly one id or prefix.')
      return { command: 'revoke', idOrPrefix: rest[0]! }
    },
  })
}

/** Runs a parsed command against an open calendar; returns the exit code. */
export async function executeTokensCommand(
  cmd: TokensCommand,
  calendar: Calendar,
  out: (line: string) => void = console.log,
): Promise<number> {
  switch (cmd.command) {
    case 'help':
      out(USAGE)
      return 0
    case 'create': {
      const { token, info } = await createTokenCommand(calendar, cmd)
      out(`Created token ${info.id} (prefix ${info.prefix}) for ${info.login}, role ${info.role}.`)
      out('The token is shown only once:')
      out(token)
      return 0
    }
    case 'list':
      out(formatTokenTable(await listTokensCommand(calendar)))
      return 0
    case 'revoke':
      if (await revokeTokenCommand(calendar, cmd.idOrPrefix)) {
        out(`Revoked ${cmd.idOrPrefix}.`)
        return 0
      }
      out(`No active token matches ${JSON.stringify(cmd.idOrPrefix)}.`)
      return 1
  }
}

/** Parses `argv` and runs it against an open calendar; returns the exit code. */
export async function runTokensCli(argv: readonly string[], calendar: Calendar, out: (line: string) => void = console.log): Promise<number> {
  return executeTokensCommand(parseTokensArgs(argv), calendar, out)
}

/** The `tokens` tool, for `runCliMain`. */
export const TOKENS_CLI: CliTool<TokensCommand> = { usage: USAGE, parse: parseTokensArgs, execute: executeTokensCommand }
