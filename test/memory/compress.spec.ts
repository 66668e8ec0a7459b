import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Context } from '@deepseek-ai/cordis'
import { installMemoryCompress } from '../../lib/memory/compress.ts'
import { memoryChars } from '../../lib/state/model.ts'
import { scopeLists, searchLists } from '../../lib/memory/search.ts'
import { recallQuery } from '../../lib/memory/recall.ts'
import { boot, settle, type Harness } from '../support/memory-harness.ts'
import type { CompressStatus } from '../../lib/shared/diagnostics.ts'
import { readParsedFile } from '../../lib/commands/file-read.ts'
import { OwnImports } from '../../lib/store/import-batches.ts'
import { isInMemory } from '../../lib/state/lazy-list.ts'

let h: Harness
let job: { status(): CompressStatus }

beforeEach(async () => {
  h = await boot({ memory: { compressAt: 500 } })
  await h.ctx.plugin({
    name: 'ap-memory-compress',
    apply: (ctx: Context) => {
      job = installMemoryCompress(ctx, h.store, h.config, h.log)
    },
  })
  // A conversation that has talked to the model, so compression knows which model the profile's user is on.
  await h.turn(await h.conversation('s-compress'), '你好')
})
afterEach(async () => {
  await h.close()
})

function active() {
  return h.store.state.profiles.find((p) => p.id === h.store.state.activeId)!
}

/** Grow the active profile's memory with `n` distinct items of about 60 characters. */
async function grow(n: number, tag = 'a'): Promise<void> {
  const items = Array.from({ length: n }, (_, i) => ({
    text: `事实${tag}${i}：用户在第${i}个项目里用过这套工具链，并且对它的构建速度印象深刻，希望以后继续使用`,
  }))
  await h.store.command({ op: 'memory.add', target: { profileId: active().id }, items })
}

/**
 * Grow another profile than the active one past the threshold, and wait for its run: the run is decided at the change
 * that grew it, after every change before it, so once it is recorded a spec can assert what those changes did not
 * set off. Returns that profile's id.
 */
async function growOtherAndRun(run: number): Promise<string> {
  const other = h.store.state.profiles.find((p) => p.id !== active().id)!
  const items = Array.from({ length: 14 }, (_, i) => ({
    text: `事实z${i}：另一个配置的用户在第${i}个项目里用过这套工具链，并且对它的构建速度印象深刻，希望以后继续使用`,
  }))
  await h.store.command({ op: 'memory.add', target: { profileId: other.id }, items })
  expect((await runs(run)).runs.map((r) => r.profileId)).toContain(other.id)
  return other.id
}

/** The compression requests that carried the active profile's memory. */
const activeRequests = () => h.model.of('compress').filter((r) => r.prompt.includes('事实a'))

async function runs(n: number): Promise<CompressStatus> {
  for (let i = 0; i < 500 && job.status().totals.runs < n; i++) await settle(10)
  expect(job.status().totals.runs).toBe(n)
  return job.status()
}

const ANSWER = '摘要：用户长期使用这套工具链做多个项目，看重构建速度。\n- 希望继续使用这套工具链\n- 关注构建速度'

