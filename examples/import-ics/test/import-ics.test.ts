import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar } from '@cal-events/core'
import { scratchDatabase } from '../../../test-support/scratch-db.js'
import { freshCalendar } from '../../../test-support/test-db.js'
import { importIcs, planIcs, type PlannedEvent } from '@cal-events/cli'

const run = promisify(execFile)
const SAMPLE_PATH = fileURLToPath(new URL('../data/sample.ics', import.meta.url))
const SAMPLE = readFileSync(SAMPLE_PATH, 'utf8')
const ALL_STATUSES = 'publish,future,draft,pending,private'

/** What the calendar holds, counted through the script API. */
async function counts(calendar: Calendar) {
  const [events, trashed, venues, organizers, categories] = await Promise.all([
    calendar.events.list({ start_date: '1900-01-01', end_date: '2999-12-31', status: ALL_STATUSES, per_page: 1 }),
    calendar.events.list({ start_date: '1900-01-01', end_date: '2999-12-31', status: 'trash', per_page: 1 }),
    calendar.venues.list({ per_page: 1 }),
    calendar.organizers.list({ per_page: 1 }),
    calendar.categories.list({ per_page: 1, hide_empty: false }),
  ])
  return { events: events.total, trashed: trashed.total, venues: venues.total, organizers: organizers.total, categories: categories.total }
}

