/**
 * The settings page keeps the user's drafts (jsdom, real React, the fake host): it asks before unsaved edits are
 * left or closed, keeps a draft through a closed dialog, a change of section and a save of the same profile elsewhere,
 * and saves all of it.
 */
import { act } from 'react'
import { describe, expect, it, vi } from 'vitest'
import { ApiContext, createApiClient } from '../../../lib/client/data/api.ts'
import { SettingsPage } from '../../../lib/client/settings/SettingsPage.tsx'
import { button, cleanup, click, field, render, settle, tab, text, type, wireOf } from '../../support/dom.tsx'
import { opsHost } from '../../support/ops-host.ts'
import type { Profile } from '../../../lib/state/model.ts'
import { sample, open, commands, dialog, row, cleanPageEachTest } from '../../support/settings-page.tsx'

cleanPageEachTest()

describe('SettingsPage', () => {
  it('asks before leaving unsaved edits for another profile, and stays when told to', async () => {
    const { container } = await open()
    await type(field('角色设定', container), '草稿里的角色')
    expect(text(row(container, 'a'))).toContain('•')
    await click(row(container, 'b'))
    expect(text(dialog()!)).toBe('「通用助手」有未保存的修改，确定放弃吗？ 取消 放弃修改')
    await click(button('取消', dialog()!))
    expect(field('角色设定', container).value).toBe('草稿里的角色')
    await click(row(container, 'b'))
    await click(button('放弃修改', dialog()!))
    expect(field('名称', container).value).toBe('写作教练')
    await click(row(container, 'a'))
    expect(field('角色设定', container).value).toBe('你是一名通用助手。')
  })

  it('keeps a draft when the settings dialog is closed and reopened', async () => {
    const first = await open()
    await type(field('行为准则', first.container), '草稿准则')
    await cleanup()
    const { container } = await open(first.host.state)
    expect(field('行为准则', container).value).toBe('草稿准则')
    expect(text(container)).toContain('有未保存的修改')
  })

  it('asks before Escape closes the settings with unsaved edits', async () => {
    const close = vi.fn()
    const { container } = await open(sample(), { close })
    await type(field('名称', container), '改了')
    await act(async () => {
      document.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }))
    })
    await settle()
    expect(text(dialog()!)).toContain('有未保存的修改')
    await click(button('放弃修改', dialog()!))
    expect(close).toHaveBeenCalledOnce()
  })

  it('keeps a draft through every change of section, marks where it was edited, and saves all of it', async () => {
    const { host, container } = await open()
    await type(field('角色设定', container), '草稿里的角色')
    await click(tab('记忆', container))
    await type(field('记忆摘要', container), '草稿摘要')
    expect(text(tab('基本资料', container))).toBe('基本资料 • (有改动)')
    expect(text(tab('记忆', container))).toBe('记忆 • (有改动)')
    expect(text(tab('工具', container))).toBe('工具')
    await click(tab('预览', container))
    await settle(350)
    expect(text(container.querySelector('.ap-preview')!)).toContain('草稿里的角色')
    await click(tab('导入导出与维护', container))
    expect(text(tab('配置', container))).toBe('配置 • (有改动)')
    await click(tab('诊断', container))
    await click(tab('配置', container))
    // Back where the user left: the Preview section, the draft whole.
    expect(tab('预览', container).getAttribute('aria-selected')).toBe('true')
    await click(tab('基本资料', container))
    expect(field('角色设定', container).value).toBe('草稿里的角色')
    await click(tab('记忆', container))
    expect(field('记忆摘要', container).value).toBe('草稿摘要')
    expect(commands(host)).toEqual([])
    await click(button('保存', container.querySelector('.ap-editor-actions')!))
    expect(commands(host)).toEqual([
      {
        op: 'profile.update',
        id: 'a',
        patch: { role: '草稿里的角色', memory: { summary: '草稿摘要', items: [] }, basedOn: [] },
      },
    ])
    expect(text(tab('记忆', container))).toBe('记忆')
  })

  it('still asks before a draft is dropped for another profile after a change of section', async () => {
    const { container } = await open()
    await click(tab('记忆', container))
    await type(field('记忆摘要', container), '只在记忆里改了')
    await click(tab('导入导出与维护', container))
    await click(tab('配置', container))
    await click(row(container, 'b'))
    expect(text(dialog()!)).toBe('「通用助手」有未保存的修改，确定放弃吗？ 取消 放弃修改')
    await click(button('取消', dialog()!))
    expect(field('记忆摘要', container).value).toBe('只在记忆里改了')
  })

  it('stays on the chosen section of the editor when another profile is chosen', async () => {
    const { container } = await open()
    await click(tab('工具', container))
    await click(row(container, 'b'))
    expect(text(container.querySelector('.ap-editor h3')!)).toBe('编辑「写作教练」')
    expect(tab('工具', container).getAttribute('aria-selected')).toBe('true')
    expect(text(container.querySelector('[data-panel="tools"]:not([hidden])')!)).toContain('工具档')
  })

  it('keeps a draft through a save of the same profile elsewhere, and lets the user pick a version', async () => {
    const client = createApiClient()
    const host = opsHost(sample())
    const { container } = await render(
      <ApiContext.Provider value={client}>
        <SettingsPage />
      </ApiContext.Provider>,
    )
    await settle(5)
    await type(field('角色设定', container), '我的角色')
    const id = client.getSnapshot().state!.profiles[0]!.id
    const saveElsewhere = async (over: Partial<Profile>): Promise<void> => {
      host.state = {
        ...host.state,
        profiles: host.state.profiles.map((p) => (p.id === id ? { ...p, ...over, updatedAt: p.updatedAt + 1 } : p)),
      }
      // What the live channel does when another tab saves this profile: the snapshot gets its new head.
      await act(async () => {
        client.patch({ profiles: wireOf(host.state).profiles.filter((p) => p.id === id) })
      })
      await settle(5)
    }
    await saveElsewhere({ role: '别处的角色', personality: '别处的性格' })
    expect(field('角色设定', container).value).toBe('我的角色')
    expect(field('性格特点', container).value).toBe('别处的性格')
    const notice = container.querySelector<HTMLElement>('[data-ap-conflict]')!
    expect(notice.getAttribute('role')).toBe('alert')
    expect(text(notice)).toContain('角色设定')
    await click(button('保留我的修改', container))
    expect(container.querySelector('[data-ap-conflict]')).toBeNull()
    expect(field('角色设定', container).value).toBe('我的角色')

    await saveElsewhere({ role: '又一次别处保存' })
    await click(button('用已保存的版本', container))
    expect(field('角色设定', container).value).toBe('又一次别处保存')
    expect(container.querySelector('[data-ap-conflict]')).toBeNull()
  })
})