describe('memory compression', () => {
  it('stays quiet below the threshold', async () => {
    await grow(3)
    await growOtherAndRun(1)
    expect(activeRequests()).toHaveLength(0)
  })

  it('compresses past the threshold into a summary plus compact items, keeping the old memory for undo', async () => {
    h.model.script('compress', { text: ANSWER })
    await grow(14)
    const previous = active().memory
    expect(memoryChars(previous)).toBeGreaterThan(500)
    const [request] = await h.model.until('compress')
    const status = await runs(1)
    expect(status.runs[0]).toMatchObject({ outcome: 'stored', profileId: active().id })
    expect(request!.options).toMatchObject({ provider: 'mock', model: 'm' })
    expect(request!.prompt).toContain(previous.items[0]!.text)
    expect(active().memory.summary).toBe('用户长期使用这套工具链做多个项目，看重构建速度。')
    const core = active().memory.items.filter((it) => it.archived !== true)
    expect(core.map((it) => [it.text, it.source])).toEqual([
      ['希望继续使用这套工具链', 'compress'],
      ['关注构建速度', 'compress'],
    ])
    // Nothing is forgotten: every item it condensed stays, archived, out of the prompt's memory half.
    expect(
      active()
        .memory.items.filter((it) => it.archived === true)
        .map((it) => it.id),
    ).toEqual(previous.items.map((it) => it.id))
    expect(h.store.state.memoryUndo?.[active().id]?.memory).toEqual(previous)
  })

  it('sends at most twice the threshold of memory in one request', async () => {
    await grow(40)
    const [request] = await h.model.until('compress')
    const listed = request!.prompt.split('\n').filter((l) => l.startsWith('- 事实'))
    expect(listed.join('').length).toBeLessThanOrEqual(1000 + 2 * listed.length)
    expect(listed.length).toBeLessThan(40)
  })

  it.each([
    ['an empty answer', ' \n ', 'empty'],
    ['an answer with no usable line', '```\n{"summary": 1}\n```', 'unusable'],
    ['an answer longer than the memory', '摘要：' + '很长'.repeat(600), 'not-shorter'],
    [
      'an answer whose facts are not "- " items',
      '摘要：用户长期使用这套工具链。\n用户希望继续使用这套工具链\n- 关注构建速度',
      'unusable',
    ],
    ['an answer that echoes the request', (prompt: string) => `（离线模型）已收到：${prompt.slice(0, 200)}`, 'echo'],
    ['a model error', undefined, 'error'],
  ])('keeps the memory exactly as it was after %s', async (_name, text, kind) => {
    h.model.script(
      'compress',
      text === undefined
        ? { fail: { code: 'HTTP_500', message: 'boom', status: 500 } }
        : typeof text === 'string'
          ? { text }
          : { reply: text },
    )
    await grow(14)
    const before = JSON.stringify(h.store.state)
    const status = await runs(1)
    expect(status.runs[0]).toMatchObject({ outcome: 'failed', failure: kind })
    expect(JSON.stringify(h.store.state)).toBe(before)
    expect(h.logged.warn.some((w) => w.includes('memory kept as it was'))).toBe(true)
    await grow(1, 'b')
    await growOtherAndRun(2)
    expect(activeRequests(), 'a failed profile is not retried on every change').toHaveLength(1)
  })

  it('undo restores the previous memory and does not set off another compression', async () => {
    h.model.script('compress', { text: ANSWER })
    await grow(14)
    const previous = active().memory
    await runs(1)
    await h.store.command({ op: 'memory.undo', profileId: active().id })
    expect(active().memory).toEqual(previous)
    await growOtherAndRun(2)
    expect(activeRequests()).toHaveLength(1)
  })

  it('keeps a memory saved while the model was compressing', async () => {
    let release!: () => void
    h.model.script('compress', {
      gate: new Promise<void>((r) => {
        release = r
      }),
      text: ANSWER,
    })
    await grow(14)
    await h.model.until('compress')
    await h.store.command({
      op: 'memory.add',
      target: { profileId: active().id },
      items: [{ text: '压缩期间新存的事实' }],
    })
    release()
    await runs(1)
    expect(active().memory.items.map((it) => it.text)).toContain('压缩期间新存的事实')
    expect(active().memory.summary).toContain('构建速度')
    expect(h.model.peak.compress).toBe(1)
  })

  it('leaves a profile with memory off alone', async () => {
    await h.store.command({ op: 'profile.update', id: active().id, patch: { memoryEnabled: false } })
    await grow(14)
    await growOtherAndRun(1)
    expect(activeRequests()).toHaveLength(0)
  })

  it('gives a compressed item the search keys of the items it condensed, and a search by a typed key finds it', async () => {
    const merged = '用户的女儿小满今年上三年级，喜欢画画'
    h.model.script('compress', { text: `${ANSWER}\n- ${merged}` })
    await h.store.command({
      op: 'memory.add',
      target: { profileId: active().id },
      items: [
        { text: '用户的女儿叫小满', source: 'user', keys: 'Molly, 女儿' },
        { text: '小满今年上三年级，喜欢画画', source: 'auto', keys: 'third grade, drawing, 女儿' },
      ],
    })
    await grow(14)
    await runs(1)
    const core = active().memory.items.filter((it) => it.archived !== true)
    expect(core.find((it) => it.text === merged)?.keys).toBe('Molly, 女儿, third grade, drawing')
    // Items that took no words of a keyed one get none of its keys.
    expect(core.filter((it) => it.text !== merged).map((it) => it.keys)).toEqual([undefined, undefined])
    // The name the user typed as a key, in no text: the compressed fact is found by it beside its archived original.
    const p = active()
    const hits = searchLists(
      h.store,
      scopeLists(h.store.state, p, 's-compress', undefined),
      recallQuery('What did Molly say about school?', [], Date.now()).weights,
      10,
    )
    expect(hits.map((s) => s.item.text)).toContain(merged)
  })

  it('keeps the keys the user typed first when a compressed item would pass the keys limit', async () => {
    const merged = '用户常去的咖啡店在西湖边，点燕麦拿铁'
    h.model.script('compress', { text: `${ANSWER}\n- ${merged}` })
    const model = Array.from({ length: 11 }, (_, i) => `咖啡词${i}`).join(', ')
    await h.store.command({
      op: 'memory.add',
      target: { profileId: active().id },
      items: [
        { text: '用户常去西湖边的咖啡店，点燕麦拿铁', source: 'auto', keys: model },
        { text: '用户常去的咖啡店在西湖边', source: 'user', keys: 'oat latte, 湖滨' },
      ],
    })
    await grow(14)
    await runs(1)
    const keys = active().memory.items.find((it) => it.text === merged && it.archived !== true)?.keys
    // Twelve keys at most: both typed keys, then the model's first ten.
    expect(keys?.split(', ')).toEqual(['oat latte', '湖滨', ...model.split(', ').slice(0, 10)])
  })
})

