import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { BodyShape } from '../../lib/http/body-shape.ts'

/** The bound a text passes when fed in the given chunk sizes. */
function excessOf(text: string, limits: { depth: number; values: number }, cuts: number[] = []) {
  const bytes = Buffer.from(text)
  const scan = new BodyShape(limits)
  let at = 0
  for (const cut of [...cuts, bytes.length]) {
    const end = Math.min(bytes.length, Math.max(at, cut))
    const excess = scan.feed(bytes.subarray(at, end))
    if (excess !== undefined) return excess
    at = end
  }
  return undefined
}

describe('body shape', () => {
  it('counts nesting and values outside strings only, escaped quotes included', () => {
    expect(excessOf('{"a":"[[[[\\"[[[[","b":[[1]]}', { depth: 3, values: 10 })).toBeUndefined()
    expect(excessOf('{"a":[[[1]]]}', { depth: 3, values: 10 })).toEqual({ what: 'depth', limit: 3 })
    expect(excessOf('[1,2,3,4]', { depth: 3, values: 3 })).toEqual({ what: 'values', limit: 3 })
    expect(excessOf('["a,b,c,d,e"]', { depth: 3, values: 3 })).toBeUndefined()
  })

  it('gives the same answer however the bytes are cut into chunks', () => {
    fc.assert(
      fc.property(fc.json({ depthSize: 'medium' }), fc.array(fc.nat({ max: 400 }), { maxLength: 8 }), (json, cuts) => {
        const limits = { depth: 3, values: 12 }
        expect(
          excessOf(
            json,
            limits,
            [...cuts].sort((a, b) => a - b),
          ),
        ).toEqual(excessOf(json, limits))
      }),
      { numRuns: 300 },
    )
  })
})
