import { afterEach, describe, expect, it, vi } from 'vitest'
import { bindLocale } from '../../../lib/client/copy/locales.ts'
import { ProfileList } from '../../../lib/client/settings/ProfileList.tsx'
import { button, cleanup, click, profile, render, state, text, wireOf } from '../../support/dom.tsx'

afterEach(cleanup)

const sample = state(
  [
    profile({ id: 'a', name: '通用助手', emoji: '🤖' }),
    profile({ id: 'b', name: '写作教练', emoji: '✍️', avatar: '/__ap/avatar/b?v=1' }),
    profile({ id: 'c', name: '', emoji: '🧪' }),
  ],
  {
    'session-1': { profileId: 'b', note: '', memories: [] },
    'session-2': { profileId: 'b', note: '', memories: [] },
    'session-3': { profileId: null, note: '只用中文', memories: [] },
  },
)

describe('ProfileList', () => {
  it('lists every profile with its picture, name, the default badge and how many conversations pin it', async () => {
    const { container } = await render(
      <ProfileList state={wireOf(sample)} selectedId="b" onSelect={() => {}} onCreate={() => {}} />,
    )
    const rows = [...container.querySelectorAll('[data-profile-id]')]
    expect(rows.map((r) => r.getAttribute('data-profile-id'))).toEqual(['a', 'b', 'c'])
    expect(text(rows[0]!)).toBe('🤖 通用助手 默认')
    expect(text(rows[1]!)).toBe('写作教练 2 个对话固定')
    expect(rows[1]!.querySelector('img')!.getAttribute('src')).toBe('/__ap/avatar/b?v=1')
    expect(text(rows[2]!)).toBe('🧪 （未命名）')
    expect(rows[1]!.getAttribute('aria-current')).toBe('true')
    expect(rows[0]!.getAttribute('aria-current')).toBeNull()
  })

  it('reports a click on a profile and on "new profile"', async () => {
    const onSelect = vi.fn()
    const onCreate = vi.fn()
    const { container } = await render(
      <ProfileList state={wireOf(sample)} selectedId="a" onSelect={onSelect} onCreate={onCreate} />,
    )
    await click(container.querySelector('[data-profile-id="c"]')!)
    expect(onSelect).toHaveBeenCalledWith('c')
    await click(button('新建配置', container))
    expect(onCreate).toHaveBeenCalledOnce()
  })

  it('marks the profile with unsaved edits', async () => {
    const { container } = await render(
      <ProfileList state={wireOf(sample)} selectedId="a" dirtyId="a" onSelect={() => {}} onCreate={() => {}} />,
    )
    expect(text(container.querySelector('[data-profile-id="a"]')!)).toContain('通用助手 •')
  })

  it('folds behind a selector that shows the chosen profile, opens the list, and folds again with focus on it after a choice', async () => {
    const onSelect = vi.fn()
    const { container } = await render(
      <ProfileList state={wireOf(sample)} selectedId="b" dirtyId="b" onSelect={onSelect} onCreate={() => {}} />,
    )
    const toggle = container.querySelector<HTMLButtonElement>('[aria-expanded]')!
    const list = container.querySelector<HTMLElement>('.ap-list')!
    expect(text(toggle)).toBe('选择配置： 写作教练 • 2 个对话固定 ▾')
    expect(toggle.querySelector('img')!.getAttribute('src')).toBe('/__ap/avatar/b?v=1')
    expect(toggle.getAttribute('aria-controls')).toBe(list.id)
    expect([toggle.getAttribute('aria-expanded'), list.dataset.open]).toEqual(['false', undefined])
    await click(toggle)
    expect([toggle.getAttribute('aria-expanded'), list.dataset.open]).toEqual(['true', 'true'])
    const row = container.querySelector<HTMLElement>('[data-profile-id="a"]')!
    row.focus()
    await click(row)
    expect(onSelect).toHaveBeenCalledWith('a')
    expect([toggle.getAttribute('aria-expanded'), list.dataset.open]).toEqual(['false', undefined])
    expect(document.activeElement).toBe(toggle)
  })

  it('leaves focus on a row chosen while the list is shown unfolded', async () => {
    const { container } = await render(
      <ProfileList state={wireOf(sample)} selectedId="b" onSelect={() => {}} onCreate={() => {}} />,
    )
    const row = container.querySelector<HTMLElement>('[data-profile-id="a"]')!
    row.focus()
    await click(row)
    expect(document.activeElement).toBe(row)
  })

  it('shows names full of markup as plain text', async () => {
    const evil = state([profile({ id: 'x', name: '<img src=x onerror="window.__pwned=1">' })])
    const { container } = await render(
      <ProfileList state={wireOf(evil)} selectedId="x" onSelect={() => {}} onCreate={() => {}} />,
    )
    expect(text(container)).toContain('<img src=x onerror="window.__pwned=1">')
    expect(container.querySelector('img')).toBeNull()
  })

  it('speaks English when the host does', async () => {
    const unbind = bindLocale({ getLocale: () => ({ active: 'en' }), subscribe: () => () => {} })
    try {
      const { container } = await render(
        <ProfileList state={wireOf(sample)} selectedId="a" onSelect={() => {}} onCreate={() => {}} />,
      )
      expect(text(container)).toContain('Profiles')
      expect(text(container)).toContain('New profile')
      expect(text(container.querySelector('[data-profile-id="a"]')!)).toContain('Default')
      expect(text(container.querySelector('[data-profile-id="b"]')!)).toContain('Pinned in 2 conversations')
    } finally {
      unbind()
    }
  })
})
