/**
 * A hostile sync repository: whatever it holds, the sync reads it as data — a symlink, a path leaving its folder, a
 * huge file and a flood of files are refused before anything is read, its hooks never run, its attributes never
 * apply — and the store stays as it was.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, symlinkSync, writeFileSync, chmodSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { gitIn, pushFrom, syncWorld } from '../support/sync-machines.ts'

const world = syncWorld()

/** A machine that synced once (its store holds its profiles), then meets what the remote was given. */
async function victim(remote: string) {
  const m = await world.machine(remote)
  expect((await m.engine.now()).error).toBeUndefined()
  return m
}

describe('a hostile sync repository', () => {
  it('a symlink is refused, naming it, and the store is unchanged', async () => {
    const remote = await world.remote()
    const m = await victim(remote)
    const before = m.store.state
    pushFrom(remote, (w) => {
      gitIn(w, 'rm', '--quiet', 'profiles/coder/profile.md')
      symlinkSync('/etc/passwd', join(w, 'profiles/coder/profile.md'))
    })
    const s = await m.engine.now()
    expect(s.error).toMatchObject({ key: 'refused-content' })
    expect(s.error!.detail).toContain('symlink: profiles/coder/profile.md')
    expect(m.store.state).toBe(before)
  })

  it('a flood of files is refused before any is read', async () => {
    const remote = await world.remote()
    const m = await victim(remote)
    const before = m.store.state
    pushFrom(remote, (w) => {
      mkdirSync(join(w, 'flood'))
      for (let i = 0; i < 2_100; i++) writeFileSync(join(w, 'flood', `f${i}`), 'x')
    })
    const s = await m.engine.now()
    expect(s.error).toMatchObject({ key: 'refused-content' })
    expect(s.error!.detail).toContain('too many files')
    expect(m.store.state).toBe(before)
  })

  it('a path with `..` is refused as content a sync never takes, and the store is unchanged', async () => {
    const remote = await world.remote()
    const m = await victim(remote)
    const before = m.store.state
    // git's own commands never make such a tree: it is written by hand, as a hostile remote would hold it.
    pushFrom(remote, (w) => writeFileSync(join(w, 'README.md'), '说明\n'))
    const work = `${remote}-work`
    const git = (input: string, ...args: string[]) =>
      execFileSync('git', args, { cwd: work, input, encoding: 'utf8' }).trim()
    const blob = git('outside\n', 'hash-object', '-w', '--stdin')
    const inner = git(`100644 blob ${blob}\t..\n`, 'mktree')
    const top = git(`040000 tree ${inner}\tprofiles\n`, 'mktree')
    const commit = gitIn(work, 'commit-tree', top, '-p', 'HEAD', '-m', 'leave the folder').trim()
    gitIn(work, 'push', '--quiet', 'origin', `${commit}:refs/heads/main`)
    const s = await m.engine.now()
    expect(s.error).toMatchObject({ key: 'refused-content' })
    expect(m.store.state).toBe(before)
  })

  it('a file over the size limit is refused by its size, unread', async () => {
    const remote = await world.remote()
    const m = await victim(remote)
    const before = m.store.state
    pushFrom(remote, (w) => writeFileSync(join(w, 'profiles/coder/memory.jsonl'), Buffer.alloc(17 * 1024 * 1024, 0x61)))
    const s = await m.engine.now()
    expect(s.error).toMatchObject({ key: 'refused-content' })
    expect(s.error!.detail).toContain('size: profiles/coder/memory.jsonl')
    expect(m.store.state).toBe(before)
  })

  it('a file that breaks a rule is refused naming the file, and the store is unchanged', async () => {
    const remote = await world.remote()
    const m = await victim(remote)
    const before = m.store.state
    pushFrom(remote, (w) => writeFileSync(join(w, 'profiles/coder/memory.jsonl'), '{"id":"m1","text":""}\n'))
    const s = await m.engine.now()
    expect(s.error).toMatchObject({ key: 'bad-file' })
    expect(s.error!.detail).toContain('profiles/coder/memory.jsonl:1')
    expect(m.store.state).toBe(before)
  })

  it('no hook runs in the clone, even one planted there, and attributes change nothing', async () => {
    const remote = await world.remote()
    const m = await victim(remote)
    const ran = join(m.dir, 'hook-ran')
    mkdirSync(join(m.repo.dir, 'hooks'), { recursive: true })
    for (const hook of ['reference-transaction', 'pre-push', 'post-commit', 'post-merge', 'pre-auto-gc']) {
      writeFileSync(join(m.repo.dir, 'hooks', hook), `#!/bin/sh\ntouch ${ran}\n`)
      chmodSync(join(m.repo.dir, 'hooks', hook), 0o755)
    }
    // A repository's attributes ask for a filter, a diff and a merge driver: a sync never applies attributes.
    pushFrom(remote, (w) => writeFileSync(join(w, '.gitattributes'), '* filter=evil diff=evil merge=evil\n'))
    await m.store.command({ op: 'memory.add', target: { profileId: 'coder' }, items: [{ text: 'fact' }] })
    const s = await m.engine.now()
    expect(s.error).toBeUndefined()
    expect(existsSync(ran)).toBe(false)
    expect(gitIn(remote, 'log', '--format=%s', 'main')).toMatch(/memory: \+1/)
  })
})
