/**
 * Every message in the user's language, in real Chromium against the real `dsh web` (offline model): an English
 * page after the commonest actions (pinning a conversation, saving its settings, adding, editing and deleting
 * memory items, saving About you) shows no Chinese anywhere this plugin draws, notices included, and says "1 memory"
 * for one; a Chinese page after an incognito refusal shows neither the model's tool text nor English of ours; the
 * English Diagnostics say why a row was set aside and why a memory run was skipped, in English.
 * The profiles are given English names first, so that any Chinese on the English page is ours, not the user's.
 * Screenshots go to test-artifacts/.
 */
import { DatabaseSync } from 'node:sqlite'
import type { Browser, Locator, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  launchBrowser,
  openApp,
  openSection,
  openSettings,
  openWorkspace,
  screenshot,
  screenshotOnFailure,
  send,
} from '../support/browser.ts'
import { bootHost, type Host } from '../support/host-api.ts'
import { startModelServer, type ModelServer } from '../support/model-server.ts'

/** Chinese, Japanese and full-width characters and punctuation. */
const CJK = /[\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]/

/** The user's own words on the pages (profile names, facts, the note): data, not copy. */
const USER_WORDS = [
  'Helper',
  'Writer',
  'Likes',
  'green',
  'tea',
  'Old',
  'fact',
  'Prefers',
  'short',
  'answers',
  'The',
  'user',
  'lives',
  'Lisbon',
  'Answer',
  'briefly',
]

let model: ModelServer
let host: Host
let browser: Browser
let page: Page
let errors: string[]

/** The text of everything this plugin drew on the page (the host's own UI and the transcript are not ours). */
const ourText = (p: Page): Promise<string> =>
  p.evaluate(() => [...document.querySelectorAll('.ap-root')].map((el) => (el as HTMLElement).innerText).join('\n'))
/** The texts of every notice and error this plugin shows now (toasts, the page's and panels' status lines, alerts). */
const notices = (p: Page): Promise<string[]> =>
  p.evaluate(() =>
    [
      ...document.querySelectorAll(
        '.ap-root [role="status"], .ap-root[role="status"], .ap-root [role="alert"], .ap-root[role="alert"], .ap-notice',
      ),
    ]
      .map((el) => (el as HTMLElement).innerText.trim())
      .filter((s) => s !== ''),
  )
const cjkIn = (texts: readonly string[]): string[] => texts.filter((s) => CJK.test(s))

/** Every notice shown over the run, for the last check. */
const seen: string[] = []
async function noticeSays(p: Page, text: string | RegExp): Promise<string> {
  const locator = p.locator('.ap-root [role="status"], .ap-root[role="status"], .ap-notice', { hasText: text }).first()
  await locator.waitFor({ timeout: 15_000 })
  const said = (await locator.innerText()).trim()
  seen.push(said)
  return said
}

beforeAll(async () => {
  model = await startModelServer()
  // Extraction after every turn, so that the incognito conversation's skipped run shows in Diagnostics.
  host = await bootHost(model, { patch: '- id: agent-profiles\n  config:\n    memory:\n      everyTurns: 1\n' })
  await host.command({
    op: 'state.import',
    mode: 'replace',
    payload: {
      format: 'dsh-agent-profiles',
      version: 1,
      activeId: 'helper',
      profiles: [
        {
          id: 'helper',
          name: 'Helper',
          emoji: '🙂',
          role: 'You help.',
          memory: {
            summary: '',
            items: [
              { id: 'm-tea', text: 'Likes tea' },
              { id: 'm-old', text: 'Old fact' },
            ],
          },
        },
        { id: 'writer', name: 'Writer', emoji: '✍️', role: 'You write.' },
      ],
    },
  })
  browser = await launchBrowser()
  ;({ page, errors } = await openApp(browser, host.web.url, { lang: 'en' }))
}, 180_000)

afterEach(async (context) => {
  await screenshotOnFailure(page, context, 'i18n')
})

afterAll(async () => {
  await browser?.close()
  await host?.stop()
  await model?.close()
})

