import { describe, expect, it } from 'vitest'
import type { SessionSetting } from '../../lib/state/model.ts'
import { changedKeys, pinCounts, put, sessionsOf } from '../../lib/state/sessions.ts'

const pinned = (profileId: string): SessionSetting => ({ profileId, note: '', memories: [] })

describe('conversation settings maps', () => {
  it('a map emptied and filled again does not tie the shared empty map to its history', () => {
    // One conversation set and cleared again (its map empties), then another set on the empty map.
    const one = put(sessionsOf(), 'a', pinned('coder'))
    const emptied = put(one, 'a', undefined)
    const two = put(emptied, 'b', pinned('writer'))
    expect(changedKeys(one, emptied)).toBeUndefined()
    // Clearing every conversation of another map (a fresh empty map) must answer, not walk in a loop.
    const other = put(sessionsOf(), 'c', pinned('coder'))
    expect(changedKeys(other, sessionsOf())).toBeUndefined()
    expect(changedKeys(emptied, two)).toEqual(new Set(['b']))
    expect(pinCounts(sessionsOf())).toEqual(new Map())
    expect(pinCounts(two)).toEqual(new Map([['writer', 1]]))
  })
})
