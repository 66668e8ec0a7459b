import { describe, expect, it } from 'vitest'
import { ItemLookup } from '../../lib/memory/item-lookup.ts'
import type { MemoryItem } from '../../lib/state/model.ts'

const item = (id: string, text = `fact ${id}`): MemoryItem => ({ id, text, source: 'auto', at: 0 })
const list = (n: number) => Array.from({ length: n }, (_, i) => item(`m${i}`))

describe('item lookup across versions of a list', () => {
  it('finds an item of the list as it is now, whatever happened to the list since the last look', () => {
    const lookup = new ItemLookup()
    const v1 = list(5)
    expect(lookup.find('p', v1, 'm3')).toBe(v1[3])
    // A fact saved at the end, one edited in place: the new version's objects are found.
    const edited = item('m1', 'fact m1, edited')
    const v2 = [v1[0]!, edited, ...v1.slice(2), item('m5')]
    expect(lookup.find('p', v2, 'm5')).toBe(v2[5])
    expect(lookup.find('p', v2, 'm1')).toBe(edited)
    // One removed from the middle: the items after it moved, and the removed one is gone.
    const v3 = v2.filter((it) => it.id !== 'm2')
    expect(lookup.find('p', v3, 'm4')).toBe(v3[3])
    expect(lookup.find('p', v3, 'm2')).toBeUndefined()
    // Reordered whole (a compression): every item is still found, and an id never saved is not.
    const v4 = [...v3].reverse()
    for (const it of v4) expect(lookup.find('p', v4, it.id)).toBe(it)
    expect(lookup.find('p', v4, 'nope')).toBeUndefined()
  })

  it("keeps owners apart: one owner's ids are not found in another's list", () => {
    const lookup = new ItemLookup()
    const a = [item('x1'), item('x2')]
    const b = [item('y1')]
    expect(lookup.find('a', a, 'x2')).toBe(a[1])
    expect(lookup.find('b', b, 'x2')).toBeUndefined()
    expect(lookup.find('b', b, 'y1')).toBe(b[0])
    expect(lookup.find('a', a, 'y1')).toBeUndefined()
  })
})
