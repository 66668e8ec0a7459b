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
 *     Targets: p50 ≤ 2 ms, p99 ≤ 10 ms. Also the recall right after a write (the list is a new version), as the turn
 *     after the background job saved a fact meets it.
 *  3. The cost of an item write with the index against the same write without it: one `memory.add` of one item
 *     through the whole store into a profile of about 9,000 items, the index's upkeep switched off for every other
 *     write. Target ≤ 1.2×.
 * Run: `npm run bench -- recall` (Node 22).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { lineSize, RECALL_HEAD, type Said, type Scored } from '../lib/memory/recall.ts'
import { MemoryIndex } from '../lib/store/db/memory-index.ts'
import type { ProfileStore } from '../lib/store/store.ts'
import type { MemoryItem } from '../lib/state/model.ts'
import { median } from '../test/support/stats.ts'
import { buildEvalSet } from './recall-data.ts'
import { buildDialogueSet } from './recall-dialogues.ts'
import { baseRecall, ours, saveOne, storeWith, type Base, type Sent } from './recall-methods.ts'
import { latency, latencyAfterWrite } from './recall-latency.ts'

const pct = (x: number) => `${(x * 100).toFixed(1)} %`

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

const charsOf = (picks: readonly Scored[]) =>
  picks.reduce((n, s) => n + lineSize(s), picks.length > 0 ? RECALL_HEAD.length : 0)
const total = (x: Sent) => x.coreChars + charsOf(x.picks)

/** One case of a set: what was said (a question is one user message), the evidence, and how to group it. */
interface Case {
  said: Said[]
  evidence: string[]
  groups: string[]
}

/**
 * Every method over one set, counting what reaches the model in all (the memory half and recall): each plain BM25
 * ranking is cut at the characters ours sent for that case in all (equal characters). Prints the share of the
 * evidence each gets per group, the characters, and how often recall sent something where nothing was needed.
 */
function evaluate(
  title: string,
  cases: readonly Case[],
  store: ProfileStore,
  items: readonly MemoryItem[],
  base?: Base,
) {
  const bm25 = plainBm25(items)
  const methods = ['ours', "ours, main's split", 'main', 'bm25 same query', 'bm25 whole conversation'] as const
  type Method = (typeof methods)[number]
  type Row = { c: Case; got: Record<Method, number>; chars: Record<Method, number>; recalled: Record<Method, number> }
  const rows: Row[] = []
  for (const c of cases) {
    const mine = ours(store, c.said)
    const split = ours(store, c.said, false)
    const theirs = base?.recall(c.said) ?? { core: new Set<string>(), coreChars: 0, picks: [] }
    const chars = total(mine)
    const has = (x: Sent) => c.evidence.filter((id) => x.core.has(id) || x.picks.some((p) => p.item.id === id)).length
    const plain = (text: string): Sent => ({ core: new Set(), coreChars: 0, picks: cut(bm25(text), chars) })
    if (process.env.RECALL_DEBUG !== undefined && has(mine) < c.evidence.length) {
      console.log(
        `  ? ${c.said.map((m) => m.text).join(' / ')} → ours ${has(mine)}, main ${has(theirs)} of ${c.evidence.length}`,
      )
      for (const p of mine.picks.slice(0, 4))
        console.log(`      ${p.score.toFixed(2)} ${c.evidence.includes(p.item.id) ? '✓' : ' '} ${p.item.text}`)
    }
    const sent: Record<Method, Sent> = {
      ours: mine,
      "ours, main's split": split,
      main: theirs,
      'bm25 same query': plain(c.said.at(-1)!.text),
      'bm25 whole conversation': plain(c.said.map((m) => m.text).join('\n')),
    }
    const by = <T>(f: (x: Sent) => T) => Object.fromEntries(methods.map((m) => [m, f(sent[m])])) as Record<Method, T>
    rows.push({ c, got: by(has), chars: by(total), recalled: by((x) => charsOf(x.picks)) })
  }
  const shown = methods.filter((m) => base !== undefined || m !== 'main')
  console.log(title)
  const groups = [...new Set(['all', ...cases.flatMap((c) => c.groups)])]
  for (const g of groups) {
    const list = rows.filter((r) => g === 'all' || r.c.groups.includes(g))
    const need = list.reduce((n, r) => n + r.c.evidence.length, 0)
    if (need === 0) continue
    const share = (m: Method) => list.reduce((n, r) => n + r.got[m], 0) / need
    console.log(
      `  ${g.padEnd(10)} (${String(list.length).padStart(2)}): ${shown.map((m) => `${m} ${pct(share(m))}`).join(' · ')}` +
        ` · ours / bm25 same query ${(share('ours') / Math.max(1e-9, share('bm25 same query'))).toFixed(2)}×` +
        ` · ours / bm25 whole ${(share('ours') / Math.max(1e-9, share('bm25 whole conversation'))).toFixed(2)}×`,
    )
  }
  const mean = (m: Method, k: 'chars' | 'recalled') => Math.round(rows.reduce((n, r) => n + r[k][m], 0) / rows.length)
  console.log(
    `  memory characters per request (memory half + recall), mean: ${shown
      .filter((m) => !m.startsWith('bm25'))
      .map((m) => `${m} ${mean(m, 'chars')} (recall ${mean(m, 'recalled')})`)
      .join(' · ')}`,
  )
  const idle = rows.filter((r) => r.c.evidence.length === 0)
  if (idle.length > 0)
    console.log(
      `  cases needing no memory where recall sent something: ${shown
        .filter((m) => !m.startsWith('bm25'))
        .map((m) => `${m} ${idle.filter((r) => r.recalled[m] > 0).length} of ${idle.length}`)
        .join(', ')}`,
    )
  const missed = rows.filter((r) => r.got.ours < r.c.evidence.length).map((r) => r.c.said.at(-1)!.text)
  console.log(
    `  ours misses evidence of ${missed.length}: ${missed.slice(0, 8).join(' | ')}${missed.length > 8 ? ' | …' : ''}`,
  )
}

