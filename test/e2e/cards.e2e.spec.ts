/**
 * Character Cards in real Chromium against the real `dsh web`: a PNG card (chunk after the image data) imported from
 * the settings page shows up in the list with its picture as the avatar; a card whose picture is over the avatar limit
 * is shrunk by the page's avatar pipeline on the way in; a profile without an avatar exported as a Card PNG gets the
 * emoji drawn on a tile, and that file imports back as the same profile without an avatar. Screenshots go to
 * test-artifacts/.
 */
import { readFileSync } from 'node:fs'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { State } from '../../lib/shared/model.ts'
import { cardIn, pngCard, richV2, textRecord } from '../support/card-fixtures.ts'
import { openSettings, screenshot, startBrowserApp, type BrowserApp } from '../support/browser.ts'
import { png, records } from '../support/png.ts'

let app: BrowserApp
let page: Page

beforeAll(async () => {
  app = await startBrowserApp({ lang: 'en' })
  page = app.page
})

afterAll(async () => {
  await app?.close()
})

const state = async (): Promise<State> => (await app.host.read()).state

const io = () => page.locator('.ap-io')
const listRow = (name: string) => page.locator('.ap-list-item', { hasText: name })

describe('character cards in the real host', () => {
  it('imports a PNG card from the settings page and shows the profile with its picture as the avatar', async () => {
    await openSettings(page)
    const file = pngCard([{ keyword: 'chara', card: richV2() }], 'after-idat', png(96, 144, 4))
    await io().locator('input[type="file"]').setInputFiles({ name: 'Seraphina.png', mimeType: 'image/png', buffer: file })
    await io().locator('.ap-notice', { hasText: 'Imported 1 profiles from 1 files' }).waitFor()
    const img = listRow('Seraphina').locator('img')
    await expect.poll(() => img.evaluate((el) => (el as HTMLImageElement).naturalWidth)).toBe(96)
    await screenshot(page, 'cards-1-imported')
    await io().scrollIntoViewIfNeeded()
    await screenshot(page, 'cards-1b-import-section')

    const p = (await state()).profiles.find((x) => x.name === 'Seraphina')!
    expect(p.role).toContain('Seraphina is a guardian of the forest.')
    expect(p.memory.items.map((it) => it.source)).toEqual(['import', 'import'])
    const avatar = Buffer.from(await (await fetch(app.host.web.url + p.avatar)).arrayBuffer())
    expect(records(avatar).map((r) => r.type)).toEqual(['IHDR', 'IDAT', 'IEND'])
    expect(app.errors).toEqual([])
  })

  it('shrinks a card picture over the avatar limit through the avatar pipeline', async () => {
    await openSettings(page)
    const heavy = Buffer.concat([png(900, 1200, 6).subarray(0, -12), textRecord('Comment', 'x'.repeat(420_000)), png(1, 1).subarray(-12)])
    const card = richV2()
    card.data.name = 'Heavy card'
    await io().locator('input[type="file"]').setInputFiles({ name: 'heavy.png', mimeType: 'image/png', buffer: pngCard([{ keyword: 'chara', card }], 'after-idat', heavy) })
    await io().locator('.ap-notice', { hasText: 'Imported 1 profiles' }).waitFor()
    const p = (await state()).profiles.find((x) => x.name === 'Heavy card')!
    const image = await fetch(app.host.web.url + p.avatar)
    expect(image.headers.get('content-type')).toBe('image/webp')
    await expect.poll(() => listRow('Heavy card').locator('img').evaluate((el) => (el as HTMLImageElement).naturalHeight)).toBe(512)
  })

  it('exports a profile without an avatar as a Card PNG with the emoji drawn, which imports back without an avatar', async () => {
    await openSettings(page)
    await io().getByLabel('Export one profile').selectOption('general')
    const [download] = await Promise.all([page.waitForEvent('download'), io().getByRole('button', { name: 'Card PNG' }).click()])
    const file = readFileSync((await download.path())!)
    expect(download.suggestedFilename()).toBe('通用助手.png')
    const ihdr = records(file).find((r) => r.type === 'IHDR')!
    expect([ihdr.data.readUInt32BE(0), ihdr.data.readUInt32BE(4)]).toEqual([512, 768])
    const card = cardIn(file, 'chara')
    expect(card.data.name).toBe('通用助手')
    expect(card.data.extensions.dsh_agent_profiles.placeholder).toMatch(/^[0-9a-f]{16}$/)

    await io().locator('input[type="file"]').setInputFiles({ name: 'back.png', mimeType: 'image/png', buffer: file })
    await io().locator('.ap-notice', { hasText: 'Imported 1 profiles' }).waitFor()
    const s = await state()
    const back = s.profiles.find((x) => x.id === 'general-2')!
    const original = s.profiles.find((x) => x.id === 'general')!
    expect(back).toEqual({ ...original, id: 'general-2' })
    await screenshot(page, 'cards-2-exported-and-back')
  })
})