describe('planning the sample file (no database)', () => {
  const plan = planIcs(SAMPLE)
  const byOrigin = (origin: string): PlannedEvent => {
    const found = plan.events.find((e) => e.origin === origin)
    expect(found, origin).toBeDefined()
    return found!
  }

  it('reads 20 VEVENTs into 20 calendar events: 18 single ones, a weekly series and its changed occurrence', () => {
    expect(plan.vevents).toBe(20)
    expect(plan.events).toHaveLength(20)
    expect(plan.warnings).toEqual([])
    expect(plan.events.filter((e) => e.action === 'cancel').map((e) => e.origin)).toEqual(['cancelled-gig-2027@kulturhaus.example'])
    // COUNT=6 with one EXDATE; the 1 February occurrence, changed by its RECURRENCE-ID VEVENT,
    // becomes an exception of the series with its new time and title.
    expect(byOrigin('reading-circle@library.example').input).toMatchObject({
      title: 'Reading Circle',
      timezone: 'Europe/Berlin',
      start_date: '2027-01-04 18:00:00',
      end_date: '2027-01-04 19:30:00',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6', 'EXDATE;TZID=Europe/Berlin:20270118T180000'],
    })
    expect(byOrigin('reading-circle@library.example#20270201T180000')).toMatchObject({
      action: 'override',
      series: 'reading-circle@library.example',
      recurrenceId: { value: '20270201T180000', zone: 'Europe/Berlin' },
    })
    expect(byOrigin('reading-circle@library.example#20270201T180000').input).toMatchObject({
      title: 'Reading Circle (guest author evening)',
      start_date: '2027-02-01 19:00:00',
    })
    expect(byOrigin('reading-circle@library.example#20270201T180000').input.recurrence).toBeUndefined()
    // Expanded, as a calendar that refused the rule would get it: 6 minus the EXDATE.
    const series = byOrigin('reading-circle@library.example').expanded!()
    expect(series.map((e) => [e.origin.split('#')[1], e.input.start_date, e.input.title])).toEqual([
      ['20270104T180000', '2027-01-04 18:00:00', 'Reading Circle'],
      ['20270111T180000', '2027-01-11 18:00:00', 'Reading Circle'],
      ['20270125T180000', '2027-01-25 18:00:00', 'Reading Circle'],
      ['20270201T180000', '2027-02-01 19:00:00', 'Reading Circle (guest author evening)'],
      ['20270208T180000', '2027-02-08 18:00:00', 'Reading Circle'],
    ])
    expect(plan.events).toHaveLength(20)
  })

  it('maps all-day, TZID, UTC, Outlook time zone, floating and DURATION times', () => {
    // DTEND;VALUE=DATE is exclusive.
    expect(byOrigin('harbour-festival-2027@springfield.example').input).toMatchObject({
      all_day: true, timezone: '', start_date: '2027-07-10 00:00:00', end_date: '2027-07-12 23:59:59',
    })
    expect(byOrigin('cleanup-day-2027@springfield.example').input).toMatchObject({ all_day: true, start_date: '2027-09-25 00:00:00', end_date: '2027-09-25 23:59:59' })
    expect(byOrigin('jazz-night-2027-03@kulturhaus.example').input).toMatchObject({
      all_day: false, timezone: 'Europe/Berlin', start_date: '2027-03-05 19:30:00', end_date: '2027-03-05 22:30:00',
    })
    expect(byOrigin('loft-jam-2027-04@hudson.example').input).toMatchObject({ timezone: 'America/New_York', start_date: '2027-04-15 20:00:00' })
    expect(byOrigin('release-party-2027@online.example').input).toMatchObject({ timezone: 'UTC', start_date: '2027-03-20 17:00:00', end_date: '2027-03-20 18:30:00' })
    // "W. Europe Standard Time" is no IANA name: converted through its VTIMEZONE (CEST, +2).
    expect(byOrigin('board-meeting-2027-06@outlook.example').input).toMatchObject({
      timezone: 'UTC', start_date: '2027-06-02 12:00:00', end_date: '2027-06-02 13:30:00', status: 'private',
    })
    expect(byOrigin('council-2027-02@springfield.example').input).toMatchObject({ timezone: '', start_date: '2027-02-18 18:00:00' })
    expect(byOrigin('yoga-park-2027-05@springfield.example').input).toMatchObject({ end_date: '2027-05-08 10:30:00' })
  })

  it('maps LOCATION to a venue, ORGANIZER to an organizer, CATEGORIES, URL and DESCRIPTION', () => {
    expect(byOrigin('jazz-night-2027-03@kulturhaus.example').input).toMatchObject({
      venue: { venue: 'Kulturhaus am See', address: 'Seestraße 1', city: 'Berlin' },
      organizer: [{ organizer: 'Friends of Music', email: 'music@kulturhaus.example' }],
      categories: ['Music', 'Jazz'],
    })
    expect(byOrigin('yoga-park-2027-05@springfield.example').input).toMatchObject({
      venue: { venue: 'Riverside Park' },
      organizer: [{ organizer: 'yoga@springfield.example', email: 'yoga@springfield.example' }],
    })
    expect(byOrigin('release-party-2027@online.example').input).toMatchObject({ venue: null, organizer: [], website: 'https://online.example/live' })
    expect(byOrigin('poetry-slam-2027@library.example').input.description).toBe('Open mic; sign up at the door.\nBring your own &lt;texts&gt;.')
  })

  it('keeps an open-ended series as one event; expanded, only up to the horizon', () => {
    const ics = `BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:test\nBEGIN:VEVENT\nUID:weekly\nDTSTART:20270101T100000Z\nDTEND:20270101T110000Z\nRRULE:FREQ=WEEKLY\nSUMMARY:Weekly\nEND:VEVENT\nEND:VCALENDAR\n`
    const plan = planIcs(ics, { horizon: new Date('2027-01-31T00:00:00Z') })
    expect(plan.events.map((e) => [e.origin, e.input.recurrence])).toEqual([['weekly', ['RRULE:FREQ=WEEKLY']]])
    expect(plan.events[0]!.expanded!()).toHaveLength(5)
    const capped = planIcs(ics, { horizon: new Date('2030-01-01T00:00:00Z'), maxOccurrences: 10 })
    expect(capped.events[0]!.expanded!()).toHaveLength(10)
    expect(capped.warnings).toEqual(['weekly: only the first 10 occurrences were imported.'])
  })

  it('expands a series whose start is in a non-IANA time zone (its wall clock would drift at DST in UTC)', () => {
    const ics = SAMPLE.replace(
      'DTSTART;TZID=W. Europe Standard Time:20270602T140000',
      'DTSTART;TZID=W. Europe Standard Time:20270602T140000\nRRULE:FREQ=MONTHLY;COUNT=3',
    ).replace('DTEND;TZID=W. Europe Standard Time:20270602T153000', 'DURATION:PT1H30M')
    const plan = planIcs(ics)
    const board = plan.events.filter((e) => e.origin.startsWith('board-meeting-2027-06@outlook.example'))
    expect(board.map((e) => [e.origin, e.input.start_date, e.input.recurrence])).toEqual([
      ['board-meeting-2027-06@outlook.example#20270602T140000', '2027-06-02 12:00:00', undefined],
      ['board-meeting-2027-06@outlook.example#20270702T140000', '2027-07-02 12:00:00', undefined],
      ['board-meeting-2027-06@outlook.example#20270802T140000', '2027-08-02 12:00:00', undefined],
    ])
  })
})