async function part1(dir: string) {
  const { facts, questions } = buildEvalSet()
  const dialogues = buildDialogueSet(facts)
  const store = await storeWith(dir, 'eval', facts)
  const base = await baseRecall(dir, facts)
  const profile = store.state.profiles.find((p) => p.id === store.state.activeId)!
  console.log(
    `${facts.length} facts over ${Math.round((facts.at(-1)!.at - facts[0]!.at) / 86_400_000)} days; evidence the model receives at equal characters of memory` +
      (base === undefined ? ' (no checkout of main to compare)' : ' (base: main, side by side)'),
  )
  evaluate(
    `questions (${questions.length}), each the first message of a new conversation:`,
    questions.map((q) => ({ said: [{ role: 'user', text: q.text }], evidence: q.evidence, groups: [q.kind, q.lang] })),
    store,
    profile.memory.items,
    base,
  )
  evaluate(
    `dialogues (${dialogues.length}), the next reply after the conversation so far:`,
    dialogues.map((d) => ({ said: d.said, evidence: d.evidence, groups: [d.lang] })),
    store,
    profile.memory.items,
    base,
  )
  await store.close()
  await base?.store.close()
}

// ---- 3. write cost with and without the index --------------------------------------------------------------------

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
  // With the index on for both: the same write with the search keys an extraction adds, against it without them.
  const plain: number[] = []
  const keyed: number[] = []
  for (let i = 0; i < 400; i++) (i % 2 === 0 ? plain : keyed).push(await saveOne(store, 1_000 + i, i % 2 === 1))
  const pairedKeys = median(keyed.map((x, i) => x / plain[i]!))
  console.log(
    `memory.add of one item with its search keys: without keys ${median(plain).toFixed(3)} ms, with them ${median(keyed).toFixed(3)} ms ` +
      `(medians of 200 each, interleaved); median of the paired ratios ${pairedKeys.toFixed(2)}× (target ≤ 1.2× → ${pairedKeys <= 1.2 ? 'met' : 'MISSED'})`,
  )
  await store.close()
}

const dir = mkdtempSync(join(tmpdir(), 'ap-recall-bench-'))
try {
  // RECALL_PARTS=1 (or 2,3) runs only those parts.
  const parts = (process.env.RECALL_PARTS ?? '1,2,3').split(',')
  if (parts.includes('1')) await part1(dir)
  if (parts.includes('2')) await latency(dir)
  if (parts.includes('2')) await latencyAfterWrite(dir)
  if (parts.includes('3')) await part3(dir)
} finally {
  rmSync(dir, { recursive: true, force: true })
}
