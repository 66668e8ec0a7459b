/**
 * Character Cards and files from the wild in real Chromium against the real `dsh web`: a PNG card (chunk after the
 * image data) imported from the settings page shows up in the list with its picture as the avatar; a card whose image
 * data alone is over the avatar limit is shrunk by the page's avatar pipeline on the way in; a profile without an
 * avatar exported as a Card PNG gets the emoji drawn on a tile, and that file reads back as the same profile without
 * an avatar (so a merge skips it), and one with a picked (WebP) avatar reads back as the same profile, avatar
 * included. Then several files from the wild at once — a persona Markdown file, an agent file
 * with tools, a CRLF Markdown file, a Tavern-like JSON, a Chinese app's role file, a CHARX, a card PNG with a 3.5 MB
 * application chunk and a JSON with nothing usable — each reported; the same files again add nothing; and a
 * colleague's file whose profile has the id of one already there with other content is offered as "keep both" or
 * "replace this one", and replaces it on the user's word. Screenshots go to test-artifacts/.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { MemorySearchReply } from '../../lib/shared/wire-replies.ts'
import type { WireState } from '../../lib/shared/wire-state.ts'
import { cardIn, charx, charxCard, pngCard, richV2 } from '../support/card-fixtures.ts'
import {
  openSection,
  openSettings,
  screenshot,
  showProfileList,
  startBrowserApp,
  type BrowserApp,
} from '../support/browser.ts'
import { chunk, noisyPng, png, records } from '../support/png.ts'

let app: BrowserApp
let page: Page

beforeAll(async () => {
  app = await startBrowserApp({ lang: 'en' })
  page = app.page
})

afterAll(async () => {
  await app?.close()
})

const FIXTURES = join(import.meta.dirname, '..', 'support', 'fixtures', 'wild')
const state = async (): Promise<WireState> => (await app.host.read()).state

const io = () => page.locator('.ap-io')
const listRow = (name: string) => page.locator('.ap-list-item[data-profile-id]', { hasText: name })

/** The Card PNG the settings page's export gives for profile `id`, and the name it is saved under. */
async function exportCardPng(id: string): Promise<{ file: Buffer; fileName: string }> {
  await io().getByLabel('Export one profile').selectOption(id)
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    io().getByRole('button', { name: 'Card PNG' }).click(),
  ])
  return { file: readFileSync((await download.path())!), fileName: download.suggestedFilename() }
}

/** Import `file` (as `fileName`) from the page: it is reported as the same as `profile`, and nothing is added. */
async function readsBackAsSame(file: Buffer, fileName: string, profile: string): Promise<void> {
  const count = (await state()).profiles.length
  await io().locator('input[type="file"]').setInputFiles({ name: fileName, mimeType: 'image/png', buffer: file })
  const notice = io().locator('.ap-notice', { hasText: 'Imported 0 profiles' })
  await notice.waitFor()
  expect(await notice.locator('li').allTextContents()).toEqual([
    `"${fileName}": "${profile}" is the same as a profile you have; not imported again.`,
  ])
  expect((await state()).profiles).toHaveLength(count)
}

