import { useState } from 'react'
import { describe, expect, it, vi } from 'vitest'
import { bindLocale } from '../../../lib/client/copy/locales.ts'
import { ProfileEditor, type ProfileEditorProps } from '../../../lib/client/settings/ProfileEditor.tsx'
import { draftProblems } from '../../../lib/client/settings/draft-problems.ts'
import { translate } from '../../../lib/client/copy/locales.ts'
import { LIMITS, type Profile } from '../../../lib/state/model.ts'
import { button, click, field, profile, render, settle, state, stubFetch, tab, text, type } from '../../support/dom.tsx'
import { memorySearchAnswer } from '../../support/memory-search.ts'

const full = profile({
  name: '写作教练',
  emoji: '✍️',
  role: '你是写作教练。',
  personality: '直接',
  speakingStyle: '短句',
  rules: '不编造引用',
  memoryEnabled: false,
  memory: { summary: '用户在写小说。', items: [{ id: 'm1', text: '主角叫林舟', source: 'user', at: 1 }] },
})

const handlers = () => ({
  onSave: vi.fn(),
  onDiscard: vi.fn(),
  onSetDefault: vi.fn(),
  onDuplicate: vi.fn(),
  onDelete: vi.fn(),
})

/** The editor holding its own draft, as the page does. */
function Harness(props: Partial<ProfileEditorProps> & { initial: Profile; onValue?: (p: Profile) => void }) {
  const [value, setValue] = useState(props.initial)
  const dirty = value !== props.initial
  return (
    <ProfileEditor
      value={value}
      dirty={dirty}
      saving={false}
      isDefault={false}
      compressThreshold={5000}
      onEdit={(patch) => {
        const next = { ...value, ...patch }
        setValue(next)
        props.onValue?.(next)
      }}
      {...handlers()}
      {...props}
    />
  )
}

