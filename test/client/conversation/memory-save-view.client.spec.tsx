import { afterEach, describe, expect, it } from 'vitest'
import { bindLocale } from '../../../lib/client/copy/locales.ts'
import { MemorySaveView, type MemorySaveBlock } from '../../../lib/client/conversation/MemorySaveView.tsx'
import { cleanup, render, text } from '../../support/dom.tsx'

afterEach(cleanup)

const args = (facts: unknown, scope?: string): string =>
  JSON.stringify(scope === undefined ? { facts } : { facts, scope })
const running = (argsRaw: string): MemorySaveBlock => ({ callId: 'c1', argsRaw })
const settled = (argsRaw: string, over: Partial<MemorySaveBlock> = {}): MemorySaveBlock => ({
  callId: 'c1',
  kind: 'tool-result',
  call: { argsRaw },
  isError: false,
  content: [{ type: 'text', text: '已记住，存入…' }],
  ...over,
})

async function line(block: MemorySaveBlock): Promise<{ text: string; state: string | null }> {
  const { container } = await render(<MemorySaveView block={block} />)
  const el = container.querySelector('[data-ap-memory-save]')!
  return { text: text(el), state: el.getAttribute('data-ap-memory-save') }
}

describe('MemorySaveView', () => {
  it('says what was remembered', async () => {
    expect(await line(settled(args(['用户喜欢简短的回答', '用户在维护 Rust 项目'])))).toEqual({
      text: '🧠 已记住：用户喜欢简短的回答 · 用户在维护 Rust 项目',
      state: 'saved',
    })
  })

  it('says when a fact went to this conversation only, and takes a lone string as one fact', async () => {
    expect((await line(settled(args('只在本对话用英文', 'conversation')))).text).toBe(
      '🧠 已记住（仅本对话）：只在本对话用英文',
    )
  })

  it('says when a fact went to the user layer every profile reads', async () => {
    expect((await line(settled(args(['用户叫王小明'], 'user')))).text).toBe(
      '🧠 已记住（关于你，所有配置共用）：用户叫王小明',
    )
  })

  it('shows the facts while the call runs, and nothing broken while its arguments are still streaming', async () => {
    expect(await line(running(args(['用户叫小王'])))).toEqual({ text: '🧠 正在记住：用户叫小王', state: 'running' })
    expect((await line(running('{"facts": ["用户'))).text).toBe('🧠 正在记住：')
  })

  it("says why nothing was remembered in the user's words, never the tool's text for the model", async () => {
    const refusal = (text: string) =>
      settled(args(['用户的猫叫年糕']), { isError: true, content: [{ type: 'text', text }] })
    const incognito = await line(
      refusal(
        'Error: 用户为本对话开启了无痕模式：可以参考已有的记忆，但本对话不保存任何记忆，这条没有保存；不要再尝试保存。',
      ),
    )
    expect(incognito).toEqual({
      text: '🧠 没有记住：本对话开着无痕，不写入任何记忆。要让它记住，先在输入框左侧的 ⚙ 里关掉无痕。',
      state: 'failed',
    })
    const off = await line(refusal('Error: 当前配置「通用助手」关闭了长期记忆，用户选择不保存记忆；不要再尝试保存。'))
    expect(off.text).toBe('🧠 没有记住：这个配置关闭了长期记忆。要保存记忆，请在 设置 › 智能体配置 › 记忆 里打开它。')
    const secret = await line(
      refusal('facts[0] 看起来含有密码、密钥或令牌；机密绝不能存入记忆，本次什么都没有保存。\n更多'),
    )
    expect(secret.text).toMatch(/^🧠 没有记住：这次保存请求不合要求/)
    for (const shown of [incognito.text, off.text, secret.text]) expect(shown).not.toMatch(/Error|不要再尝试|facts\[/)
    const stopped = settled(args(['x']), { isError: true, error: { code: 'interrupted' } })
    expect((await line(stopped)).state).toBe('stopped')
  })

  it('shows markup in a fact as text', async () => {
    const { container } = await render(<MemorySaveView block={settled(args(['<img src=x onerror=alert(1)>']))} />)
    expect(container.querySelector('img')).toBeNull()
    expect(text(container)).toContain('<img src=x onerror=alert(1)>')
  })

  it('speaks English when the host does', async () => {
    const unbind = bindLocale({ getLocale: () => ({ active: 'en' }), subscribe: () => () => {} })
    try {
      expect((await line(settled(args(['The user prefers short answers'])))).text).toBe(
        '🧠 Remembered: The user prefers short answers',
      )
      const incognito = settled(args(['x']), {
        isError: true,
        content: [{ type: 'text', text: 'Error: 用户为本对话开启了无痕模式：不要再尝试保存。' }],
      })
      expect((await line(incognito)).text).toBe(
        '🧠 Not remembered: this conversation is incognito and saves no memories. To let it remember, turn incognito off in the ⚙ left of the message box.',
      )
    } finally {
      unbind()
    }
  })
})
