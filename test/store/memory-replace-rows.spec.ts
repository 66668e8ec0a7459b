/**
 * A save that replaces facts in the middle of a list writes only the rows it changes (#44: the old facts' rows
 * deleted, the new ones placed after the last), and what another process reads from the file is the list the store
 * holds, in its order, after any sequence of replacements, approvals and plain saves.
 */
import { afterEach, expect, it } from 'vitest'
import fc from 'fast-check'
import { freshStore } from '../support/store-helpers.ts'
import { fcParams, genRng } from '../support/fuzz.ts'

const stores: Awaited<ReturnType<typeof freshStore>>[] = []
afterEach(async () => {
  for (const s of stores.splice(0)) await s.dispose()
})

it('reads back the list the store holds after random replacements and approvals in the middle', async () => {
  await fc.assert(
    fc.asyncProperty(fc.gen(), async (g) => {
      const rng = genRng(g)
      const t = await freshStore()
      stores.push(t)
      const id = t.store.state.profiles[0]!.id
      const target = { profileId: id }
      const items = Array.from({ length: 200 }, (_, i) => ({
        id: `m${i}`,
        text: `第${i}条事实`,
        source: 'auto' as const,
      }))
      await t.store.command({ op: 'profile.update', id, patch: { memory: { summary: '', items } } })
      const list = () => t.store.state.profiles.find((p) => p.id === id)!.memory.items
      for (let step = 0; step < 30; step++) {
        const now = list()
        const some = () => now[rng.int(now.length)]!.id
        const roll = rng.int(4)
        if (roll === 0) {
          const replaced = [{ text: `替换${step}`, replaces: some() }]
          if (rng.chance(0.4)) replaced.push({ text: `再替换${step}`, replaces: some() })
          await t.store.command({ op: 'memory.add', target, items: replaced })
        } else if (roll === 1) {
          await t.store.command({ op: 'profile.update', id, patch: { memoryMode: rng.chance(0.5) ? 'ask' : 'auto' } })
          const suggestion = { text: `建议${step}`, source: 'tool' as const, replaces: some() }
          await t.store.command({ op: 'memory.add', target, items: [suggestion] })
        } else if (roll === 2) {
          const pending = now.filter((it) => it.pending === true)
          if (pending.length > 0)
            await t.store.command({ op: 'memory.approve', target, itemId: pending[rng.int(pending.length)]!.id })
        } else await t.store.command({ op: 'memory.remove', target, itemId: some() })
      }
      const other = await t.open()
      const read = other.state.profiles.find((p) => p.id === id)!.memory.items
      expect(read.map((it) => [it.id, it.text, it.pending])).toEqual(list().map((it) => [it.id, it.text, it.pending]))
    }),
    fcParams(5),
  )
})
