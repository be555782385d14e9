import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar } from '@cal-events/core'
import { freshCalendar } from '../../../test-support/test-db.js'
import { executeTokensCommand, formatTokenTable, parseTokensArgs, UsageError } from '@cal-events/cli'

describe('tokens create --expires', () => {
  let calendar: Calendar
  beforeAll(async () => {
    calendar = await freshCalendar()
  })
  afterAll(async () => {
    await calendar?.close()
  })

  it('issues a token that expires at the given time and lists it', async () => {
    const cmd = parseTokensArgs(['create', '--role', 'editor', '--login', 'cli-exp', '--expires', '2099-06-30T12:00:00+02:00'])
    expect(cmd).toMatchObject({ command: 'create', expires: '2099-06-30T12:00:00+02:00' })
    expect(await executeTokensCommand(cmd, calendar, () => {})).toBe(0)
    const [token] = await calendar.tokens.list()
    expect(token).toMatchObject({ login: 'cli-exp', expiresUtc: '2099-06-30 10:00:00' })
    expect(formatTokenTable([token!])).toContain('expires 2099-06-30 10:00:00')
  })

  it('reports a malformed or past --expires as a usage error', async () => {
    for (const expires of ['next week', '2001-01-01T00:00:00Z']) {
      const cmd = parseTokensArgs(['create', '--role', 'editor', '--login', 'cli-bad', '--expires', expires])
      await expect(executeTokensCommand(cmd, calendar, () => {})).rejects.toThrow(UsageError)
    }
  })
})