describe('an English page', () => {
  const editor = (): Locator => page.locator('.ap-editor')

  it('pins a conversation and saves its settings, told in English', async () => {
    await openWorkspace(page)
    const trigger = page.locator('.ap-switcher-trigger')
    await trigger.filter({ hasText: 'Default' }).waitFor({ timeout: 60_000 })
    await trigger.click()
    await page.getByRole('menuitemradio', { name: /Writer/ }).click()
    expect(await noticeSays(page, 'Writer')).toBe('This conversation now uses "Writer" from the next turn')
    await trigger.filter({ hasText: 'Pinned' }).waitFor({ timeout: 10_000 })
    await page.locator('.ap-switcher-gear').click()
    const panel = page.getByRole('dialog', { name: 'This conversation' })
    await panel.getByRole('textbox').first().fill('Answer briefly')
    await panel.getByRole('button', { name: 'Save', exact: true }).click()
    await noticeSays(page, /next turn/)
    expect(cjkIn(await notices(page))).toEqual([])
    expect(cjkIn([await ourText(page)])).toEqual([])
    await panel.getByRole('button', { name: 'Close' }).click()
  })

  it('adds, edits and deletes memory items and saves them, told in English', async () => {
    await openSettings(page)
    await openSection(page, 'Memory')
    await editor().getByLabel('A fact to remember long-term').fill('Prefers short answers')
    await editor().getByRole('button', { name: 'Add', exact: true }).click()
    await editor().locator('.ap-memory-item', { hasText: 'Likes tea' }).getByRole('button', { name: 'Edit' }).click()
    const editing = editor()
      .locator('.ap-memory-item')
      .filter({ has: page.getByRole('button', { name: 'Done' }) })
    await editing.getByRole('textbox', { name: 'Edit', exact: true }).fill('Likes green tea')
    await editing.getByRole('button', { name: 'Done' }).click()
    await editor().locator('.ap-memory-item', { hasText: 'Old fact' }).getByRole('button', { name: 'Delete' }).click()
    await editor().getByRole('button', { name: 'Save', exact: true }).click()
    expect(await noticeSays(page, /^Saved "/)).toBe('Saved "Helper"')
    expect((await host.profile('helper')).memory.items.map((it) => it.text).sort()).toEqual([
      'Likes green tea',
      'Prefers short answers',
    ])
    expect(cjkIn(await notices(page))).toEqual([])
    expect(cjkIn([await ourText(page)])).toEqual([])
  })

  it('saves About you with one fact, in English and in the singular', async () => {
    await openSection(page, 'About you')
    const about = page.locator('.ap-about-you')
    await about.getByLabel('A fact to remember long-term').fill('The user lives in Lisbon')
    await about.getByRole('button', { name: 'Add', exact: true }).click()
    await about.getByRole('button', { name: 'Save', exact: true }).click()
    expect(await noticeSays(page, /^Saved \d+ memor/)).toBe('Saved 1 memory about you')
    await screenshot(page, 'i18n-en-about-you')
    expect(cjkIn(await notices(page))).toEqual([])
    expect(cjkIn([await ourText(page)])).toEqual([])
  })

  it('showed no Chinese in any notice along the way, and threw no error', () => {
    expect(seen.length).toBeGreaterThanOrEqual(4)
    expect(cjkIn(seen)).toEqual([])
    expect(errors).toEqual([])
  })
})

describe('a Chinese page', () => {
  it("after an incognito refusal shows neither the model's tool text nor English of ours", async () => {
    const zh = (await openApp(browser, host.web.url, { lang: 'zh' })).page
    try {
      // The workspace the English page chose is the host's: this page may start with it open already.
      await zh.locator('textarea').first().click({ timeout: 30_000 })
      await zh
        .getByRole('button', { name: /^(Open|打开)$/ })
        .click({ timeout: 5_000 })
        .catch(() => undefined)
      await zh
        .locator('.ap-switcher-trigger')
        .filter({ hasText: /已固定|跟随默认/ })
        .waitFor({ timeout: 60_000 })
      await zh.locator('.ap-switcher-gear').click()
      const panel = zh.getByRole('dialog', { name: '本对话设定' })
      await panel.getByRole('checkbox', { name: /无痕/ }).click()
      expect(await noticeSays(zh, '无痕')).toBe('本对话已开启无痕：仍会读取记忆，但不再写入任何记忆')
      await panel.getByRole('button', { name: '关闭' }).click()
      await send(zh, '请记住我喜欢乌龙茶')
      const row = zh.locator('[data-ap-memory-save="failed"]')
      await row.waitFor({ timeout: 60_000 })
      await screenshot(zh, 'i18n-zh-incognito-refusal')
      // The tool's text for the model (a refusal with an Error prefix) is nowhere on the page but in the model's own
      // answer, where the offline model quotes its tool result (a line starting 「（离线模型）」: the transcript).
      const whole = (await zh.evaluate(() => document.body.innerText))
        .split('\n')
        .filter((line) => !line.startsWith('（离线模型）'))
      expect(whole.filter((line) => /用户为本对话开启了无痕模式|不要再尝试|Error:/.test(line))).toEqual([])
      expect(whole.join('\n')).toContain('没有记住：本对话开着无痕，不写入任何记忆。')
      // Ours says it in Chinese: no English word but the user's data and the tool's name.
      const english = (await ourText(zh)).match(/[A-Za-z]{2,}/g) ?? []
      expect(english.filter((w) => !USER_WORDS.includes(w) && w !== 'memory_save')).toEqual([])
      expect((await notices(zh)).every((s) => !/[A-Za-z]{3,}/.test(s.replace(/Helper|Writer|memory_save/g, '')))).toBe(
        true,
      )
    } finally {
      await zh.close()
    }
  })
})

describe('English diagnostics', () => {
  it('say in English why a row was set aside and why a memory run was skipped, with no Chinese', async () => {
    // A profile whose memory is off answers a conversation: its extraction is skipped, and says whose memory is off.
    const { profile: quiet } = await host.command<{ profile: { id: string } }>({
      op: 'profile.create',
      profile: { name: 'Quiet', memoryEnabled: false },
    })
    const { profile: spare } = await host.command<{ profile: { id: string } }>({
      op: 'profile.create',
      profile: { name: 'Spare' },
    })
    const sessionId = await host.conversation()
    await host.command({ op: 'session.set', sessionId, patch: { profileId: quiet.id } })
    await host.say(sessionId, 'Hello there')
    // Another process (a later version, say) writes a name this version refuses: that row is set aside.
    const db = new DatabaseSync(host.home.dataFile)
    db.exec(
      `UPDATE profiles SET data = json_set(data, '$.name', '${'N'.repeat(99)}'), rev = rev + 100 WHERE id = '${spare.id}';
       UPDATE meta SET value = value + 100 WHERE key = 'revision'`,
    )
    db.close()
    type Meta = { memoryJob?: { runs: { outcome: string; skip?: string }[] }; data?: { setAside: { key: string }[] } }
    await expect
      .poll(
        async () => {
          const { meta } = await host.read<{ meta: Meta }>()
          return {
            skipped: meta.memoryJob?.runs.some((r) => r.skip === 'memory-off') === true,
            setAside: meta.data?.setAside.some((r) => r.key === spare.id) === true,
          }
        },
        { timeout: 60_000, interval: 500 },
      )
      .toEqual({ skipped: true, setAside: true })

    const en = (await openApp(browser, host.web.url, { lang: 'en' })).page
    try {
      await openSettings(en)
      await openSection(en, 'Diagnostics')
      const panel = en.locator('.ap-diagnostics')
      // The profile's row itself, among any other rows keyed under its id.
      const row = panel.locator('.ap-set-aside li', { hasText: new RegExp(`^profiles · ${spare.id} · `) })
      await row.waitFor({ timeout: 15_000 })
      await screenshot(en, 'i18n-en-diagnostics')
      expect(await row.innerText()).toMatch(/Field "Name": at most 40 characters/)
      expect(await panel.locator('.ap-job-runs li', { hasText: 'skipped' }).first().innerText()).toContain(
        '"Quiet" has long-term memory off',
      )
      expect(cjkIn([await panel.innerText()])).toEqual([])
    } finally {
      await en.close()
    }
  }, 180_000)
})
