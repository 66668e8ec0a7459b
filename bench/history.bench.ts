/**
 * Memory history benchmark: what recording a memory write in the history costs, as the p50 (and p90) of a real store
 * command (the SQLite store as the plugin runs it) — `memory.add` of one fact, then `memory.remove` of it, alternating, on a profile whose history
 * is already at its bound — with and without recording, interleaved rounds side by side; and how large the history is
 * after 10,000 memory writes, against its bound (HISTORY_LIMITS).
 * Run: `npm run bench -- history` (Node 22).
 */
import { stat } from 'node:fs/promises'
import { DatabaseSync } from 'node:sqlite'
import { performance } from 'node:perf_hooks'
import { HISTORY_LIMITS, type MemoryItem } from '../lib/state/model.ts'
import { openStore } from '../lib/store/open-store.ts'
import type { ProfileStore } from '../lib/store/store.ts'
import { tempDir } from '../test/support/store-fixtures.ts'

const ROUNDS = 3
const PER_ROUND = 300
const WRITES = 10_000
const P = { profileId: 'general' }

const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))]!
const median = (xs: number[]) => quantile(xs, 0.5)

/** One write: add a fact, or remove the one added last (so the memory stays small and the history grows). */
async function write(store: ProfileStore, i: number): Promise<void> {
  if (i % 2 === 0) {
    await store.command({
      op: 'memory.add',
      target: P,
      items: [
        {
          text: `第 ${i} 条：用户在一个长期项目里反复用到的约定，一句话说清楚`,
          source: 'tool',
          sessionId: 'bench-session',
        },
      ],
    })
  } else {
    const last = store.state.profiles[0]!.memory.items.at(-1) as MemoryItem
    await store.command({ op: 'memory.remove', target: P, itemId: last.id })
  }
}

async function timed(recordHistory: boolean, warm: number): Promise<{ times: number[]; dispose(): Promise<void> }> {
  const t = await tempDir()
  const store = await openStore({ file: t.file, recordHistory })
  // Ten background items, and a history already full: the steady state of a profile in use.
  await store.command({
    op: 'memory.add',
    target: P,
    items: Array.from({ length: 10 }, (_, i) => ({ text: `背景事实 ${i}` })),
  })
  for (let i = 0; i < warm; i++) await write(store, i)
  const times: number[] = []
  for (let i = 0; i < PER_ROUND; i++) {
    const start = performance.now()
    await write(store, warm + i)
    times.push(performance.now() - start)
  }
  return {
    times,
    dispose: async () => {
      await store.close()
      await t.dispose()
    },
  }
}

const p50 = { on: [] as number[], off: [] as number[] }
const p90 = { on: [] as number[], off: [] as number[] }
for (let round = 0; round < ROUNDS; round++) {
  // Interleaved, so load from other processes on the machine falls on both alike.
  for (const mode of round % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const)) {
    const r = await timed(mode === 'on', HISTORY_LIMITS.entries + 20)
    p50[mode].push(median(r.times))
    p90[mode].push(quantile(r.times, 0.9))
    await r.dispose()
  }
}
const ms = (x: number) => `${x.toFixed(3)} ms`
console.log(
  `store command (memory.add / memory.remove alternating, SQLite store, history at its bound), medians of ${ROUNDS} rounds × ${PER_ROUND}:`,
)
console.log(`  with history    p50 ${ms(median(p50.on))}  p90 ${ms(median(p90.on))}`)
console.log(`  without history p50 ${ms(median(p50.off))}  p90 ${ms(median(p90.off))}`)
console.log(`  ratio p50 ${(median(p50.on) / median(p50.off)).toFixed(2)}×`)

// The size after 10,000 writes: in memory (JSON of the lists) and on disk (snapshot + log).
const t = await tempDir()
const store = await openStore({ file: t.file })
const started = performance.now()
for (let i = 0; i < WRITES; i++) await write(store, i)
const took = performance.now() - started
await store.command({ op: 'memory.add', target: { sessionId: 'bench-session' }, items: [{ text: '一条对话记忆' }] })
const lists = store.state.history ?? {}
const entries = Object.values(lists).reduce((n, l) => n + l.length, 0)
const json = JSON.stringify(lists).length
const file = store.file
await store.close()
// The rows of the history table after a checkpoint: what the bound keeps on disk.
const db = new DatabaseSync(file)
db.exec('PRAGMA wal_checkpoint(TRUNCATE)')
const rows = db.prepare('SELECT count(*) AS n, sum(length(data)) AS bytes FROM memory_history').get() as {
  n: number
  bytes: number
}
db.close()
const size = (await stat(file)).size
console.log(
  `after ${WRITES} memory writes (${(took / 1000).toFixed(1)} s): ${Object.keys(lists).length} history lists, ${entries} entries, ${(json / 1024).toFixed(1)} KB of JSON`,
)
console.log(
  `  bound per profile: ${HISTORY_LIMITS.entries} entries / ${HISTORY_LIMITS.chars} characters; per conversation: ${HISTORY_LIMITS.conversationEntries} / ${HISTORY_LIMITS.conversationChars}; ${HISTORY_LIMITS.conversations} conversation lists`,
)
console.log(
  `  on disk: ${rows.n} memory_history rows, ${(rows.bytes / 1024).toFixed(1)} KB of data; whole database ${(size / 1024).toFixed(1)} KB`,
)
await t.dispose()
