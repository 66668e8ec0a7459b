/**
 * Several dsh processes on one data directory (a headless run beside `dsh web`): they take turns saving — the writer
 * lock goes to a change and is let go once its process has been idle a moment — and each turn starts from what the
 * others saved. A change that cannot get the lock in time is refused naming the process that holds it; a dead
 * holder's lock is taken over at once. The other process is a real one (test/support/store-child.ts `writer`).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { readFile, readdir, writeFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import type { Command, ProfileStore } from '../../lib/store/store.ts'
import { expectRefused, freshStore } from '../support/store-helpers.ts'

const CHILD = fileURLToPath(new URL('../support/store-child.ts', import.meta.url))

interface Answer { ok: boolean; revision: number; pid?: number; code?: string; message?: string }

/** Holds the lock for the whole test once it has saved. */
const KEEPS = { lockIdleMs: 60_000 }
/** Lets the lock go soon after each save, and waits long enough for the other to do the same. */
const TAKES_TURNS = { lockIdleMs: 150, lockWaitMs: 10_000 }
/** Gives up on a held lock quickly. */
const IMPATIENT = { lockWaitMs: 200 }

/** Another process with a store on `file`, driven one command at a time. */
async function otherProcess(file: string, timing: { lockIdleMs?: number; lockWaitMs?: number } = {}) {
  const args = [CHILD, 'writer', file, String(timing.lockIdleMs ?? 60_000), String(timing.lockWaitMs ?? 200)]
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ['--experimental-strip-types', '--no-warnings', ...args])
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
    /** Close its store and let it exit, as a run that finishes does. */
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

let ctx: Awaited<ReturnType<typeof freshStore>> | undefined
const others: { kill(): Promise<void> }[] = []
afterEach(async () => {
  for (const o of others.splice(0)) await o.kill()
  await ctx?.dispose()
})

const lockFile = (file: string) => file.replace(/\.json$/, '.lock')
const lockOwner = async (file: string) => JSON.parse(await readFile(lockFile(file), 'utf8')) as { pid: number; since: number }
const rules = (id: string, text: string): Command => ({ op: 'profile.update', id, patch: { rules: text } })
const field = (store: ProfileStore, id: string, key: 'rules' | 'personality') => store.state.profiles.find((p) => p.id === id)![key]

describe('several dsh processes on one data directory', () => {
  it('take turns saving: each lets the lock go when idle, and each save starts from what the other saved', async () => {
    ctx = await freshStore(undefined, TAKES_TURNS)
    const other = await otherProcess(ctx.file, TAKES_TURNS)
    expect(await other.run(rules('general', '另一个进程 1'))).toMatchObject({ ok: true, revision: 1 })
    // ctx.store loaded before that save; its change waits for the other to let go, then applies on top of it.
    await ctx.store.command({ op: 'profile.update', id: 'coder', patch: { personality: '本进程 1' } })
    expect(field(ctx.store, 'general', 'rules')).toBe('另一个进程 1')
    expect(ctx.store.revision).toBe(2)
    // And back: the other process's next save starts from this one's.
    expect(await other.run(rules('writer', '另一个进程 2'))).toMatchObject({ ok: true, revision: 3 })
    await ctx.store.command({ op: 'profile.update', id: 'general', patch: { personality: '本进程 2' } })
    expect(field(ctx.store, 'writer', 'rules')).toBe('另一个进程 2')
    expect(ctx.store.revision).toBe(4)
    await other.end()

    const reopened = await ctx.open()
    expect([field(reopened, 'general', 'rules'), field(reopened, 'coder', 'personality'), field(reopened, 'writer', 'rules'),
      field(reopened, 'general', 'personality')]).toEqual(['另一个进程 1', '本进程 1', '另一个进程 2', '本进程 2'])
    expect(reopened.revision).toBe(4)
  })

  it('a change that cannot get the lock in time is refused naming the holder, and changes nothing; later it goes through', async () => {
    ctx = await freshStore()
    const writer = await otherProcess(ctx.file, KEEPS)
    expect(await writer.run(rules('general', '写入者的规则 1'))).toMatchObject({ ok: true, revision: 1 })
    expect((await lockOwner(ctx.file)).pid).toBe(writer.pid)

    const second = await ctx.open(undefined, IMPATIENT)
    expect(field(second, 'general', 'rules')).toBe('写入者的规则 1')
    const refused = await expectRefused(second, rules('coder', '第二个进程的规则'), { code: 'locked' })
    expect(refused.message).toContain(`process ${writer.pid}`)
    expect(refused.message).toContain('.lock')

    expect(await writer.run(rules('general', '写入者的规则 2'))).toMatchObject({ ok: true, revision: 2 })
    await writer.end()
    await expect(readFile(lockFile(ctx.file))).rejects.toThrow(/ENOENT/)

    await second.command({ op: 'profile.update', id: 'coder', patch: { personality: '第二个进程的性格' } })
    expect(field(second, 'general', 'rules')).toBe('写入者的规则 2')
    expect(second.revision).toBe(3)
    const reopened = await ctx.open()
    expect(field(reopened, 'general', 'rules')).toBe('写入者的规则 2')
    expect(field(reopened, 'coder', 'personality')).toBe('第二个进程的性格')
  })

  it('a writer killed while it holds the lock: the next change elsewhere takes it over at once and keeps its save', async () => {
    ctx = await freshStore()
    const writer = await otherProcess(ctx.file, KEEPS)
    expect(await writer.run(rules('general', '被杀之前'))).toMatchObject({ ok: true })
    await writer.kill()
    expect((await lockOwner(ctx.file)).pid).toBe(writer.pid)

    await ctx.store.command(rules('coder', '接手之后'))
    expect((await lockOwner(ctx.file)).pid).toBe(process.pid)
    expect(field(ctx.store, 'general', 'rules')).toBe('被杀之前')
    const reopened = await ctx.open()
    expect(field(reopened, 'coder', 'rules')).toBe('接手之后')
    expect(field(reopened, 'general', 'rules')).toBe('被杀之前')
  })

  it('while this process keeps saving, another one is refused and told who saves', async () => {
    ctx = await freshStore(undefined, KEEPS)
    await ctx.store.command(rules('general', '本进程先写'))
    const other = await otherProcess(ctx.file, IMPATIENT)
    const answer = await other.run(rules('coder', '另一个进程'))
    expect(answer).toMatchObject({ ok: false, code: 'locked' })
    expect(answer.message).toContain(`process ${process.pid}`)
    await other.end()
    const reopened = await ctx.open()
    expect(field(reopened, 'coder', 'rules')).not.toBe('另一个进程')
  })
})

