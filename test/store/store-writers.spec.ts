/**
 * Several dsh processes on one data directory (a headless run beside `dsh web`): every process sees every commit on
 * its next read, with no save of its own; a change always applies on top of what the others saved; processes that
 * write at the same moment wait for each other, none is refused and nothing is lost; a process killed mid-stream costs
 * only its unacknowledged write. The other processes are real ones (test/store-child.ts).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { createInterface } from 'node:readline'
import { DatabaseSync } from 'node:sqlite'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createSchema } from '../../lib/store/db/schema.ts'
import { openStore } from '../../lib/store/open-store.ts'
import type { Command, ProfileStore } from '../../lib/store/store.ts'
import { freshStore } from '../support/store-helpers.ts'
import { childArgs } from '../support/children.ts'

interface Answer {
  ok: boolean
  revision: number
  pid?: number
  code?: string
  message?: string
}

function spawnChild(args: string[]): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, childArgs('store-child', ...args))
}

/** Another process with a store on `file`, driven one command at a time. */
async function otherProcess(file: string) {
  const child = spawnChild(['writer', file])
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
  const next = async (): Promise<Answer> => {
    const { value, done } = await lines.next()
    if (done === true) throw new Error('the other process ended')
    return JSON.parse(value as string) as Answer
  }
  const ready = await next()
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  const other = {
    pid: ready.pid!,
    async run(cmd: Command): Promise<Answer> {
      child.stdin.write(`${JSON.stringify(cmd)}\n`)
      return next()
    },
    async end(): Promise<void> {
      child.stdin.end()
      expect(await exited).toBe(0)
    },
    async kill(): Promise<void> {
      child.kill('SIGKILL')
      await exited
    },
  }
  others.push(other)
  return other
}

/** A process setting conversations `<tag>-0`, `<tag>-1`… as fast as it can for `ms`; what it acknowledged and refused. */
function hammer(
  file: string,
  tag: string,
  ms: number,
  killAfterMs?: number,
): Promise<{ acked: number[]; refused: string[]; killed: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawnChild(['hammer', file, String(ms), tag])
    const acked: number[] = []
    const refused: string[] = []
    let killed = false
    let err = ''
    createInterface({ input: child.stdout }).on('line', (line) => {
      const [kind, n, ...rest] = line.split(' ')
      if (kind === 'ready' && killAfterMs !== undefined)
        setTimeout(() => {
          killed = true
          child.kill('SIGKILL')
        }, killAfterMs)
      if (kind === 'ack') acked.push(Number(n))
      if (kind === 'refused') refused.push(`${n}: ${rest.join(' ')}`)
    })
    child.stderr.on('data', (c: Buffer) => void (err += c.toString()))
    child.on('error', reject)
    child.on('exit', (code) =>
      code === 0 || killed
        ? resolve({ acked, refused, killed })
        : reject(new Error(`hammer ${tag} failed (${code}): ${err}`)),
    )
  })
}

let ctx: Awaited<ReturnType<typeof freshStore>> | undefined
const others: { kill(): Promise<void> }[] = []
afterEach(async () => {
  for (const o of others.splice(0)) await o.kill()
  await ctx?.dispose()
})

const rules = (id: string, text: string): Command => ({ op: 'profile.update', id, patch: { rules: text } })
const field = (store: ProfileStore, id: string, key: 'rules' | 'personality') =>
  store.state.profiles.find((p) => p.id === id)![key]

