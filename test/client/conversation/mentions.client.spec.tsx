/**
 * The composer's `@` profiles (lib/client/conversation/mention-source.ts) and the warning row above it
 * (MentionWarnings.tsx), with real React in jsdom over the real api client and an in-memory host: what the menu
 * offers for a query, what a pick inserts, and which drafts are flagged before sending.
 */
import { describe, expect, it } from 'vitest'
import { ApiContext, createApiClient } from '../../../lib/client/data/api.ts'
import { MENTION_CANDIDATES, matchingProfiles, mentionSource } from '../../../lib/client/conversation/mention-source.ts'
import { MentionWarnings } from '../../../lib/client/conversation/MentionWarnings.tsx'
import { QuickSwitcher } from '../../../lib/client/conversation/QuickSwitcher.tsx'
import { translate } from '../../../lib/client/copy/locales.ts'
import type { ProfileHead } from '../../../lib/shared/wire-state.ts'
import { opsHost } from '../../support/ops-host.ts'
import { click, profile, render, settle, state, text } from '../../support/dom.tsx'

const head = (id: string, name: string, emoji = ''): ProfileHead => ({ id, name, emoji, avatar: '', updatedAt: 0 })
const session = { sessionId: 'session-1' as never }
const request = (query: string) => ({ query, position: 'inline' as const, signal: new AbortController().signal })

describe('the @ source', () => {
  it('offers names that start with the query first, then names that contain it, case-insensitively and bounded', () => {
    const list = [head('a', 'Code Buddy'), head('b', '编程搭档'), head('c', 'Unicode Fan'), head('d', 'code')]
    expect(matchingProfiles(list, 'CODE').map((p) => p.id)).toEqual(['a', 'd', 'c'])
    expect(matchingProfiles(list, '搭').map((p) => p.id)).toEqual(['b'])
    const many = Array.from({ length: 40 }, (_, i) => head(`p${i}`, `P${i}`))
    expect(matchingProfiles(many, '')).toHaveLength(MENTION_CANDIDATES)
  })

  it("lists the profiles of the host's state and inserts the picked one's name as text", async () => {
    opsHost(
      state([
        profile({ id: 'general', name: '通用助手', emoji: '🤖' }),
        profile({ id: 'rev', name: '审阅员', emoji: '' }),
      ]),
    )
    const client = createApiClient()
    const source = mentionSource(client, (key, params) => translate('zh', key, params))
    expect(source).toMatchObject({ trigger: '@', name: 'agent-profiles' })
    const offered = await source.candidates(session, request('审'))
    expect(offered).toEqual([
      { name: '审阅员', description: '由「审阅员」回答这一条', section: '智能体配置', value: 'rev' },
    ])
    const all = await source.candidates(session, request(''))
    expect(all.map((c) => [c.name, c.icon])).toEqual([
      ['所有人', '👥'],
      ['通用助手', '🤖'],
      ['审阅员', undefined],
    ])
    expect(
      source.onPick({
        candidate: offered[0]!,
        session,
        position: 'inline',
        via: 'menu',
        span: { start: 0, end: 2, draftRev: 1 },
      }),
    ).toEqual({ text: '@审阅员 ' })
    expect(source.lexicon!(session)).toEqual(expect.arrayContaining(['通用助手', '审阅员', '所有人', 'all']))
  })

  it('offers the whole cast as "all / 所有人", in the words the user started typing, and inserts it', async () => {
    opsHost(state([profile({ id: 'general', name: '通用助手' }), profile({ id: 'allie', name: 'Allie' })]))
    const client = createApiClient()
    const zh = mentionSource(
      client,
      (key, params) => translate('zh', key, params),
      () => 'zh',
    )
    const en = mentionSource(
      client,
      (key, params) => translate('en', key, params),
      () => 'en',
    )
    const everyone = (await zh.candidates(session, request('')))[0]!
    expect(everyone).toEqual({
      name: '所有人',
      icon: '👥',
      description: '请本对话阵容里的每个配置依次回答',
      section: '智能体配置',
      value: '@all',
    })
    expect((await en.candidates(session, request('')))[0]!.name).toBe('all')
    expect((await zh.candidates(session, request('大'))).map((c) => c.name)).toEqual(['大家'])
    expect((await en.candidates(session, request('al'))).map((c) => c.name)).toEqual(['all', 'Allie'])
    expect((await zh.candidates(session, request('通'))).map((c) => c.name)).toEqual(['通用助手'])
    const pick = { session, position: 'inline' as const, via: 'menu' as const, span: { start: 0, end: 1, draftRev: 1 } }
    expect(zh.onPick({ candidate: everyone, ...pick })).toEqual({ text: '@所有人 ' })
  })
})