describe('ProfileEditor', () => {
  it('shows every field of the profile with its value, count and hint', async () => {
    // The memory list reads its items from the search route.
    stubFetch((call) => memorySearchAnswer(state([full]), call) ?? { status: 404, body: {} })
    const { container } = await render(<Harness initial={full} />)
    await settle()
    expect(text(container.querySelector('h3')!)).toBe('编辑「写作教练」')
    expect(field('名称', container).value).toBe('写作教练')
    expect(field('图标', container).value).toBe('✍️')
    expect(field('角色设定', container).value).toBe('你是写作教练。')
    expect(field('性格特点', container).value).toBe('直接')
    expect(field('说话习惯', container).value).toBe('短句')
    expect(field('行为准则', container).value).toBe('不编造引用')
    await click(tab('记忆', container))
    expect(field('把长期记忆注入提示词', container).checked).toBe(false)
    expect(field('记忆摘要', container).value).toBe('用户在写小说。')
    expect(text(container)).toContain('主角叫林舟')
    expect(text(container)).toContain(`4 / ${LIMITS.name}`)
    expect(text(container)).toContain('必须遵守的准则，一行一条。')
    expect(text(container)).toContain('头像')
  })

  it('reports each edit and enables Save once there is one', async () => {
    const onValue = vi.fn()
    const { container } = await render(<Harness initial={full} onValue={onValue} />)
    expect(button('保存', container).disabled).toBe(true)
    await type(field('行为准则', container), '不编造引用\n先给结论')
    expect(onValue).toHaveBeenLastCalledWith(expect.objectContaining({ rules: '不编造引用\n先给结论' }))
    await click(tab('记忆', container))
    await click(field('把长期记忆注入提示词', container))
    expect(onValue).toHaveBeenLastCalledWith(expect.objectContaining({ memoryEnabled: true }))
    expect(button('保存', container).disabled).toBe(false)
    expect(text(container)).toContain('有未保存的修改')
  })

  it('blocks saving a draft the host would refuse, saying which field and which limit', async () => {
    const { container } = await render(<Harness initial={full} />)
    await type(field('名称', container), 'x'.repeat(LIMITS.name + 1))
    expect(text(container.querySelector('[role="alert"]')!)).toBe(
      `「名称」有 ${LIMITS.name + 1} 字，超过上限 ${LIMITS.name}。`,
    )
    expect(button('保存', container).disabled).toBe(true)
    await type(field('名称', container), '  ')
    expect(text(container.querySelector('[role="alert"]')!)).toBe('名称不能为空。')
  })

  it('offers save, discard, set default, duplicate and delete', async () => {
    const h = handlers()
    const { container } = await render(
      <ProfileEditor
        value={full}
        dirty
        saving={false}
        isDefault={false}
        compressThreshold={5000}
        onEdit={() => {}}
        {...h}
      />,
    )
    for (const [label, fn] of [
      ['保存', h.onSave],
      ['放弃修改', h.onDiscard],
      ['设为默认', h.onSetDefault],
      ['复制', h.onDuplicate],
      ['删除', h.onDelete],
    ] as const) {
      await click(button(label, container))
      expect(fn, label).toHaveBeenCalledOnce()
    }
  })

  it('marks the default profile and offers no "set as default" for it', async () => {
    const { container } = await render(<Harness initial={full} isDefault />)
    expect(text(container)).toContain('默认配置')
    expect(text(container)).not.toContain('设为默认')
  })

  it('keeps markup in fields as text', async () => {
    const evil = profile({ name: '<b>x</b>', rules: '<script>window.__pwned=1</script>' })
    const { container } = await render(<Harness initial={evil} />)
    expect(field('行为准则', container).value).toBe('<script>window.__pwned=1</script>')
    expect(container.querySelector('script, b')).toBeNull()
    expect(text(container.querySelector('h3')!)).toBe('编辑「<b>x</b>」')
  })

  it('speaks English', async () => {
    const unbind = bindLocale({ getLocale: () => ({ active: 'en' }), subscribe: () => () => {} })
    try {
      const { container } = await render(<Harness initial={full} />)
      for (const label of ['Name', 'Emoji', 'Role', 'Personality', 'Speaking style', 'Ground rules']) {
        expect(field(label, container)).toBeTruthy()
      }
      await click(tab('Memory', container))
      expect(field('Memory summary', container)).toBeTruthy()
      expect(text(container)).toContain('Edit "写作教练"')
      expect(button('Save', container)).toBeTruthy()
    } finally {
      unbind()
    }
  })
})

describe('the check before saving', () => {
  const t = (key: Parameters<typeof translate>[1], params?: Parameters<typeof translate>[2]) =>
    translate('en', key, params)
  const item = (i: number) => ({ id: `m${i}`, text: `fact ${i}`, source: 'user' as const, at: 1 })

  it('words every refusal of the fields the editor shows, in the order of the form, with the field and the limit', () => {
    expect(draftProblems(t, profile())).toEqual([])
    expect(draftProblems(t, profile({ name: '  ' }))).toEqual(['The name cannot be empty.'])
    expect(
      draftProblems(
        t,
        profile({
          name: '  ',
          rules: 'x'.repeat(LIMITS.rules + 1),
          memory: { summary: 'y'.repeat(LIMITS.summary + 2), items: [] },
        }),
      ),
    ).toEqual([
      'The name cannot be empty.',
      `"Ground rules" has ${LIMITS.rules + 1} characters, over the ${LIMITS.rules} limit.`,
      `"Memory summary" has ${LIMITS.summary + 2} characters, over the ${LIMITS.summary} limit.`,
    ])
    expect(
      draftProblems(
        t,
        profile({ memory: { summary: '', items: Array.from({ length: LIMITS.memoryItems + 1 }, (_, i) => item(i)) } }),
      ),
    ).toEqual([`At most ${LIMITS.memoryItems} memory items.`])
    expect(
      draftProblems(t, profile({ model: { provider: 'p', model: 'm', temperature: LIMITS.temperature + 0.5 } })),
    ).toEqual([`The temperature must be between 0 and ${LIMITS.temperature}.`])
  })

  it('leaves a refusal it has no words for to the store, which words it on save', () => {
    expect(draftProblems(t, profile({ role: 'a\u0001b' }))).toEqual([])
  })
})
