import { afterEach, expect, it } from 'vitest'
import type { MemoryItem } from '../../lib/state/model.ts'
import { openStore } from '../../lib/store/open-store.ts'
import type { Command, CommandResult } from '../../lib/store/store.ts'
import { freshStore } from '../support/store-helpers.ts'
import { canonicalJson, pngAvatar } from '../support/store-fixtures.ts'
import { StoreError } from '../../lib/shared/errors.ts'

let ctx: Awaited<ReturnType<typeof freshStore>>
afterEach(async () => ctx?.dispose())

const CALLERS = 6
const OPS = 60

it('hundreds of interleaved commands from several callers: every one applied, none lost, disk equals memory', async () => {
  ctx = await freshStore()
  const { store } = ctx
  // Each caller is a separate writer (settings page, switcher, tool, memory job…) firing without waiting for others.
  const created = await Promise.all(
    Array.from({ length: CALLERS }, (_, c) =>
      store.command({ op: 'profile.create', profile: { name: `caller ${c}` } }),
    ),
  )
  const ids = created.map((r) => (r.profile as { id: string }).id)
  const pending: Promise<CommandResult>[] = []
  for (let i = 0; i < OPS; i++) {
    for (let c = 0; c < CALLERS; c++) {
      const id = ids[c]!
      const cmds: Command[] = [
        { op: 'memory.add', target: { profileId: id }, items: [{ text: `caller ${c} fact ${i}` }] },
        { op: 'memory.add', target: { profileId: 'general' }, items: [{ text: `shared fact ${c}-${i}` }] },
        {
          op: 'profile.update',
          id,
          patch: { rules: `rules ${i}`, ...(i % 20 === 0 ? { avatar: pngAvatar(100 + i) } : {}) },
        },
        { op: 'session.set', sessionId: `session-${c}`, patch: { note: `note ${i}`, profileId: id } },
        { op: 'turn.record', sessionId: `session-${c}`, turn: i, profileId: id },
      ]
      pending.push(...cmds.map((cmd) => store.command(cmd)))
    }
  }
  // One caller also sends garbage; its refusals must not disturb anyone else's writes.
  const refused = Array.from({ length: 30 }, (_, i) =>
    store.command({ op: 'profile.update', id: 'general', patch: { name: '' } } as Command).then(
      () => i,
      (e: unknown) => e,
    ),
  )
  const results = await Promise.all(pending)
  expect(results).toHaveLength(CALLERS * OPS * 5)
  for (const r of await Promise.all(refused)) expect(r).toBeInstanceOf(StoreError)

  const texts = (items: readonly MemoryItem[]) => new Set(items.map((m) => m.text))
  const shared = texts(store.state.profiles.find((p) => p.id === 'general')!.memory.items)
  for (let c = 0; c < CALLERS; c++) {
    const p = store.state.profiles.find((x) => x.id === ids[c])!
    const own = texts(p.memory.items)
    for (let i = 0; i < OPS; i++) {
      expect(own.has(`caller ${c} fact ${i}`)).toBe(true)
      expect(shared.has(`shared fact ${c}-${i}`)).toBe(true)
    }
    expect(p.rules).toBe(`rules ${OPS - 1}`)
    expect(store.state.sessions.get(`session-${c}`)).toMatchObject({ note: `note ${OPS - 1}`, profileId: ids[c] })
    expect(Object.keys(store.turnsOf(`session-${c}`))).toHaveLength(OPS)
  }
  // Every command but the turn records changed the state, and each bumped the revision exactly once.
  expect(store.revision).toBe(CALLERS + CALLERS * OPS * 4)

  await store.close()
  const again = await openStore({ file: ctx.file })
  expect(canonicalJson(again.state)).toBe(canonicalJson(store.state))
  expect(again.revision).toBe(store.revision)
  await again.close()
}, 60_000)
