/**
 * The merge rules of a sync, one by one, over profiles as the two machines and their last shared version hold them.
 */
import { describe, expect, it } from 'vitest'
import { mergeHistory, mergeItems, mergeProfile, mergeUser, type MergeContext } from '../../lib/sync/merge.ts'
import type { SyncedProfile } from '../../lib/sync/layout.ts'
import { applyCommand } from '../../lib/commands/dispatch.ts'
import { factoryState } from '../../lib/state/defaults.ts'
import type { MemoryItem, MemoryWrite, Profile, State } from '../../lib/state/model.ts'

const item = (id: string, text: string, extra: Partial<MemoryItem> = {}): MemoryItem => ({
  id,
  text,
  source: 'user',
  at: 1,
  ...extra,
})
const base: Profile = {
  ...factoryState(1).profiles[0]!,
  memory: { summary: 'sum', items: [item('m1', 'one'), item('m2', 'two')] },
}
const synced = (p: Profile, history: MemoryWrite[] = []): SyncedProfile => ({ profile: p, history })
const withItems = (p: Profile, items: MemoryItem[]): Profile => ({ ...p, memory: { ...p.memory, items } })
let n = 0
const ctx = (oursNewer: boolean): MergeContext => ({ oursNewer, now: 99, newId: (x) => `${x}${++n}` })
const texts = (p: SyncedProfile | undefined) => p?.profile.memory.items.map((it) => it.text)

describe('sync merge', () => {
  it('a fact saved on each side ends up on both, ours first', () => {
    const ours = withItems(base, [...base.memory.items, item('a', 'saved here')])
    const theirs = withItems(base, [...base.memory.items, item('b', 'saved there')])
    const { merged } = mergeProfile(synced(base), synced(ours), synced(theirs), ctx(true))
    expect(texts(merged)).toEqual(['one', 'two', 'saved here', 'saved there'])
    // The same pair merged from the other side holds the same facts.
    const back = mergeProfile(synced(base), synced(theirs), synced(ours), ctx(false)).merged
    expect(new Set(texts(back))).toEqual(new Set(texts(merged)))
  })

  it('a deletion travels as a deletion: the other side unchanged copy does not bring it back', () => {
    const ours = withItems(base, [base.memory.items[1]!])
    const theirs = withItems(base, [...base.memory.items, item('b', 'new there')])
    expect(texts(mergeProfile(synced(base), synced(ours), synced(theirs), ctx(false)).merged)).toEqual([
      'two',
      'new there',
    ])
    expect(texts(mergeProfile(synced(base), synced(theirs), synced(ours), ctx(true)).merged)).toEqual([
      'two',
      'new there',
    ])
  })

  it('an item deleted on one side and edited on the other is kept, edited', () => {
    const ours = withItems(base, [base.memory.items[1]!])
    const theirs = withItems(base, [item('m1', 'one, edited'), base.memory.items[1]!])
    expect(texts(mergeProfile(synced(base), synced(ours), synced(theirs), ctx(true)).merged)).toEqual([
      'two',
      'one, edited',
    ])
  })

  it('an item edited on both sides keeps the newer, and the older is in the history, restorable', () => {
    const ours = withItems(base, [item('m1', 'one, here'), base.memory.items[1]!])
    const theirs = withItems(base, [item('m1', 'one, there'), base.memory.items[1]!])
    const { merged, notes } = mergeProfile(synced(base), synced(ours), synced(theirs), ctx(false))
    expect(texts(merged)).toEqual(['one, there', 'two'])
    expect(notes).toEqual([{ kind: 'memory', profileId: base.id, name: base.name, count: 1 }])
    const entry = merged!.history.at(-1)!
    expect(entry.edited).toEqual([{ before: item('m1', 'one, here'), after: item('m1', 'one, there') }])
    // Restoring that entry in the store brings the older text back.
    const state: State = {
      ...factoryState(1),
      profiles: [merged!.profile, ...factoryState(1).profiles.slice(1)],
      history: { [base.id]: [...merged!.history] },
    }
    const after = applyCommand(
      state,
      { op: 'memory.revert', target: { profileId: base.id }, entryId: entry.id },
      { now: 100, newId: (x) => `${x}${++n}` },
    ).state
    expect(after.profiles[0]!.memory.items[0]!.text).toBe('one, here')
  })

  it('a field edited on both sides keeps the newer value and names the one it lost', () => {
    const ours = { ...base, rules: 'rules here' }
    const theirs = { ...base, rules: 'rules there', role: 'role there' }
    const { merged, notes } = mergeProfile(synced(base), synced(ours), synced(theirs), ctx(true))
    expect(merged!.profile.rules).toBe('rules here')
    expect(merged!.profile.role).toBe('role there')
    expect(notes).toEqual([
      { kind: 'field', profileId: base.id, name: base.name, field: 'rules', kept: 'here', lost: 'rules there' },
    ])
  })

  it('a summary edited on both sides keeps the newer, the older restorable from the history', () => {
    const ours = { ...base, memory: { ...base.memory, summary: 'here' } }
    const theirs = { ...base, memory: { ...base.memory, summary: 'there' } }
    const { merged } = mergeProfile(synced(base), synced(ours), synced(theirs), ctx(false))
    expect(merged!.profile.memory.summary).toBe('there')
    expect(merged!.history.at(-1)!.summary).toEqual({ before: 'here', after: 'there' })
  })

  it('a profile deleted on one side and edited on the other is kept, and the user told', () => {
    const edited = { ...base, role: 'new role' }
    const r = mergeProfile(synced(base), undefined, synced(edited), ctx(true))
    expect(r.merged?.profile.role).toBe('new role')
    expect(r.notes).toEqual([{ kind: 'kept', profileId: base.id, name: base.name, deletedOn: 'here' }])
    const r2 = mergeProfile(synced(base), synced(edited), undefined, ctx(true))
    expect(r2.notes[0]).toMatchObject({ kind: 'kept', deletedOn: 'there' })
  })

  it('a profile deleted on one side and untouched on the other is deleted; a new one on one side arrives', () => {
    expect(mergeProfile(synced(base), undefined, synced(base), ctx(true)).merged).toBeUndefined()
    expect(mergeProfile(synced(base), synced(base), undefined, ctx(true)).merged).toBeUndefined()
    expect(mergeProfile(undefined, undefined, synced(base), ctx(true)).merged?.profile).toBe(base)
  })

  it('histories unite by entry id, oldest first', () => {
    const w = (id: string, at: number): MemoryWrite => ({ id, at, who: 'user', added: [], removed: [], edited: [] })
    expect(mergeHistory([w('a', 1), w('c', 3)], [w('a', 1), w('b', 2)]).map((e) => e.id)).toEqual(['a', 'b', 'c'])
  })

  it('the user layer merges like a memory list', () => {
    const b = { items: [item('u1', 'name')], history: [] }
    const r = mergeUser(
      b,
      { items: [], history: [] },
      { items: [item('u1', 'name'), item('u2', 'city')], history: [] },
      ctx(true),
    )
    expect(r.merged.items.map((it) => it.text)).toEqual(['city'])
    expect(mergeItems([], [item('x', 'a')], [item('x', 'a')], true).items).toHaveLength(1)
  })
})
