/**
 * The settings page's import of profile files in jsdom, against the real command logic (commands/dispatch.ts behind a stubbed
 * fetch): several files at once go to `profiles.importFiles` as cards and Markdown, what became of each file is listed,
 * other file types are skipped with a word, a lone envelope merges through the same command (what is already there is
 * reported unchanged), a profile whose id is taken by one with other content is offered as "keep both" or "replace
 * this one", and a batch with nothing importable is an error naming the file.
 */
import { act } from 'react'
import { describe, expect, it } from 'vitest'
import { ApiContext, createApiClient } from '../../../lib/client/data/api.ts'
import { ImportExport } from '../../../lib/client/settings/ImportExport.tsx'
import { factoryState } from '../../../lib/state/defaults.ts'
import type { State } from '../../../lib/state/model.ts'
import { applyCommand } from '../../../lib/commands/dispatch.ts'
import { b64, pngCard, richV2 } from '../../support/card-fixtures.ts'
import { button, click, found, meta, render, settle, stubFetch, text, type Call, wireOf } from '../../support/dom.tsx'
import { itemsEnvelope } from '../../support/hostile-files.ts'
import { FILE_BOUNDS } from '../../../lib/shared/files.ts'
import type { OwnImportStatus } from '../../../lib/shared/own-import.ts'
import { StoreError } from '../../../lib/shared/errors.ts'

/** A host whose commands run through the real operations on an in-memory state. */
function realHost(): { state: () => State; commands: () => Record<string, unknown>[] } {
  let state = factoryState(1)
  let n = 0
  // The background import of a large own file: taken at once, written in ten steps, one per poll of its status.
  let own: { status: OwnImportStatus; state: State } | undefined
  let jobs = 0
  const calls: Call[] = stubFetch((call) => {
    if (call.path === '/__ap/state') return { body: { state, meta: meta() } }
    if (call.path === '/__ap/import-own' && call.method === 'POST') {
      const r = applyCommand(state, call.body, { now: 2, newId: (p) => `${p}-${++n}` })
      const total = (r.extra as { imported: number }).imported * 3
      const result = { ...(r.extra as object), notice: r.notice } as OwnImportStatus['result']
      own = { status: { state: 'running', id: ++jobs, file: 'mine.json', done: 0, total, result }, state: r.state }
      return { status: 202, body: { status: { ...own.status, result: undefined } } }
    }
    if (call.path === '/__ap/import-own') {
      if (own === undefined) return { body: { status: { state: 'idle', id: 0, file: '', done: 0, total: 0 } } }
      const s = own.status
      const done = Math.min(s.total, s.done + Math.ceil(s.total / 10))
      own.status = { ...s, done, state: done === s.total ? 'done' : 'running' }
      if (own.status.state === 'done') state = own.state
      return { body: { status: own.status.state === 'done' ? own.status : { ...own.status, result: undefined } } }
    }
    try {
      const r = applyCommand(state, call.body, { now: 2, newId: (p) => `${p}-${++n}` })
      state = r.state
      return { body: { state, meta: meta(), notice: r.notice, ...r.extra } }
    } catch (e) {
      if (!(e instanceof StoreError)) throw e
      return { status: 400, body: { error: { code: e.code, message: e.message, field: e.field } } }
    }
  })
  return {
    state: () => state,
    commands: () => calls.filter((c) => c.method === 'POST').map((c) => c.body!),
  }
}

async function mount(): Promise<{ host: ReturnType<typeof realHost>; container: HTMLElement }> {
  const host = realHost()
  const client = createApiClient()
  await client.refresh()
  const { container } = await render(
    <ApiContext.Provider value={client}>
      <ImportExport state={wireOf({ ...host.state(), sessions: {} })} />
    </ApiContext.Provider>,
  )
  return { host, container }
}

/** The first element matching `selector` in `container`, waited for over the polls of the page (up to 4 s). */
async function waitFor(container: HTMLElement, selector: string): Promise<HTMLElement> {
  for (let i = 0; i < 400 && container.querySelector(selector) === null; i++) await settle(10)
  return container.querySelector<HTMLElement>(selector)!
}

async function choose(container: HTMLElement, files: File[]): Promise<void> {
  const input = container.querySelector<HTMLInputElement>('input[type="file"]')!
  await act(async () => {
    Object.defineProperty(input, 'files', { configurable: true, value: files })
    input.dispatchEvent(new Event('change', { bubbles: true }))
  })
  // FileReader and the command resolve over several ticks.
  for (let i = 0; i < 20 && container.querySelector('[role="status"], [role="alert"]') === null; i++) await settle(10)
}

