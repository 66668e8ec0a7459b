/**
 * The tool-profile part of the profile editor in jsdom: picking a profile, single-tool overrides offered only when the
 * profile is not full, adding by name with unknown names reported, the effective list and the bytes per request under
 * each profile from the host's measurements, and the draft/patch round trip through the real editor and api client.
 */
import { act, useState } from 'react'
import { describe, expect, it, vi } from 'vitest'
import { ApiContext, createApiClient } from '../../../lib/client/data/api.ts'
import { buildPatch, isDirty } from '../../../lib/client/common/editing.ts'
import { bindLocale } from '../../../lib/client/copy/locales.ts'
import { ProfileEditor } from '../../../lib/client/settings/ProfileEditor.tsx'
import { ToolProfileEditor } from '../../../lib/client/settings/ToolProfileEditor.tsx'
import type { Profile, ToolSettings } from '../../../lib/state/model.ts'
import { requestBytes } from '../../../lib/shared/tool-profiles.ts'
import {
  button,
  click,
  field,
  meta,
  profile,
  render,
  settle,
  state,
  stubFetch,
  tab,
  text,
  type,
} from '../../support/dom.tsx'
import type { ToolProfileStatus } from '../../../lib/shared/diagnostics.ts'

/** What the host measured on the standard preset (sizes as recorded from a real request). */
const SIZES = [
  { name: 'ask_user_question', bytes: 1365 },
  { name: 'bash', bytes: 3295 },
  { name: 'edit', bytes: 1103 },
  { name: 'grep', bytes: 796 },
  { name: 'memory_save', bytes: 1291 },
  { name: 'read', bytes: 469 },
  { name: 'subagent', bytes: 1455 },
  { name: 'web_search', bytes: 432 },
  { name: 'write', bytes: 806 },
]
const STATUS: Partial<ToolProfileStatus> = { catalogue: [{ source: 'standard', tools: SIZES }], kept: [] }
const ALL = SIZES.map((s) => s.name)

function Harness({
  initial,
  status = STATUS,
  onValue,
}: {
  initial?: ToolSettings
  status?: Partial<ToolProfileStatus> | undefined
  onValue?: (v: ToolSettings) => void
}) {
  const [value, setValue] = useState<ToolSettings | undefined>(initial)
  return (
    <ToolProfileEditor
      value={value}
      status={status}
      onChange={(next) => {
        setValue(next)
        onValue?.(next)
      }}
    />
  )
}

const select = (root: HTMLElement) => root.querySelector('select')!
async function choose(root: HTMLElement, value: string): Promise<void> {
  const el = select(root)
  await act(async () => {
    el.value = value
    el.dispatchEvent(new Event('change', { bubbles: true }))
  })
  await settle()
}
const box = (root: HTMLElement, name: string) => field(name, root.querySelector('[role="group"]')!)
const effective = (root: HTMLElement) => text(root.querySelector('.ap-tools-effective')!).split(' ')
const row = (root: HTMLElement, label: string) =>
  [...root.querySelectorAll('tr')].find((tr) => text(tr.querySelector('th')!) === label)!

