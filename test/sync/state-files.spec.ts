/**
 * The files a sync commits are the layout's, whatever happened to the memory between two runs (#41): the sync keeps
 * each profile's last memory file and, when its list only grew at the end (a saved fact), writes the new lines after
 * the kept ones instead of every line again. Over random runs of saves, edits, removals, reorders and history entries
 * (a profile's and About you's), every run's files and blob ids are exactly what layout.ts writes from the state alone.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { factoryState } from '../../lib/state/defaults.ts'
import { USER_HISTORY, type MemoryItem, type MemoryWrite, type State } from '../../lib/state/model.ts'
import { stateFiles } from '../../lib/sync/layout.ts'
import { blobId, wholeText } from '../../lib/sync/file-text.ts'
import { StateFiles } from '../../lib/sync/state-files.ts'
import { fcParams } from '../support/fuzz.ts'

/** One change between two runs, to the first profile's memory (`user`: About you's). */
type Change =
  | { op: 'save'; n: number; user: boolean }
  | { op: 'edit' | 'remove' | 'front'; at: number; user: boolean }
  | { op: 'entry'; user: boolean }
  | { op: 'none' }

const change: fc.Arbitrary<Change> = fc.oneof(
  fc.record({ op: fc.constant('save' as const), n: fc.integer({ min: 1, max: 3 }), user: fc.boolean() }),
  fc.record({
    op: fc.constantFrom('edit' as const, 'remove' as const, 'front' as const),
    at: fc.nat(),
    user: fc.boolean(),
  }),
  fc.record({ op: fc.constant('entry' as const), user: fc.boolean() }),
  fc.constant({ op: 'none' as const }),
)

let made = 0
const item = (text: string): MemoryItem => ({ id: `i${made++}`, text, source: 'user', at: 1_700_000_000_000 + made })

/** `items` after `c` (a new array; the items that stay are the same objects, as the store's commands keep them). */
function changed(items: readonly MemoryItem[], c: Change): MemoryItem[] {
  const at = 'at' in c && items.length > 0 ? c.at % items.length : -1
  if (c.op === 'save') return [...items, ...Array.from({ length: c.n }, (_, i) => item(`新事实 ${i}`))]
  if (c.op === 'edit' && at >= 0) return items.map((it, i) => (i === at ? { ...it, text: `${it.text}（改）` } : it))
  if (c.op === 'remove' && at >= 0) return items.filter((_, i) => i !== at)
  if (c.op === 'front') return [item('最前面'), ...items]
  return [...items]
}

const entry = (added: MemoryItem[]): MemoryWrite => ({
  id: `w${made++}`,
  at: 1_700_000_000_000 + made,
  who: 'user',
  added,
  removed: [],
  edited: [],
})

describe('the files a sync commits', () => {
  it('are the layout’s after any run of changes to a profile’s memory and About you', () => {
    fc.assert(
      fc.property(fc.array(change, { minLength: 1, maxLength: 12 }), (changes) => {
        const base = factoryState(1)
        const first = base.profiles[0]!
        let state: State = {
          ...base,
          profiles: [
            { ...first, memory: { ...first.memory, items: [item('起点'), item('第二条')] } },
            ...base.profiles.slice(1),
          ],
          user: { items: [item('用户')] },
          history: {},
        }
        const files = new StateFiles()
        for (const c of changes) {
          const p = state.profiles[0]!
          const key = 'user' in c && c.user ? USER_HISTORY : p.id
          const before = key === USER_HISTORY ? (state.user?.items ?? []) : p.memory.items
          const after = c.op === 'entry' ? before : changed(before, c)
          const added = after.filter((it) => !before.includes(it))
          const history =
            c.op === 'entry' || added.length > 0 ? [...(state.history?.[key] ?? []), entry(added)] : undefined
          state = {
            ...state,
            profiles:
              key === USER_HISTORY
                ? state.profiles
                : [{ ...p, memory: { ...p.memory, items: after } }, ...state.profiles.slice(1)],
            user: key === USER_HISTORY ? { items: after } : state.user,
            history: history === undefined ? state.history : { ...state.history, [key]: history },
          }
          const mine = files.of(state)
          const want = stateFiles(state)
          expect([...mine.keys()].sort()).toEqual([...want.keys()].sort())
          for (const [path, text] of want) {
            const f = mine.get(path)!
            expect(wholeText(f.text)).toBe(text)
            expect(f.id).toBe(blobId(text))
          }
        }
      }),
      fcParams(200),
    )
  })
})
