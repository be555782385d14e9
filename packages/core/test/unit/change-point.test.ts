import { describe, expect, it } from 'vitest'
import { isChangePoint, ORIGIN_POINT } from '../../src/changes/change-log.js'

describe('isChangePoint', () => {
  it('takes snapshot texts as PostgreSQL writes them', () => {
    for (const ok of [ORIGIN_POINT, '727:727:', '700:731:700,705,730', '3:9223372036854775807:']) expect(isChangePoint(ok)).toBe(true)
  })

  it('refuses anything else, including texts PostgreSQL would refuse to cast', () => {
    const bad = ['', ':', '1:1', '0:1:', '5:4:', '5:9:4', '5:9:9', '5:9:6,', '5:9:,6', ' 1:1:', '1:1: ', '1:99999999999999999999:', 'a:b:', '1:2:3:4', '-1:1:']
    for (const text of bad) expect(isChangePoint(text), text).toBe(false)
  })
})