describe('importing the sample into the calendar', () => {
  let calendar: Calendar
  beforeAll(async () => {
    calendar = await freshCalendar({ siteTimezone: 'Europe/Berlin' })
  })
  afterAll(() => calendar.close())

  it('creates the events, venues and organizers once; the second run creates nothing', async () => {
    expect(await counts(calendar)).toEqual({ events: 0, trashed: 0, venues: 0, organizers: 0, categories: 0 })
    const progress: number[] = []
    const first = await importIcs(calendar, SAMPLE, { onProgress: (done, total) => progress.push(done / total) })
    expect(first).toMatchObject({ vevents: 20, planned: 20, created: 18, updated: 1, skipped: 1, removed: 0, warnings: [] })
    expect(progress).toHaveLength(20)
    expect(progress.at(-1)).toBe(1)
    const afterFirst = await counts(calendar)
    // 18 events; the list shows the Reading Circle series as its 5 occurrences (6, less an EXDATE;
    // one of them changed): 17 + 5 items.
    expect(afterFirst).toEqual({ events: 22, trashed: 0, venues: 10, organizers: 9, categories: 13 })

    const second = await importIcs(calendar, SAMPLE)
    expect(second).toMatchObject({ created: 0, updated: 19, skipped: 1, removed: 0 })
    expect(await counts(calendar)).toEqual(afterFirst)

    const jazz = await calendar.events.getByOrigin('jazz-night-2027-03@kulturhaus.example')
    expect(jazz).toMatchObject({
      title: 'Kulturhaus Jazz Night',
      timezone: 'Europe/Berlin',
      utc_start_date: '2027-03-05 18:30:00',
      venue: { venue: 'Kulturhaus am See', city: 'Berlin' },
      organizer: [{ organizer: 'Friends of Music', email: 'music@kulturhaus.example' }],
    })
    expect(jazz!.global_id_lineage[1]).toBe('jazz-night-2027-03@kulturhaus.example')
    expect(await calendar.events.getByOrigin('book-fair-2027@springfield.example')).toMatchObject({
      all_day: true, start_date: '2027-04-10 00:00:00', end_date: '2027-04-10 23:59:59',
    })
    expect(await calendar.events.getByOrigin('cancelled-gig-2027@kulturhaus.example')).toBeUndefined()
  })

  it('applies changes of a re-exported file to the events it imported before', async () => {
    const before = await counts(calendar)
    const changed = SAMPLE.replace('SUMMARY:Lantern Walk', 'SUMMARY:Lantern Walk (new route)').replace(
      'SUMMARY:Springfield City Run',
      'SUMMARY:Springfield City Run\nSTATUS:CANCELLED',
    )
    // Somebody deleted an imported event in the calendar: the importer leaves it deleted.
    const trashedByHand = await calendar.events.getByOrigin('museum-night-2027@museum.example')
    await calendar.events.delete(trashedByHand!.id)

    const summary = await importIcs(calendar, changed)
    expect(summary).toMatchObject({ created: 0, updated: 17, skipped: 2, removed: 1 })
    expect((await calendar.events.getByOrigin('lantern-walk-2027@springfield.example'))?.title).toBe('Lantern Walk (new route)')
    expect((await calendar.events.getByOrigin('run-2027@springfield.example'))?.status).toBe('trash')
    expect((await calendar.events.getByOrigin('museum-night-2027@museum.example'))?.status).toBe('trash')
    expect(await counts(calendar)).toEqual({ ...before, events: before.events - 2, trashed: 2 })
  })
})

describe('the import script (CLI) on PostgreSQL', () => {
  const database = scratchDatabase('ics')
  const url = new URL(database.url)


  beforeAll(async () => {
    await database.create()
  })
  afterAll(() => database.drop())

  const cli = () =>
    run(fileURLToPath(new URL('../node_modules/.bin/tsx', import.meta.url)), ['--conditions=source', 'src/main.ts', SAMPLE_PATH], {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      env: { ...process.env, DATABASE_URL: url.href, CAL_TIMEZONE: 'Europe/Berlin' },
      timeout: 60_000,
    })

  it('imports the sample twice; the second run creates nothing', async () => {
    const first = await cli()
    expect(first.stdout).toContain('20 VEVENTs, 20 events')
    expect(first.stdout).toContain('created 18, updated 1, skipped 1, removed 0')
    expect(first.stdout).toContain('calendar now lists 22 events (a series once per occurrence), 10 venues, 9 organizers')
    const second = await cli()
    expect(second.stdout).toContain('created 0, updated 19, skipped 1, removed 0')
    expect(second.stdout).toContain('calendar now lists 22 events (a series once per occurrence), 10 venues, 9 organizers')
  }, 150_000) // two runs of the CLI, each allowed 60 s (tsx compiles it first: slow on a loaded machine)
})
