/**
 * The settings page in jsdom with real React over the fake host: loading, the list and the editor, saving, creating,
 * duplicating, deleting and the default profile, refusals, the sections, markup as text and English. Keeping drafts
 * is settings-drafts.client.spec.tsx's.
 */
import { describe, expect, it, vi } from 'vitest'
import { ApiContext, createApiClient } from '../../../lib/client/data/api.ts'
import { bindLocale } from '../../../lib/client/copy/locales.ts'
import { SettingsPage } from '../../../lib/client/settings/SettingsPage.tsx'
import {
  button,
  chooseFile,
  click,
  field,
  profile,
  render,
  settle,
  stubFetch,
  tab,
  text,
  type,
  wireOf,
} from '../../support/dom.tsx'
import { pngDataUrl } from '../../support/png.ts'
import { sample, open, commands, dialog, row, cleanPageEachTest } from '../../support/settings-page.tsx'

cleanPageEachTest()

describe('SettingsPage', () => {
  it('shows a loading placeholder on its first frame, before any data', async () => {
    stubFetch(() => new Promise(() => {}))
    const { container } = await render(
      <ApiContext.Provider value={createApiClient()}>
        <SettingsPage />
      </ApiContext.Provider>,
    )
    expect(text(container)).toBe('智能体配置 正在加载智能体配置…')
  })

  it('shows why loading failed, and loads on retry', async () => {
    let fail = true
    stubFetch(() =>
      fail
        ? { status: 500, body: { error: { code: 'io', message: 'EACCES: permission denied' } } }
        : {
            body: {
              state: wireOf(sample()),
              meta: {
                dataFile: 'f',
                counts: { profiles: 2, sessions: 2, memories: 0 },
                lastError: null,
                compressThreshold: 5000,
              },
            },
          },
    )
    const { container } = await render(
      <ApiContext.Provider value={createApiClient()}>
        <SettingsPage />
      </ApiContext.Provider>,
    )
    await settle(5)
    expect(text(container.querySelector('[role="alert"]')!)).toContain(
      '加载失败：数据文件读写失败（磁盘满了，或目录没有读写权限），这次什么都没有改；之前保存的内容都还在。',
    )
    fail = false
    await click(button('重试', container))
    await settle(5)
    expect(text(row(container, 'b'))).toContain('写作教练')
  })

  it('lists the profiles and edits the default one first', async () => {
    const { container } = await open()
    expect(text(row(container, 'a'))).toContain('通用助手 默认')
    expect(text(row(container, 'b'))).toContain('写作教练 2 个对话固定')
    expect(field('名称', container).value).toBe('通用助手')
    await click(row(container, 'b'))
    expect(field('名称', container).value).toBe('写作教练')
    expect(field('行为准则', container).value).toBe('不编造引用')
  })

  it('saves only the changed fields and shows the saved value', async () => {
    const { host, container } = await open()
    await type(field('说话习惯', container), '先给结论，再讲理由')
    await type(field('名称', container), '助手')
    await click(button('保存', container))
    expect(commands(host)).toEqual([
      { op: 'profile.update', id: 'a', patch: { name: '助手', speakingStyle: '先给结论，再讲理由' } },
    ])
    expect(host.state.profiles[0]!.speakingStyle).toBe('先给结论，再讲理由')
    expect(text(container)).toContain('已保存「助手」')
    expect(button('保存', container).disabled).toBe(true)
    expect(text(row(container, 'a'))).toContain('助手')
  })

  it('uploads a new avatar with the save and shows it in the list', async () => {
    // A real picture: the host's own avatar check reads the image's header.
    const avatar = pngDataUrl(100, 100)
    const shrink = vi.fn(async () => ({
      dataUrl: avatar,
      width: 100,
      height: 100,
      bytes: 3000,
    }))
    const { host, container } = await open(sample(), { shrink })
    await chooseFile(
      container.querySelector<HTMLInputElement>('.ap-editor input[type="file"]')!,
      new File(['x'], 'me.png', { type: 'image/png' }),
    )
    await click(button('保存', container))
    expect(commands(host)).toEqual([{ op: 'profile.update', id: 'a', patch: { avatar } }])
    expect(row(container, 'a').querySelector('img')!.getAttribute('src')).toMatch(/^\/__ap\/avatar\/a\?v=/)
  })

  it('creates a profile, which becomes the default, and opens it', async () => {
    const { host, container } = await open()
    await click(button('新建配置', container))
    expect(commands(host)).toEqual([{ op: 'profile.create' }])
    expect(field('名称', container).value).toBe('新配置')
    expect(text(row(container, host.state.activeId))).toContain('默认')
  })

  it("says in the new profile's editor that it became the default, with the previous default back in one click", async () => {
    const { host, container } = await open()
    const before = host.state.activeId
    const previous = host.state.profiles.find((p) => p.id === before)!.name
    await click(button('新建配置', container))
    const notice = container.querySelector<HTMLElement>('.ap-settings > [role="status"]:not([data-ap-live-off])')!
    expect(text(notice)).toContain('已新建「新配置」')
    // Under the editor's title, where the user is looking, not only in the page's notice above.
    const editor = container.querySelector<HTMLElement>('.ap-editor')!
    const said = editor.querySelector<HTMLElement>('[data-ap-new-default]')!
    expect(editor.querySelector('.ap-editor-head')!.nextElementSibling).toBe(said)
    expect(text(said)).toBe(
      `「新配置」现在是默认配置：没有固定配置的对话从下一轮起都用它。 仍以「${previous}」为默认配置`,
    )
    await click(button(`仍以「${previous}」为默认配置`, said))
    await settle()
    expect(commands(host).at(-1)).toEqual({ op: 'profile.activate', id: before })
    expect(host.state.activeId).toBe(before)
    expect(editor.querySelector('[data-ap-new-default]')).toBeNull()
    // The new profile stays open in the editor.
    expect(field('名称', container).value).toBe('新配置')
  })

  it('does not say "saving" on Save while the delete question is open', async () => {
    const { container } = await open()
    await type(field('行为准则', container), '草稿准则')
    await click(button('删除', container.querySelector('.ap-editor-tools')!))
    expect(text(dialog()!)).toContain('删除')
    const saves = [...container.querySelectorAll<HTMLButtonElement>('.ap-editor button.ap-btn-primary')]
    expect(saves.map((b) => text(b))).not.toContain('正在保存…')
    expect(saves.some((b) => text(b) === '保存' && !b.disabled)).toBe(true)
    await click(button('取消', dialog()!))
  })

  it('duplicates the open profile and opens the copy', async () => {
    const { host, container } = await open()
    await click(row(container, 'b'))
    await click(button('复制', container.querySelector('.ap-editor-tools')!))
    expect(commands(host)).toEqual([{ op: 'profile.duplicate', id: 'b' }])
    expect(field('名称', container).value).toBe('写作教练 副本')
  })

  it('deletes after a confirmation that says how many conversations it unbinds', async () => {
    const { host, container } = await open()
    await click(row(container, 'b'))
    await click(button('删除', container.querySelector('.ap-editor-tools')!))
    expect(text(dialog()!)).toContain('删除「写作教练」？有 2 个对话固定了它，这些对话会改回跟随默认配置。')
    await click(button('删除', dialog()!))
    expect(commands(host)).toEqual([{ op: 'profile.delete', id: 'b' }])
    expect(container.querySelector('[data-profile-id="b"]')).toBeNull()
    expect(field('名称', container).value).toBe('通用助手')
  })

  it('sets another profile as the default', async () => {
    const { host, container } = await open()
    await click(row(container, 'b'))
    await click(button('设为默认', container))
    expect(commands(host)).toEqual([{ op: 'profile.activate', id: 'b' }])
    expect(text(row(container, 'b'))).toContain('默认')
    expect(text(row(container, 'a'))).not.toContain('默认')
  })

  it('shows a refused save with the field and keeps the draft', async () => {
    const { host, container } = await open()
    host.failNext((c) => c.path === '/__ap/command', {
      status: 400,
      body: {
        error: {
          code: 'invalid',
          message: 'patch.rules: is 8001 characters, over the limit of 8000',
          field: 'patch.rules',
          limit: 8000,
        },
      },
    })
    await type(field('行为准则', container), '新准则')
    await click(button('保存', container))
    expect(text(container.querySelector('.ap-error')!)).toBe('「行为准则」：最多 8000 字')
    expect(field('行为准则', container).value).toBe('新准则')
    expect(button('保存', container).disabled).toBe(false)
  })

  it("says in the page's language when another dsh process is saving, and keeps the draft", async () => {
    const { host, container } = await open()
    const message =
      'not saved: another dsh process (process 4242, since 2026-11-30T05:00:00.000Z) is saving agent profiles to this data'
    host.failNext((c) => c.path === '/__ap/command', { status: 409, body: { error: { code: 'locked', message } } })
    await type(field('行为准则', container), '另一个进程在写')
    await click(button('保存', container))
    expect(text(container.querySelector('.ap-error')!)).toBe(
      '没有保存：另一个 dsh 进程正忙着保存这些配置，请稍后再试。',
    )
    expect(field('行为准则', container).value).toBe('另一个进程在写')
  })

  it('puts about you, import/export with maintenance, and diagnostics, in sections of their own beside the profiles', async () => {
    const { container } = await open()
    const pageTabs = [
      ...container.querySelector('[role="tablist"][aria-label="智能体配置的分区"]')!.querySelectorAll('[role="tab"]'),
    ]
    expect(pageTabs.map((t) => [text(t), t.getAttribute('aria-selected')])).toEqual([
      ['配置', 'true'],
      ['关于你', 'false'],
      ['导入导出与维护', 'false'],
      ['诊断', 'false'],
    ])
    expect(container.querySelector('.ap-io')).toBeNull()
    await click(tab('导入导出与维护', container))
    const files = container.querySelector<HTMLElement>('[data-panel="files"]')!
    expect(files.hidden).toBe(false)
    expect(files.querySelector('.ap-io')).not.toBeNull()
    expect(text(files)).toContain('恢复出厂设置')
    expect(container.querySelector<HTMLElement>('.ap-editor')!.closest<HTMLElement>('[role="tabpanel"]')!.hidden).toBe(
      true,
    )
    await click(tab('诊断', container))
    expect(text(container.querySelector('[data-panel="diagnostics"]:not([hidden])')!)).toContain('数据文件')
    expect(files.hidden).toBe(true)
  })

  it('renders names and rules full of markup as text, running nothing', async () => {
    const s = sample()
    s.profiles[0] = profile({
      id: 'a',
      name: '<img src=x onerror="window.__pwned=1">',
      rules: '<script>window.__pwned=1</script>',
    })
    const { container } = await open(s)
    expect(text(row(container, 'a'))).toContain('<img src=x onerror="window.__pwned=1">')
    expect(container.querySelector('script')).toBeNull()
    expect(container.querySelectorAll('img[src="x"]')).toHaveLength(0)
    expect((window as { __pwned?: number }).__pwned).toBeUndefined()
  })

  it('speaks English', async () => {
    const unbind = bindLocale({ getLocale: () => ({ active: 'en' }), subscribe: () => () => {} })
    try {
      const { container } = await open()
      for (const label of [
        'Agent profiles',
        'Profiles',
        'New profile',
        'Import, export & maintenance',
        'Diagnostics',
        'Profile',
        'Memory',
        'Tools',
        'Preview',
      ]) {
        expect(text(container)).toContain(label)
      }
      await click(tab('Preview', container))
      expect(text(container)).toContain('What the model sees')
      await click(tab('Import, export & maintenance', container))
      expect(text(container)).toContain('Import and export')
      expect(text(row(container, 'b'))).toContain('Pinned in 2 conversations')
    } finally {
      unbind()
    }
  })
})
