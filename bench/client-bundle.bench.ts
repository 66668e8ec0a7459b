/**
 * Benchmark of the browser half:
 *  - the bundle `dist/client.js` as the build makes it (minified, React left to the host): raw and gzipped bytes,
 *    against the 60 KB gzipped target;
 *  - time from choosing "Agent profiles" in the settings navigation to the list being on screen and clickable, and to
 *    every avatar in it decoded, in real Chromium against the real `dsh web` (offline model), with 100 profiles with
 *    avatars, against the factory state (3 profiles, no avatars) as the baseline. Each run reloads the page, so the
 *    state is fetched and rendered from scratch (avatars may come from the browser cache after the warm-up loads).
 * Run: `node --experimental-strip-types bench/client-bundle.bench.ts` (Node 22), or `npm run bench`.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import type { Page } from 'playwright-core'
// @ts-expect-error -- plain ESM build script shared with npm scripts; it has no type declarations.
import { build } from '../scripts/build.mjs'
import { CHROMIUM, startBrowserApp } from '../test/support/browser.ts'
import { ROOT } from '../test/support/dsh.ts'
import { pngDataUrl } from '../test/support/png.ts'
import { median } from '../test/support/stats.ts'

const TARGET_GZIP = 60 * 1024
const TARGET_MS = 500
const RUNS = 9
/** Page loads thrown away before each series: the app finishes its own start-up work in the first ones. */
const WARMUP = 2
const PROFILES = 100

const kb = (n: number): string => `${(n / 1024).toFixed(1)} KB`

async function bundleSize(): Promise<void> {
  await build({ minify: true })
  const code = readFileSync(join(ROOT, 'dist', 'client.js'))
  const gz = gzipSync(code, { level: 9 }).length
  console.log(
    `client bundle: raw ${kb(code.length)} (${code.length} B), gzip -9 ${kb(gz)} (${gz} B); ` +
      `${((gz / TARGET_GZIP) * 100).toFixed(0)}% of the ${kb(TARGET_GZIP)} target`,
  )
}

/** Open our page from the navigation; resolve with ms to 100% of rows rendered and to every avatar decoded. */
function openAndTime(page: Page, rows: number, avatars: number): Promise<{ list: number; images: number }> {
  return page.evaluate(
    async ({ rows, avatars }) => {
      const nav = [...document.querySelectorAll<HTMLButtonElement>('[role="dialog"] button')].find(
        (b) => b.textContent?.trim() === 'Agent profiles',
      )
      if (nav === undefined) throw new Error('no "Agent profiles" in the settings navigation')
      const t0 = performance.now()
      nav.click()
      let listAt = -1
      return new Promise<{ list: number; images: number }>((resolve) => {
        const check = (): void => {
          const items = document.querySelectorAll('.ap-list-item')
          if (listAt < 0 && items.length >= rows) listAt = performance.now()
          if (listAt >= 0) {
            const imgs = [...document.querySelectorAll<HTMLImageElement>('.ap-list-item img')]
            if (imgs.length >= avatars && imgs.every((i) => i.complete && i.naturalWidth > 0)) {
              resolve({ list: listAt - t0, images: performance.now() - t0 })
              return
            }
          }
          requestAnimationFrame(check)
        }
        check()
      })
    },
    { rows, avatars },
  )
}

async function pageTimes(): Promise<void> {
  if (!existsSync(CHROMIUM)) {
    console.log(`page-interactive time: skipped (no Chromium at ${CHROMIUM})`)
    return
  }
  const app = await startBrowserApp({ lang: 'en' })
  try {
    const { page } = app
    const measure = async (label: string, rows: number, avatars: number): Promise<number[]> => {
      const lists: number[] = []
      const images: number[] = []
      for (let i = -WARMUP; i < RUNS; i++) {
        await page.reload()
        await page.getByRole('button', { name: 'Settings' }).first().click({ timeout: 30_000 })
        const r = await openAndTime(page, rows, avatars)
        if (i < 0) continue
        lists.push(r.list)
        images.push(r.images)
      }
      console.log(
        `${label}: list on screen median ${median(lists).toFixed(0)} ms (max ${Math.max(...lists).toFixed(0)} ms), ` +
          `all avatars decoded median ${median(images).toFixed(0)} ms (max ${Math.max(...images).toFixed(0)} ms), n=${RUNS} after ${WARMUP} warm-up loads`,
      )
      return lists
    }
    const base = await measure('factory state, 3 profiles without avatars', 3, 0)

    const profiles = Array.from({ length: PROFILES }, (_, i) => ({
      id: `bench${i}`,
      name: `配置 ${i}`,
      emoji: '🙂',
      avatar: pngDataUrl(192, 192, i),
      role: `角色 ${i}`,
      personality: '',
      speakingStyle: '',
      rules: '',
      memoryEnabled: true,
      memory: { summary: '', items: [] },
      createdAt: 1,
      updatedAt: 1,
    }))
    const payload = {
      format: 'dsh-agent-profiles',
      version: 1,
      exportedAt: new Date().toISOString(),
      activeId: 'bench0',
      profiles,
    }
    await app.host.command({ op: 'state.import', mode: 'replace', payload })
    const many = await measure(`${PROFILES} profiles with avatars`, PROFILES, PROFILES)
    console.log(
      `ratio ${PROFILES} profiles / factory: ${(median(many) / median(base)).toFixed(2)}x; target ${TARGET_MS} ms`,
    )
  } finally {
    await app.close()
  }
}

await bundleSize()
await pageTimes()