describe('a process that does not save never repairs', () => {
  it('data that looks damaged while another process saves is left exactly as it is, not moved aside', async () => {
    ctx = await freshStore()
    const writer = await otherProcess(ctx.file, KEEPS)
    for (const text of ['一', '二', '三']) expect(await writer.run(rules('general', text))).toMatchObject({ ok: true })
    // What a read racing the writer's compaction could see: a line that does not match its checksum, not at the end.
    const wal = ctx.file.replace(/\.json$/, '.wal')
    const lines = (await readFile(wal, 'utf8')).split('\n').filter((l) => l !== '')
    expect(lines.length).toBeGreaterThanOrEqual(2)
    lines[0] = lines[0]!.replace('二', '贰')
    await writeFile(wal, `${lines.join('\n')}\n`)
    const files = async () => Object.fromEntries(await Promise.all((await readdir(ctx!.dir)).filter((f) => !f.endsWith('.avatars')).sort()
      .map(async (f) => [f, await readFile(join(ctx!.dir, f), 'utf8')] as const)))
    const before = await files()

    const reader = await ctx.open()
    expect(reader.lastError?.message).toMatch(/profiles\.wal is damaged.*another dsh process is saving this data, so it was left as it is/)
    await expectRefused(reader, rules('coder', '不该保存'), { code: 'io' })
    expect(await files()).toEqual(before)
    expect((await lockOwner(ctx.file)).pid).toBe(writer.pid)
  })
})

describe('the turn ledger, shared by every process', () => {
  it('every process appends turns; only the one that saves compacts the file, keeping the turns the others appended', async () => {
    ctx = await freshStore(undefined, KEEPS)
    await ctx.store.command(rules('general', '本进程保存'))
    const ledger = ctx.file.replace(/\.json$/, '.turns.jsonl')
    const lineCount = async () => (await readFile(ledger, 'utf8')).split('\n').filter((l) => l !== '').length
    const other = await otherProcess(ctx.file, KEEPS)
    // The same turn recorded over and over: one live entry, a thousand dead lines.
    for (let i = 0; i < 1_100; i++) {
      const answer = await other.run({ op: 'turn.record', sessionId: 'session-other', turn: 7, profileId: i % 2 ? 'coder' : 'writer' })
      expect(answer.ok, answer.message).toBe(true)
    }
    expect(await lineCount()).toBe(1_100)
    await other.end()
    // This process saves, so when its own dead lines call for it, it compacts the file, keeping the other's turn 7.
    let last = ''
    for (let i = 0; i < 1_100 && (await lineCount()) > 2; i++) {
      last = i % 2 ? 'general' : 'writer'
      await ctx.store.command({ op: 'turn.record', sessionId: 'session-here', turn: 1, profileId: last })
    }
    expect(await lineCount()).toBe(2)
    expect(ctx.store.turnsOf('session-other')).toEqual({ 7: 'coder' })
    const reopened = await ctx.open()
    expect(reopened.turnsOf('session-other')).toEqual({ 7: 'coder' })
    expect(reopened.turnsOf('session-here')).toEqual({ 1: last })
  })
})

describe('the lock file itself', () => {
  it('a lock naming this very pid, left by a dead process that had the same number, is taken over', async () => {
    ctx = await freshStore()
    await writeFile(ctx.file.replace(/\.json$/, '.lock'), JSON.stringify({ pid: process.pid, host: hostname(), since: 1 }))
    await ctx.store.command(rules('general', '同号旧锁之后'))
    const owner = await lockOwner(ctx.file)
    expect(owner.pid).toBe(process.pid)
    expect(owner.since).toBeGreaterThan(1)
  })

  it('a lock from another host is never taken over: its pid means nothing here', async () => {
    ctx = await freshStore(undefined, IMPATIENT)
    await writeFile(ctx.file.replace(/\.json$/, '.lock'), JSON.stringify({ pid: 1, host: 'another-machine', since: 1 }))
    const refused = await expectRefused(ctx.store, rules('general', '不该保存'), { code: 'locked' })
    expect(refused.message).toContain('process 1 on another-machine')
  })
})
