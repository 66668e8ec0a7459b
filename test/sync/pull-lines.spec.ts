/**
 * A pull's cost follows the changed lines: a machine taking in one added, one edited and one removed fact of a profile
 * of 3,000 items reads a few hundred bytes of its memory file, not the file, and ends with exactly the list, history
 * and fields the other machine has (real stores, real git, a bare repository).
 */
import { expect, it, vi } from 'vitest'
import type { MemoryItem } from '../../lib/state/model.ts'
import { syncedOf } from '../../lib/sync/layout.ts'
import type { TreeEntry } from '../../lib/sync/repo.ts'
import { syncWorld } from '../support/sync-machines.ts'

const world = syncWorld()

it('takes in one added, one edited and one removed fact among 3,000 by their lines, ending as the other machine', async () => {
  const remote = await world.remote()
  const a = await world.machine(remote)
  const items: MemoryItem[] = Array.from({ length: 3_000 }, (_, i) => ({
    id: `m${i}`,
    text: `第 ${i} 条：用户在一个长期项目里反复用到的约定`,
    source: 'user',
    at: 1_700_000_000_000 + i,
  }))
  await a.store.command({ op: 'profile.update', id: 'coder', patch: { memory: { summary: '', items } } })
  expect((await a.engine.now()).error).toBeUndefined()
  const b = await world.machine(remote)
  expect((await b.engine.now()).error).toBeUndefined()
  await a.store.command({ op: 'memory.add', target: { profileId: 'coder' }, items: [{ text: 'likes Rust' }] })
  await a.store.command({ op: 'memory.update', target: { profileId: 'coder' }, itemId: 'm10', text: 'edited on A' })
  await a.store.command({ op: 'memory.remove', target: { profileId: 'coder' }, itemId: 'm20' })
  await a.store.command({ op: 'profile.update', id: 'coder', patch: { rules: 'Answer in English.' } })
  expect((await a.engine.now()).error).toBeUndefined()
  const read = vi.spyOn(b.repo, 'blobs')
  expect((await b.engine.now()).error).toBeUndefined()
  const bytes = read.mock.calls.flatMap(([entries]) => entries as TreeEntry[]).reduce((n, e) => n + e.size, 0)
  expect(bytes).toBeLessThan(20_000)
  const mine = syncedOf(a.store.state).profiles.get('coder')!
  const theirs = syncedOf(b.store.state).profiles.get('coder')!
  expect({ ...theirs.profile, updatedAt: 0 }).toEqual({ ...mine.profile, updatedAt: 0 })
  expect(theirs.history).toEqual(mine.history)
  expect(theirs.profile.memory.items.map((it) => it.text)).toContain('likes Rust')
  expect(theirs.profile.memory.items.find((it) => it.id === 'm10')?.text).toBe('edited on A')
  expect(theirs.profile.memory.items.some((it) => it.id === 'm20')).toBe(false)
})
