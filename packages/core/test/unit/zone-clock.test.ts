import { describe, expect, it } from 'vitest'
import { epochMsToUtcWall, wallToUtc } from '../../src/time/wall-time.js'
import { zoneClock } from '../../src/time/zone-clock.js'

// zoneClock must give exactly wallToUtc's answers (far-occurrences.ts reads every computed
// occurrence's end through it): DST gaps and overlaps, half-hour zones, far years, fixed offsets.
describe('zoneClock', () => {
  const zones = ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kolkata', 'America/Santiago', 'Pacific/Apia', 'UTC', 'UTC+5.5', 'Europe/London']
  it('reads wall clocks as wallToUtc does, every 97 minutes across transitions and far years', () => {
    for (const zone of zones) {
      const clock = zoneClock(zone)
      for (const [from, to] of [['2026-03-01', '2026-04-15'], ['2026-10-01', '2026-11-15'], ['2045-03-20', '2045-04-10'], ['2045-10-20', '2045-11-10'], ['2011-12-25', '2012-01-05'], ['1968-02-10', '1968-03-01'], ['1990-03-20', '1990-04-05']]) {
        for (let ms = Date.parse(`${from}T00:00:00Z`); ms < Date.parse(`${to}T00:00:00Z`); ms += 97 * 60_000) {
          const wall = epochMsToUtcWall(ms)
          expect([zone, wall, clock(wall)]).toEqual([zone, wall, wallToUtc(wall, zone)])
        }
      }
    }
  })

  it('takes the earlier instant in an overlap and rolls a gap forward', () => {
    const berlin = zoneClock('Europe/Berlin')
    expect(berlin('2045-10-29 02:30:00')).toBe('2045-10-29 00:30:00')
    expect(berlin('2045-03-26 02:30:00')).toBe(wallToUtc('2045-03-26 02:30:00', 'Europe/Berlin'))
  })
})
