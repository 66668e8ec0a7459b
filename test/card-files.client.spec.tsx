/**
 * The settings page's import of profile files in jsdom, against the real command logic (lib/ops.ts behind a stubbed
 * fetch): several files at once go to `profiles.importFiles` as cards and Markdown, what became of each file is listed,
 * other file types are skipped with a word, a lone envelope keeps its own path, and a batch with nothing importable
 * is an error naming the file.
 */
import { act } from 'react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ApiContext, createApiClient } from '../lib/client/api.ts'
import { ImportExport } from '../lib/client/ImportExport.tsx'
import { factoryState } from '../lib/defaults.ts'
import type { State } from '../lib/model.ts'
import { applyCommand } from '../lib/ops.ts'
import { StoreError } from '../lib/validate.ts'
import { b64, pngCard, richV2 } from './card-fixtures.ts'
import { cleanup, meta, render, settle, stubFetch, text, type Call, wireOf } from './support/dom.tsx'

afterEach(async () => {
  await cleanup()
  vi.unstubAllGlobals()
})

/** A host whose commands run through the real operations on an in-memory state. */
function realHost(): { state: () => State; commands: () => Record<string, unknown>[] } {
  let state = factoryState(1)
  let n = 0
  const calls: Call[] = stubFetch((call) => {
    if (call.path === '/__ap/state') return { body: { state, meta: meta() } }
    try {
      const r = applyCommand(state, call.body, { now: 2, newId: (p) => `${p}-${++n}` })
      state = r.state
      return { body: { state, meta: meta(), notice: r.notice, ...r.extra } }
    } catch (e) {
      if (!(e instanceof StoreError)) throw e
      return { status: 400, body: { error: { code: e.code, message: e.message, field: e.field } } }
    }
  })
  return { state: () => state, commands: () => calls.filter((c) => c.path === '/__ap/command').map((c) => c.body!) }
}

async function mount(): Promise<{ host: ReturnType<typeof realHost>; container: HTMLElement }> {
  const host = realHost()
  const client = createApiClient()
  await client.refresh()
  const { container } = await render(<ApiContext.Provider value={client}><ImportExport state={wireOf({ ...host.state(), sessions: {} })} /></ApiContext.Provider>)
  return { host, container }
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
    expect((cmd!.files as { name: string; format: string }[]).map((f) => [f.name, f.format])).toEqual([['Seraphina.json', 'card'], ['小林.md', 'markdown']])
    expect(host.state().profiles.map((p) => p.name).slice(-2)).toEqual(['Seraphina', '小林'])
    const status = container.querySelector('[role="status"]')!
    expect(text(status)).toContain('已从 2 个文件导入 2 套配置')
    expect([...status.querySelectorAll('li')].map((li) => text(li))).toContain('「Seraphina.json」：data.name: the card has no name; named "Seraphina" after the file')
  })

  it('reads a PNG card as bytes and skips files that are not profile files', async () => {
    const { host, container } = await mount()
    await choose(container, [new File([new Uint8Array(pngCard([{ keyword: 'chara', card: richV2() }]))], 'card.png', { type: 'image/png' }), new File(['x'], 'notes.txt')])
    const files = host.commands()[0]!.files as { name: string; format: string; data?: string }[]
    expect(files).toHaveLength(1)
    expect(Buffer.from(files[0]!.data!, 'base64').subarray(1, 4).toString()).toBe('PNG')
    expect(host.state().profiles.at(-1)!.avatar).toMatch(/^data:image\/png;base64,/)
    expect(text(container.querySelector('[role="status"]')!)).toContain('「notes.txt」不是配置文件（支持 .json、.png、.md），已跳过。')
  })

  it('keeps a lone envelope on its merge/replace path', async () => {
    const { host, container } = await mount()
    const envelope = { format: 'dsh-agent-profiles', version: 1, exportedAt: '', activeId: '', profiles: [{ name: '甲' }] }
    await choose(container, [new File([JSON.stringify(envelope)], 'backup.json')])
    expect(host.commands().map((c) => [c.op, c.mode])).toEqual([['state.import', 'merge']])
  })

  it('says which file failed when nothing could be imported', async () => {
    const { host, container } = await mount()
    const before = host.state()
    await choose(container, [new File([`x${b64(richV2())}`], 'broken.md')])
    expect(text(container.querySelector('[role="alert"]')!)).toMatch(/files\[0\]\.file \("broken.md"\): is not a profile/)
    expect(host.state()).toBe(before)
  })
})
