import { describe, expect, it } from 'vitest'
import { createGuessLimiter } from '../../src/auth/guess-limiter.js'
import { CalendarError } from '../../src/errors.js'

describe('password guess limiter', () => {
  it('allows `attempts` wrong guesses per key and window, then answers 429 until the window ends', () => {
    const limiter = createGuessLimiter({ attempts: 3, windowMs: 1000, maxKeys: 100 })
    for (let i = 0; i < 3; i++) {
      limiter.check('1 a', 0)
      limiter.fail('1 a', 0)
    }
    expect(() => limiter.check('1 a', 10)).toThrow(CalendarError)
    expect(() => limiter.check('1 a', 10)).toThrow(expect.objectContaining({ code: 'TOO_MANY_REQUESTS' }))
    // Another event, or another client, has its own count.
    expect(() => limiter.check('2 a', 10)).not.toThrow()
    expect(() => limiter.check('1 b', 10)).not.toThrow()
    expect(() => limiter.check('1 a', 1000)).not.toThrow()
  })

  it('never remembers more than maxKeys keys, whatever the clients send', () => {
    const limiter = createGuessLimiter({ attempts: 3, windowMs: 60_000, maxKeys: 100 })
    for (let i = 0; i < 100_000; i++) limiter.fail(`${i} client-${i}`, i)
    expect(limiter.size).toBeLessThanOrEqual(100)
    // The newest keys are the ones kept.
    for (let i = 0; i < 2; i++) limiter.fail('99999 client-99999', 100_000)
    expect(() => limiter.check('99999 client-99999', 100_000)).toThrow()
  })
})
