/**
 * The recall bench's methods, shared by its parts: a store holding a set's facts, ours (the conversation so far as the
 * query, as lib/memory/recall-install.ts asks it) and main's recall run side by side from a checkout of main, and one
 * fact saved through the whole store. It measures nothing itself.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { heldBy, pickRecall, recallQuery, type Said, type Scored } from '../lib/memory/recall.ts'
import { scopeLists, searchLists } from '../lib/memory/search.ts'
import { turnBudget } from '../lib/memory/recall-install.ts'
import { renderParts } from '../lib/prompt/render.ts'
import { DEFAULT_CONFIG } from '../lib/config/config.ts'
import { openStore } from '../lib/store/open-store.ts'
import type { ProfileStore } from '../lib/store/store.ts'
import { NOW, type EvalFact } from './recall-data.ts'

/** The conversation every method asks for. */
const SESSION = 's-bench-recall'

/** A store on a file of its own under `dir`, whose active profile holds `facts`. */
export async function storeWith(
  dir: string,
  name: string,
  facts: readonly EvalFact[],
  open = openStore,
): Promise<ProfileStore> {
  const store = await open({ file: join(dir, name, 'profiles.json') })
  const items = facts.map((f) => ({ id: f.id, text: f.text, source: 'auto' as const, at: f.at }))
  await store.command({ op: 'profile.update', id: store.state.activeId, patch: { memory: { summary: '', items } } })
  return store
}

/** What one method puts in a request: the memory half's items and characters, and what recall sends. */
export interface Sent {
  core: Set<string>
  coreChars: number
  picks: Scored[]
}

/** The memory half as the plugin renders it for the bench's profile (no user layer, no conversation memories). */
const cores = new WeakMap<object, Map<boolean, { core: Set<string>; coreChars: number }>>()
export function coreOf(store: ProfileStore, recall: boolean): { core: Set<string>; coreChars: number } {
  // Rendered once per profile object, as prompt/install.ts memoises it: the latency part times recall alone.
  const { profile } = store.effective(SESSION)
  const byMode = cores.get(profile) ?? new Map()
  cores.set(profile, byMode)
  let c = byMode.get(recall)
  if (c === undefined) {
    const parts = renderParts(profile, undefined, { memoryBudget: DEFAULT_CONFIG.memoryBudget, recall })
    c = { core: new Set(parts.used.map((u) => u.id)), coreChars: parts.memory.length }
    byMode.set(recall, c)
  }
  return c
}

/**
 * Ours: the conversation so far as the query (`said`, newest last), as recall-install.ts asks it. With `oneBudget`
 * the memory half is the core and recall spends what it leaves of memoryBudget + recallBudget; without, the split
 * main has (the newest items fill the memory half, recall gets recallBudget).
 */
export function ours(store: ProfileStore, said: readonly Said[], oneBudget = true): Sent {
  const { profile, setting } = store.effective(SESSION)
  const lists = scopeLists(store.state, profile, SESSION, setting)
  const q = recallQuery(said.at(-1)!.text, said.slice(0, -1), NOW)
  const { core, coreChars } = coreOf(store, oneBudget)
  const budget = oneBudget ? turnBudget(DEFAULT_CONFIG, coreChars) : DEFAULT_CONFIG.recallBudget
  const picks = pickRecall(
    searchLists(store, lists, q.weights, 60, 1),
    budget,
    (s) => core.has(s.item.id) || heldBy(s.item.text, q),
  )
  return { core, coreChars, picks }
}

/**
 * Main's recall, run side by side from a checkout of main (`RECALL_BASE`, default /work/wt/base): its own store,
 * index and memory half on the same facts, the new message as the question and the last two user messages as its
 * context.
 */
export interface Base {
  store: ProfileStore
  recall(said: readonly Said[]): Sent
  /** Render the memory half of the profile as it is now (the host does it for the system prompt before recall). */
  core(): void
}
export async function baseRecall(dir: string, facts: readonly EvalFact[]): Promise<Base | undefined> {
  const root = process.env.RECALL_BASE ?? '/work/wt/base'
  if (!existsSync(join(root, 'lib/memory/recall.ts'))) return undefined
  const r = await import(join(root, 'lib/memory/recall.ts'))
  const s = await import(join(root, 'lib/memory/search.ts'))
  const o = await import(join(root, 'lib/store/open-store.ts'))
  const render = await import(join(root, 'lib/prompt/render.ts'))
  const store = await storeWith(dir, `base-${facts.length}`, facts, o.openStore)
  const memo = new WeakMap<object, { core: Set<string>; chars: number }>()
  const coreNow = () => {
    const { profile } = store.effective(SESSION)
    let rendered = memo.get(profile)
    if (rendered === undefined) {
      const parts = render.renderParts(profile, undefined, {
        memoryBudget: DEFAULT_CONFIG.memoryBudget,
        recall: true,
      })
      rendered = { core: new Set<string>(parts.used.map((u: { id: string }) => u.id)), chars: parts.memory.length }
      memo.set(profile, rendered)
    }
    return rendered
  }
  return {
    store,
    core: () => void coreNow(),
    recall: (said) => {
      const { profile, setting } = store.effective(SESSION)
      const rendered = coreNow()
      const core = rendered.core
      const lists = s.scopeLists(store.state, profile, SESSION, setting)
      // main asks as this branch does (the conversation so far, the new message first) and spends one budget.
      const q = r.recallQuery(said.at(-1)!.text, said.slice(0, -1), NOW)
      const budget = DEFAULT_CONFIG.recallBudget + Math.max(0, DEFAULT_CONFIG.memoryBudget - rendered.chars)
      const picks = r.pickRecall(
        s.searchLists(store, lists, q.weights, 60, 1),
        budget,
        (x: Scored) => core.has(x.item.id) || r.heldBy(x.item.text, q),
      )
      return { core, coreChars: rendered.chars, picks }
    },
  }
}

/** One `memory.add` of one new item into a profile of 10,000, as the tool saves a fact: ms, through the whole store. */
export async function saveOne(store: ProfileStore, i: number, keyed = false): Promise<number> {
  const started = performance.now()
  // The keys an extraction writes after a fact: names, places, a date in standard form, the other language.
  const keys = keyed ? { keys: `项目${i % 17}, project ${i % 17}, 进展, progress, 杭州, Hangzhou, 2025-03` } : {}
  await store.command({
    op: 'memory.add',
    target: { profileId: store.state.activeId },
    items: [{ text: `第${i}次保存的新事实：用户提到了项目${i % 17}的新进展`, source: 'auto', ...keys }],
  })
  return performance.now() - started
}
