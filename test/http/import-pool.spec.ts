/**
 * The import worker (lib/http/import-pool.ts) with its real thread: files read there come back exactly as read here;
 * a large body parses there; a file whose parse runs away is stopped at the time limit (of the time the thread spends:
 * a thread held without working, as on a loaded machine, is not) and reported as using too much processor time (a
 * thread held for good: as not finished in the wall-clock time behind it), one
 * that eats memory ends its thread (not the host) and is reported as too big, and in both cases the next file is read
 * by a fresh thread; jobs run one at a time in order; without its script the pool reads on the calling thread. An
 * export's conversations come back as text in parts (never as one message of objects the host decodes at once), and
 * the host keeps them as text: no object per conversation or message stays on its heap.
 */
import { queryObjects } from 'node:v8'
import { afterEach, describe, expect, it } from 'vitest'
import { ImportPool, work, type WorkerAnswer } from '../../lib/http/import-pool.ts'
import { readExport } from '../../lib/learn/export-read.ts'
import type { HeldRead } from '../../lib/learn/export-parts.ts'
import type { LearnConversation } from '../../lib/learn/conversation.ts'
import { chatGptExport, exportZip } from '../support/learn-exports.ts'
import { readFile, type FileRead } from '../../lib/commands/file-read.ts'
import { READ_FILES } from '../../lib/shared/files.ts'
import { binaryFile, brokenChunksPng, textFile } from '../support/hostile-files.ts'
import { pngCard, richV2 } from '../support/card-fixtures.ts'
import { importNoteText } from '../../lib/client/settings/import-report.ts'
import { translate, type ApKey, type Params } from '../../lib/client/copy/locales.ts'
import type { ImportNote } from '../../lib/shared/import-notes.ts'

const pools: ImportPool[] = []
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()))
})
const pool = (options: ConstructorParameters<typeof ImportPool>[0] = {}) => {
  const p = new ImportPool({ log: { warn: () => {} }, ...options })
  pools.push(p)
  return p
}
const faulty = new URL('../support/import-worker-faults.ts', import.meta.url)
const waits = new URL('../support/import-worker-waits.ts', import.meta.url)
const good = textFile('good.md', '# Good\n\n## Role\nA helper.\n')
let ids = 0
const ctx = { now: 0, newId: (prefix: string) => `${prefix}-${++ids}` }
/** An export of several parts (each at most a million characters of text). */
const large = chatGptExport(2_000, 7)
/** The conversations of an export the host holds, parsed back. */
const parsedBack = async (read: HeldRead) => {
  if (!read.ok) throw new Error(`the export was refused: ${read.error.key}`)
  const held = read.export.conversations
  const list: LearnConversation[] = []
  for await (const slice of held.parsed(Array.from({ length: held.length }, (_, i) => i))) list.push(...slice)
  return list
}
/** A refusal as the settings page words it, in Chinese and in English. */
const worded = (error: ImportNote | undefined) =>
  (['zh', 'en'] as const).map((lang) => importNoteText((k: ApKey, p?: Params) => translate(lang, k, p), error!))
/** A read with the ids and times the reading thread gave its new profiles and memory items taken out. */
const plain = (reads: unknown): unknown =>
  JSON.parse(
    JSON.stringify(reads)
      .replace(/"id":"([pm])-[\w-]+"/g, '"id":"$1"')
      .replace(/"(at|createdAt|updatedAt)":\d+/g, '"$1":0'),
  )