describe('character cards in the real host', () => {
  it('imports a PNG card from the settings page and shows the profile with its picture as the avatar', async () => {
    await openSettings(page)
    await openSection(page, 'Import, export & maintenance')
    const file = pngCard([{ keyword: 'chara', card: richV2() }], 'after-idat', png(96, 144, 4))
    await io()
      .locator('input[type="file"]')
      .setInputFiles({ name: 'Seraphina.png', mimeType: 'image/png', buffer: file })
    await io().locator('.ap-notice', { hasText: 'Imported 1 profile (files read: 1)' }).waitFor()
    await screenshot(page, 'cards-1b-import-section')
    await openSection(page, 'Profiles')
    await showProfileList(page)
    const img = listRow('Seraphina').locator('img')
    await expect.poll(() => img.evaluate((el) => (el as HTMLImageElement).naturalWidth)).toBe(96)
    await screenshot(page, 'cards-1-imported')

    const p = await app.host.profile((await state()).profiles.find((x) => x.name === 'Seraphina')!.id)
    expect(p.role).toContain('Seraphina is a guardian of the forest.')
    // The lorebook's keyed entries are in the archive (out of the core the page's profile carries), with their keys.
    expect(p.memory.items).toEqual([])
    const archive = (await (
      await fetch(`${app.host.web.url}/__ap/memory/search?layer=profile&owner=${p.id}&archived=1`)
    ).json()) as MemorySearchReply
    expect(archive.items.map((it) => [it.text, it.source, it.archived, it.keys]).sort()).toEqual([
      ['Seraphina is 300 years old.', 'import', true, 'age'],
      ['The glade is hidden by magic.', 'import', true, 'glade'],
    ])
    const avatar = Buffer.from(await (await fetch(app.host.web.url + p.avatar)).arrayBuffer())
    expect(records(avatar).map((r) => r.type)).toEqual(['IHDR', 'IDAT', 'IEND'])
    expect(app.errors).toEqual([])
  })

  it('shrinks a card picture whose image data is over the avatar limit through the avatar pipeline', async () => {
    await openSettings(page)
    await openSection(page, 'Import, export & maintenance')
    const heavy = noisyPng(400, 600, 6)
    const card = richV2()
    card.data.name = 'Heavy card'
    await io()
      .locator('input[type="file"]')
      .setInputFiles({
        name: 'heavy.png',
        mimeType: 'image/png',
        buffer: pngCard([{ keyword: 'chara', card }], 'after-idat', heavy),
      })
    await io().locator('.ap-notice', { hasText: 'Imported 1 profile' }).waitFor()
    const p = (await state()).profiles.find((x) => x.name === 'Heavy card')!
    const image = await fetch(app.host.web.url + p.avatar)
    expect(image.headers.get('content-type')).toBe('image/webp')
    await openSection(page, 'Profiles')
    await showProfileList(page)
    await expect
      .poll(() =>
        listRow('Heavy card')
          .locator('img')
          .evaluate((el) => (el as HTMLImageElement).naturalHeight),
      )
      .toBe(512)
  })

  it('exports a profile without an avatar as a Card PNG with the emoji drawn, which reads back as the same profile', async () => {
    await openSettings(page)
    await openSection(page, 'Import, export & maintenance')
    const { file, fileName } = await exportCardPng('general')
    expect(fileName).toBe('通用助手.png')
    const ihdr = records(file).find((r) => r.type === 'IHDR')!
    expect([ihdr.data.readUInt32BE(0), ihdr.data.readUInt32BE(4)]).toEqual([512, 768])
    const card = cardIn(file, 'chara')
    expect(card.data.name).toBe('通用助手')
    expect(card.data.extensions.dsh_agent_profiles.placeholder).toMatch(/^[0-9a-f]{16}$/)

    // Read back it is the same profile (no avatar included), so the merge reports it unchanged and adds nothing.
    await readsBackAsSame(file, 'back.png', '通用助手')
    await screenshot(page, 'cards-2-exported-and-back')
  })

  it('exports a profile with a picked avatar as a Card PNG that reads back as the same profile, avatar included', async () => {
    // What the avatar picker saves: a picture drawn on this browser's canvas, encoded as WebP.
    const webp = await page.evaluate(() => {
      const canvas = document.createElement('canvas')
      canvas.width = 120
      canvas.height = 90
      const g = canvas.getContext('2d')!
      g.fillStyle = '#2a7'
      g.fillRect(0, 0, 120, 90)
      g.fillStyle = '#e53'
      g.beginPath()
      g.arc(60, 45, 30, 0, 7)
      g.fill()
      return canvas.toDataURL('image/webp', 0.92)
    })
    expect(webp.startsWith('data:image/webp;base64,')).toBe(true)
    const made = await app.host.command<{ profile: { id: string } }>({
      op: 'profile.create',
      profile: { name: 'Round trip', emoji: '🦊', avatar: webp, role: 'Keeps its face.' },
    })
    await openSettings(page)
    await openSection(page, 'Import, export & maintenance')
    const { file } = await exportCardPng(made.profile.id)
    // The file shows the avatar itself (redrawn as a PNG), not a tile.
    const ihdr = records(file).find((r) => r.type === 'IHDR')!
    expect([ihdr.data.readUInt32BE(0), ihdr.data.readUInt32BE(4)]).toEqual([120, 90])

    // Imported back it is the same profile: nothing added, no clash saying "differs: avatar".
    await readsBackAsSame(file, 'mine.png', 'Round trip')
    expect(await io().locator('[data-ap-clash]').count()).toBe(0)
    expect((await app.host.profile(made.profile.id)).avatar).not.toBe('')
    expect(app.errors).toEqual([])
  })
})

function files(): { name: string; mimeType: string; buffer: Buffer }[] {
  const pic = png(200, 300, 5)
  const heavy = Buffer.concat([pic.subarray(0, -12), chunk('prVw', Buffer.alloc(3_500_000, 1)), pic.subarray(-12)])
  const card = richV2()
  card.data.name = 'Heavy picture'
  const fixture = (name: string, mimeType: string) => ({ name, mimeType, buffer: readFileSync(join(FIXTURES, name)) })
  return [
    fixture('soul.md', 'text/markdown'),
    fixture('reviewer-agent.md', 'text/markdown'),
    fixture('crlf-notes.md', 'text/markdown'),
    fixture('tavern-like.json', 'application/json'),
    fixture('role-file-zh.json', 'application/json'),
    fixture('not-a-persona.json', 'application/json'),
    { name: 'sera.charx', mimeType: 'application/zip', buffer: charx(charxCard(), png(30, 45, 2)) },
    { name: 'heavy.png', mimeType: 'image/png', buffer: pngCard([{ keyword: 'chara', card }], 'after-idat', heavy) },
  ]
}

