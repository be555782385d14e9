import { describe, expect, it } from 'vitest'
import { runSteps, need, type Step } from '../../../src/http/pipeline/step.js'

describe('runSteps', () => {
  const log: string[] = []
  const step = (name: string, answer = false): Step<{ log: string[] }> => ({
    name,
    async run(x, next) {
      x.log.push(`${name} in`)
      if (answer) return
      await next()
      x.log.push(`${name} out`)
    },
  })

  it('runs the steps in order, their after-parts in reverse', async () => {
    const x = { log }
    await runSteps([step('a'), step('b'), step('c')], x)
    expect(x.log).toEqual(['a in', 'b in', 'c in', 'c out', 'b out', 'a out'])
  })

  it('stops at a step that answers without calling next', async () => {
    const x = { log: [] as string[] }
    await runSteps([step('a'), step('b', true), step('c')], x)
    expect(x.log).toEqual(['a in', 'b in', 'a out'])
  })

  it('lets an outer step catch what an inner one throws', async () => {
    const caught: unknown[] = []
    const outer: Step<object> = { name: 'outer', run: (_x, next) => next().catch((err: unknown) => void caught.push(err)) }
    const inner: Step<object> = { name: 'inner', run: async () => { throw new Error('boom') } }
    await runSteps([outer, inner], {})
    expect(caught).toHaveLength(1)
  })

  it('need() names what a step out of order is missing', () => {
    expect(need(0, 'zero')).toBe(0)
    expect(() => need(undefined, 'the call context')).toThrow(/the call context/)
  })
})
