/**
 * Keyboard reach in real Chromium, for the e2e specs that check a page can be used with the keyboard alone: Tab to a
 * control, whether the focus is on one, a Tab sweep that marks every element it lands on, and the controls a sweep
 * missed. It asserts nothing; the spec says what must be reached.
 */
import type { Page } from 'playwright-core'

/** Press Tab (Shift+Tab when `back`) until the focused element matches `selector`. */
export async function tabTo(page: Page, selector: string, back = false): Promise<void> {
  for (let i = 0; i < 120; i++) {
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab')
    if (await focusedIs(page, selector)) return
  }
  throw new Error(`Tab never reached ${selector}`)
}

/** Whether the focused element matches `selector`. */
export const focusedIs = (page: Page, selector: string): Promise<boolean> =>
  page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)

/**
 * Press Tab from the focus until it leaves `within` (the settings page), marking every element it lands on (and the one
 * it starts on).
 */
export async function sweep(page: Page, within = '.ap-settings'): Promise<void> {
  await page.evaluate(() => {
    for (const el of document.querySelectorAll('[data-reached]')) el.removeAttribute('data-reached')
    document.activeElement?.setAttribute('data-reached', '')
  })
  for (let i = 0; i < 150; i++) {
    await page.keyboard.press('Tab')
    const inside = await page.evaluate((w) => {
      const el = document.activeElement
      if (el === null || el.closest(w) === null) return false
      el.setAttribute('data-reached', '')
      return true
    }, within)
    if (!inside) return
  }
  throw new Error('Tab never left the page')
}

/** The enabled, visible controls under `scope` that the last sweep missed (a radio group counts once). */
export function unreached(page: Page, scope: string): Promise<string[]> {
  return page.evaluate((s) => {
    const controls = [...document.querySelectorAll<HTMLElement>(s)]
      .flatMap((root) => [
        root,
        ...root.querySelectorAll<HTMLElement>('a[href], button, input, select, textarea, [tabindex]'),
      ])
      .filter(
        (el) =>
          el.matches(':not(:disabled):not([tabindex="-1"])') &&
          el.checkVisibility() &&
          !(el instanceof HTMLInputElement && el.type === 'file'),
      )
      .filter((el) => el.matches('a[href], button, input, select, textarea, [tabindex="0"]'))
    const missed = controls.filter(
      (el) =>
        !el.hasAttribute('data-reached') &&
        !(
          el instanceof HTMLInputElement &&
          el.type === 'radio' &&
          controls.some(
            (o) => o !== el && o instanceof HTMLInputElement && o.name === el.name && o.hasAttribute('data-reached'),
          )
        ),
    )
    return missed.map(
      (el) =>
        `${el.tagName.toLowerCase()} "${(el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 40)}"`,
    )
  }, scope)
}