describe('ToolProfileEditor', () => {
  it('full: every measured tool, no overrides offered, and the bytes a request carries under each profile', async () => {
    const { container } = await render(<Harness />)
    expect(select(container).value).toBe('full')
    expect(effective(container)).toEqual(ALL)
    expect(container.querySelector('[role="group"]')).toBeNull()
    expect(text(container)).not.toContain('按名字加入工具')
    expect(text(row(container, '完整（不限制）'))).toContain(`${ALL.length} 个工具`)
    expect(row(container, '完整（不限制）').querySelector('td[title]')!.getAttribute('title')).toBe(
      String(requestBytes(SIZES, ALL)),
    )
    const ro = ['ask_user_question', 'grep', 'memory_save', 'read', 'web_search']
    expect(row(container, '只读').querySelector('td[title]')!.getAttribute('title')).toBe(
      String(requestBytes(SIZES, ro)),
    )
    expect(text(row(container, '只读'))).toContain('5 个工具')
    expect(text(row(container, '执行者'))).toContain('7 个工具')
    expect(text(row(container, '自定义'))).toContain('1 个工具')
    expect(row(container, '完整（不限制）').getAttribute('aria-current')).toBe('true')
    expect(text(container)).toContain('按「standard」实测')
  })

  it('picking a profile keeps the overrides and offers single tools, checked as the profile allows', async () => {
    const onValue = vi.fn()
    const { container } = await render(
      <Harness initial={{ profile: 'full', add: ['bash'], remove: [] }} onValue={onValue} />,
    )
    await choose(container, 'read-only')
    expect(onValue).toHaveBeenLastCalledWith({ profile: 'read-only', add: ['bash'], remove: [] })
    expect(box(container, 'read').checked).toBe(true)
    expect(box(container, 'bash').checked).toBe(true)
    expect(box(container, 'write').checked).toBe(false)
    expect(effective(container)).toEqual(['ask_user_question', 'bash', 'grep', 'memory_save', 'read', 'web_search'])
    expect(text(container)).toContain('不能写文件、运行命令或代码、启动子代理')
    expect(row(container, '只读').getAttribute('aria-current')).toBe('true')
    expect(text(row(container, '只读'))).toContain('6 个工具')
  })

  it('turning a tool on or off records an override only where the profile differs; remove wins', async () => {
    const onValue = vi.fn()
    const { container } = await render(
      <Harness initial={{ profile: 'worker', add: [], remove: [] }} onValue={onValue} />,
    )
    await click(box(container, 'bash'))
    expect(onValue).toHaveBeenLastCalledWith({ profile: 'worker', add: [], remove: ['bash'] })
    await click(box(container, 'subagent'))
    expect(onValue).toHaveBeenLastCalledWith({ profile: 'worker', add: ['subagent'], remove: ['bash'] })
    await click(box(container, 'bash'))
    expect(onValue).toHaveBeenLastCalledWith({ profile: 'worker', add: ['subagent'], remove: [] })
    expect(effective(container)).toContain('subagent')
  })

  it('adds a tool by name, and reports names this host does not offer instead of ignoring them', async () => {
    const onValue = vi.fn()
    const { container } = await render(
      <Harness initial={{ profile: 'custom', add: [], remove: [] }} onValue={onValue} />,
    )
    await type(field('按名字加入工具', container), 'mcp__tracker__create_issue')
    await click(button('加入', container))
    expect(onValue).toHaveBeenLastCalledWith({ profile: 'custom', add: ['mcp__tracker__create_issue'], remove: [] })
    const alert = container.querySelector('[role="alert"]')!
    expect(text(alert)).toContain('本机没有提供这 1 个工具')
    expect(text(alert)).toContain('mcp__tracker__create_issue')
    await click(button('移除 mcp__tracker__create_issue', container))
    expect(onValue).toHaveBeenLastCalledWith({ profile: 'custom', add: [], remove: [] })
    expect(container.querySelector('[role="alert"]')).toBeNull()
  })

  it('refuses a name the host would refuse, saying why', async () => {
    const { container } = await render(<Harness initial={{ profile: 'custom', add: [], remove: [] }} />)
    await type(field('按名字加入工具', container), 'rm -rf')
    expect(text(container.querySelector('[role="alert"]')!)).toContain('工具名只能包含')
    expect(button('加入', container).disabled).toBe(true)
    await type(field('按名字加入工具', container), 'x'.repeat(65))
    expect(text(container.querySelector('[role="alert"]')!)).toContain('最多 64 个字符')
  })

  it('shows a tool the host keeps in the conversation as on and locked', async () => {
    const status = { ...STATUS, kept: ['memory_save'] }
    const { container } = await render(
      <Harness initial={{ profile: 'custom', add: ['read'], remove: ['memory_save'] }} status={status} />,
    )
    expect(box(container, 'memory_save').checked).toBe(true)
    expect(box(container, 'memory_save').disabled).toBe(true)
    expect(effective(container)).toEqual(['memory_save', 'read'])
  })

  it('before the host has measured anything it says so and calls no name unknown', async () => {
    const { container } = await render(
      <ToolProfileEditor
        value={{ profile: 'custom', add: ['whatever'], remove: [] }}
        status={undefined}
        onChange={() => {}}
      />,
    )
    expect(text(container)).toContain('还没有测得本机提供哪些工具')
    expect(container.querySelector('[role="alert"]')).toBeNull()
    expect(container.querySelector('table')).toBeNull()
  })

  it('keeps tool names as text', async () => {
    const status = {
      catalogue: [{ source: '<img src=x onerror=alert(1)>', tools: [{ name: '<b>x</b>', bytes: 10 }] }],
      kept: [],
    }
    const { container } = await render(
      <Harness initial={{ profile: 'custom', add: ['<i>'], remove: [] }} status={status} />,
    )
    expect(container.querySelector('img, b, i')).toBeNull()
    expect(text(container)).toContain('<b>x</b>')
  })

  it('speaks English', async () => {
    const unbind = bindLocale({ getLocale: () => ({ active: 'en' }), subscribe: () => () => {} })
    try {
      const { container } = await render(<Harness initial={{ profile: 'read-only', add: [], remove: [] }} />)
      expect(text(container)).toContain('Tool profile')
      expect(text(container)).toContain('Tools a conversation gets (5)')
      expect(text(row(container, 'Worker'))).toContain('7 tools')
      expect(field('Add a tool by name', container)).toBeTruthy()
    } finally {
      unbind()
    }
  })
})

describe('in the profile editor', () => {
  it('reads the measurements from the shared snapshot, and a changed tool profile makes the draft dirty and goes into the patch', async () => {
    const base = profile({ id: 'p1' })
    stubFetch(() => ({ body: { state: state([base]), meta: meta({ toolProfiles: STATUS }) } }))
    const client = createApiClient('/__ap')
    await client.refresh()
    let latest: Profile = base
    function Page() {
      const [value, setValue] = useState(base)
      latest = value
      return (
        <ApiContext.Provider value={client}>
          <ProfileEditor
            value={value}
            dirty={value !== base}
            saving={false}
            isDefault
            compressThreshold={5000}
            onEdit={(patch) => {
              setValue({ ...value, ...patch })
            }}
            onSave={() => {}}
            onDiscard={() => {}}
            onSetDefault={() => {}}
            onDuplicate={() => {}}
            onDelete={() => {}}
          />
        </ApiContext.Provider>
      )
    }
    const { container } = await render(<Page />)
    await click(tab('工具', container))
    expect(effective(container)).toEqual(ALL)
    await choose(container, 'read-only')
    await click(box(container, 'bash'))
    expect(latest.tools).toEqual({ profile: 'read-only', add: ['bash'], remove: [] })
    const draft = { base, value: latest }
    expect(isDirty(draft)).toBe(true)
    expect(buildPatch(draft)).toEqual({ tools: { profile: 'read-only', add: ['bash'], remove: [] } })
    // Back to full without overrides is no change at all.
    expect(isDirty({ base, value: { ...latest, tools: { profile: 'full', add: [], remove: [] } } })).toBe(false)
  })
})
