/**
 * Two machines syncing through one bare repository on disk, with the real system git and real stores: what one saves
 * reaches the other, offline work merges, deletions travel, clashes keep the newer, and a rewritten remote is refused
 * with nothing local changed.
 */
import { describe, expect, it } from 'vitest'
import { gitIn, syncWorld, type Machine } from '../support/sync-machines.ts'
import { until } from '../support/memory-requests.ts'
import { HEAD_REF } from '../../lib/sync/repo.ts'

const world = syncWorld()
const P = (id = 'coder') => ({ profileId: id })
const texts = (m: Machine, id = 'coder') =>
  m.store.state.profiles.find((p) => p.id === id)?.memory.items.map((it) => it.text) ?? []

async function save(m: Machine, text: string, id = 'coder') {
  await m.store.command({ op: 'memory.add', target: P(id), items: [{ text, source: 'tool' }] })
}

describe('sync between two machines', () => {
  it('a fact saved on A is on B after B syncs, as one commit that says what changed', async () => {
    const remote = await world.remote()
    const a = await world.machine(remote)
    const b = await world.machine(remote)
    expect((await a.engine.now()).error).toBeUndefined()
    expect((await b.engine.now()).error).toBeUndefined()
    await save(a, '用户喜欢 Rust')
    expect((await a.engine.now()).error).toBeUndefined()
    expect(texts(b)).toEqual([])
    expect((await b.engine.now()).error).toBeUndefined()
    expect(texts(b)).toEqual(['用户喜欢 Rust'])
    const log = gitIn(remote, 'log', '--format=%H %s', 'main')
    const fact = log.split('\n').find((l) => /^[0-9a-f]+ memory: \+1 \(编程搭档\)$/.test(l))
    expect(fact).toBeDefined()
    // One file, two lines: the item and its history entry.
    const stat = gitIn(remote, 'show', '--numstat', '--format=', fact!.split(' ')[0]!).trim()
    expect(stat).toBe('2\t0\tprofiles/coder/memory.jsonl')
    // B's next sync commits nothing: what it took in is what its store now writes.
    const head = gitIn(b.repo.dir, 'rev-parse', HEAD_REF).trim()
    await b.engine.now()
    expect(gitIn(b.repo.dir, 'rev-parse', HEAD_REF).trim()).toBe(head)
  })

  it('both offline, both save, then sync: both have both', async () => {
    const remote = await world.remote()
    const a = await world.machine(remote)
    const b = await world.machine(remote)
    await a.engine.now()
    await b.engine.now()
    await save(a, 'fact from A')
    await save(b, 'fact from B')
    await a.engine.now()
    await b.engine.now()
    await a.engine.now()
    expect(texts(a).sort()).toEqual(['fact from A', 'fact from B'])
    expect(texts(b).sort()).toEqual(['fact from A', 'fact from B'])
    // And the two agree to the byte: a further round commits nothing.
    const before = gitIn(remote, 'rev-parse', 'main').trim()
    await b.engine.now()
    await a.engine.now()
    expect(gitIn(remote, 'rev-parse', 'main').trim()).toBe(before)
  })

  it('a deletion on A travels; the same fact still on B does not bring it back', async () => {
    const remote = await world.remote()
    const a = await world.machine(remote)
    const b = await world.machine(remote)
    await a.engine.now()
    await save(a, 'old fact')
    await a.engine.now()
    await b.engine.now()
    expect(texts(b)).toEqual(['old fact'])
    const item = a.store.state.profiles.find((p) => p.id === 'coder')!.memory.items[0]!
    await a.store.command({ op: 'memory.remove', target: P(), itemId: item.id })
    await save(b, 'new on B')
    await a.engine.now()
    await b.engine.now()
    await a.engine.now()
    expect(texts(a)).toEqual(['new on B'])
    expect(texts(b)).toEqual(['new on B'])
  })

  it('a profile deleted on A and edited on B is kept on both, and the user told', async () => {
    const remote = await world.remote()
    const a = await world.machine(remote)
    const b = await world.machine(remote)
    await a.engine.now()
    await b.engine.now()
    await a.store.command({ op: 'profile.delete', id: 'coder' })
    await b.store.command({ op: 'profile.update', id: 'coder', patch: { rules: 'edited on B' } })
    await a.engine.now()
    const s = await b.engine.now()
    await a.engine.now()
    expect(s.notes).toEqual([expect.objectContaining({ kind: 'kept', profileId: 'coder', deletedOn: 'there' })])
    expect(a.store.state.profiles.find((p) => p.id === 'coder')?.rules).toBe('edited on B')
    expect(b.store.state.profiles.find((p) => p.id === 'coder')?.rules).toBe('edited on B')
  })

  it('the same field edited on both: the later edit wins on both', async () => {
    const remote = await world.remote()
    const a = await world.machine(remote)
    const b = await world.machine(remote)
    await a.engine.now()
    await b.engine.now()
    await a.store.command({ op: 'profile.update', id: 'coder', patch: { rules: 'A rules' } })
    await a.engine.now()
    // Commit times are seconds: B's edit is made once the clock is past the second of A's commit.
    const aCommitted = Number(gitIn(remote, 'show', '-s', '--format=%ct', 'main'))
    await until("a second past A's commit", async () => Date.now() >= (aCommitted + 1) * 1000 || undefined)
    await b.store.command({ op: 'profile.update', id: 'coder', patch: { rules: 'B rules' } })
    const s = await b.engine.now()
    await a.engine.now()
    expect(b.store.state.profiles.find((p) => p.id === 'coder')?.rules).toBe('B rules')
    expect(a.store.state.profiles.find((p) => p.id === 'coder')?.rules).toBe('B rules')
    expect(s.notes).toEqual([expect.objectContaining({ kind: 'field', field: 'rules', kept: 'here', lost: 'A rules' })])
  })

  it('a force-pushed remote is refused with a clear status and nothing local changes', async () => {
    const remote = await world.remote()
    const a = await world.machine(remote)
    await save(a, 'first')
    await a.engine.now()
    await save(a, 'second')
    await a.engine.now()
    // Someone rewrites the branch: a new commit in place of both.
    const rewritten = gitIn(remote, 'commit-tree', 'main~1^{tree}', '-m', 'rewritten').trim()
    gitIn(remote, 'update-ref', 'refs/heads/main', rewritten)
    const before = a.store.state
    await save(a, 'third')
    const s = await a.engine.now()
    expect(s.error?.key).toBe('rewritten')
    expect(texts(a)).toEqual(['first', 'second', 'third'])
    expect(before.profiles.find((p) => p.id === 'coder')!.memory.items).toHaveLength(2)
    expect(gitIn(remote, 'rev-parse', 'main').trim()).toBe(rewritten)
  })

  it('an unreachable remote: the status says so, the work is committed locally and sent once it is back', async () => {
    const remote = await world.remote()
    const a = await world.machine(`${remote}-missing`)
    await save(a, 'offline fact')
    const s = await a.engine.now()
    expect(s.error?.key).toBe('unreachable')
    expect(gitIn(a.repo.dir, 'log', '--format=%s', HEAD_REF)).toMatch(/memory: \+1/)
    // The remote appears: the next sync sends what was committed while it was away.
    gitIn(remote, 'init', '--bare', '--quiet', `${remote}-missing`)
    expect((await a.engine.now()).error).toBeUndefined()
    expect(gitIn(`${remote}-missing`, 'log', '--format=%s', 'main')).toMatch(/memory: \+1 \(编程搭档\)/)
  })
})
