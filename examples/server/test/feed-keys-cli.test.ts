import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar } from '@cal-events/core'
import { freshCalendar } from '../../../test-support/test-db.js'
import { parseFeedKeysArgs, runFeedKeysCli } from '@cal-events/cli'
import { UsageError } from '@cal-events/cli'

describe('feed-keys CLI', () => {
  let calendar: Calendar
  beforeAll(async () => {
    calendar = await freshCalendar({ publicBaseUrl: 'https://cal.example.org' })
    await calendar.tokens.create({ role: 'author', login: 'ann' })
  })
  afterAll(() => calendar.close())

  it('creates a key with its subscribe URLs, lists it without the secret, and revokes it by the whole key', async () => {
    const lines: string[] = []
    expect(await runFeedKeysCli(['create', '--login', 'ann', '--name', 'phone'], calendar, (l) => lines.push(l))).toBe(0)
    const key = lines.find((l) => l.startsWith('calfeed_'))!
    expect(key).toMatch(/^calfeed_[a-z0-9]{10}_[A-Za-z0-9_-]{43}$/)
    expect(lines).toContain(`https://cal.example.org/cal/events/v1/events/ical?key=${key}`)
    expect(lines).toContain(`webcal://cal.example.org/cal/events/v1/events/ical?key=${key}`)
    const listed: string[] = []
    await runFeedKeysCli(['list', '--login', 'ann'], calendar, (l) => listed.push(l))
    expect(listed.join('\n')).toContain('phone')
    expect(listed.join('\n')).not.toContain(key.slice(20))
    const out: string[] = []
    expect(await runFeedKeysCli(['revoke', key], calendar, (l) => out.push(l))).toBe(0)
    expect(out.join('\n')).not.toContain(key)
    expect(await runFeedKeysCli(['revoke', key], calendar, () => {})).toBe(1)
    await expect(calendar.events.feed({ key })).rejects.toMatchObject({ code: 'INVALID_TOKEN' })
  })

  it('refuses unknown users and bad command lines with usage errors', async () => {
    await expect(runFeedKeysCli(['create', '--login', 'nobody'], calendar, () => {})).rejects.toBeInstanceOf(UsageError)
    expect(() => parseFeedKeysArgs(['create'])).toThrow(UsageError)
    expect(() => parseFeedKeysArgs(['revoke'])).toThrow(UsageError)
    expect(() => parseFeedKeysArgs(['frobnicate'])).toThrow(UsageError)
  })
})
