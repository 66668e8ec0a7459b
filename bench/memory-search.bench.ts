/**
 * Benchmark of the settings page's memory search on the host (issue #40 item 7): how long one `GET
 * /__ap/memory/search` query holds the event loop (`listMemory` runs synchronously) on a list of 10,000 items, for a
 * plain query, the probe's query of 100 one-character words, one letter-laden query beside a real word, and the
 * most a query may now ask (8 different one-character words). Measured with this code and, side by side on a copy
 * of the same data, with the code of `AP_BASELINE` (a checkout; default /work/wt/base). Medians of ROUNDS runs; a
 * refused query is timed too (the refusal is what it costs).
 * Run: `npm run bench -- memory-search` (Node 22 strips the types).
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { openStore } from '../lib/store/open-store.ts'
import { listMemory } from '../lib/memory/list.ts'
import { MemorySearchQuery } from '../lib/shared/wire-inputs.ts'
import { parse } from '../lib/validate/core.ts'
import type { MemoryItem } from '../lib/state/model.ts'
import type { ProfileStore } from '../lib/store/store.ts'
import { median } from '../test/support/stats.ts'

const ROUNDS = 30
const ITEMS = 10_000
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789'
const SEARCHES: [string, string][] = [
  ['"杭州"', '杭州'],
  ['100 one-character words', Array.from({ length: 100 }, (_, i) => ALPHABET[i % ALPHABET.length]).join(' ')],
  ['99 letters and "杭州"', `${'a '.repeat(99)}杭州`],
  ['8 one-character words', 'a b c d e f g h'],
]

/** The median ms one query holds the event loop, and whether it was refused. */
function timeSearch(run: () => unknown): string {
  const times: number[] = []
  let refused = false
  for (let i = 0; i <= ROUNDS; i++) {
    const t0 = performance.now()
    try {
      run()
    } catch {
      refused = true
    }
    // The first run warms the statement cache and the JIT.
    if (i > 0) times.push(performance.now() - t0)
  }
  return `${median(times).toFixed(2)} ms${refused ? ' (refused)' : ''}`
}

const dir = mkdtempSync(join(tmpdir(), 'ap-bench-search-'))
try {
  const file = join(dir, 'profiles.sqlite')
  const seed = await openStore({ file })
  const owner = seed.state.activeId
  const items: MemoryItem[] = Array.from({ length: ITEMS }, (_, i) => ({
    id: `m${i}`,
    text: i % 7 === 0 ? `第${i}条：我住在杭州西湖边` : `fact number ${i} about topic ${i % 13}, a note to keep`,
    source: 'user',
    at: 1_700_000_000_000 + i * 60_000,
  }))
  await seed.command({ op: 'profile.update', id: owner, patch: { memory: { summary: '', items } } })
  await seed.close()
  copyFileSync(file, join(dir, 'base.sqlite'))
  // This code reads the URL's query by its schema at the door (timed with the search); the baseline took the raw
  // values (nulls for those not given) and checked them inside the list.
  const query = (q: string) => parse(MemorySearchQuery, { layer: 'profile', owner, q }, '', '')
  const baseQuery = (q: string) => ({
    layer: 'profile',
    owner,
    q,
    source: [],
    archived: null,
    pending: null,
    offset: null,
    limit: null,
  })
  const baseline = process.env.AP_BASELINE ?? '/work/wt/base'
  const after = await openStore({ file })
  let base: { list: { listMemory: (store: ProfileStore, query: unknown) => unknown }; store: ProfileStore } | undefined
  if (existsSync(join(baseline, 'lib/memory/list.ts'))) {
    const opener = (await import(
      join(baseline, 'lib/store/open-store.ts')
    )) as typeof import('../lib/store/open-store.ts')
    base = {
      list: (await import(join(baseline, 'lib/memory/list.ts'))) as {
        listMemory: (store: ProfileStore, query: unknown) => unknown
      },
      store: await opener.openStore({ file: join(dir, 'base.sqlite') }),
    }
  }
  console.log(`memory search route, ${ITEMS} items: event loop held per query, median of ${ROUNDS}`)
  for (const [name, q] of SEARCHES) {
    const now = timeSearch(() => listMemory(after, query(q)))
    const before = base === undefined ? 'no baseline' : timeSearch(() => base.list.listMemory(base.store, baseQuery(q)))
    console.log(`  ${name.padEnd(26)} after ${now}; before (${baseline}) ${before}`)
  }
  await after.close()
  await base?.store.close()
} finally {
  rmSync(dir, { recursive: true, force: true })
}