describe('several dsh processes on one data directory', () => {
  it("each sees the other's saves on its next read, with no save of its own, and tells its subscribers", async () => {
    ctx = await freshStore()
    await ctx.store.command(rules('general', '本进程先存'))
    const heard: string[] = []
    ctx.store.onChange((s) => heard.push(s.profiles.find((p) => p.id === 'general')!.rules))
    const other = await otherProcess(ctx.file)
    expect(
      await other.run({ op: 'memory.add', target: { profileId: 'general' }, items: [{ text: '另一个进程记住的事' }] }),
    ).toMatchObject({ ok: true })
    expect(
      await other.run({ op: 'session.set', sessionId: 'from-other', patch: { profileId: 'coder', note: '那边设的' } }),
    ).toMatchObject({ ok: true })
    expect(ctx.store.state.profiles[0]!.memory.items.map((m) => m.text)).toEqual(['另一个进程记住的事'])
    expect(ctx.store.effective('from-other')).toMatchObject({
      pinned: true,
      profile: { id: 'coder' },
      setting: { note: '那边设的' },
    })
    expect(ctx.store.revision).toBe(3)
    await new Promise((r) => setTimeout(r, 0))
    expect(heard.length).toBeGreaterThan(0)
    // Its rows are gone again in the other process as soon as it clears them.
    expect(await other.run({ op: 'session.clear', sessionId: 'from-other' })).toMatchObject({ ok: true })
    expect(ctx.store.effective('from-other')).toMatchObject({ pinned: false })
    expect(ctx.store.state.sessions.has('from-other')).toBe(false)
    await other.end()
  })

  it("a memory this process has not read yet, and one it has, both show the other process's commit", async () => {
    ctx = await freshStore()
    const add = (profileId: string, text: string): Command => ({
      op: 'memory.add',
      target: { profileId },
      items: [{ text }],
    })
    await ctx.store.command(add('coder', '这边先记下的'))
    await ctx.store.command(add('writer', '写作这边的'))
    await ctx.store.close()
    const store = await ctx.open()
    const items = (id: string) => store.state.profiles.find((p) => p.id === id)!.memory.items.map((m) => m.text)
    // Read here before the other process writes; coder's memory stays on disk until after.
    expect(items('writer')).toEqual(['写作这边的'])
    const other = await otherProcess(ctx.file)
    expect(await other.run(add('coder', '另一个进程记的'))).toMatchObject({ ok: true })
    expect(await other.run(add('writer', '另一个进程也记了'))).toMatchObject({ ok: true })
    expect(items('coder')).toEqual(['这边先记下的', '另一个进程记的'])
    expect(items('writer')).toEqual(['写作这边的', '另一个进程也记了'])
    // And this process's next write applies on top of both.
    await store.command(add('coder', '这边又记了'))
    expect(await other.run({ op: 'memory.history', target: { profileId: 'coder' } })).toMatchObject({ ok: true })
    await other.end()
    const reopened = await ctx.open()
    expect(reopened.state.profiles.find((p) => p.id === 'coder')!.memory.items.map((m) => m.text)).toEqual([
      '这边先记下的',
      '另一个进程记的',
      '这边又记了',
    ])
  })

  it('a change applies on top of what the other process saved meanwhile, never over it', async () => {
    ctx = await freshStore()
    await ctx.store.command(rules('general', '起点'))
    const other = await otherProcess(ctx.file)
    // The other process saves while this one holds a state from before it; this one's change must keep that save.
    expect(await other.run(rules('general', '另一个进程 1'))).toMatchObject({ ok: true, revision: 2 })
    await ctx.store.command({ op: 'profile.update', id: 'general', patch: { personality: '本进程 1' } })
    expect(field(ctx.store, 'general', 'rules')).toBe('另一个进程 1')
    expect(ctx.store.revision).toBe(3)
    expect(
      await other.run({ op: 'profile.update', id: 'coder', patch: { personality: '另一个进程 2' } }),
    ).toMatchObject({ ok: true, revision: 4 })
    await other.end()
    const again = await openStore({ file: ctx.file })
    expect(field(again, 'general', 'rules')).toBe('另一个进程 1')
    expect(field(again, 'general', 'personality')).toBe('本进程 1')
    expect(field(again, 'coder', 'personality')).toBe('另一个进程 2')
    await again.close()
  })

  it('the other process deleting a profile and clearing every conversation reaches this one whole', async () => {
    ctx = await freshStore()
    for (let i = 0; i < 30; i++)
      await ctx.store.command({ op: 'session.set', sessionId: `s${i}`, patch: { profileId: 'writer' } })
    await ctx.store.command({ op: 'memory.add', target: { sessionId: 'kept' }, items: [{ text: '对话记忆' }] })
    const other = await otherProcess(ctx.file)
    expect(await other.run({ op: 'profile.delete', id: 'writer' })).toMatchObject({ ok: true })
    expect(ctx.store.state.profiles.map((p) => p.id)).toEqual(['general', 'coder'])
    expect(ctx.store.state.sessions.size).toBe(1)
    expect(await other.run({ op: 'sessions.clearAll' })).toMatchObject({ ok: true })
    expect(ctx.store.state.sessions.size).toBe(0)
    await other.end()
  })

  it('two processes writing flat out for 10 s at once: none refused, none lost, and the database passes quick_check', async () => {
    ctx = await freshStore()
    await ctx.store.command({ op: 'profile.activate', id: 'coder' })
    const [a, b] = await Promise.all([hammer(ctx.file, 'a', 10_000), hammer(ctx.file, 'b', 10_000)])
    expect(a.refused).toEqual([])
    expect(b.refused).toEqual([])
    expect(a.acked.length).toBeGreaterThan(200)
    expect(b.acked.length).toBeGreaterThan(200)
    const again = await openStore({ file: ctx.file })
    for (const [tag, run] of [
      ['a', a],
      ['b', b],
    ] as const) {
      for (const n of run.acked) expect(again.state.sessions.get(`${tag}-${n}`)?.note).toBe(`${tag} ${n}`)
    }
    expect(again.revision).toBe(1 + a.acked.length + b.acked.length)
    await again.close()
    const db = new DatabaseSync(again.file, { readOnly: true })
    expect(db.prepare('PRAGMA quick_check').all()).toEqual([{ quick_check: 'ok' }])
    db.close()
    console.info(`two writers for 10 s: ${a.acked.length} + ${b.acked.length} acknowledged commits, none refused`)
  }, 60_000)

  it('a writer killed mid-stream costs only its unacknowledged write; the other keeps writing without waiting', async () => {
    ctx = await freshStore()
    const [killed, alive] = await Promise.all([hammer(ctx.file, 'k', 10_000, 1_500), hammer(ctx.file, 'l', 3_000)])
    expect(killed.killed).toBe(true)
    expect(alive.refused).toEqual([])
    const again = await openStore({ file: ctx.file })
    expect(again.lastError).toBeNull()
    for (const n of killed.acked) expect(again.state.sessions.get(`k-${n}`)?.note).toBe(`k ${n}`)
    for (const n of alive.acked) expect(again.state.sessions.get(`l-${n}`)?.note).toBe(`l ${n}`)
    await again.close()
  }, 60_000)

  it('two processes making the database at the same moment: the second reads the schema the first made', async () => {
    ctx = await freshStore()
    // Both found the file empty (SQLite made it on open); the first takes the write lock and makes the schema.
    const first = new DatabaseSync(ctx.file)
    const second = new DatabaseSync(ctx.file)
    expect(createSchema(first)).toBe(true)
    first.exec("INSERT INTO meta (key, value) VALUES ('made-by', 'first')")
    expect(createSchema(second)).toBe(false)
    expect(second.prepare("SELECT value FROM meta WHERE key = 'made-by'").get()).toEqual({ value: 'first' })
    first.close()
    second.close()
    // Through the store: a process whose first save races another's keeps both saves.
    const other = await otherProcess(ctx.file)
    const [, theirs] = await Promise.all([
      ctx.store.command(rules('general', '这边')),
      other.run(rules('coder', '那边')),
    ])
    expect(theirs.ok ? 'ok' : `${theirs.code}: ${theirs.message}`).toBe('ok')
    await other.end()
    const again = await openStore({ file: ctx.file })
    expect(again.state.profiles.map((p) => p.rules).slice(0, 2)).toEqual(['这边', '那边'])
    await again.close()
  })

  it('turns recorded by every process all land in one ledger', async () => {
    ctx = await freshStore()
    const other = await otherProcess(ctx.file)
    const mine = Array.from({ length: 50 }, (_, t) =>
      ctx!.store.command({ op: 'turn.record', sessionId: 'shared', turn: 2 * t, profileId: 'general' }),
    )
    for (let t = 0; t < 50; t++)
      expect(
        await other.run({ op: 'turn.record', sessionId: 'shared', turn: 2 * t + 1, profileId: 'coder' }),
      ).toMatchObject({ ok: true })
    await Promise.all(mine)
    const turns = ctx.store.turnsOf('shared')
    expect(Object.keys(turns)).toHaveLength(100)
    expect(turns[1]).toBe('coder')
    expect(turns[98]).toBe('general')
    await other.end()
  })

  it("waiting for another process's write lock, the process keeps running: its timers fire, reads answer, then the save lands", async () => {
    ctx = await freshStore()
    await ctx.store.command({ op: 'profile.update', id: 'general', patch: { rules: '第一版' } })
    const lock = new DatabaseSync(ctx.store.file)
    lock.exec('BEGIN IMMEDIATE')
    let ticks = 0
    const timer = setInterval(() => void ticks++, 10)
    const saved = ctx.store.command({ op: 'profile.update', id: 'general', patch: { rules: '第二版' } })
    // A synchronous busy wait would have stopped this very event loop: no tick, no timeout, until the lock went.
    await vi.waitFor(() => expect(ticks).toBeGreaterThan(10), { timeout: 5_000 })
    expect(ctx.store.state.profiles.find((p) => p.id === 'general')!.rules).toBe('第一版')
    lock.exec('ROLLBACK')
    lock.close()
    await saved
    clearInterval(timer)
    const again = await ctx.open()
    expect(again.state.profiles.find((p) => p.id === 'general')!.rules).toBe('第二版')
  })
})
