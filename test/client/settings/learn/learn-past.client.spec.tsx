/**
 * "Learn from your past conversations here" in the learn section (lib/client/settings/learn/LearnFromPast.tsx) with
 * real React on the real routes, store and learning run, over conversations the in-process dsh really ran in two
 * workspaces: the page says what was found (conversations, messages, the days), offers the workspaces, shows the
 * estimate of the one picked, and starts the run with the export's progress; the suggestions say "dsh, YYYY-MM-DD";
 * the conversations learned are not offered again; one the host cannot read is left out and said. Both languages.
 */
import { describe, expect, it } from 'vitest'
import { SessionId } from '@deepseek-ai/dsh-session'
import { userItemsOf } from '../../../../lib/state/model.ts'
import { button, click, text } from '../../../support/dom.tsx'
import { chooseModel, chooseOption, learningSpec, until } from '../../../support/learn-page.tsx'
import type { Harness } from '../../../support/memory-harness.ts'
import { liveReader } from '../../../support/past-reader.ts'
import type { Context } from '@deepseek-ai/cordis'
import type { PastSessionReader } from '../../../../lib/learn/past-sessions.ts'
import { SPINE_MODEL } from '../../../support/spine.ts'

const spec = learningSpec()

const HOME = '/work/home-project'
const OTHER = '/work/other-project'

/** A past conversation in workspace `cwd`: one message of the user's, answered. */
async function past(h: Harness, id: string, cwd: string, said: string): Promise<void> {
  const { agent } = await h.ctx.agents.create({ sessionId: SessionId(id), agentOptions: SPINE_MODEL, meta: { cwd } })
  await h.turn(agent, said)
}

/** The section on a real host with the learning part and three past conversations, in `lang`. */
const open = (lang: 'en' | 'zh', reader = liveReader) =>
  spec.open(
    lang,
    (h) => ({ past: () => reader(h.ctx) }),
    async (h) => {
      await past(h, 'a', HOME, 'I live in Qingdao')
      await past(h, 'b', HOME, 'My dog is called Bao')
      await past(h, 'c', OTHER, 'Work notes')
    },
  )

const found = (page: HTMLElement) => text(page.querySelector('[data-ap-learn-found]') ?? page)
const planText = (page: HTMLElement) => text(page.querySelector('[data-ap-learn-plan]') ?? page)
const today = () => {
  const d = new Date()
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`
}

/** The select labelled `label`. */
function select(page: HTMLElement, label: string): HTMLSelectElement {
  const l = [...page.querySelectorAll('label')].find((x) => text(x) === label)
  const el = l === undefined ? null : document.getElementById(l.htmlFor)
  if (!(el instanceof HTMLSelectElement)) throw new Error(`no select labelled "${label}"`)
  return el
}

describe('learning from your past conversations on the page', () => {
  it('finds them, picks a workspace, shows the cost, learns, and does not offer them again', async () => {
    const page = await open('en')
    await click(button('Learn from your past conversations here', page))
    await until(() => page.querySelector('[data-ap-learn-plan]') !== null)
    expect(found(page)).toBe(`Your past conversations: 3 conversations (messages: 3), from ${today()} to ${today()}`)
    const workspace = select(page, 'Workspace')
    expect([...workspace.options].map((o) => o.text)).toEqual(['All workspaces', HOME, OTHER])

    await chooseOption(workspace, HOME)
    await until(() => found(page).startsWith('Your past conversations: 2 conversations'))
    await until(() => page.querySelector('[data-ap-learn-plan]') !== null)
    expect(planText(page)).toMatch(/^Conversations picked: 2\. Learning from them takes 2 model calls/)
    await chooseModel(page)
    await click(button('Show what it costs', page))
    await until(() => planText(page).includes('on Mock / M'))

    spec.h.model.script('extract', { text: '- [用户] 住在青岛' }, { text: '无' })
    await click(button('Start learning', page))
    await until(() => text(page.querySelector('[data-ap-learn-run]') ?? page).startsWith('Done'), 30_000)
    const learned = userItemsOf(spec.h.store.state)
    expect(learned.map((it) => [it.text, it.pending, it.origin])).toEqual([['住在青岛', true, `dsh, ${today()}`]])
    // What the model read was the user's words, never the answers.
    const prompts = spec.h.model.of('extract').map((r) => r.prompt)
    expect(prompts.some((p) => p.includes('用户：I live in Qingdao'))).toBe(true)
    for (const p of prompts) expect(p).not.toContain('助手：')

    // Read again: the two learned are left out, and with them their workspace.
    await chooseOption(select(page, 'Workspace'), '')
    await until(() => found(page).startsWith('Your past conversations: 1 conversation '))
    expect([...select(page, 'Workspace').options].map((o) => o.text)).toEqual(['All workspaces', OTHER])
  })

  it('says what it found in Chinese', async () => {
    const page = await open('zh')
    await click(button('从你以前在这里的对话中学习', page))
    await until(() => page.querySelector('[data-ap-learn-plan]') !== null)
    expect(found(page)).toBe(`你以前的对话：3 段对话，3 条消息，时间从 ${today()} 到 ${today()}`)
    expect(select(page, '工作区').options[0]!.text).toBe('所有工作区')
  })

  it('says how many conversations could not be read, and learns from the rest', async () => {
    // The session query fails to read one log (a damaged file, say).
    const damaged = (c: Context): PastSessionReader => {
      const live = liveReader(c)
      return {
        listSessions: live.listSessions,
        readSession: async (id) => (id === 'b' ? Promise.reject(new Error('damaged log')) : live.readSession(id)),
      }
    }
    const page = await open('en', damaged)
    await click(button('Learn from your past conversations here', page))
    await until(() => page.querySelector('[data-ap-learn-plan]') !== null)
    expect(found(page)).toMatch(/^Your past conversations: 2 conversations/)
    expect(text(page.querySelector('[data-ap-learn-unread]')!)).toBe(
      '1 conversation could not be read and is left out.',
    )
  })
})
