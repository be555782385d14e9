import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar } from '@cal-events/core'
import { BACKEND, execSql, freshCalendar, querySql } from '../../../../test-support/test-db.js'

const NOW = new Date('2026-11-21T03:39:06Z')
const event = (title: string) => ({ title, start_date: '2027-03-01 10:00:00', end_date: '2027-03-01 11:00:00', categories: ['Retried'] })

// Issue 34: a deadlock (40P01) or serialization failure (40001) that still happens rolls the write
// back whole; the calendar runs it again instead of answering 500. A trigger of the test raises
// the error on the first `fail` inserts into events (counted by a sequence, which a rollback does
// not undo).
describe(`writes met by a deadlock are run again (${BACKEND})`, () => {
  let calendar: Calendar
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW })
  })
  afterEach(async () => {
    await execSql(`drop trigger if exists retry_probe on events; drop function if exists retry_probe(); drop sequence if exists retry_probe_seq`)
  })
  afterAll(() => calendar.close())

  async function failFirst(fail: number, code: string): Promise<void> {
    await execSql(`create sequence retry_probe_seq;
      create function retry_probe() returns trigger language plpgsql as $$
      begin
        if nextval('retry_probe_seq') <= ${fail} then raise exception 'simulated conflict' using errcode = '${code}'; end if;
        return new;
      end $$;
      create trigger retry_probe before insert on events for each row execute function retry_probe()`)
  }

  it('creates once after a deadlock and after a serialization failure', async () => {
    await failFirst(1, '40P01')
    const a = await calendar.events.create(event('After a deadlock'))
    await execSql(`drop trigger retry_probe on events; drop function retry_probe(); drop sequence retry_probe_seq`)
    await failFirst(2, '40001')
    const b = await calendar.events.create(event('After two serialization failures'))
    const rows = await querySql<{ title: string }>(`select title from events where title like 'After %' order by id`)
    expect(rows.map((r) => r.title)).toEqual(['After a deadlock', 'After two serialization failures'])
    expect([a.title, b.title]).toEqual(['After a deadlock', 'After two serialization failures'])
    expect((await calendar.categories.list({ search: 'Retried' })).categories[0]?.count).toBe(2)
  })

  it('answers database-unavailable, not an internal error, when every try meets one', async () => {
    await failFirst(1000, '40P01')
    await expect(calendar.events.create(event('Never'))).rejects.toMatchObject({ code: 'DATABASE_UNAVAILABLE' })
    expect(await querySql(`select id from events where title = 'Never'`)).toEqual([])
  })
})