// An import fills a profile in batches, each a growth past the threshold; compressing it for the import would read
// every imported list whole and keep it as the compression's undo (the host's heap held ~250 MB after 95 profiles),
// for model calls on profiles the user may never use. It is compressed at its next growth, as a profile read at start.
it('an imported profile past the threshold is compressed at its next growth, not by its import', async () => {
  h.model.script('compress', { text: '摘要：用户导入了很多关于工具链的记忆。\n- 看重构建速度' })
  const items = Array.from({ length: 400 }, (_, i) => ({
    id: `m${i}`,
    text: `导入事实${i}：用户在第${i}个项目里用过这套工具链，并且对它的构建速度印象深刻，希望以后继续使用`,
  }))
  const envelope = {
    format: 'dsh-agent-profiles',
    version: 1,
    profiles: [{ id: 'big', name: '导入的大配置', memory: { summary: '', items } }],
  }
  const file = { name: 'mine.json', format: 'envelope', text: JSON.stringify(envelope), own: true } as const
  let n = 0
  const read = readParsedFile(file, 0, { now: Date.now(), newId: (prefix: string) => `${prefix}-t${n++}` })
  // The imported profile is pinned to the conversation once it arrives, so that its compression knows which model.
  const off = h.store.onChange((state) => {
    if (!state.profiles.some((p) => p.id === 'big')) return
    off()
    void h.store.command({ op: 'session.set', sessionId: 's-compress', patch: { profileId: 'big' } })
  })
  const imported = () => h.model.of('compress').filter((r) => r.prompt.includes('导入事实'))
  const own = new OwnImports(h.store)
  own.start({ read, choice: { conflicts: 'keep-both', replace: new Set<string>() } })
  const status = await own.settled()
  expect(status).toMatchObject({ state: 'done', done: status.total })
  const big = () => h.store.state.profiles.find((p) => p.id === 'big')!
  // Another profile's growth is compressed, and is the only run: the import asked for none.
  await growOtherAndRun(1)
  expect(imported()).toHaveLength(0)
  // The imported list stays on disk, not read into the host's memory (the count below reads it).
  expect(isInMemory(big().memory.items)).toBe(false)
  expect(memoryChars(big().memory)).toBeGreaterThan(500)
  // A turn saves to it: now it is compressed, and its undo brings back every imported item.
  await h.store.command({ op: 'memory.add', target: { profileId: 'big' }, items: [{ text: '用户今天换了新电脑' }] })
  expect((await runs(2)).runs.find((r) => r.profileId === 'big')).toMatchObject({ outcome: 'stored' })
  expect(imported()).toHaveLength(1)
  await h.store.command({ op: 'memory.undo', profileId: 'big' })
  const back = big().memory.items.map((it) => it.text)
  expect(back).toHaveLength(401)
  expect(back.slice(0, 400)).toEqual(items.map((it) => it.text))
})
