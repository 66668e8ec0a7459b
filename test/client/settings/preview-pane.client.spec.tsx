import { describe, expect, it } from 'vitest'
import { ApiContext, createApiClient } from '../../../lib/client/data/api.ts'
import { bindLocale } from '../../../lib/client/copy/locales.ts'
import { PreviewPane } from '../../../lib/client/settings/PreviewPane.tsx'
import { profile, render, settle, stubFetch, text } from '../../support/dom.tsx'

describe('PreviewPane', () => {
  it('shows what the host renders for the draft, with its size, and never posts the avatar', async () => {
    const calls = stubFetch(() => ({
      body: { text: '【角色】你是写作教练。\n【准则】不编造引用', chars: 22, tokens: 14 },
    }))
    const draft = profile({ name: '写作教练', avatar: 'data:image/webp;base64,AAAA', rules: '不编造引用' })
    const { container } = await render(
      <ApiContext.Provider value={createApiClient()}>
        <PreviewPane profile={draft} delay={0} />
      </ApiContext.Provider>,
    )
    expect(text(container)).toContain('正在生成预览')
    await settle(5)
    expect(container.querySelector('pre')!.textContent).toBe('【角色】你是写作教练。\n【准则】不编造引用')
    expect(text(container)).toContain('22 字 · 约 14 tokens')
    expect(calls).toHaveLength(1)
    expect(calls[0]!.path).toBe('/__ap/preview')
    const sent = calls[0]!.body!.profile as Record<string, unknown>
    expect(sent.rules).toBe('不编造引用')
    expect(sent).not.toHaveProperty('avatar')
  })

  it('asks again after the draft changes', async () => {
    const calls = stubFetch(({ body }) => ({
      body: { text: String((body!.profile as { rules: string }).rules), chars: 1, tokens: 1 },
    }))
    const client = createApiClient()
    const { container, rerender } = await render(
      <ApiContext.Provider value={client}>
        <PreviewPane profile={profile({ rules: '一' })} delay={0} />
      </ApiContext.Provider>,
    )
    await settle(5)
    await rerender(
      <ApiContext.Provider value={client}>
        <PreviewPane profile={profile({ rules: '二' })} delay={0} />
      </ApiContext.Provider>,
    )
    await settle(5)
    expect(calls.map((c) => (c.body!.profile as { rules: string }).rules)).toEqual(['一', '二'])
    expect(container.querySelector('pre')!.textContent).toBe('二')
  })

  it('says when the profile injects nothing', async () => {
    stubFetch(() => ({ body: { text: '', chars: 0, tokens: 0 } }))
    const { container } = await render(
      <ApiContext.Provider value={createApiClient()}>
        <PreviewPane profile={profile({ role: '', personality: '', speakingStyle: '', rules: '' })} delay={0} />
      </ApiContext.Provider>,
    )
    await settle(5)
    expect(text(container)).toContain('这套配置还没有内容，不会注入提示词。')
  })

  it('shows a refused draft as an error naming the field', async () => {
    stubFetch(() => ({
      status: 400,
      body: {
        error: {
          code: 'invalid',
          message: 'has 5000 characters; the limit is 4000',
          field: 'profile.role',
          limit: 4000,
        },
      },
    }))
    const { container } = await render(
      <ApiContext.Provider value={createApiClient()}>
        <PreviewPane profile={profile()} delay={0} />
      </ApiContext.Provider>,
    )
    await settle(5)
    expect(text(container.querySelector('[role="alert"]')!)).toBe('预览失败：「角色设定」：最多 4000 字')
  })

  it('speaks English', async () => {
    stubFetch(() => ({ body: { text: 'x', chars: 1, tokens: 1 } }))
    const unbind = bindLocale({ getLocale: () => ({ active: 'en' }), subscribe: () => () => {} })
    try {
      const { container } = await render(
        <ApiContext.Provider value={createApiClient()}>
          <PreviewPane profile={profile()} delay={0} />
        </ApiContext.Provider>,
      )
      await settle(5)
      expect(text(container)).toContain('What the model sees')
      expect(text(container)).toContain('Characters: 1 · tokens: about 1')
    } finally {
      unbind()
    }
  })
})
