import { describe, expect, it } from 'vitest'
import { formatCost, parseCost } from '../../src/shared/cost.js'

describe('parseCost + formatCost', () => {
  it.each([
    ['10', ['10'], '', '', '$10'],
    ['$23', ['23'], '$', 'prefix', '$23'],
    ['20$', ['20'], '$', 'postfix', '20$'],
    [['0$', '20$', '30$'], ['0', '20', '30'], '$', 'postfix', 'Free – 30$'],
    ['10, 20', ['10', '20'], '', '', '$10 – $20'],
    ['0', ['0'], '', '', 'Free'],
  ] as const)('%j', (input, values, symbol, position, display) => {
    const parts = parseCost(input as string | string[])
    expect(parts).toEqual({ values, symbol, position })
    expect(formatCost(parts)).toBe(display)
  })

  it('normalises decimal and thousands commas', () => {
    expect(parseCost('€ 12,50')).toEqual({ values: ['12.50'], symbol: '€', position: 'prefix' })
    expect(parseCost('1,000')).toEqual({ values: ['1000'], symbol: '', position: '' })
    expect(parseCost('1,250,000.99 USD')).toEqual({ values: ['1250000.99'], symbol: 'USD', position: 'postfix' })
    // A comma with 1-2 digits after it is decimal, even without a space.
    expect(parseCost('10,20').values).toEqual(['10.20'])
  })

  it('keeps values as written, de-duplicated and sorted numerically', () => {
    expect(parseCost('10.50').values).toEqual(['10.50'])
    expect(parseCost(['$100', '$9.99', '$20', '$20.00']).values).toEqual(['9.99', '20', '100'])
    expect(formatCost(parseCost(['$100', '$9.99']))).toBe('$9.99 – $100')
  })

  it('treats free/gratis as zero', () => {
    expect(parseCost('Free')).toEqual({ values: ['0'], symbol: '', position: '' })
    expect(parseCost('GRATIS')).toEqual({ values: ['0'], symbol: '', position: '' })
    expect(formatCost(parseCost('free, $5'))).toBe('Free – $5')
    expect(parseCost('freedom').values).toEqual([])
  })

  it('reads ranges and drops connector text', () => {
    expect(parseCost('$10 - $20')).toEqual({ values: ['10', '20'], symbol: '$', position: 'prefix' })
    expect(parseCost('from 10 to 20 €')).toEqual({ values: ['10', '20'], symbol: '€', position: 'postfix' })
  })

  it('drops the symbol when entries disagree', () => {
    expect(parseCost(['$5', '5€', '7€'])).toEqual({ values: ['5', '7'], symbol: '', position: '' })
    expect(formatCost(parseCost(['$5', '7€']))).toBe('$5 – $7')
  })

  it('returns nothing for input without prices', () => {
    expect(parseCost('')).toEqual({ values: [], symbol: '', position: '' })
    expect(parseCost([])).toEqual({ values: [], symbol: '', position: '' })
    expect(parseCost('$')).toEqual({ values: [], symbol: '', position: '' })
    expect(formatCost({ values: [], symbol: '$', position: 'prefix' })).toBe('')
  })

  it('formats a single repeated price once', () => {
    expect(formatCost({ values: ['5', '5.00'], symbol: '€', position: 'postfix' })).toBe('5€')
    expect(formatCost({ values: ['0', '0.00'], symbol: '', position: '' })).toBe('Free')
  })
})
