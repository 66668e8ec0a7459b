/**
 * What an import tells the user, in a Chinese page against the real `dsh web` in Chromium: a failed import (a PNG
 * that is only a picture, a file that is no card) and an import with notes (a lorebook entry split into memories, a
 * card without a name, Markdown sections placed by meaning, a greeting kept) each show their report in Chinese,
 * saying what happened and what to do, with no English diagnostic and no path inside a file (`data.…`, `[0]`).
 */
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openSection, openSettings, screenshot, startBrowserApp, type BrowserApp } from '../support/browser.ts'
import { png } from '../support/png.ts'
import { pngCard, richV2 } from '../support/card-fixtures.ts'

let app: BrowserApp
let page: Page

beforeAll(async () => {
  app = await startBrowserApp({ lang: 'zh' })
  page = app.page
}, 120_000)

afterAll(async () => {
  await app?.close()
})

const io = () => page.locator('.ap-io')
/** The report's text, with the file names (the user's own words) taken out. */
const report = async (selector: string, names: string[]): Promise<string> => {
  const text = await io().locator(selector).innerText()
  return names.reduce((t, n) => t.replaceAll(n, ''), text)
}
/** Latin words a Chinese report may hold besides quotes from the file: the names of file formats. */
const FORMATS = /PNG|JPEG|WebP|GIF|JSON|CHARX|zip|card\.json/g

function expectChineseOnly(text: string): void {
  expect(text).not.toMatch(/data\.|\[\d+\]|files\[|character_book|entries|first_mes|undefined|\{\w+\}/)
  // What the file itself says (a key, a title) is quoted in 「」 and may be in any language.
  const latin = text
    .replace(/「[^」]*」/g, '')
    .replace(FORMATS, '')
    .match(/[A-Za-z]{3,}.*/g)
  expect(latin, JSON.stringify(text)).toBeNull()
}

describe('import reports in a Chinese page', () => {
  it('says in Chinese why files could not be imported and what to do, without English or field paths', async () => {
    await openSettings(page)
    await openSection(page, '导入导出与维护')
    const names = ['picture.png', 'photo.png']
    await io()
      .locator('input[type="file"]')
      .setInputFiles([
        { name: names[0]!, mimeType: 'image/png', buffer: png(8, 8) },
        {
          name: names[1]!,
          mimeType: 'image/png',
          buffer: Buffer.from('\xff\xd8\xff\xe0 not a png at all, a JPEG renamed', 'latin1'),
        },
      ])
    await io().locator('.ap-error').waitFor()
    await screenshot(page, 'import-report-1-failed')
    const text = await report('.ap-error', names)
    expect(text).toContain('这张 PNG 里没有角色卡数据，只是一张图片，没有导入；要作头像请在配置编辑里选它')
    expect(text).toContain('这不是角色卡')
    expectChineseOnly(text)
    expect(app.errors).toEqual([])
  })

  it('words the notes of an import with notes in Chinese: where each thing went, and no path or English', async () => {
    await openSettings(page)
    await openSection(page, '导入导出与维护')
    const card = richV2()
    card.data.name = ''
    card.data.character_book.entries.push({
      keys: ['长'],
      content: '长'.repeat(1553),
      enabled: true,
      insertion_order: 9,
    })
    const names = ['无名.png', '人设.md']
    await io()
      .locator('input[type="file"]')
      .setInputFiles([
        { name: names[0]!, mimeType: 'image/png', buffer: pngCard([{ keyword: 'chara', card }]) },
        {
          name: names[1]!,
          mimeType: 'text/markdown',
          buffer: Buffer.from('---\ncolour: red\n---\n开场的话\n## 爱好\n下棋\n## 身份\n店员\n', 'utf8'),
        },
      ])
    await io().locator('.ap-notice').waitFor()
    await screenshot(page, 'import-report-2-notes')
    const text = await report('.ap-notice', [...names, '无名', 'Seraphina'])
    expect(text).toContain('已从 2 个文件导入 2 套配置')
    expect(text).toMatch(/世界书第 \d+ 条有 1553 字，分成了 2 条记忆（每条最多 1000 字）/)
    expect(text).toContain('文件没有写名字，已按文件名命名为「」')
    expect(text).toContain('「爱好」一节不是配置项，已放进基本规则，保留原标题')
    expectChineseOnly(text)
    expect(app.errors).toEqual([])
  })
})
