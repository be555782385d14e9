import { describe, expect, it } from 'vitest'
import { defaultWindow, isStrict, listBounds, type BoundClock } from '../../src/events/event-list-bounds.js'

const NOW = new Date('2026-11-21T03:39:06Z')
const clock = (zone: string, mode: BoundClock['mode'] = 'event-local'): BoundClock => ({ now: NOW, zone, mode })

describe('defaultWindow (CONTRACT 6.3)', () => {
  // From the site-local date of yesterday 23:59 UTC, to the end of the site-local day 24 months on.
  it.each([
    ['UTC', '2026-11-20 00:00:00', '2028-11-21 23:59:59'],
    ['America/New_York', '2026-11-20 00:00:00', '2028-11-20 23:59:59'],
    ['Pacific/Pago_Pago', '2026-11-20 00:00:00', '2028-11-20 23:59:59'],
    ['Asia/Tokyo', '2026-11-21 00:00:00', '2028-11-21 23:59:59'],
    ['Pacific/Kiritimati', '2026-11-21 00:00:00', '2028-11-21 23:59:59'],
    ['UTC+5.75', '2026-11-21 00:00:00', '2028-11-21 23:59:59'],
  ])('in %s runs from %s to %s', (zone, from, to) => {
    expect(defaultWindow(NOW, zone)).toEqual({ from, to })
  })

  it('is computed again for another second or zone', () => {
    const late = new Date('2026-11-21T23:59:59Z')
    expect(defaultWindow(late, 'America/New_York')).toEqual({ from: '2026-11-20 00:00:00', to: '2028-11-21 23:59:59' })
    expect(defaultWindow(late, 'UTC')).toEqual({ from: '2026-11-20 00:00:00', to: '2028-11-21 23:59:59' })
    expect(defaultWindow(new Date(late.getTime() + 1000), 'UTC')).toEqual({ from: '2026-11-21 00:00:00', to: '2028-11-22 23:59:59' })
  })
})

