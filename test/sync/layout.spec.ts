/**
 * The sync repository's file layout: what travels is written as files a person reviews and read back exactly, the
 * same state always gives the same bytes, and one saved fact is a small diff of one file.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { folderOf, readFiles, stateFiles, syncedFiles, syncedOf, USER_FILE } from '../../lib/sync/layout.ts'
import { applyCommand } from '../../lib/commands/dispatch.ts'
import { factoryState } from '../../lib/state/defaults.ts'
import type { State } from '../../lib/state/model.ts'
import { fcParams } from '../support/fuzz.ts'
import { syncState } from '../support/sync-states.ts'

/** What travels of a state, as plain data keyed by profile id (profile order stays on each machine). */
function travelling(state: State) {
  const s = syncedOf(state)
  return {
    profiles: Object.fromEntries(
      [...s.profiles].map(([id, p]) => [id, { profile: { ...p.profile, updatedAt: 0 }, history: [...p.history] }]),
    ),
    user: { items: [...s.user.items], history: [...s.user.history] },
  }
}

/** Lines that differ between two texts, as a multiset difference (a moved line counts twice). */
function changedLines(a: string, b: string): number {
  const count = new Map<string, number>()
  for (const l of a.split('\n')) count.set(l, (count.get(l) ?? 0) + 1)
  for (const l of b.split('\n')) count.set(l, (count.get(l) ?? 0) - 1)
  return [...count.values()].reduce((n, c) => n + Math.abs(c), 0)
}

let n = 0
const ctx = () => ({ now: 1_700_000_000_000 + n, newId: (p: string) => `${p}${++n}` })

describe('sync layout', () => {
  it('store → files → store is the identity on random states', () => {
    fc.assert(
      fc.property(syncState, (state) => {
        const files = stateFiles(state)
        const back = readFiles(files)
        expect(syncedFiles(back)).toEqual(files)
        expect(
          travelling({
            ...state,
            profiles: [...back.profiles.values()].map((p) => p.profile),
            history: {
              ...Object.fromEntries([...back.profiles].map(([id, p]) => [id, [...p.history]])),
              'u:': [...back.user.history],
            },
            user: { items: [...back.user.items] },
          }),
        ).toEqual(travelling(state))
      }),
      fcParams(300),
    )
  })

  it('writes the same state to the same bytes, whatever the order its objects were built in', () => {
    fc.assert(
      fc.property(syncState, (state) => {
        const again = JSON.parse(JSON.stringify(state, (_k, v) => reorder(v))) as State
        expect(stateFiles({ ...again, history: state.history })).toEqual(stateFiles(state))
        expect([...stateFiles(state)]).toEqual([...stateFiles(state)])
      }),
      fcParams(100),
    )
  })

  it('puts each profile in a folder named from its id, never its name, and keeps case-twins apart', () => {
    expect(folderOf('general')).toBe('profiles/general')
    expect(folderOf('Coder')).not.toBe(folderOf('coder'))
    expect(folderOf('Coder').toLowerCase()).toBe(folderOf('Coder'))
    const files = stateFiles(factoryState(1))
    expect([...files.keys()].every((p) => p.startsWith('profiles/') || p === USER_FILE)).toBe(true)
    expect([...files.keys()].some((p) => p.includes('编程'))).toBe(false)
  })

  it('one fact the model saves changes one file by at most three lines (the item and its history entry)', () => {
    const before = factoryState(1)
    const target = before.profiles[1]!
    const after = applyCommand(
      before,
      { op: 'memory.add', target: { profileId: target.id }, items: [{ text: '用户喜欢 Rust', source: 'tool' }] },
      ctx(),
    ).state
    const a = stateFiles(before)
    const b = stateFiles(after)
    const changed = [...b.keys()].filter((k) => a.get(k) !== b.get(k))
    expect(changed).toEqual([`${folderOf(target.id)}/memory.jsonl`])
    expect(changedLines(a.get(changed[0]!) ?? '', b.get(changed[0]!)!)).toBeLessThanOrEqual(3)
    expect(b.get(changed[0]!)).toContain('用户喜欢 Rust')
  })

  it('one item added without history is a one-line diff', () => {
    fc.assert(
      fc.property(syncState, (state) => {
        const p = state.profiles[0]!
        const item = { id: 'mNEW', text: 'new fact', source: 'user' as const, at: 5 }
        const next: State = {
          ...state,
          profiles: [
            { ...p, memory: { ...p.memory, items: [...p.memory.items.filter((i) => i.id !== 'mNEW'), item] } },
            ...state.profiles.slice(1),
          ],
        }
        if (p.memory.items.some((i) => i.id === 'mNEW')) return
        const a = stateFiles(state)
        const b = stateFiles(next)
        const changed = [...b.keys()].filter((k) => a.get(k) !== b.get(k))
        expect(changed).toHaveLength(1)
        expect(changedLines(a.get(changed[0]!) ?? '', b.get(changed[0]!)!)).toBe(1)
      }),
      fcParams(100),
    )
  })

  it('refuses a file that breaks a rule, naming the file and line', () => {
    const files = stateFiles(factoryState(1))
    const path = `${folderOf('general')}/memory.jsonl`
    files.set(path, '{"id":"m1","text":"","source":"user","at":1}\n')
    expect(() => readFiles(files)).toThrow(/profiles\/general\/memory\.jsonl:1/)
    files.set(path, 'not json\n')
    expect(() => readFiles(files)).toThrow(/memory\.jsonl:1: is not JSON/)
    const moved = stateFiles(factoryState(1))
    const json = moved.get(`${folderOf('general')}/profile.json`)!
    moved.set(`profiles/elsewhere/profile.json`, json)
    moved.set(`profiles/elsewhere/profile.md`, moved.get(`${folderOf('general')}/profile.md`)!)
    expect(() => readFiles(moved)).toThrow(/does not belong in the folder profiles\/elsewhere/)
  })
})

/** The same object with its keys in reverse order (arrays kept). */
function reorder(v: unknown): unknown {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return v
  return Object.fromEntries(Object.entries(v as Record<string, unknown>).reverse())
}
