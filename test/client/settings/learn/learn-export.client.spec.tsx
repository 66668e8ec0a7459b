/**
 * "Learn from ChatGPT or Claude" in the settings page's import section (lib/client/settings/learn/LearnFromExport.tsx)
 * with real React on the real routes, store and import worker: the export chosen is read by the host, and the page
 * says what it holds (conversations, messages, the period) and what learning it costs (model calls, tokens) before
 * anything is spent; a day range, a word and another memory change the plan; a file that is no export is said in the
 * page's language; both languages.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { act } from 'react'
import { button, chooseFile, cleanup, click, field, text, type } from '../../../support/dom.tsx'
import { renderLearnPage, until, type LearnPage } from '../../../support/learn-page.tsx'
import { claudeExport, exportZip } from '../../../support/learn-exports.ts'
import { freshStore } from '../../../support/store-helpers.ts'

let page: LearnPage | undefined
let dispose = async (): Promise<void> => {}
afterEach(async () => {
  await cleanup()
  await page?.close()
  page = undefined
  await dispose()
})

/** The section on a real host, in `lang`. */
async function open(lang: 'en' | 'zh') {
  const fresh = await freshStore()
  dispose = fresh.dispose
  page = await renderLearnPage({ store: fresh.store, log: { warn: () => undefined, error: () => undefined } }, lang)
  return { container: page.container, store: fresh.store }
}

const fileInput = (page: HTMLElement) => page.querySelector<HTMLInputElement>('.ap-learn-export input[type="file"]')!
const planText = (page: HTMLElement) => text(page.querySelector('[data-ap-learn-plan]') ?? page)
const zipFile = (conversations: unknown[], name = 'export.zip') =>
  new File([new Uint8Array(exportZip(conversations))], name, { type: 'application/zip' })

/** Choose `value` in the select labelled `label`. */
async function choose(page: HTMLElement, label: string, value: string): Promise<void> {
  const l = [...page.querySelectorAll('label')].find((x) => text(x) === label)
  const select = l === undefined ? null : document.getElementById(l.htmlFor)
  if (!(select instanceof HTMLSelectElement)) throw new Error(`no select labelled "${label}"`)
  await act(async () => {
    select.value = value
    select.dispatchEvent(new Event('change', { bubbles: true }))
  })
}

describe('learning from an export: what it holds and what it costs', () => {
  const made = claudeExport(30, 9)
  const messages = made.expected.reduce((n, c) => n + c.messages.length, 0)

  it('says what a Claude export holds and what learning all of it costs, in Chinese', async () => {
    const { container: page } = await open('zh')
    await chooseFile(fileInput(page), zipFile(made.conversations))
    await until(() => page.querySelector('[data-ap-learn-plan]') !== null)
    expect(text(page.querySelector('[data-ap-learn-found]')!)).toBe(
      `Claude 导出：30 段对话，${messages} 条消息，时间从 2025-01-01 到 2025-01-30`,
    )
    expect(planText(page)).toMatch(
      /^从 30 段对话学习需要调用模型 30 次：约发送 [\d,]+ 个 token，回答最多 24,000 个 token，使用dsh 的默认模型。$/,
    )
  })

  it('plans a day range, a word and a profile on an English page', async () => {
    const { container: page, store } = await open('en')
    await chooseFile(fileInput(page), zipFile(made.conversations))
    await until(() => page.querySelector('[data-ap-learn-plan]') !== null)
    expect(text(page.querySelector('[data-ap-learn-found]')!)).toBe(
      `Claude export: 30 conversations (messages: ${messages}), from 2025-01-01 to 2025-01-30`,
    )
    const all = planText(page)
    expect(all).toMatch(
      /^Conversations picked: 30\. Learning from them takes 30 model calls, on dsh's default model: tokens sent, about [\d,]+; tokens answered, at most 24,000\.$/,
    )
    await choose(page, 'Learn from', 'range')
    // The plan shown was of the old pick: it goes until asked again.
    expect(page.querySelector('[data-ap-learn-plan]')).toBeNull()
    await type(field('From', page), '2025-01-11')
    await type(field('To', page), '2025-01-15')
    await click(button('Show what it costs', page))
    await until(() => page.querySelector('[data-ap-learn-plan]') !== null)
    expect(planText(page)).toMatch(/^Conversations picked: 5\. Learning from them takes 5 model calls/)
    await choose(page, 'Learn from', 'word')
    await type(field('Word', page), 'nowhere-said')
    await choose(page, 'Into', store.state.profiles[0]!.id)
    await click(button('Show what it costs', page))
    await until(() => page.querySelector('[data-ap-learn-plan]') !== null)
    expect(planText(page)).toBe(
      'None of the conversations picked has words of yours to learn from: nothing would be sent.',
    )
  })

  it('says in words that a profile whose memory is off learns nothing', async () => {
    const { container: page, store } = await open('en')
    const general = store.state.profiles[0]!
    await store.command({ op: 'profile.update', id: general.id, patch: { memoryEnabled: false } })
    await chooseFile(fileInput(page), zipFile(made.conversations))
    await until(() => page.querySelector('[data-ap-learn-plan]') !== null)
    await choose(page, 'Into', general.id)
    await click(button('Show what it costs', page))
    await until(() => page.querySelector('[role="alert"]') !== null)
    expect(text(page.querySelector('[role="alert"]')!)).toBe(
      'Memory is off in this profile, so it learns nothing: turn its memory on, or learn into About you.',
    )
    expect(page.querySelector('[data-ap-learn-plan]')).toBeNull()
  })

  it('says in the page language why a file is no export', async () => {
    const { container: page } = await open('zh')
    await chooseFile(fileInput(page), new File(['{"hello": 1}'], 'notes.json', { type: 'application/json' }))
    await until(() => page.querySelector('[role="alert"]') !== null)
    expect(text(page.querySelector('[role="alert"]')!)).toMatch(/^无法读取「notes\.json」：/)
    expect(page.querySelector('[data-ap-learn-found]')).toBeNull()
  })
})