describe('importing files from the wild in the real host', () => {
  it('imports several files at once, reports each, and a second import of the same files adds nothing', async () => {
    await openSettings(page)
    await openSection(page, 'Import, export & maintenance')
    const before = (await state()).profiles.length
    await io().locator('input[type="file"]').setInputFiles(files())
    const notice = io().locator('.ap-notice', { hasText: 'Imported 7 profiles (files read: 7)' })
    await notice.waitFor({ timeout: 60_000 })
    await expect
      .poll(() => notice.locator('li').allTextContents())
      .toContain(
        '"not-a-persona.json": This is not a character card (a card is a PNG with a card inside, a card JSON or a CHARX); it was not imported',
      )
    await io().scrollIntoViewIfNeeded()
    await screenshot(page, 'import-wild-1-several-files')

    const s = await state()
    expect(s.profiles).toHaveLength(before + 7)
    const whole = await app.host.profiles()
    const byName = (name: string) => whole.find((p) => p.name === name)!
    expect(byName('code-reviewer').tools).toEqual({
      profile: 'custom',
      add: ['read', 'grep', 'glob', 'bash', 'web_fetch'],
      remove: [],
    })
    expect(byName('Windows note taker').role).toBe('You take meeting notes.\r\nOne line per decision.')
    expect(byName('Captain Ines').rules).toContain('Never break the fourth wall.')
    expect(byName('古文翻译官').role).toMatch(/^你是一位精通/)
    expect(byName('SOUL').rules).toContain('### Boundaries')
    for (const name of ['Seraphina V3', 'Heavy picture']) {
      const avatar = Buffer.from(await (await fetch(app.host.web.url + byName(name).avatar)).arrayBuffer())
      expect(
        records(avatar).map((r) => r.type),
        name,
      ).toEqual(['IHDR', 'IDAT', 'IEND'])
    }

    await io().locator('input[type="file"]').setInputFiles(files())
    const again = io().locator('.ap-notice', { hasText: 'Imported 0 profiles (files read: 7)' })
    await again.waitFor({ timeout: 60_000 })
    await expect
      .poll(() => again.locator('li').allTextContents())
      .toContain('"soul.md": "SOUL" is the same as a profile you have; not imported again.')
    expect((await state()).profiles).toHaveLength(before + 7)
    expect(app.errors).toEqual([])
  })

  it('offers "keep both" or "replace this one" for a profile whose id is taken, and replaces it on the user\'s word', async () => {
    await openSettings(page)
    await openSection(page, 'Import, export & maintenance')
    const general = await app.host.profile('general')
    const count = (await state()).profiles.length
    const envelope = {
      format: 'dsh-agent-profiles',
      version: 1,
      exportedAt: '',
      activeId: '',
      profiles: [{ ...general, avatar: '', role: "A colleague's version.", rules: 'Their rules.' }],
    }
    await io()
      .locator('input[type="file"]')
      .setInputFiles({
        name: 'colleague.json',
        mimeType: 'application/json',
        buffer: Buffer.from(JSON.stringify(envelope)),
      })
    const group = io().getByRole('group', { name: /have the id or the name of one you have/ })
    await group.waitFor()
    await expect
      .poll(() => group.textContent())
      .toContain(`"${general.name}" from "colleague.json" (yours: "${general.name}")`)
    // The clash says what differs, in the page's language, so the user can choose knowingly.
    const differs = [...(general.avatar === '' ? [] : ['avatar']), 'role', 'ground rules']
    expect(await group.locator('[data-ap-clash]').textContent()).toBe(`Differs in: ${differs.join('; ')}.`)
    await group.scrollIntoViewIfNeeded()
    await screenshot(page, 'import-wild-2-conflict-choice')
    expect((await state()).profiles).toHaveLength(count)

    await group.getByLabel('Replace this one').check()
    await group.getByRole('button', { name: 'Import with these choices' }).click()
    await io().locator('.ap-notice', { hasText: 'Imported 1 profile from "colleague.json".' }).waitFor()
    const after = await state()
    expect(after.profiles).toHaveLength(count)
    expect((await app.host.profile('general')).role).toBe("A colleague's version.")
    expect(app.errors).toEqual([])
  })
})
