import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar } from '@cal-events/core'
import { BACKEND, freshCalendar } from '../../../../test-support/test-db.js'

const NOW = new Date('2026-11-21T03:39:06Z')

describe(`event list statement count (${BACKEND})`, () => {
  let calendar: Calendar
  let statements: string[] = []
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW, onQuery: (sql) => statements.push(sql) })
    for (let i = 0; i < 55; i++) {
      const day = String(1 + (i % 28)).padStart(2, '0')
      await calendar.events.create({
        title: `Event ${i}`,
        start_date: `2026-12-${day} 10:00:00`,
        end_date: `2026-12-${day} 12:00:00`,
        venue: { venue: `Venue ${i % 7}` },
        organizer: [{ organizer: `Org ${i % 5}` }, { organizer: `Org ${(i + 1) % 5}` }],
        categories: [`Cat ${i % 4}`],
        tags: [`tag-${i % 6}`, `tag-${(i + 2) % 6}`],
      })
    }
  })
  afterAll(() => calendar.close())

  async function countFor(query: Record<string, unknown>): Promise<{ count: number; events: number }> {
    statements = []
    const list = await calendar.events.list(query, { as: null })
    return { count: statements.length, events: list.events.length }
  }

  it('fetches a page of 50 with relations in as many statements as a page of 1', async () => {
    const one = await countFor({ per_page: 1 })
    const fifty = await countFor({ per_page: 50 })
    expect(one.events).toBe(1)
    expect(fifty.events).toBe(50)
    expect(fifty.count).toBe(one.count)
    expect(fifty.count).toBeLessThanOrEqual(2)
  })

  it('keeps it constant with filters too', async () => {
    const one = await countFor({ per_page: 1, categories: 'cat-1', venue: '1' })
    const fifty = await countFor({ per_page: 50, categories: 'cat-1', venue: '1' })
    expect(fifty.count).toBe(one.count)
  })
})
