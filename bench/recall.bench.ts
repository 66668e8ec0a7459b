/**
 * Recall benchmark.
 *  1. Evidence recall on a long history (bench/recall-data.ts: ~2,300 facts over eighteen months, Chinese and English;
 *     questions that paraphrase, ask "when", or need two facts), each question asked as the first message of a new
 *     conversation. Per method, the share of the evidence facts the model receives:
 *       today    — the memory half as the plugin renders it without recall (3,000-character budget, the same for every
 *                  question);
 *       bm25     — plain BM25 (k1 1.2, b 0.75) over Chinese character bigrams and lowercased English words, cut at the
 *                  same characters ours sent for that question (equal characters), and at the whole recall budget;
 *       ours     — recall: the store's FTS5 index (bigrams, stems, concepts, dates, the day each fact was saved), the
 *                  relevance floor and the 2,000-character budget.
 *     Also: what reaches the model in all (the memory half plus recall).
 *  2. Recall latency with 10,000 items in the profile: one recall (index lookups and the pick) per question, p50/p99.
 *     Targets: p50 ≤ 2 ms, p99 ≤ 10 ms.
 *  3. The cost of an item write with the index against the same write without it: one `memory.add` of one item
 *     through the whole store into a profile of about 9,000 items, the index's upkeep switched off for every other
 *     write. Target ≤ 1.2×.
 * Run: `npm run bench -- recall` (Node 22).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { renderParts } from '../lib/prompt/render.ts'
import { lineSize, mergeHits, pickRecall, recallQuery, RECALL_HEAD, type Scored } from '../lib/memory/recall.ts'
import { scopeLists, searchLists } from '../lib/memory/search.ts'
import { MemoryIndex } from '../lib/store/db/memory-index.ts'
import { openStore } from '../lib/store/open-store.ts'
import type { ProfileStore } from '../lib/store/store.ts'
import type { MemoryItem } from '../lib/state/model.ts'
import { median } from '../test/support/stats.ts'
import { buildEvalSet, NOW, type EvalFact, type EvalQuestion } from './recall-data.ts'

const pct = (x: number) => `${(x * 100).toFixed(1)} %`
const BUDGET = 2_000
const SESSION = 's-bench-recall'

// ---- plain BM25, the baseline ------------------------------------------------------------------------------------

/** Chinese character bigrams and lowercased English words: the tokens a plain BM25 would index. */
function plainTokens(text: string): string[] {
  const out: string[] = []
  const s = text.toLowerCase()
  for (const run of s.match(/[\u4e00-\u9fff]+/g) ?? []) {
    if (run.length === 1) out.push(run)
    for (let i = 0; i + 1 < run.length; i++) out.push(run.slice(i, i + 2))
  }
  for (const w of s.match(/[a-z0-9]+/g) ?? []) out.push(w)
  return out
}

function plainBm25(facts: readonly MemoryItem[]) {
  const docs = facts.map((f) => {
    const tokens = plainTokens(f.text)
    const tf = new Map<string, number>()
    for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1)
    return { item: f, tf, len: tokens.length }
  })
  const df = new Map<string, number>()
  for (const d of docs) for (const t of d.tf.keys()) df.set(t, (df.get(t) ?? 0) + 1)
  const avg = docs.reduce((n, d) => n + d.len, 0) / docs.length
  const N = docs.length
  return (query: string): Scored[] => {
    const q = [...new Set(plainTokens(query))]
    const out: Scored[] = []
    for (const d of docs) {
      let score = 0
      for (const t of q) {
        const f = d.tf.get(t)
        if (f === undefined) continue
        const n = df.get(t)!
        const idf = Math.log(1 + (N - n + 0.5) / (n + 0.5))
        score += (idf * (f * 2.2)) / (f + 1.2 * (1 - 0.75 + (0.75 * d.len) / avg))
      }
      if (score > 0) out.push({ item: d.item, layer: 'profile', score })
    }
    return out.sort((a, b) => b.score - a.score)
  }
}

/** The best of `ranked` while their recall lines fit in `chars` (the same measure as ours). */
function cut(ranked: readonly Scored[], chars: number): Scored[] {
  let left = chars - RECALL_HEAD.length
  const out: Scored[] = []
  for (const s of ranked) {
    const size = lineSize(s)
    if (size > left) continue
    out.push(s)
    left -= size
  }
  return out
}

