/**
 * A team profile's compressed summary on the user's machines, with the real system git (two machines, one personal
 * bare repository, one team repository): it travels in the user's memory file of that profile as its items do, is
 * kept aside on a machine that does not follow the library and brought in when it is added, and two machines that
 * changed it offline merge it as a profile's own summary merges (one side's change is taken in; a clash keeps one
 * and puts the other in the profile's history, where it can be restored).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { gitIn, syncWorld, type Machine } from '../support/sync-machines.ts'
import { follow, librariesOf, teamCoder, TEAM_RULES, teamRepo } from '../support/team-library.ts'
import type { LibraryPart } from '../../lib/sync/library-part.ts'
import { readTeamMemory, teamMemoryText } from '../../lib/sync/library-memory.ts'
import { LIMITS } from '../../lib/state/model.ts'

const world = syncWorld()
const parts: LibraryPart[] = []
afterEach(async () => {
  for (const p of parts.splice(0)) await p.stop()
})

async function sync(m: Machine): Promise<void> {
  expect((await m.engine.now()).error).toBeUndefined()
}

/** Compress the team coder's memory on `m` into `summary` and one item. */
async function compress(m: Machine, summary: string, item: string): Promise<void> {
  await m.store.command({
    op: 'memory.compress',
    profileId: teamCoder(m).id,
    memory: { summary, items: [{ text: item, source: 'tool' }] },
  })
}

const summaryOf = (m: Machine) => teamCoder(m).memory.summary
const itemTexts = (m: Machine) => teamCoder(m).memory.items.map((i) => i.text)

describe("a team profile's summary on the user machines", () => {
  it('travels with its memory, kept aside where the library is not followed, in when it is added', async () => {
    const { remote: teamRemote } = await teamRepo(world)
    const personal = await world.remote()
    const a = await world.machine(personal)
    await follow(librariesOf(a, parts), teamRemote)
    await sync(a)
    await compress(a, '用户在做一个 pnpm 单仓', '用户偏好小提交')
    await sync(a)
    const id = teamCoder(a).id
    expect(gitIn(personal, 'show', `main:team-memory/${id}.jsonl`)).toContain('用户在做一个 pnpm 单仓')
    expect(gitIn(personal, 'log', '--all', '-p')).not.toContain(TEAM_RULES)

    // B syncs before it follows the library: the summary is kept aside with the items, and comes in with them.
    const b = await world.machine(personal)
    const libsB = librariesOf(b, parts)
    await sync(b)
    await follow(libsB, teamRemote)
    expect(summaryOf(b)).toBe('用户在做一个 pnpm 单仓')
    expect(itemTexts(b)).toContain('用户偏好小提交')

    // A summary changed on B reaches A's team profile.
    await compress(b, '用户在做一个 pnpm 单仓，部署在 Fly', '用户偏好小提交')
    await sync(b)
    await sync(a)
    expect(summaryOf(a)).toBe('用户在做一个 pnpm 单仓，部署在 Fly')
  }, 120_000)

  it('merges: one side’s new summary and the other side’s new fact both stay; a clash keeps the other in history', async () => {
    const { remote: teamRemote } = await teamRepo(world)
    const personal = await world.remote()
    const a = await world.machine(personal)
    const b = await world.machine(personal)
    await follow(librariesOf(a, parts), teamRemote)
    await follow(librariesOf(b, parts), teamRemote)
    await sync(a)
    await sync(b)
    const id = teamCoder(a).id

    // Offline: A compresses (a new summary), B saves a fact; then both sync.
    await compress(a, '摘要 A', '事实 A')
    await b.store.command({ op: 'memory.add', target: { profileId: id }, items: [{ text: '事实 B', source: 'tool' }] })
    await sync(a)
    await sync(b)
    await sync(a)
    for (const m of [a, b]) {
      expect(summaryOf(m)).toBe('摘要 A')
      expect(itemTexts(m)).toEqual(expect.arrayContaining(['事实 A', '事实 B']))
    }

    // Offline both change the summary: one is kept on both machines, the other is in the profile's history.
    await compress(a, '摘要 A2', '事实 A')
    await compress(b, '摘要 B2', '事实 B')
    await sync(a)
    await sync(b)
    await sync(a)
    const kept = summaryOf(a)
    expect(summaryOf(b)).toBe(kept)
    expect(['摘要 A2', '摘要 B2']).toContain(kept)
    const lost = kept === '摘要 A2' ? '摘要 B2' : '摘要 A2'
    for (const m of [a, b])
      expect(m.store.state.history?.[id]?.some((w) => w.summary?.before === lost && w.summary.after === kept)).toBe(
        true,
      )
  }, 120_000)
})

describe("a team memory file's summary line", () => {
  const item = { id: 'm1', text: '事实', source: 'tool' as const, at: 1 }
  it('round-trips, and a file without one reads as before', () => {
    const m = { summary: '摘要', items: [item], history: [] }
    expect(readTeamMemory(teamMemoryText(m), 'f.jsonl')).toEqual(m)
    expect(teamMemoryText({ ...m, summary: '' })).not.toContain('summary')
    expect(readTeamMemory(teamMemoryText({ ...m, summary: '' }), 'f.jsonl').summary).toBe('')
  })
  it('is refused naming the file and line when it breaks a rule', () => {
    const long = `${JSON.stringify({ summary: 'x'.repeat(LIMITS.summary + 1) })}\n`
    expect(() => readTeamMemory(long, 'f.jsonl')).toThrow(/f\.jsonl:1/)
    expect(() => readTeamMemory(`${JSON.stringify({ summary: 's', items: [] })}\n`, 'f.jsonl')).toThrow(/f\.jsonl:1/)
    // A broken item after the summary is named by its own line.
    expect(() => readTeamMemory(`${JSON.stringify({ summary: 's' })}\n{"id":"x"}\n`, 'f.jsonl')).toThrow(/f\.jsonl:2/)
  })
})
