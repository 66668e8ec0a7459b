// The bulk control over the ask-first rows (lib/client/common/SuggestionPicker.tsx): tick some or all of a list's
// suggestions and approve or dismiss them with one `memory.decide`, on the settings page's About you over the fake host
// that runs the store's real commands; a refusal is worded in the page's language and changes nothing.
import { afterEach, expect, it } from 'vitest'
import { LIMITS } from '../../../lib/state/model.ts'
import { bindLocale } from '../../../lib/client/copy/locales.ts'
import type { OpsHost } from '../../support/ops-host.ts'
import { cleanPageEachTest, commands, open } from '../../support/settings-page.tsx'
import { button, click, field, memoryItem, profile, settle, state, tab, text } from '../../support/dom.tsx'

cleanPageEachTest()
let unbind = (): void => {}
afterEach(() => {
  unbind()
})

const ORIGIN = "ChatGPT, 2025-03-14, 'Trip to Qingdao'"
const learned = (id: string, text: string) =>
  memoryItem(id, text, { source: 'import', pending: true, importId: 'run1', origin: ORIGIN })

/** About you with one typed fact and suggestions of a learning run (three unless given), opened on its tab. */
async function aboutYou(
  tabName = '关于你',
  suggestions = [learned('s1', '用户住在青岛'), learned('s2', '用户养了一只猫'), learned('s3', '用户喜欢爬山')],
): Promise<{ host: OpsHost; section: HTMLElement }> {
  const { host, container } = await open({
    ...state([profile({ id: 'a' })]),
    user: { items: [memoryItem('u1', '用户叫小王'), ...suggestions] },
  })
  await click(tab(tabName, container))
  await settle(5)
  return { host, section: container.querySelector<HTMLElement>('.ap-suggestions')! }
}
const pendingOf = (host: OpsHost) => host.state.user!.items.filter((it) => it.pending === true).map((it) => it.text)
const decides = (host: OpsHost) => commands(host).filter((c) => (c as { op: string }).op === 'memory.decide')

it('approves the ticked suggestions with one command; the one left keeps only its own buttons', async () => {
  const { host, section } = await aboutYou()
  expect(text(section)).toContain(ORIGIN)
  const approve = button(/^批准所选/, section)
  expect(approve.disabled).toBe(true)
  await click(field('选择「用户住在青岛」', section))
  await click(field('选择「用户喜欢爬山」', section))
  expect(text(approve)).toBe('批准所选（2）')
  await click(approve)
  await settle(5)
  expect(decides(host)).toEqual([
    { op: 'memory.decide', target: { user: true }, verdict: 'approve', itemIds: ['s1', 's3'] },
  ])
  expect(host.state.user!.items.filter((it) => it.approved === true).map((it) => it.text)).toEqual([
    '用户住在青岛',
    '用户喜欢爬山',
  ])
  expect(pendingOf(host)).toEqual(['用户养了一只猫'])
  // One suggestion left: the bulk control goes, its own buttons stay.
  const left = document.querySelector<HTMLElement>('.ap-suggestions')!
  expect(left.querySelector('.ap-suggestion-bulk')).toBeNull()
  expect(button('批准', left)).toBeDefined()
})

it('ticks all with select all, shows some ticked as mixed, and dismisses every ticked one at once', async () => {
  const { host, section } = await aboutYou()
  const all = field('全选', section)
  await click(field('选择「用户养了一只猫」', section))
  expect(all.indeterminate).toBe(true)
  expect(all.checked).toBe(false)
  await click(all)
  expect(all.checked).toBe(true)
  expect(all.indeterminate).toBe(false)
  expect(text(button(/^忽略所选/, section))).toBe('忽略所选（3）')
  await click(button(/^忽略所选/, section))
  await settle(5)
  expect(decides(host)).toEqual([
    { op: 'memory.decide', target: { user: true }, verdict: 'dismiss', itemIds: ['s1', 's2', 's3'] },
  ])
  expect(host.state.user!.items.map((it) => it.text)).toEqual(['用户叫小王'])
  expect(document.querySelector('.ap-suggestions')).toBeNull()
})

it('says the cap on ids in the page language when more are ticked, and approves none of them', async () => {
  unbind = bindLocale({ getLocale: () => ({ active: 'en' }), subscribe: () => () => {} })
  const many = Array.from({ length: LIMITS.decideIds + 1 }, (_, i) => learned(`s${i}`, `用户的第 ${i} 件事`))
  const { host, section } = await aboutYou('About you', many)
  await click(field('Select all', section))
  await click(button(/^Approve selected/, section))
  await settle(5)
  expect(text(section.querySelector('[role="alert"]')!)).toBe(
    `Field "Memory items": at most ${LIMITS.decideIds} entries`,
  )
  expect(pendingOf(host)).toHaveLength(LIMITS.decideIds + 1)
  expect(field('Select all', section).checked).toBe(true)
})
