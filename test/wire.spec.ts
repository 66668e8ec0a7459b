import { afterEach, expect, it } from 'vitest'
import { wireStateBytes } from '../lib/wire.ts'
import { freshStore } from './store-helpers.ts'

let ctx: Awaited<ReturnType<typeof freshStore>> | undefined
afterEach(async () => ctx?.dispose())

it('the wire state says which profiles have a compression to undo and when it ran, never the memory it would restore', async () => {
  ctx = await freshStore()
  const { store } = ctx
  const facts = Array.from({ length: 40 }, (_, i) => ({ text: `用户提过的第 ${i} 件事：${'细节'.repeat(20)}` }))
  await store.command({ op: 'memory.add', target: { profileId: 'general' }, items: facts })
  const before = wireStateBytes(store).length
  await store.command({ op: 'memory.compress', profileId: 'general', memory: { summary: '用户提过四十件事。', items: [{ text: '细节很多' }] } })
  const compressed = JSON.parse(wireStateBytes(store).toString()) as Record<string, unknown>
  expect(compressed).not.toHaveProperty('memoryUndo')
  expect(compressed.undo).toEqual({ general: store.state.memoryUndo!.general!.at })
  // The previous 40 items stay on the host: the reply shrank with the memory instead of carrying both copies.
  expect(wireStateBytes(store).length).toBeLessThan(before / 2)
  await store.command({ op: 'memory.undo', profileId: 'general' })
  expect((JSON.parse(wireStateBytes(store).toString()) as Record<string, unknown>).undo).toEqual({})
})
