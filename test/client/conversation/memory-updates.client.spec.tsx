import { beforeEach, describe, expect, it, vi } from 'vitest'
import { ApiContext, createApiClient } from '../../../lib/client/data/api.ts'
import { MemoryUpdates } from '../../../lib/client/conversation/MemoryUpdates.tsx'
import { MemorySaveView } from '../../../lib/client/conversation/MemorySaveView.tsx'
import { bindLocale } from '../../../lib/client/copy/locales.ts'
import { opsHost, type OpsHost } from '../../support/ops-host.ts'
import { button, click, profile, render, settle, state, text } from '../../support/dom.tsx'

beforeEach(() => {
  localStorage.clear()
})
const SID = 'session-1'
const items = (host: OpsHost) => host.state.profiles[0]!.memory.items.map((it) => it.text)

/** A profile with one fact typed by hand, then one extraction run of this conversation (two facts). */
async function afterExtraction(): Promise<{ host: OpsHost; client: ReturnType<typeof createApiClient> }> {
  const host = opsHost(state([profile({ id: 'a', name: '通用助手' })]))
  const client = createApiClient()
  await client.command('memory.add', { target: { profileId: 'a' }, items: [{ text: '手写的事实' }] })
  await client.command('memory.add', {
    target: { profileId: 'a' },
    items: [
      { text: '用户住在杭州', source: 'auto', sessionId: SID },
      { text: '用户在学德语', source: 'auto', sessionId: SID },
    ],
  })
  return { host, client }
}

async function mountRow(client: ReturnType<typeof createApiClient>, sessionId = SID) {
  const m = await render(
    <ApiContext.Provider value={client}>
      <MemoryUpdates sessionId={sessionId} />
    </ApiContext.Provider>,
  )
  await settle()
  return m
}

const facts = (root: ParentNode) =>
  [...root.querySelectorAll('[data-ap-fact]')].map((el) => [text(el), el.getAttribute('data-undone')])

describe('MemoryUpdates (the "memory updated" row)', () => {
  it("lists the facts the conversation's extraction added; undo of one fact and of the whole run removes exactly those", async () => {
    const { host, client } = await afterExtraction()
    await client.command('memory.add', {
      target: { profileId: 'a' },
      items: [{ text: '之后模型存的', source: 'tool', sessionId: SID }],
    })
    const { container } = await mountRow(client)
    expect(text(container)).toMatch(/^🧠 记忆已更新（通用助手）： 用户住在杭州 撤销 用户在学德语 撤销 全部撤销 ✕$/)
    await click(button('撤销', container.querySelector('[data-ap-fact]')!))
    await settle()
    expect(items(host)).toEqual(['手写的事实', '用户在学德语', '之后模型存的'])
    expect(facts(container)).toEqual([
      ['用户住在杭州 (已撤销)', 'true'],
      ['用户在学德语 撤销', 'false'],
    ])
    await click(button('全部撤销', container))
    await settle()
    expect(items(host)).toEqual(['手写的事实', '之后模型存的'])
    expect(facts(container).map(([, undone]) => undone)).toEqual(['true', 'true'])
    expect(
      host
        .commands()
        .filter((c) => c.op === 'memory.revert')
        .map((c) => c.sessionId),
    ).toEqual([SID, SID])
  })

  it('shows the facts the extraction put in the user layer under its own name, and undoes one of them', async () => {
    const host = opsHost(state([profile({ id: 'a', name: '通用助手' })]))
    const client = createApiClient()
    await client.command('memory.add', {
      target: { user: true },
      items: [
        { text: '用户叫王小明', source: 'auto', sessionId: SID },
        { text: '用户住在杭州', source: 'auto', sessionId: SID },
      ],
    })
    const { container } = await mountRow(client)
    await settle()
    expect(text(container)).toMatch(/^🧠 记忆已更新（关于你的记忆）： 用户叫王小明 撤销 用户住在杭州 撤销 全部撤销 ✕$/)
    await click(button('撤销', container.querySelector('[data-ap-fact]')!))
    await settle()
    expect(host.state.user!.items.map((it) => it.text)).toEqual(['用户住在杭州'])
    expect(facts(container)).toEqual([
      ['用户叫王小明 (已撤销)', 'true'],
      ['用户住在杭州 撤销', 'false'],
    ])
  })

  it('shows what a compression did with sizes before and after, and undoes it', async () => {
    const { host, client } = await afterExtraction()
    // The background job compresses (only the host half sends `memory.compress`); the page loads the state after it.
    host.hostCommand({
      op: 'memory.compress',
      profileId: 'a',
      memory: { summary: '杭州，德语', items: [{ text: '住杭州学德语' }] },
      sessionId: SID,
    })
    await client.refresh()
    const { container } = await mountRow(client)
    const row = container.querySelector('[data-who="compress"]')!
    // The three condensed items left the core for the archive: the row says so.
    expect(text(row)).toContain('记忆已压缩（通用助手）：3 条 17 字 → 1 条 11 字（3 条移入归档，仍可搜索、可被回忆）')
    await click(button('撤销', row))
    await settle()
    expect(items(host)).toEqual(['手写的事实', '用户住在杭州', '用户在学德语'])
    expect(text(container.querySelector('[data-who="compress"]')!)).toContain('(已撤销)')
  })

  it('shows nothing for a conversation that caused no background write, and stays dismissed once dismissed', async () => {
    const { client } = await afterExtraction()
    const other = await mountRow(client, 'session-2')
    expect(other.container.innerHTML).toBe('')
    const { container, unmount } = await mountRow(client)
    await click(button('✕', container))
    expect(container.innerHTML).toBe('')
    await unmount()
    const again = await mountRow(client)
    expect(again.container.innerHTML).toBe('')
  })

  it('speaks English, every control is a button the keyboard reaches, and fact text is never markup', async () => {
    const host = opsHost(state([profile({ id: 'a', name: 'Helper' })]))
    const client = createApiClient()
    await client.command('memory.add', {
      target: { profileId: 'a' },
      items: [{ text: '<b onclick="x()">bold</b>', source: 'auto', sessionId: SID }],
    })
    const stop = bindLocale({ getLocale: () => ({ active: 'en' }), subscribe: () => () => {} })
    const { container } = await mountRow(client)
    expect(text(container)).toBe('🧠 Memory updated (Helper): <b onclick="x()">bold</b> Undo ✕')
    expect(container.querySelector('b')).toBeNull()
    expect(container.querySelector('[aria-label="Undo \\"<b onclick=\\"x()\\">bold</b>\\""]')).not.toBeNull()
    expect([...container.querySelectorAll('button')].every((b) => b.tabIndex === 0)).toBe(true)
    stop()
    // The row only read (the conversation's history, by GET): nothing was written after the fact was added.
    expect(host.histories()).toContainEqual(expect.stringMatching(/^\/__ap\/memory\/history\?by=/))
    expect(host.commands().at(-1)!.op).toBe('memory.add')
  })
})

