/**
 * For the benchmarks driving Chromium: the moment an open settings page shows a new name, stamped in the page itself
 * (a MutationObserver, the epoch clock of this machine, so it compares with a stamp taken anywhere here).
 */
import type { Page } from 'playwright-core'

/** A settings page's moment of showing `name` on profile `id`, armed before the rename is sent. */
export async function armed(page: Page, id: string, name: string): Promise<{ seen: Promise<number> }> {
  const seen = page.evaluate(
    ({ id, name }) =>
      new Promise<number>((resolve) => {
        const shown = (): boolean =>
          document.querySelector(`.ap-settings .ap-list-item[data-profile-id="${id}"]`)?.textContent?.includes(name) ===
          true
        const observer = new MutationObserver(() => {
          if (!shown()) return
          observer.disconnect()
          resolve(performance.timeOrigin + performance.now())
        })
        observer.observe(document.body, { subtree: true, childList: true, characterData: true })
      }),
    { id, name },
  )
  // The observer is in place before the command goes out.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(r)))
  // Wrapped: an async function returning the promise itself would wait for it.
  return { seen }
}