// ---- 1. evidence recall ------------------------------------------------------------------------------------------

async function storeWith(dir: string, name: string, facts: readonly EvalFact[]): Promise<ProfileStore> {
  const store = await openStore({ file: join(dir, name, 'profiles.json') })
  const items = facts.map((f) => ({ id: f.id, text: f.text, source: 'auto' as const, at: f.at }))
  await store.command({ op: 'profile.update', id: store.state.activeId, patch: { memory: { summary: '', items } } })
  return store
}

function ours(store: ProfileStore, text: string): Scored[] {
  const { profile, setting } = store.effective(SESSION)
  const lists = scopeLists(store.state, profile, SESSION, setting)
  const q = recallQuery(text, [], NOW)
  return pickRecall(mergeHits(searchLists(store, lists, q.question, 40), []), BUDGET, () => false)
}

async function part1(dir: string) {
  const { facts, questions } = buildEvalSet()
  const store = await storeWith(dir, 'eval', facts)
  const profile = store.state.profiles.find((p) => p.id === store.state.activeId)!
  const core = new Set(renderParts(profile, undefined, { memoryBudget: 3_000 }).used.map((u) => u.id))
  const bm25 = plainBm25(profile.memory.items)
  type Row = {
    today: number
    bmEqual: number
    bmFull: number
    ours: number
    oursAll: number
    bmAll: number
    need: number
    chars: number
  }
  const rows: (Row & { q: EvalQuestion })[] = []
  for (const q of questions) {
    const mine = ours(store, q.text)
    const chars = mine.reduce((n, s) => n + lineSize(s), mine.length > 0 ? RECALL_HEAD.length : 0)
    const ranked = bm25(q.text)
    const equal = new Set(cut(ranked, chars).map((s) => s.item.id))
    const full = new Set(cut(ranked, BUDGET).map((s) => s.item.id))
    const got = new Set(mine.map((s) => s.item.id))
    const has = (set: Set<string>) => q.evidence.filter((id) => set.has(id)).length
    rows.push({
      q,
      need: q.evidence.length,
      chars,
      today: has(core),
      bmEqual: has(equal),
      bmFull: has(full),
      ours: has(got),
      oursAll: q.evidence.filter((id) => got.has(id) || core.has(id)).length,
      bmAll: q.evidence.filter((id) => equal.has(id) || core.has(id)).length,
    })
  }
  const share = (list: typeof rows, k: keyof Row) =>
    list.reduce((n, r) => n + (r[k] as number), 0) /
    Math.max(
      1,
      list.reduce((n, r) => n + r.need, 0),
    )
  console.log(
    `${facts.length} facts over ${Math.round((facts.at(-1)!.at - facts[0]!.at) / 86_400_000)} days, ${questions.length} questions; evidence the model receives:`,
  )
  const groups: [string, typeof rows][] = [
    ['all', rows],
    ...(['paraphrase', 'when', 'two-fact'] as const).map((k): [string, typeof rows] => [
      k,
      rows.filter((r) => r.q.kind === k),
    ]),
    ...(['zh', 'en'] as const).map((k): [string, typeof rows] => [k, rows.filter((r) => r.q.lang === k)]),
  ]
  for (const [label, list] of groups) {
    console.log(
      `  ${label.padEnd(10)} (${String(list.length).padStart(2)} q): today ${pct(share(list, 'today'))} · bm25 at equal characters ${pct(share(list, 'bmEqual'))}` +
        ` · bm25 at ${BUDGET} ${pct(share(list, 'bmFull'))} · ours ${pct(share(list, 'ours'))} · with the memory half: ours ${pct(share(list, 'oursAll'))}, bm25 ${pct(share(list, 'bmAll'))}`,
    )
  }
  const sent = rows.map((r) => r.chars)
  console.log(
    `  recall characters per question: median ${median(sent)}, mean ${Math.round(sent.reduce((a, b) => a + b, 0) / sent.length)}, ` +
      `none sent for ${sent.filter((c) => c === 0).length} of ${sent.length}`,
  )
  console.log(
    `  target: ours above bm25 at equal characters → ${share(rows, 'ours') > share(rows, 'bmEqual') ? 'met' : 'MISSED'}`,
  )
  const missed = rows.filter((r) => r.ours < r.need).map((r) => r.q.text)
  console.log(
    `  questions ours misses evidence of: ${missed.length} (${missed.slice(0, 6).join(' | ')}${missed.length > 6 ? ' | …' : ''})`,
  )
  await store.close()
}

