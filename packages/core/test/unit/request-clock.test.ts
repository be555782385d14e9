import { describe, expect, it } from 'vitest'
import { requestClock, type CallContext } from '../../src/api/context.js'

// The call context's clock contract (api/context.ts): whether an answer read the time is known
// however the context was copied on its way to the code that read it.
describe('requestClock', () => {
  const at = new Date('2026-11-21T03:40:10Z')

  it('is unread until now() is called, and then gives the call moment', () => {
    const clock = requestClock(at)
    expect(clock.read).toBe(false)
    expect(clock.now()).toBe(at)
    expect(clock.read).toBe(true)
  })

  it('records a read made through a spread copy of the context', () => {
    const ctx = { clock: requestClock(at) } as Pick<CallContext, 'clock'>
    const copy = { ...ctx }
    const copyOfCopy = { ...copy, extra: 1 }
    expect(ctx.clock.read).toBe(false)
    copyOfCopy.clock.now()
    expect(ctx.clock.read).toBe(true)
  })

  it('is not read by copying the context', () => {
    const ctx = { clock: requestClock(at), other: 1 } as Pick<CallContext, 'clock'> & { other: number }
    const copies = [{ ...ctx }, Object.assign({}, ctx), structuredClone({ other: ctx.other })]
    expect(copies).toHaveLength(3)
    expect(ctx.clock.read).toBe(false)
  })
})
