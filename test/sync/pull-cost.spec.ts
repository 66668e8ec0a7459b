/**
 * A pull's store work follows what it brings (#41): with the real system git and real stores, a pull that brings
 * nothing new — the remote unchanged, or moved by files that do not travel (a README; for a team library the team's
 * own memory) — sends the store no command and writes no row, and a pull of one fact sends one command that writes
 * that fact's row and its history entry, however much the store holds. Counted by the commands the store is sent and
 * the SQL statements that write, not by time.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { pushFrom, syncWorld, type Machine } from '../support/sync-machines.ts'
import { recordStatements } from '../support/statements.ts'
import { follow, librariesOf, teamRepo } from '../support/team-library.ts'
import type { LibraryPart } from '../../lib/sync/library-part.ts'
import type { ProfileStore } from '../../lib/store/store.ts'

const world = syncWorld()
const parts: LibraryPart[] = []
afterEach(async () => {
  for (const p of parts.splice(0)) await p.stop()
})

type Command = Parameters<ProfileStore['command']>[0]

/** The ops of the commands `store` is sent from now on (the commands themselves in `seen`, when given). */
function commandsTo(store: ProfileStore, seen: Command[] = []): string[] {
  const ops: string[] = []
  const command = store.command.bind(store)
  ;(store as { command: ProfileStore['command'] }).command = ((cmd: Command) => {
    ops.push(cmd.op)
    seen.push(cmd)
    return command(cmd)
  }) as ProfileStore['command']
  return ops
}

/** The table each statement in `ran` writes into, in order (reads and transaction control left out). */
const writes = (ran: readonly string[]) =>
  ran.flatMap((sql) => {
    const m = /^\s*(?:INSERT(?: OR \w+)? INTO|UPDATE|DELETE FROM|REPLACE INTO)\s+(\w+)/i.exec(sql)
    return m === null ? [] : [m[1]!]
  })

async function save(m: Machine, text: string, profileId = 'coder') {
  await m.store.command({ op: 'memory.add', target: { profileId }, items: [{ text, source: 'tool' }] })
}

describe('the store work of a pull', () => {
  it('is nothing for a pull that brings nothing new, and one fact written for a pull of one fact', async () => {
    const ran = recordStatements()
    const remote = await world.remote()
    const a = await world.machine(remote)
    const b = await world.machine(remote)
    await a.store.command({
      op: 'profile.update',
      id: 'coder',
      patch: {
        memory: {
          summary: '',
          items: Array.from({ length: 2_000 }, (_, i) => ({ id: `m${i}`, text: `第 ${i} 条记忆`, source: 'user' })),
        },
      },
    })
    for (let i = 0; i < 20; i++) await save(a, `历史 ${i}`)
    expect((await a.engine.now()).error).toBeUndefined()
    expect((await b.engine.now()).error).toBeUndefined()
    const seen: Command[] = []
    const sent = commandsTo(b.store, seen)
    // Nothing new on the remote.
    ran.length = 0
    expect((await b.engine.now()).error).toBeUndefined()
    // The remote moved by a file that does not travel.
    pushFrom(remote, (work) => writeFileSync(join(work, 'README.md'), '团队说明\n'))
    expect((await b.engine.now()).error).toBeUndefined()
    expect(sent).toEqual([])
    expect(writes(ran)).toEqual([])
    // One fact.
    await save(a, '用户喜欢 Rust')
    expect((await a.engine.now()).error).toBeUndefined()
    ran.length = 0
    expect((await b.engine.now()).error).toBeUndefined()
    expect(sent).toEqual(['sync.apply'])
    // It brings its one history entry, not the 21 the list's history now holds: the store checks only that one.
    const apply = seen.at(-1) as Extract<Command, { op: 'sync.apply' }>
    expect(apply.profiles.map((d) => [d.id, d.memory?.put?.length, d.memory?.history])).toEqual([
      ['coder', 1, { drop: 0, add: [expect.objectContaining({ who: 'tool' })] }],
    ])
    const ids = (m: Machine) => m.store.state.history?.coder?.map((w) => w.id)
    expect(ids(b)).toHaveLength(21)
    expect(ids(b)).toEqual(ids(a))
    const rows = writes(ran)
    expect(rows.filter((t) => t === 'memory_items')).toHaveLength(1)
    expect(rows.filter((t) => t === 'memory_history')).toHaveLength(1)
    expect(b.store.state.profiles.find((p) => p.id === 'coder')!.memory.items.at(-1)!.text).toBe('用户喜欢 Rust')
  })

  it('of a team library is nothing when the team moved only what is never read here', async () => {
    const ran = recordStatements()
    const { remote, lead } = await teamRepo(world)
    const m = await world.machine(`${remote}-unused`)
    const libs = librariesOf(m, parts)
    await follow(libs, remote)
    const sent = commandsTo(m.store)
    // The team's lead saves a fact (the team's memory is never read by a follower) and adds a README.
    await save(lead, '团队约定：先写测试')
    expect((await lead.engine.now()).error).toBeUndefined()
    pushFrom(remote, (work) => writeFileSync(join(work, 'README.md'), '团队说明\n'))
    ran.length = 0
    await libs.now()
    expect(sent).toEqual([])
    expect(writes(ran)).toEqual([])
    // A change of a team profile's rules is taken in.
    await lead.store.command({ op: 'profile.update', id: 'coder', patch: { rules: '审查时先看测试，再看命名' } })
    expect((await lead.engine.now()).error).toBeUndefined()
    await libs.now()
    expect(sent).toEqual(['library.apply'])
    expect(m.store.state.profiles.some((p) => p.library !== undefined && p.rules === '审查时先看测试，再看命名')).toBe(
      true,
    )
  })
})