describe('the warning row above the composer', () => {
  async function row(draft: string) {
    opsHost(
      state([
        profile({ id: 'a', name: '编程搭档' }),
        profile({ id: 'b', name: '编程老师' }),
        profile({ id: 'c', name: 'Bob' }),
        profile({ id: 'd', name: 'Bob先生' }),
      ]),
    )
    const client = createApiClient()
    const useInput = <R,>(select: (input: { draft?: string } | undefined) => R): R => select({ draft })
    const { container } = await render(
      <ApiContext.Provider value={client}>
        <MentionWarnings sessionId="session-1" useInput={useInput} />
      </ApiContext.Provider>,
    )
    await settle()
    await settle()
    return text(container)
  }

  it('says nothing while the draft names existing profiles, or no one', async () => {
    expect(await row('@编程搭档 @Bob 你们好')).toBe('')
    expect(await row('mail bob@example.com')).toBe('')
  })

  it('never flags a word that names no profile, nor one still being typed (the draft ends in it)', async () => {
    expect(await row('@小明 和 @编程')).toBe('')
    expect(await row('@所')).toBe('')
    expect(await row('@编程')).toBe('')
  })

  it('flags, once typed, a word that starts two names, and a name run on into a longer one', async () => {
    expect(await row('@编程 看看')).toContain('「编程」对应 2 个配置（编程搭档和编程老师）')
    const said = await row('@Bob先生看看')
    expect(said).toContain('「@Bob先生…」可能指Bob先生和Bob')
    expect(await row('@Bob先生 看看')).toBe('')
  })

  it('flags @all in a conversation without a cast', async () => {
    expect(await row('@all 说说')).toContain('这个对话还没有阵容')
  })
})

describe('the cast in the quick switcher', () => {
  it('lists each profile once: pinning and the cast share its row', async () => {
    opsHost(
      state([
        profile({ id: 'a', name: '通用助手' }),
        profile({ id: 'b', name: '写作教练' }),
        profile({ id: 'c', name: '代码审查' }),
      ]),
    )
    const { container } = await render(
      <ApiContext.Provider value={createApiClient()}>
        <QuickSwitcher sessionId="session-1" />
      </ApiContext.Provider>,
    )
    await settle()
    await click(container.querySelector('.ap-switcher-trigger')!)
    await settle()
    const menu = document.querySelector('[role="menu"]')!
    for (const [id, name] of [
      ['a', '通用助手'],
      ['b', '写作教练'],
      ['c', '代码审查'],
    ]) {
      const named = [...menu.querySelectorAll(`[data-profile-id="${id}"], [data-cast-profile-id="${id}"]`)]
      // The pin item, and its row's cast toggle that names it for a screen reader: never a second list.
      expect(
        named.map((b) => b.getAttribute('role')),
        name,
      ).toEqual(['menuitemradio', 'menuitemcheckbox'])
      expect(text(named[0]!)).toContain(name)
      expect(named[1]!.getAttribute('aria-label')).toContain(name)
      expect(menu.querySelectorAll('.ap-menu-name').length).toBe(4)
      expect(named[0]!.parentElement).toBe(named[1]!.parentElement)
    }
  })

  it("adds profiles to this conversation's cast in the order checked, and removes one again", async () => {
    const host = opsHost(
      state([
        profile({ id: 'a', name: '通用助手' }),
        profile({ id: 'b', name: '写作教练' }),
        profile({ id: 'c', name: '代码审查' }),
      ]),
    )
    const client = createApiClient()
    const { container } = await render(
      <ApiContext.Provider value={client}>
        <QuickSwitcher sessionId="session-1" />
      </ApiContext.Provider>,
    )
    await settle()
    const open = async () => {
      if (document.querySelector('[role="menu"]') === null)
        await click(container.querySelector('.ap-switcher-trigger')!)
      await settle()
    }
    const castItem = (id: string) => document.querySelector<HTMLElement>(`[data-cast-profile-id="${id}"]`)!
    await open()
    await click(castItem('c'))
    await settle()
    await open()
    await click(castItem('b'))
    await settle()
    expect(host.state.sessions['session-1']?.cast).toEqual(['c', 'b'])
    await open()
    expect(castItem('c').getAttribute('aria-checked')).toBe('true')
    expect(castItem('a').getAttribute('aria-checked')).toBe('false')
    expect(text(document.querySelector('.ap-toast')!)).toContain(
      '本对话的阵容：代码审查和写作教练；@所有人 会依次请它们回答',
    )
    await click(castItem('c'))
    await settle()
    expect(host.state.sessions['session-1']?.cast).toEqual(['b'])
  })
})
