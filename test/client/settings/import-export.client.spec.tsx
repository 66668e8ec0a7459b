import { afterEach, describe, expect, it, vi } from 'vitest'
import { ApiContext, createApiClient } from '../../../lib/client/data/api.ts'
import { ImportExport } from '../../../lib/client/settings/ImportExport.tsx'
import { bindLocale } from '../../../lib/client/copy/locales.ts'
import {
  button,
  chooseFile,
  cleanup,
  click,
  found,
  profile,
  render,
  state,
  text,
  wireOf,
  type TestState,
} from '../../support/dom.tsx'
import { opsHost, type OpsHost } from '../../support/ops-host.ts'

afterEach(async () => {
  await cleanup()
  vi.unstubAllGlobals()
})

const envelope = (names: string[]) =>
  JSON.stringify({
    format: 'dsh-agent-profiles',
    version: 1,
    exportedAt: '2025-01-01T00:00:00.000Z',
    activeId: 'x0',
    profiles: names.map((name, i) => profile({ id: `x${i}`, name })),
  })

async function mount(
  s: TestState,
  beforeReplace?: () => Promise<boolean>,
): Promise<{ host: OpsHost; container: HTMLElement }> {
  const host = opsHost(s)
  const client = createApiClient()
  await client.refresh()
  const { container } = await render(
    <ApiContext.Provider value={client}>
      <ImportExport state={wireOf(s)} {...(beforeReplace === undefined ? {} : { beforeReplace })} />
    </ApiContext.Provider>,
  )
  return { host, container }
}

const fileInput = (c: HTMLElement) => c.querySelector<HTMLInputElement>('input[type="file"]')!
const commands = (host: OpsHost) => host.calls.filter((c) => c.path === '/__ap/command').map((c) => c.body)

describe('ImportExport', () => {
  it('offers every type the import reads in the file dialog, CHARX included', async () => {
    const { container } = await mount(state())
    const accepted = fileInput(container)
      .accept.split(',')
      .map((a) => a.trim().toLowerCase())
    // The types the import promises (the message for a skipped file names them).
    for (const name of ['card.json', 'card.png', 'card.charx', 'notes.md', 'notes.markdown']) {
      expect(accepted).toContain(name.slice(name.lastIndexOf('.')))
    }
  })

  it('links the export download', async () => {
    const { container } = await mount(state())
    const link = container.querySelector('a')!
    expect(text(link)).toBe('导出文件')
    expect(link.getAttribute('href')).toBe('/__ap/export')
    expect(link.hasAttribute('download')).toBe(true)
  })

  it('replaces with an envelope and says how many profiles came in', async () => {
    const { host, container } = await mount(state())
    await click(container.querySelector('input[value="replace"]')!)
    await chooseFile(
      fileInput(container),
      new File([envelope(['甲', '乙'])], 'backup.json', { type: 'application/json' }),
    )
    await click(button('确定', await found('[role="alertdialog"]')))
    expect(commands(host)).toEqual([expect.objectContaining({ op: 'state.import', mode: 'replace' })])
    expect(text(container.querySelector('[role="status"]')!)).toContain('已从「backup.json」导入 2 套配置。')
    expect(host.state.profiles.map((p) => p.name)).toEqual(['甲', '乙'])
  })

  it('says, in words for the user, that a file to replace with is not a profiles file, sending nothing', async () => {
    const { host, container } = await mount(state())
    await click(container.querySelector('input[value="replace"]')!)
    await chooseFile(fileInput(container), new File(['{"profiles": ['], 'broken.json'))
    expect(text(container.querySelector('[role="alert"]')!)).toBe(
      '「broken.json」不是有效的配置文件（内容已损坏或不是 JSON），没有导入；请选这里导出的文件重新导入',
    )
    expect(commands(host)).toEqual([])
  })

  it("shows the host's refusal with the field that was wrong", async () => {
    const { container } = await mount(state())
    await click(container.querySelector('input[value="replace"]')!)
    await chooseFile(fileInput(container), new File([envelope(['好', 'x'.repeat(41)])], 'bad.json'))
    await click(button('确定', await found('[role="alertdialog"]')))
    expect(text(container.querySelector('[role="alert"]')!)).toBe('「名称」：最多 40 字')
  })

  it('asks before replacing every profile, and does nothing when cancelled', async () => {
    const s = state([profile({ id: 'a' }), profile({ id: 'b' })])
    const { host, container } = await mount(s)
    await click(container.querySelector('input[value="replace"]')!)
    await chooseFile(fileInput(container), new File([envelope(['新'])], 'new.json'))
    expect(text(await found('[role="alertdialog"]'))).toContain('用「new.json」替换全部 2 套现有配置？')
    await click(button('取消', await found('[role="alertdialog"]')))
    expect(commands(host)).toEqual([])
    await chooseFile(fileInput(container), new File([envelope(['新'])], 'new.json'))
    await click(button('确定', await found('[role="alertdialog"]')))
    expect(commands(host)).toEqual([expect.objectContaining({ op: 'state.import', mode: 'replace' })])
    expect(host.state.profiles.map((p) => p.name)).toEqual(['新'])
  })

  it('lets the page veto a replace when it holds unsaved edits', async () => {
    const { host, container } = await mount(state(), async () => false)
    await click(button('恢复出厂设置', container))
    await click(button('确定', await found('[role="alertdialog"]')))
    expect(commands(host)).toEqual([])
  })

  it('restores factory defaults after confirmation, saying how many profiles go', async () => {
    const s = state([profile({ id: 'a' }), profile({ id: 'b' }), profile({ id: 'c' })])
    const { host, container } = await mount(s)
    await click(button('恢复出厂设置', container))
    expect(text(await found('[role="alertdialog"]'))).toContain('现有的 3 套配置和所有对话设定都会被清除')
    await click(button('确定', await found('[role="alertdialog"]')))
    expect(commands(host)).toEqual([{ op: 'state.restoreDefaults' }])
    expect(text(container.querySelector('[role="status"]')!)).toBe('已恢复出厂的三套配置，各对话的专属设定已清除')
  })

  it("clears every conversation's settings after confirmation, and is off when there are none", async () => {
    const { container: empty } = await mount(state())
    expect(button('清除所有对话设定', empty).disabled).toBe(true)
    await cleanup()
    const s = state([profile()], {
      'session-1': { profileId: 'p1', note: '', memories: [] },
      'session-2': { profileId: null, note: 'x', memories: [] },
    })
    const { host, container } = await mount(s)
    await click(button('清除所有对话设定', container))
    expect(text(await found('[role="alertdialog"]'))).toContain('清除 2 个对话的专属设定？')
    await click(button('确定', await found('[role="alertdialog"]')))
    expect(commands(host)).toEqual([{ op: 'sessions.clearAll' }])
    expect(host.state.sessions).toEqual({})
  })

  it('speaks English', async () => {
    const unbind = bindLocale({ getLocale: () => ({ active: 'en' }), subscribe: () => () => {} })
    try {
      const { container } = await mount(state())
      for (const label of [
        'Import and export',
        'Export file',
        'Import file',
        'Merge',
        'Replace',
        'Restore factory defaults',
        'Clear all conversation settings',
      ]) {
        expect(text(container)).toContain(label)
      }
    } finally {
      unbind()
    }
  })
})