describe('listBounds', () => {
  it('applies the default window without date parameters, in site wall clocks or in UTC', () => {
    expect(listBounds({}, clock('America/New_York'))).toEqual({ startGte: '2026-11-20 00:00:00', endLte: '2028-11-20 23:59:59' })
    expect(listBounds({}, clock('America/New_York', 'utc'))).toEqual({ startGte: '2026-11-20 05:00:00', endLte: '2028-11-21 04:59:59' })
    expect(listBounds({}, clock('Asia/Tokyo', 'utc'))).toEqual({ startGte: '2026-11-20 15:00:00', endLte: '2028-11-21 14:59:59' })
    expect(listBounds({}, clock('UTC', 'utc'))).toEqual(listBounds({}, clock('UTC')))
  })

  it('takes whole days for start_date and end_date, across a DST change in utc mode', () => {
    const days = { start_date: '2027-03-14', end_date: '2027-03-14' }
    expect(listBounds(days, clock('America/New_York'))).toEqual({ startGte: '2027-03-14 00:00:00', endLte: '2027-03-14 23:59:59' })
    // 2027-03-14 starts in EST (UTC-5) and ends in EDT (UTC-4).
    expect(listBounds(days, clock('America/New_York', 'utc'))).toEqual({ startGte: '2027-03-14 05:00:00', endLte: '2027-03-15 03:59:59' })
    expect(listBounds(days, clock('Asia/Tokyo', 'utc'))).toEqual({ startGte: '2027-03-13 15:00:00', endLte: '2027-03-14 14:59:59' })
  })

  it('keeps the default bound that a parameter leaves open', () => {
    expect(listBounds({ start_date: '2027-01-05' }, clock('UTC'))).toEqual({ startGte: '2027-01-05 00:00:00', endLte: '2028-11-21 23:59:59' })
    expect(listBounds({ end_date: '2027-01-05' }, clock('UTC'))).toEqual({ startGte: '2026-11-20 00:00:00', endLte: '2027-01-05 23:59:59' })
  })

  it('reads an instant by its UTC date unless strict_dates asks for the instant itself', () => {
    const instant = { start_date: '2027-03-14T01:00:00+09:00' }
    expect(listBounds(instant, clock('America/New_York')).startGte).toBe('2027-03-13 00:00:00')
    const strict = { ...instant, strict_dates: 'yes' }
    // 2027-03-13 16:00 UTC is 11:00 in New York (EST).
    expect(listBounds(strict, clock('America/New_York')).startGte).toBe('2027-03-13 11:00:00')
    expect(listBounds(strict, clock('America/New_York', 'utc')).startGte).toBe('2027-03-13 16:00:00')
  })

  it('reads a strict bound without an offset as UTC, seen in the site zone', () => {
    const strict = { start_date: '2027-03-14 12:00:00', end_date: '2027-03-14 18:30:00', strict_dates: 'true' }
    expect(listBounds(strict, clock('America/New_York'))).toEqual({ startGte: '2027-03-14 08:00:00', endLte: '2027-03-14 14:30:00' })
    expect(listBounds(strict, clock('America/New_York', 'utc'))).toEqual({ startGte: '2027-03-14 12:00:00', endLte: '2027-03-14 18:30:00' })
    expect(listBounds(strict, clock('Pacific/Kiritimati'))).toEqual({ startGte: '2027-03-15 02:00:00', endLte: '2027-03-15 08:30:00' })
  })

  it('drops the default window when a range parameter is given, and ends range days at 23:59:59', () => {
    expect(listBounds({ starts_before: '2027-01-01' }, clock('UTC'))).toEqual({ startLt: '2027-01-01 23:59:59' })
    expect(listBounds({ starts_after: '2027-01-01', ends_before: '2027-02-01', ends_after: '2027-01-15' }, clock('Asia/Tokyo'))).toEqual({
      startGt: '2027-01-01 23:59:59',
      endLt: '2027-02-01 23:59:59',
      endGt: '2027-01-15 23:59:59',
    })
    expect(listBounds({ ends_after: '2027-01-15' }, clock('Asia/Tokyo', 'utc'))).toEqual({ endGt: '2027-01-15 14:59:59' })
  })

  it('applies no window and no start/end date with include', () => {
    expect(listBounds({ include: [1, 2] }, clock('UTC'))).toEqual({})
    expect(listBounds({ include: [1], start_date: '2027-01-01', starts_before: '2027-02-01' }, clock('UTC'))).toEqual({ startLt: '2027-02-01 23:59:59' })
  })

  it('reaches year 1 and 9999 without shifting the day', () => {
    expect(listBounds({ start_date: '0001-01-01', end_date: '9999-12-31' }, clock('UTC'))).toEqual({ startGte: '0001-01-01 00:00:00', endLte: '9999-12-31 23:59:59' })
  })

  it('keeps bounds that leave years 1-9999 after the zone conversion at the edge (year 0 was a 500)', () => {
    expect(listBounds({ start_date: '0001-01-01', end_date: '9999-12-31' }, clock('UTC+14', 'utc'))).toEqual({ startGte: '0001-01-01 00:00:00', endLte: '9999-12-31 09:59:59' })
    expect(listBounds({ start_date: '0001-01-01', end_date: '9999-12-31' }, clock('Etc/GMT+12', 'utc'))).toEqual({ startGte: '0001-01-01 12:00:00', endLte: '9999-12-31 23:59:59' })
    expect(listBounds({ start_date: '0001-01-01T00:00:00Z', strict_dates: '1' }, clock('UTC+14'))).toMatchObject({ startGte: '0001-01-01 14:00:00' })
    expect(listBounds({ start_date: '0001-01-01T00:00:00Z', strict_dates: '1' }, clock('UTC-12'))).toMatchObject({ startGte: '0001-01-01 00:00:00' })
    expect(listBounds({ end_date: '9999-12-31T23:59:59Z', strict_dates: '1' }, clock('Etc/GMT+12'))).toMatchObject({ endLte: '9999-12-31 11:59:59' })
  })
})

describe('isStrict', () => {
  it.each([['1', true], ['true', true], [' YES ', true], ['on', true], ['0', false], ['', false], [undefined, false], [1, false], ['false', false]])(
    '%j -> %s',
    (raw, strict) => expect(isStrict(raw)).toBe(strict),
  )
})
