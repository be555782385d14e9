import { tzOffset } from '@date-fns/tz'
import fc from 'fast-check'
import ICAL from 'ical.js'
import { describe, expect, it } from 'vitest'
import { vtimezone } from '../../src/time/vtimezone.js'
import { epochMsToUtcWall, utcToWall } from '../../src/time/wall-time.js'

/** The zone ical.js builds from our VTIMEZONE text. */
function icalZone(text: string) {
  const component = new ICAL.Component(ICAL.parse(`BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:test\r\n${text}END:VCALENDAR\r\n`))
  return new ICAL.Timezone(component.getFirstSubcomponent('vtimezone')!)
}

/**
 * What a parser does with `DTSTART;TZID=…:<wall clock>`: ical.js reads the wall clock Intl shows
 * at `ms` through our VTIMEZONE; Intl must show that wall clock at the instant ical.js finds.
 * (Where the clock goes back a wall clock names two instants; ical.js takes the later one, so the
 * instants themselves may differ there.)
 */
function roundTrip(zone: InstanceType<typeof ICAL.Timezone>, name: string, ms: number): [string, string] {
  const wall = utcToWall(epochMsToUtcWall(ms), name)
  const [date, time] = wall.split(' ') as [string, string]
  const [year, month, day] = date.split('-').map(Number) as [number, number, number]
  const [hour, minute, second] = time.split(':').map(Number) as [number, number, number]
  const local = new ICAL.Time({ year, month, day, hour, minute, second, isDate: false }, zone)
  return [utcToWall(epochMsToUtcWall(local.toUnixTime() * 1000), name), wall]
}

const ZONES = ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'America/Sao_Paulo', 'Asia/Tokyo', 'Africa/Casablanca', 'Pacific/Apia', 'Asia/Kolkata']