// ---- 2. latency at 10,000 items ----------------------------------------------------------------------------------

async function part2(dir: string) {
  const { facts, questions } = buildEvalSet()
  const many: EvalFact[] = []
  for (let i = 0; many.length < 10_000; i++) {
    const f = facts[i % facts.length]!
    many.push(i < facts.length ? f : { id: `x${i}`, text: `${f.text}（又记 ${i}）`, at: f.at + i })
  }
  const store = await storeWith(dir, 'latency', many)
  const times: number[] = []
  for (let round = 0; round < 5; round++) {
    for (const q of questions) {
      const started = performance.now()
      ours(store, q.text)
      times.push(performance.now() - started)
    }
  }
  times.sort((a, b) => a - b)
  const p = (x: number) => times[Math.min(times.length - 1, Math.floor(x * times.length))]!
  console.log(
    `recall with ${many.length} items, ${times.length} recalls: p50 ${p(0.5).toFixed(2)} ms, p99 ${p(0.99).toFixed(2)} ms, max ${times.at(-1)!.toFixed(2)} ms`,
  )
  console.log(
    `  targets: p50 ≤ 2 ms → ${p(0.5) <= 2 ? 'met' : 'MISSED'}; p99 ≤ 10 ms → ${p(0.99) <= 10 ? 'met' : 'MISSED'}`,
  )
  await store.close()
}

// ---- 3. write cost with and without the index --------------------------------------------------------------------

/** One `memory.add` of one new item into a profile of 10,000, as the tool saves a fact: ms, through the whole store. */
async function saveOne(store: ProfileStore, i: number): Promise<number> {
  const started = performance.now()
  await store.command({
    op: 'memory.add',
    target: { profileId: store.state.activeId },
    items: [{ text: `第${i}次保存的新事实：用户提到了项目${i % 17}的新进展`, source: 'tool' }],
  })
  return performance.now() - started
}

async function part3(dir: string) {
  const { facts } = buildEvalSet()
  const seed = Array.from({ length: 9_000 }, (_, i) => ({
    ...facts[i % facts.length]!,
    id: `s${i}`,
    text: `${facts[i % facts.length]!.text} ${i}`,
  }))
  const store = await storeWith(dir, 'write', seed)
  // "Without": the same store with the index's row upkeep switched off for the write (its revision mark stays, so
  // the next write finds it current and does not rebuild it).
  const { sync, apply } = MemoryIndex.prototype
  const without: number[] = []
  const withIt: number[] = []
  for (let i = 0; i < 400; i++) {
    const off = i % 2 === 0
    MemoryIndex.prototype.sync = off ? () => {} : sync
    MemoryIndex.prototype.apply = off ? () => {} : apply
    ;(off ? without : withIt).push(await saveOne(store, i))
  }
  MemoryIndex.prototype.sync = sync
  MemoryIndex.prototype.apply = apply
  const a = median(without)
  const b = median(withIt)
  // Each write beside its neighbour: on a loaded machine the paired ratios' median is steadier than the medians' ratio.
  const paired = median(withIt.map((x, i) => x / without[i]!))
  console.log(
    `memory.add of one item into a profile of 9,000–9,400 (whole store: validation, history, commit): without the index ${a.toFixed(3)} ms, ` +
      `with it ${b.toFixed(3)} ms (medians of 200 each, interleaved): ${(b / a).toFixed(2)}×; median of the 200 paired ratios ${paired.toFixed(2)}×`,
  )
  console.log(`  target ≤ 1.2× → ${paired <= 1.2 ? 'met' : 'MISSED'}`)
  await store.close()
}

const dir = mkdtempSync(join(tmpdir(), 'ap-recall-bench-'))
try {
  await part1(dir)
  await part2(dir)
  await part3(dir)
} finally {
  rmSync(dir, { recursive: true, force: true })
}
