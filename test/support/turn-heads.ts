/**
 * The turn heads our page draws in the host's conversation, read in real Chromium for the e2e specs that check who
 * answered each turn (switcher, live, speakers-browser). It asserts nothing; the spec says what must be shown.
 */
import type { Page } from 'playwright-core'

/** One turn head as shown. */
export interface ShownHead {
  /** The profile that answered the turn. */
  id: string | null
  name: string
  /** The avatar's state (`image` once an image shows), null for none. */
  avatar: string | null
  /** Whether the avatar's image has loaded. */
  loaded: boolean
  /** The host's own reply renderer, drawn right after our head as its sibling. */
  reply: string
}

/**
 * Wait until `count` turn heads are shown and settled (the turn ledger has answered for each, `data-ap-source`
 * says so, and its name is there), then read every head on the page. A head shows the profile in effect now until
 * the ledger answers (after a reload, a turn answered by another profile shows the current one for a moment), so a
 * named head alone is not yet the answer.
 */
export async function readTurnHeads(page: Page, count: number): Promise<ShownHead[]> {
  await page.waitForFunction(
    (n) =>
      [...document.querySelectorAll('[data-ap-turn-head][data-profile-id]')]
        .slice(0, n)
        .filter(
          (el) =>
            el.getAttribute('data-ap-source') === 'ledger' &&
            (el.querySelector('.ap-turn-head-name')?.textContent ?? '') !== '',
        ).length >= n,
    count,
    { timeout: 60_000 },
  )
  return page.locator('[data-ap-turn-head][data-profile-id]').evaluateAll((els) =>
    els.map((el) => {
      const img = el.querySelector('img')
      return {
        id: el.getAttribute('data-profile-id'),
        name: el.querySelector('.ap-turn-head-name')?.textContent ?? '',
        avatar: el.querySelector('[data-avatar-state]')?.getAttribute('data-avatar-state') ?? null,
        loaded: img !== null && img.complete && img.naturalWidth > 0,
        reply: el.nextElementSibling?.textContent ?? '',
      }
    }),
  )
}

/** The profile and name of every turn head, once `count` are shown and settled (see {@link readTurnHeads}). */
export async function headNames(page: Page, count: number): Promise<Array<{ id: string | null; name: string }>> {
  return (await readTurnHeads(page, count)).map(({ id, name }) => ({ id, name }))
}