describe('MemorySaveView undo', () => {
  it("offers the same undo on the model's saved call, found in the conversation's history", async () => {
    const host = opsHost(state([profile({ id: 'a' })]))
    const client = createApiClient()
    await client.command('memory.add', {
      target: { profileId: 'a' },
      items: [{ text: '用户的猫叫年糕', source: 'tool', sessionId: SID }],
    })
    const block = {
      callId: 'c1',
      kind: 'tool-result',
      call: { argsRaw: JSON.stringify({ facts: ['用户的猫叫年糕'] }) },
      isError: false,
      content: [],
    }
    const { container } = await render(
      <ApiContext.Provider value={client}>
        <MemorySaveView block={block} sessionId={SID} />
      </ApiContext.Provider>,
    )
    await settle()
    // The fact once, with its undo; the lead does not repeat it.
    expect(text(container)).toBe('🧠 已记住 用户的猫叫年糕 撤销')
    await click(button('撤销', container))
    await settle()
    expect(items(host)).toEqual([])
    expect(container.querySelector('[data-ap-fact]')!.getAttribute('data-undone')).toBe('true')
  })
})

describe('the rows while their data arrives, and a suggestion once decided', () => {
  it('a suggested fact reads as a suggestion while it waits, and as remembered once approved', async () => {
    const host = opsHost(state([profile({ id: 'a', memoryMode: 'ask' })]))
    const client = createApiClient()
    await client.command('memory.add', {
      target: { profileId: 'a' },
      items: [{ text: '用户的猫叫年糕', source: 'tool', sessionId: SID }],
    })
    const pending = host.state.profiles[0]!.memory.items[0]!
    expect(pending.pending).toBe(true)
    const block = {
      callId: 'c1',
      kind: 'tool-result',
      call: { argsRaw: JSON.stringify({ facts: ['用户的猫叫年糕'] }) },
      isError: false,
      content: [{ type: 'text', text: '已提交给用户确认，等用户批准后…' }],
    }
    const { container } = await render(
      <ApiContext.Provider value={client}>
        <MemorySaveView block={block} sessionId={SID} />
      </ApiContext.Provider>,
    )
    await settle()
    expect(text(container.querySelector('.ap-memory-save-text')!)).toBe('建议记住（等你批准）')
    await client.command('memory.approve', { target: { profileId: 'a' }, itemId: pending.id, sessionId: SID })
    await settle()
    expect(text(container.querySelector('.ap-memory-save-text')!)).toBe('已记住')
    expect(text(container)).not.toContain('等你批准')
    expect(text(container)).toBe('🧠 已记住 用户的猫叫年糕 撤销')
  })

  it('the "memory updated" row shows its facts while the list they went to is still loading, never an empty row', async () => {
    const { client } = await afterExtraction()
    // The row's history arrives; the profile whole (where its undo reads which facts are still there) is held back.
    let release: () => void = () => {}
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    const fetchProfile = client.fetchProfile.bind(client)
    client.fetchProfile = async (...args) => {
      await gate
      return fetchProfile(...args)
    }
    const { container } = await mountRow(client)
    const row = container.querySelector('[data-ap-update]')!
    expect(facts(row)).toEqual([
      ['用户住在杭州', null],
      ['用户在学德语', null],
    ])
    expect(row.querySelectorAll('button').length).toBe(1)
    release()
    await settle()
    expect(facts(row)).toEqual([
      ['用户住在杭州 撤销', 'false'],
      ['用户在学德语 撤销', 'false'],
    ])
  })
})