describe('importing profile files from the settings page', () => {
  it('sends a card and a Markdown file in one merge, and lists what needs attention per file', async () => {
    const { host, container } = await mount()
    const card = richV2()
    card.data.name = ''
    await choose(container, [
      new File([JSON.stringify(card)], 'Seraphina.json', { type: 'application/json' }),
      new File(['---\nname: 小林\n---\n## 身份\n店员\n'], '小林.md', { type: 'text/markdown' }),
    ])
    const [cmd] = host.commands()
    expect(cmd!.op).toBe('profiles.importFiles')
    expect((cmd!.files as { name: string; format: string }[]).map((f) => [f.name, f.format])).toEqual([
      ['Seraphina.json', 'card'],
      ['小林.md', 'markdown'],
    ])
    expect(
      host
        .state()
        .profiles.map((p) => p.name)
        .slice(-2),
    ).toEqual(['Seraphina', '小林'])
    const status = container.querySelector('[role="status"]')!
    expect(text(status)).toContain('已从 2 个文件导入 2 套配置')
    expect([...status.querySelectorAll('li')].map((li) => text(li))).toContain(
      '「Seraphina.json」：文件没有写名字，已按文件名命名为「Seraphina」',
    )
  })

  it('reads a PNG card as bytes and skips files that are not profile files', async () => {
    const { host, container } = await mount()
    await choose(container, [
      new File([new Uint8Array(pngCard([{ keyword: 'chara', card: richV2() }]))], 'card.png', { type: 'image/png' }),
      new File(['x'], 'notes.txt'),
    ])
    const files = host.commands()[0]!.files as { name: string; format: string; data?: string }[]
    expect(files).toHaveLength(1)
    expect(Buffer.from(files[0]!.data!, 'base64').subarray(1, 4).toString()).toBe('PNG')
    expect(host.state().profiles.at(-1)!.avatar).toMatch(/^data:image\/png;base64,/)
    expect(text(container.querySelector('[role="status"]')!)).toContain(
      '「notes.txt」不是配置文件（支持 .json、.png、.charx、.md），已跳过。',
    )
  })

  it('merges a lone envelope through profiles.importFiles, which skips what is already there', async () => {
    const { host, container } = await mount()
    const envelope = {
      format: 'dsh-agent-profiles',
      version: 1,
      exportedAt: '',
      activeId: '',
      profiles: [{ name: '甲' }, host.state().profiles[0]],
    }
    await choose(container, [new File([JSON.stringify(envelope)], 'backup.json')])
    expect(host.commands().map((c) => [c.op, c.conflicts, (c.files as { format: string }[])[0]!.format])).toEqual([
      ['profiles.importFiles', 'ask', 'envelope'],
    ])
    expect(
      host
        .state()
        .profiles.map((p) => p.name)
        .slice(3),
    ).toEqual(['甲'])
    const status = container.querySelector('[role="status"]')!
    expect(text(status)).toContain('1 套与已有配置相同，未重复导入')
    expect([...status.querySelectorAll('li')].map((li) => text(li))).toEqual([
      '「backup.json」：「通用助手」与已有配置相同，未重复导入。',
    ])
  })

  it("asks before importing a large envelope, naming what it holds, and imports it as the user's own on yes", async () => {
    const { host, container } = await mount()
    const many = FILE_BOUNDS.profiles + 5
    await choose(container, [new File([itemsEnvelope(many, 2)], 'mine.json')])
    const dialog = await found('[role="alertdialog"]')
    expect(text(dialog)).toContain(`这个文件很大：「mine.json」有 ${many} 套配置、${many * 2} 条记忆`)
    expect(host.state().profiles.map((p) => p.name)).not.toContain('Profile 0')
    await click(button('确定', dialog))
    // Written in the background: a progress bar says how far it is, then the report says what came in.
    const bar = await waitFor(container, '[role="progressbar"]')
    expect(bar.getAttribute('aria-valuemax')).toBe(String(many * 3))
    expect(Number(bar.getAttribute('aria-valuenow'))).toBeLessThan(many * 3)
    expect(bar.getAttribute('aria-label')).toBe('正在导入「mine.json」')
    expect(text(container)).toMatch(/已写入 \d+ \/ 75/)
    for (let i = 0; i < 600 && !text(container).includes(`导入 ${many} 套`); i++) await settle(10)
    expect(text(container)).toContain(`导入 ${many} 套`)
    expect(container.querySelector('[role="progressbar"]')).toBeNull()
    const sent = host.commands().map((c) => (c.files as { own?: boolean }[])[0]!.own)
    expect(sent).toEqual([undefined, true])
    expect(host.state().profiles.filter((p) => p.name.startsWith('Profile '))).toHaveLength(many)
  })

  it('finds the progress again when the user leaves the section and comes back, and says how the import ended', async () => {
    const host = realHost()
    const client = createApiClient()
    await client.refresh()
    const ui = () => (
      <ApiContext.Provider value={client}>
        <ImportExport state={wireOf({ ...host.state(), sessions: {} })} />
      </ApiContext.Provider>
    )
    const first = await render(ui())
    const many = FILE_BOUNDS.profiles + 5
    await choose(first.container, [new File([itemsEnvelope(many, 2)], 'mine.json')])
    await click(button('确定', await found('[role="alertdialog"]')))
    await waitFor(first.container, '[role="progressbar"]')
    await first.unmount()
    const again = await render(ui())
    const bar = await waitFor(again.container, '[role="progressbar"]')
    expect(bar.getAttribute('aria-valuenow')).not.toBeNull()
    for (let i = 0; i < 600 && !text(again.container).includes(`导入 ${many} 套`); i++) await settle(10)
    expect(text(again.container.querySelector('[role="status"]')!)).toContain(`导入 ${many} 套`)
    expect(host.state().profiles.filter((p) => p.name.startsWith('Profile '))).toHaveLength(many)
  })

  it('imports nothing of a large envelope the user does not confirm, and says why', async () => {
    const { host, container } = await mount()
    const before = host.state().profiles.length
    await choose(container, [new File([itemsEnvelope(FILE_BOUNDS.profiles + 5, 2)], 'shared.json')])
    await click(button('取消', await found('[role="alertdialog"]')))
    const alert = await found('[role="alert"]')
    expect(text(alert)).toContain('「shared.json」：文件很大')
    expect(host.commands()).toHaveLength(1)
    expect(host.state().profiles).toHaveLength(before)
  })

  it('says which file failed when nothing could be imported', async () => {
    const { host, container } = await mount()
    const before = host.state()
    await choose(container, [new File([`x${b64(richV2())}`], 'broken.json')])
    const alert = container.querySelector('[role="alert"]')!
    expect([...alert.querySelectorAll('li')].map((li) => text(li))).toEqual([
      '「broken.json」：这不是角色卡：角色卡是带卡片数据的 PNG、卡片 JSON 或 CHARX；没有导入',
    ])
    expect(host.state()).toBe(before)
  })

  it('lists several failed files one line each, each saying "not imported" once', async () => {
    const { host, container } = await mount()
    const before = host.state()
    await choose(container, [
      new File([`x${b64(richV2())}`], 'broken.json'),
      new File([''], 'empty.md'),
      new File(['just words'], 'notes.txt'),
    ])
    const alert = container.querySelector('[role="alert"]')!
    const lines = [...alert.querySelectorAll('li')].map((li) => text(li))
    expect(lines).toHaveLength(3)
    const line = (file: string) => lines.find((l) => l.startsWith(`「${file}」`))!
    expect(line('broken.json')).toMatch(/^「broken\.json」：这不是角色卡/)
    expect(line('empty.md')).toMatch(/^「empty\.md」：/)
    expect([line('broken.json'), line('empty.md')].map((l) => l.split('没有导入').length - 1)).toEqual([1, 1])
    expect(line('notes.txt')).toContain('已跳过')
    // The sentence above the lines says that nothing came in; the lines are not run together in it.
    expect(text(alert).startsWith('没有导入任何配置。')).toBe(true)
    expect(host.state()).toBe(before)
  })

  it.each([
    ['替换这一份', 'replace'],
    ['保留两份', 'keep both'],
  ] as const)(
    'offers "keep both" or "replace this one" for a clashing id with other content (%s)',
    async (choice, what) => {
      const { host, container } = await mount()
      const general = host.state().profiles[0]!
      const count = host.state().profiles.length
      const changed = { ...general, name: '同事的助手', role: '同一个 id，另一份内容' }
      const envelope = {
        format: 'dsh-agent-profiles',
        version: 1,
        exportedAt: '',
        activeId: '',
        profiles: [changed, { name: '乙' }],
      }
      await choose(container, [new File([JSON.stringify(envelope)], 'colleague.json')])
      // The first pass brings in what does not clash and leaves the clash for the user.
      expect(
        host
          .state()
          .profiles.map((p) => p.name)
          .slice(count),
      ).toEqual(['乙'])
      const group = container.querySelector('[role="group"]')!
      expect(text(group)).toContain('「colleague.json」中的「同事的助手」（已有：「通用助手」）')
      // What differs, in the page's language, under the clash.
      expect(text(group.querySelector('[data-ap-clash]')!)).toBe(
        '不同之处：名称（已有「通用助手」，文件中「同事的助手」）；角色设定。',
      )
      const radio = [...group.querySelectorAll('label')].find((l) => text(l) === choice)!.querySelector('input')!
      await click(radio)
      await click(button('按所选导入', container))
      for (let i = 0; i < 20 && container.querySelector('[role="group"]') !== null; i++) await settle(10)
      const last = host.commands().at(-1)!
      expect([last.conflicts, last.replace]).toEqual(['keep-both', what === 'replace' ? ['general'] : []])
      const names = host.state().profiles.map((p) => [p.id, p.role])
      if (what === 'replace') {
        expect(host.state().profiles).toHaveLength(count + 1)
        expect(names[0]).toEqual(['general', '同一个 id，另一份内容'])
      } else {
        expect(host.state().profiles).toHaveLength(count + 2)
        expect(names.at(-1)).toEqual(['general-2', '同一个 id，另一份内容'])
        expect(names[0]).toEqual(['general', general.role])
      }
      expect(container.querySelector('[role="group"]')).toBe(null)
      expect(text(container.querySelector('[role="status"]')!)).toBe('已从「colleague.json」导入 1 套配置。')
    },
  )

  it.each([
    ['用文件中的版本更新「Seraphina」', 'update'],
    ['保留两份（文件中的改名为「Seraphina 2」）', 'keep both'],
  ] as const)(
    'asks about a card whose name is already there: update that profile, or keep both under a distinct name (%s)',
    async (choice, what) => {
      const { host, container } = await mount()
      const card = (description: string) =>
        new File(
          [JSON.stringify({ spec: 'chara_card_v2', spec_version: '2.0', data: { name: 'Seraphina', description } })],
          'Seraphina.json',
        )
      await choose(container, [card('林间守护者')])
      const mine = host.state().profiles.at(-1)!
      const count = host.state().profiles.length
      await act(async () => {
        await settle(10)
      })
      await choose(container, [card('林间守护者，改过的版本')])
      for (let i = 0; i < 20 && container.querySelector('[role="group"]') === null; i++) await settle(10)
      // Nothing came in while the user chooses; what differs is said under the clash.
      expect(host.state().profiles).toHaveLength(count)
      const group = container.querySelector('[role="group"]')!
      expect(text(group)).toContain('「Seraphina.json」中的「Seraphina」（已有：「Seraphina」）')
      expect(text(group.querySelector('[data-ap-clash]')!)).toBe('不同之处：角色设定。')
      const labels = [...group.querySelectorAll('label')].map((l) => text(l))
      expect(labels).toEqual(['保留两份（文件中的改名为「Seraphina 2」）', '用文件中的版本更新「Seraphina」'])
      const radio = [...group.querySelectorAll('label')].find((l) => text(l) === choice)!.querySelector('input')!
      await click(radio)
      await click(button('按所选导入', container))
      for (let i = 0; i < 20 && container.querySelector('[role="group"]') !== null; i++) await settle(10)
      const seraphinas = host.state().profiles.filter((p) => p.name.startsWith('Seraphina'))
      if (what === 'update') {
        expect(seraphinas.map((p) => [p.id, p.name])).toEqual([[mine.id, 'Seraphina']])
        expect(seraphinas[0]!.role).toContain('改过的版本')
      } else {
        expect(seraphinas.map((p) => p.name)).toEqual(['Seraphina', 'Seraphina 2'])
        expect(seraphinas[0]!.role).toBe(mine.role)
      }
      expect(host.state().profiles).toHaveLength(what === 'update' ? count : count + 1)
    },
  )
})
