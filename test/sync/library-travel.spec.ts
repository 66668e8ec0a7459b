/**
 * A team profile and the user's other machines, with the real system git (two machines, one personal bare
 * repository, one team repository): the team's text never enters the personal repository; only the user's memory
 * of a team profile travels, kept aside on a machine that does not follow the library and brought in when it is
 * added; a team profile an older version wrote into the personal repository is never taken in, and one left in the
 * list without its library leaves it (pins and casts follow the default) with its memory kept and sent on.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { gitIn, pushFrom, syncWorld, type Machine } from '../support/sync-machines.ts'
import { follow, librariesOf, team, teamCoder, TEAM_RULES, teamRepo } from '../support/team-library.ts'
import type { LibraryPart } from '../../lib/sync/library-part.ts'
import { folderOf, profileFiles } from '../../lib/sync/layout.ts'

const world = syncWorld()
const parts: LibraryPart[] = []
afterEach(async () => {
  for (const p of parts.splice(0)) await p.stop()
})

/** The paths of the personal repository's `main`. */
const pathsOf = (remote: string) => gitIn(remote, 'ls-tree', '-r', '--name-only', 'main').split('\n').filter(Boolean)
/** A team profile's memory kept aside on a machine. */
const keptFile = (m: Machine, id: string) => join(m.dir, 'sync', 'library-memory', `${id}.jsonl`)
const texts = (m: Machine, id: string) =>
  m.store.state.profiles.find((p) => p.id === id)?.memory.items.map((i) => i.text)

async function sync(m: Machine): Promise<void> {
  expect((await m.engine.now()).error).toBeUndefined()
}

describe('a team profile on the user machines', () => {
  it('only the user memory of it travels, kept aside where the library is not followed, back when it is added', async () => {
    const { remote: teamRemote } = await teamRepo(world)
    const personal = await world.remote()
    const a = await world.machine(personal)
    const libsA = librariesOf(a, parts)
    await follow(libsA, teamRemote)
    const id = teamCoder(a).id
    await sync(a)
    await a.store.command({
      op: 'memory.add',
      target: { profileId: id },
      items: [{ text: '用户的项目用 pnpm', source: 'tool' }],
    })
    await sync(a)
    // The team's text is not in the personal repository, in any commit; the user's fact is, in a file of its own.
    expect(gitIn(personal, 'log', '--all', '-p')).not.toContain(TEAM_RULES)
    expect(pathsOf(personal).filter((p) => p.includes(id))).toEqual([`team-memory/${id}.jsonl`])
    expect(gitIn(personal, 'show', `main:team-memory/${id}.jsonl`)).toContain('用户的项目用 pnpm')
    expect(gitIn(personal, 'log', '-1', '--format=%s', 'main').trim()).toBe(`memory: +1 (${teamCoder(a).name})`)

    // B follows no library: no team profile in its list, the memory kept aside, and never deleted by B's syncs.
    const b = await world.machine(personal)
    const libsB = librariesOf(b, parts)
    await sync(b)
    expect(team(b)).toEqual([])
    expect(readFileSync(keptFile(b, id), 'utf8')).toContain('用户的项目用 pnpm')
    await b.store.command({
      op: 'memory.add',
      target: { profileId: 'coder' },
      items: [{ text: 'B 的事实', source: 'user' }],
    })
    await sync(b)
    expect(pathsOf(personal)).toContain(`team-memory/${id}.jsonl`)

    // B adds the library: the profile comes with the user's memory of it and its history; the kept copy goes.
    await follow(libsB, teamRemote)
    expect(teamCoder(b).id).toBe(id)
    expect(texts(b, id)).toEqual(['用户的项目用 pnpm'])
    expect(b.store.state.history?.[id]?.length).toBe(1)
    expect(existsSync(keptFile(b, id))).toBe(false)
    await sync(b)
    expect(gitIn(personal, 'show', `main:team-memory/${id}.jsonl`)).toContain('用户的项目用 pnpm')

    // A fact saved on B for the team profile reaches A's team profile.
    await b.store.command({
      op: 'memory.add',
      target: { profileId: id },
      items: [{ text: '用户偏好小提交', source: 'tool' }],
    })
    await sync(b)
    await sync(a)
    expect(texts(a, id)).toEqual(['用户的项目用 pnpm', '用户偏好小提交'])
  }, 120_000)

  it('a team folder an older version pushed is never taken in; one left in the list without its library leaves it', async () => {
    const personal = await world.remote()
    const b = await world.machine(personal)
    await sync(b)
    // A team profile in B's list from a library B does not follow (an older version's sync brought it), pinned and
    // cast in a conversation, with a fact the user saved.
    const own = b.store.state.profiles[0]!
    const stray = { ...own, id: 't-0123456789-0123456789ab', name: '旧团队', memory: { summary: '', items: [] } }
    await b.store.command({ op: 'library.apply', library: { id: '0123456789', name: '旧组' }, profiles: [stray] })
    await b.store.command({
      op: 'memory.add',
      target: { profileId: stray.id },
      items: [{ text: '旧组的事实', source: 'user' }],
    })
    await b.store.command({ op: 'profile.activate', id: stray.id })
    await b.store.command({ op: 'session.set', sessionId: 's-1', patch: { profileId: stray.id } })
    await b.store.command({ op: 'session.set', sessionId: 's-2', patch: { cast: [stray.id, own.id] } })
    // A team profile's folder as an older version wrote it into the personal repository.
    const legacy = {
      ...own,
      id: 't-aaaaaaaaaa-bbbbbbbbbbbb',
      name: '旧版写的团队档案',
      library: { id: 'aaaaaaaaaa', name: '别组' },
    }
    pushFrom(personal, (w) => {
      const dir = join(w, folderOf(legacy.id))
      mkdirSync(dir, { recursive: true })
      for (const [name, text] of Object.entries(profileFiles(legacy))) writeFileSync(join(dir, name), text)
    })

    const libs = librariesOf(b, parts)
    await libs.now()
    expect(team(b)).toEqual([])
    expect(b.store.state.activeId).not.toBe(stray.id)
    expect(b.store.state.sessions.get('s-1')?.profileId ?? null).toBeNull()
    expect(b.store.state.sessions.get('s-2')?.cast ?? []).not.toContain(stray.id)
    expect(readFileSync(keptFile(b, stray.id), 'utf8')).toContain('旧组的事实')

    await sync(b)
    expect(b.store.state.profiles.map((p) => p.id)).not.toContain(legacy.id)
    const paths = pathsOf(personal)
    expect(paths.filter((p) => p.startsWith('profiles/t-'))).toEqual([])
    expect(paths).toContain(`team-memory/${stray.id}.jsonl`)
  }, 120_000)
})