describe('a row of suggestions', () => {
  /** A profile that asks first, and one extraction run of this conversation that suggested three facts. */
  async function suggested() {
    const host = opsHost(state([profile({ id: 'a', name: '通用助手', memoryMode: 'ask' })]))
    const client = createApiClient()
    await client.command('memory.add', {
      target: { profileId: 'a' },
      items: ['用户住在杭州', '用户在学德语', '用户养了一只猫'].map((text) => ({
        text,
        source: 'auto',
        sessionId: SID,
      })),
    })
    expect(host.state.profiles[0]!.memory.items.every((it) => it.pending === true)).toBe(true)
    return { host, client }
  }
  const pending = (host: OpsHost) => host.state.profiles[0]!.memory.items.map((it) => [it.text, it.pending === true])

  it('offers Approve all and Reject all (not Undo all), and approves every one at once', async () => {
    const { host, client } = await suggested()
    const { container } = await mountRow(client)
    expect(text(container)).toContain('全部批准')
    expect(text(container)).toContain('全部拒绝')
    expect(text(container)).not.toContain('全部撤销')
    await click(button('全部批准', container))
    await settle()
    expect(pending(host)).toEqual([
      ['用户住在杭州', false],
      ['用户在学德语', false],
      ['用户养了一只猫', false],
    ])
    // Now remembered facts: each with its undo, and the undo of the whole run.
    expect(text(container)).not.toContain('全部批准')
    expect(text(container)).toContain('全部撤销')
  })

  it('a rejected suggestion reads "rejected", in both languages, never "undone"', async () => {
    const { host, client } = await suggested()
    const { container } = await mountRow(client)
    await click(container.querySelector<HTMLElement>('[aria-label="拒绝「用户住在杭州」"]')!)
    await settle()
    expect(facts(container)[0]).toEqual(['用户住在杭州 (已拒绝)', 'true'])
    expect(text(container)).not.toContain('已撤销')
    await click(button('全部拒绝', container))
    await settle()
    expect(host.state.profiles[0]!.memory.items).toEqual([])
    expect(facts(container).map(([t]) => t)).toEqual([
      '用户住在杭州 (已拒绝)',
      '用户在学德语 (已拒绝)',
      '用户养了一只猫 (已拒绝)',
    ])
    const unbind = bindLocale({ getLocale: () => ({ active: 'en' }), subscribe: () => () => {} })
    try {
      const english = (await mountRow(client)).container
      expect(facts(english).map(([t]) => t)).toEqual([
        '用户住在杭州 (rejected)',
        '用户在学德语 (rejected)',
        '用户养了一只猫 (rejected)',
      ])
    } finally {
      unbind()
    }
  })
})

describe('MemoryUpdates learns of background writes', () => {
  it('loads the state again after a turn that triggers the extraction, and shows the facts it stored meanwhile', async () => {
    const host = opsHost(state([profile({ id: 'a', name: '通用助手' })]))
    const client = createApiClient()
    await client.refresh()
    const ui = (turns: number) => (
      <ApiContext.Provider value={client}>
        <MemoryUpdates
          sessionId={SID}
          session={{ turnEnds: new Map(Array.from({ length: turns }, (_, i) => [i + 1, i])) }}
        />
      </ApiContext.Provider>
    )
    const { container, rerender } = await render(ui(4))
    await settle()
    expect(container.innerHTML).toBe('')
    // The job stores behind the page's back, as the host does after the fifth turn.
    const { applyCommand } = await import('../../../lib/commands/dispatch.ts')
    const { sessionsOf } = await import('../../../lib/state/sessions.ts')
    const next = applyCommand(
      { ...host.state, sessions: sessionsOf(Object.entries(host.state.sessions)) },
      {
        op: 'memory.add',
        target: { profileId: 'a' },
        items: [{ text: '用户住在杭州', source: 'auto', sessionId: SID }],
      },
      { now: 1, newId: (p) => `${p}-bg` },
    ).state
    host.state = { ...next, sessions: next.sessions.toJSON() }
    const reads = () => host.calls.filter((c) => c.method === 'GET' && c.path === '/__ap/state').length
    const before = reads()
    await rerender(ui(5))
    // The page looks at the state again a while after a turn that triggers the extraction (the job stores meanwhile):
    // wait for that look, not for a time.
    await vi.waitFor(() => expect(reads()).toBe(before + 1), { timeout: 10_000, interval: 50 })
    await settle()
    expect(facts(container)).toEqual([['用户住在杭州 撤销', 'false']])
    expect(reads()).toBe(before + 1)
  })
})