describe('the import worker', () => {
  it('reads files off the event loop exactly as they read on it', async () => {
    const files = [
      good,
      binaryFile('card.png', pngCard([{ keyword: 'chara', card: richV2() }])),
      binaryFile('chunks.png', brokenChunksPng(2_000)),
      { name: 'bad', format: 'nope' },
    ]
    const p = pool()
    expect(p.offThread).toBe(true)
    expect(plain(await p.readFiles(files))).toEqual(plain(files.map((f, i) => readFile(f, i, ctx))))
  })

  it('ends its thread once idle, so no thread and none of its memory stay after an import, and starts a new one after', async () => {
    const p = pool({ idleMs: 50 })
    expect(p.threadUp).toBe(false)
    await p.readFiles([good])
    expect(p.threadUp).toBe(true)
    await expect.poll(() => p.threadUp).toBe(false)
    expect((await p.readFiles([good]))[0]!.incoming).toBeDefined()
  })

  it('parses a large body in the worker, and says why a broken one is not JSON', async () => {
    const p = pool()
    const value = {
      op: 'state.import',
      mode: 'merge',
      payload: { profiles: [{ name: 'x', role: 'y'.repeat(1_000_000) }] },
    }
    expect(await p.parseJson(Buffer.from(JSON.stringify(value)))).toEqual({ ok: true, value })
    const broken = await p.parseJson(Buffer.from('{"op": '))
    expect(broken.ok).toBe(false)
  })

  it('reads the files of an import while it parses its body, so their contents never come back to the event loop', async () => {
    const p = pool()
    const files = [good, binaryFile('card.png', pngCard([{ keyword: 'chara', card: richV2() }]))]
    const parsed = await p.parseJson(
      Buffer.from(JSON.stringify({ op: 'profiles.importFiles', files, conflicts: 'ask' })),
    )
    expect(parsed.ok).toBe(true)
    const value = (parsed as { value: Record<string | symbol, unknown> }).value
    expect(JSON.parse(JSON.stringify(value))).toEqual({
      op: 'profiles.importFiles',
      conflicts: 'ask',
      files: [
        { name: 'good.md', format: 'markdown' },
        { name: 'card.png', format: 'card' },
      ],
    })
    expect(plain(value[READ_FILES])).toEqual(plain(files.map((f, i) => readFile(f, i, ctx))))
  })

  it('reads an export in the worker and sends its conversations as text in parts as it reads them, read back as here', async () => {
    const zip = exportZip(large.conversations)
    const posted: WorkerAnswer[] = []
    work({ id: 1, kind: 'export', bytes: zip }, (a) => posted.push(a))
    const parts = posted.slice(0, -1)
    expect(parts.length).toBeGreaterThan(1)
    for (const part of parts) expect(part.kind === 'part' && typeof part.part.text).toBe('string')
    const answer = posted.at(-1) as Extract<WorkerAnswer, { kind: 'export' }>
    expect(answer.read.ok && answer.read.export.conversations).toEqual([])
    const here = readExport(zip)
    const there = await pool().readExport(new Uint8Array(zip))
    expect(there.ok && there.export.service).toBe('chatgpt')
    expect(await parsedBack(there)).toEqual(here.ok && here.export.conversations)
  })

  it("holds an export read as text: no object per conversation or message stays on the host's heap", async () => {
    const made = large
    const messages = made.expected.reduce((n, c) => n + c.messages.length, 0)
    expect(messages).toBeGreaterThan(10_000)
    const zip = exportZip(made.conversations)
    const p = pool()
    // The thread up and its first job done, so what it keeps of its own is counted before.
    await p.readExport(exportZip(chatGptExport(1, 1).conversations))
    // Objects on this thread's heap after a full collection (queryObjects collects first), the export read and kept.
    const before = queryObjects(Object, { format: 'count' })
    const read = await p.readExport(new Uint8Array(zip))
    const retained = queryObjects(Object, { format: 'count' }) - before
    expect(read.ok && read.export.conversations.length).toBe(2_000)
    expect(retained).toBeLessThan(1_000)
    // Each is there to parse when a pick, a plan or a run reads it.
    expect((await parsedBack(read)).map((c) => c.messages.length)).toEqual(made.expected.map((c) => c.messages.length))
  })

  it('keeps the files of a body read before one that runs away, and names the ones after it as not reached', async () => {
    const p = pool({ script: faulty, timeLimitMs: 500 })
    const files = [good, textFile('loop.md', 'x'), textFile('after.md', '# After\n')]
    const parsed = await p.parseJson(Buffer.from(JSON.stringify({ op: 'profiles.importFiles', files })))
    const reads = (parsed as { value: Record<symbol, FileRead[]> }).value[READ_FILES]!
    expect(plain(reads[0])).toEqual(plain(readFile(good, 0, ctx)))
    expect(reads.slice(1).map((r) => [r.name, r.error])).toEqual([
      ['loop.md', { key: 'tooSlow', params: { seconds: 0.5 }, field: 'file' }],
      ['after.md', { key: 'notReached', field: 'file' }],
    ])
    // The next job is a fresh thread's.
    expect(plain(await p.readFiles([good]))).toEqual(plain([readFile(good, 0, ctx)]))
  })

  it("counts a file's time limit from when its thread is ready, not from a slow start of the thread", async () => {
    const p = pool({ script: new URL('../support/import-worker-slow-start.ts', import.meta.url), timeLimitMs: 1_000 })
    const [read] = await p.readFiles([good])
    expect(read!.error).toBeUndefined()
    expect(plain(read)).toEqual(plain(readFile(good, 0, ctx)))
  })

  it('stops a runaway parse at the time limit, reports it as too slow, and reads the next file in a fresh thread', async () => {
    const p = pool({ script: faulty, timeLimitMs: 500 })
    const [looped, after] = await p.readFiles([textFile('loop.md', 'x'), good])
    expect(looped!.error).toEqual({ key: 'tooSlow', params: { seconds: 0.5 }, field: 'file' })
    // The limit is the thread's processor time, and the refusal says so: on a loaded machine the file may have taken
    // far longer than 0.5 s by the clock, and would still be read were it not running away.
    expect(worded(looped!.error)).toEqual([
      '读这个文件用掉了超过 0.5 秒的处理器时间，已停止，没有导入',
      'Reading this file used over 0.5 s of processor time and was stopped; it was not imported',
    ])
    expect(plain(after)).toEqual(plain(readFile(good, 1, ctx)))
  })

  it('does not refuse a file whose thread is held without working, as on a loaded machine, past the time limit', async () => {
    // The thread blocks twice the limit before reading `wait.md` (import-worker-waits.ts), spending no processor time:
    // the file costs what it costs on a quiet machine, and is read.
    const p = pool({ script: waits, timeLimitMs: 500 })
    const held = textFile('wait.md', '# Held\n\n## Role\nA helper.\n')
    const [read, after] = await p.readFiles([held, good])
    expect(read!.error).toBeUndefined()
    expect(plain([read, after])).toEqual(plain([readFile(held, 0, ctx), readFile(good, 1, ctx)]))
  })

  it('still ends a thread held for good, at the wall-clock limit behind the time limit, and reads on', async () => {
    const p = pool({ script: waits, timeLimitMs: 300 })
    const [stuck, after] = await p.readFiles([textFile('stuck.md', 'x'), good])
    // It spent no processor time, so it is not said to: it did not finish within the wall-clock limit (6 × 0.3 s).
    expect(stuck!.error).toEqual({ key: 'notFinished', params: { seconds: 1.8 }, field: 'file' })
    expect(worded(stuck!.error)).toEqual([
      '读这个文件 1.8 秒内没有读完，已停止，没有导入',
      'Reading this file did not finish within 1.8 s and was stopped; it was not imported',
    ])
    expect(plain(after)).toEqual(plain(readFile(good, 1, ctx)))
  })

  it('ends a thread that runs out of memory, reports the file as too big, and goes on', async () => {
    const p = pool({ script: faulty, resourceLimits: { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 8 } })
    const [hog, after] = await p.readFiles([textFile('hog.md', 'x'), good])
    expect(hog!.error).toEqual({ key: 'tooBig', field: 'file' })
    expect(plain(after)).toEqual(plain(readFile(good, 1, ctx)))
  })

  it('reads on the calling thread when the worker script is missing', async () => {
    const warnings: string[] = []
    const p = new ImportPool({
      script: new URL('./no-such-worker.js', import.meta.url),
      log: { warn: (m) => warnings.push(m) },
    })
    pools.push(p)
    expect(plain(await p.readFiles([good, good]))).toEqual(plain([readFile(good, 0, ctx), readFile(good, 1, ctx)]))
    expect(p.offThread).toBe(false)
    expect(warnings).toEqual([expect.stringContaining('no-such-worker.js')])
    expect(await p.parseJson(Buffer.from('{"a":1}'))).toEqual({ ok: true, value: { a: 1 } })
  })
})
