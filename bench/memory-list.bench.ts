/**
 * Benchmark of the settings page's memory list (issue #34 item 7, #26): in real headless Chromium, ms per keystroke
 * typing into the list's add box and its search box with 200 and 10,000 items — median and p95, from the input event
 * to the page laid out again — for the list as it is now (MemoryList, windowed) and, side by side in the same run, as
 * it was at 1bd9717 (MemoryItems, bundled from git), which had no search box. Also the time to mount each and how many
 * rows each puts in the page. Target: at most 16 ms per keystroke (one frame at 60 Hz).
 * Run: `npm run bench -- memory-list` (Node 22 strips the types).
 */
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import * as esbuild from 'esbuild'
import type { Page } from 'playwright-core'
import { CHROMIUM, launchBrowser } from '../test/support/browser.ts'
import { ROOT } from '../test/support/dsh.ts'
import { median } from '../test/support/stats.ts'

/** The commit whose list is the baseline. */
const BEFORE = '1bd9717'
const TARGET_MS = 16
/** Keys typed per series; the old list at 10,000 items takes about a second a key, so it gets fewer. */
const KEYS = 40
const SLOW_KEYS = 8
const ADD_LABEL = '写下一条要长期记住的事实'
const SEARCH_LABEL = '搜索记忆'

const p95 = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil(s.length * 0.95) - 1)]!
}

/** The bench page's script: React, today's list and the old one, in one browser bundle. */
async function bundle(): Promise<string> {
  const old = execFileSync('git', ['show', `${BEFORE}:lib/client/common/MemoryItems.tsx`], {
    cwd: ROOT,
    encoding: 'utf8',
  })
  const result = await esbuild.build({
    entryPoints: [join(ROOT, 'bench/memory-list-page.tsx')],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    jsx: 'automatic',
    minify: true,
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'warning',
    plugins: [
      {
        name: 'before',
        setup(build) {
          build.onResolve({ filter: /^before:MemoryItems$/ }, () => ({ path: 'MemoryItems.tsx', namespace: 'before' }))
          // Its imports resolve from where the file lived; the modules it uses are still there.
          build.onLoad({ filter: /.*/, namespace: 'before' }, () => ({
            contents: old,
            loader: 'tsx',
            resolveDir: join(ROOT, 'lib/client/common'),
          }))
        },
      },
    ],
  })
  return result.outputFiles[0]!.text
}

async function series(page: Page, kind: 'before' | 'after', n: number): Promise<void> {
  const mountMs = await page.evaluate(([k, count]) => (globalThis as any).__bench.mount(k, count), [kind, n] as const)
  const rows = await page.evaluate(() => (globalThis as any).__bench.rows() as number)
  const keys = kind === 'before' && n > 1_000 ? SLOW_KEYS : KEYS
  const boxes =
    kind === 'before'
      ? [['add', ADD_LABEL]]
      : [
          ['add', ADD_LABEL],
          ['search', SEARCH_LABEL],
        ]
  const parts = [`mount ${mountMs.toFixed(0)} ms, ${rows} rows in the page`]
  for (const [name, label] of boxes) {
    const times: number[] = await page.evaluate(([l, k]) => (globalThis as any).__bench.type(l, k), [
      label,
      keys,
    ] as const)
    parts.push(`${name} box ${median(times).toFixed(2)} ms median, ${p95(times).toFixed(2)} ms p95 per key (n=${keys})`)
    results.set(`${kind}:${n}:${name}`, median(times))
  }
  if (kind === 'before') parts.push('search box: none before')
  console.log(`${kind === 'before' ? `before (${BEFORE})` : 'after'}, ${n} items: ${parts.join('; ')}`)
}

const results = new Map<string, number>()

if (!existsSync(CHROMIUM)) {
  console.log(`memory list: skipped (no Chromium at ${CHROMIUM})`)
} else {
  const code = await bundle()
  const browser = await launchBrowser()
  try {
    const page = await browser.newPage({ viewport: { width: 1000, height: 900 } })
    await page.setContent('<!doctype html><html><head><meta charset="utf-8"></head><body></body></html>')
    await page.addScriptTag({ content: code })
    for (const n of [200, 10_000]) {
      // Warm-up: the first mount compiles the code paths. Today's list goes first: the old one leaves 10,000 rows'
      // garbage behind, whose collection would land in the next mount's time.
      await page.evaluate((count) => (globalThis as any).__bench.mount('after', count), n)
      await series(page, 'after', n)
      await series(page, 'before', n)
      const before = results.get(`before:${n}:add`)!
      const after = results.get(`after:${n}:add`)!
      console.log(
        `  ${n} items, add box: before / after ${(before / after).toFixed(1)}x; after ${after <= TARGET_MS ? 'within' : 'OVER'} the ${TARGET_MS} ms target` +
          `, search box ${results.get(`after:${n}:search`)! <= TARGET_MS ? 'within' : 'OVER'} it`,
      )
    }
  } finally {
    await browser.close()
  }
}