describe('VTIMEZONE from the platform time zone database', () => {
  it('lets ical.js read every wall clock of the covered years as Intl does', () => {
    for (const zone of ZONES) {
      const parsed = icalZone(vtimezone(zone, 2000, 2030))
      fc.assert(
        fc.property(fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2030, 11, 31) }).map((ms) => ms - (ms % 1000)), (ms) => {
          const [actual, expected] = roundTrip(parsed, zone, ms)
          expect(actual, `${zone} ${new Date(ms).toISOString()}`).toBe(expected)
        }),
        { numRuns: 300 },
      )
    }
  })

  it('agrees with Intl an hour and a minute around every offset change', () => {
    for (const zone of ZONES) {
      const text = vtimezone(zone, 2005, 2027)
      const parsed = icalZone(text)
      // Every observance's onset, as an instant: its DTSTART read in its TZOFFSETFROM.
      const onsets = [...text.matchAll(/DTSTART:(\d{8}T\d{6})\r\nTZOFFSETFROM:([+-]\d{4})/g)].slice(1).map(([, stamp, from]) => {
        const t = ICAL.Time.fromDateTimeString(`${stamp!.slice(0, 4)}-${stamp!.slice(4, 6)}-${stamp!.slice(6, 8)}T${stamp!.slice(9, 11)}:${stamp!.slice(11, 13)}:${stamp!.slice(13, 15)}`)
        const sign = from![0] === '-' ? -1 : 1
        const minutes = sign * (Number(from!.slice(1, 3)) * 60 + Number(from!.slice(3, 5)))
        return Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second) - minutes * 60_000
      })
      if (zone !== 'Asia/Tokyo' && zone !== 'Asia/Kolkata') expect(onsets.length, zone).toBeGreaterThan(0)
      for (const at of onsets) {
        for (const ms of [at - 3_600_000, at - 60_000, at, at + 60_000, at + 3_600_000]) {
          const [actual, expected] = roundTrip(parsed, zone, ms)
          expect(actual, `${zone} ${new Date(ms).toISOString()}`).toBe(expected)
        }
      }
      // And the offsets themselves are Intl's.
      expect(text).toContain(`TZID:${zone}`)
      for (const at of onsets) expect(tzOffset(zone, new Date(at)), zone).not.toBe(tzOffset(zone, new Date(at - 60_000)))
    }
  })

  it('follows the rules of the years it covers: New York before and after the 2007 change', () => {
    const parsed = icalZone(vtimezone('America/New_York', 2006, 2007))
    // 20 March 10:00: standard time in 2006 (DST began 2 April), daylight time in 2007 (began 11 March).
    const at = (year: number) => new ICAL.Time({ year, month: 3, day: 20, hour: 10, minute: 0, second: 0, isDate: false }, parsed).toJSDate().toISOString()
    expect(at(2006)).toBe('2006-03-20T15:00:00.000Z')
    expect(at(2007)).toBe('2007-03-20T14:00:00.000Z')
  })

  it('covers the edges of the wall-time range without failing', () => {
    for (const [from, to] of [[0, 0], [0, 1], [9999, 9999], [9998, 9999], [1900, 1900]] as const) {
      const text = vtimezone('Europe/Berlin', from, to)
      expect(text.startsWith('BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\n')).toBe(true)
      expect(() => icalZone(text)).not.toThrow()
    }
  })

  it('writes the years after 2037 as yearly rules that ical.js expands as Intl does, to 9999', () => {
    const observances = (text: string) => text.match(/^BEGIN:(STANDARD|DAYLIGHT)\r$/gm)?.length ?? 0
    for (const zone of ['Europe/Berlin', 'America/New_York', 'America/Santiago', 'Australia/Lord_Howe', 'Pacific/Chatham', 'America/Nuuk', 'Asia/Jerusalem', 'Africa/Casablanca']) {
      const text = vtimezone(zone, 2030, 9999)
      // Listed one by one, the changes until 9999 would be about 16,000 observances.
      // Casablanca has predicted changes until 2087 and none after: nothing to repeat.
      if (zone !== 'Africa/Casablanca') expect(text, zone).toMatch(/^RRULE:FREQ=YEARLY;BYMONTH=\d+;/m)
      expect(observances(text), zone).toBeLessThan(150)
      const parsed = icalZone(text)
      const year = (y: number) => {
        const d = new Date(Date.UTC(2000, 0, 1))
        d.setUTCFullYear(y)
        return d.getTime()
      }
      fc.assert(
        // ical.js expands the rules year by year from 2038: the years near 9999 for two zones only.
        fc.property(fc.oneof(fc.integer({ min: year(2036), max: year(2200) }), ...(['Europe/Berlin', 'America/Santiago'].includes(zone) ? [fc.integer({ min: year(9990), max: year(9999) + 300 * 86_400_000 })] : [])), (ms) => {
          const [actual, expected] = roundTrip(parsed, zone, ms - (ms % 1000))
          expect(actual, `${zone} ${new Date(ms).toISOString()}`).toBe(expected)
        }),
        { numRuns: 150 },
      )
    }
  })

  it('keeps its size bounded for events from year 1 to 9999 in any zone', () => {
    // Only zones whose changes no RRULE here expresses (Cairo) are listed, to 2200.
    for (const zone of ['Pacific/Kiritimati', 'Europe/London', 'Africa/Cairo', 'Asia/Gaza']) {
      const text = vtimezone(zone, 1, 9999)
      expect(text.length, zone).toBeLessThan(60_000)
      expect(() => icalZone(text)).not.toThrow()
    }
  })

  it('writes the seconds of a local mean time offset as RFC 5545 allows (+HHMMSS)', () => {
    const text = vtimezone('Africa/Abidjan', 1800, 1920)
    expect(text).toContain('TZOFFSETFROM:+001608\r\n')
    for (const zone of ZONES) {
      for (const [, offset] of vtimezone(zone, 1800, 2030).matchAll(/^TZOFFSET(?:FROM|TO):(.*)\r$/gm)) expect(offset, zone).toMatch(/^[+-]\d{4}(\d{2})?$/)
    }
  })
})
