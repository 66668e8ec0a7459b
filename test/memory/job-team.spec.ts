/**
 * Background extraction in a conversation with a team profile: its persona and rules come from someone else's
 * repository, so the About-you facts it draws out are only proposed (suggestions the user approves), never written
 * into the layer every profile reads; its other facts are the user's own memory of the team profile.
 */
import { describe, expect, it } from 'vitest'
import { closeJobEachTest, h, runs, start as startJob } from '../support/memory-job.ts'

const TEAM = 't-lib0000001-abcdef012345'

closeJobEachTest()

/** A harness with the job (a run every 2 turns) and a team profile of the library "平台组". */
async function start(): Promise<void> {
  await startJob({ memory: { everyTurns: 2 } })
  const own = h.store.state.profiles[0]!
  await h.store.command({
    op: 'library.apply',
    library: { id: 'lib0000001', name: '平台组' },
    profiles: [{ ...own, id: TEAM, name: '审查员', memory: { summary: '', items: [] } }],
  })
}

/** Two turns of conversation `sid` and the extraction run they start, whose answer is `answer`. */
async function extractIn(sid: string, answer: string, run: number): Promise<void> {
  const agent = await h.conversation(sid)
  h.model.script('extract', { text: answer })
  await h.turn(agent, '我在写一个记账应用')
  await h.turn(agent, '我叫小王，住在杭州')
  await runs(run)
}

const userItems = () => h.store.state.user?.items ?? []

describe('background extraction with a team profile', () => {
  it('proposes the About-you facts it learns (the user approves them), and keeps the rest for the team profile', async () => {
    await start()
    await h.store.command({ op: 'session.set', sessionId: 's-team', patch: { profileId: TEAM } })
    await extractIn('s-team', '- [用户] 用户叫小王\n- [配置] 用户希望评审先说结论', 1)
    expect(userItems().map((it) => [it.text, it.pending === true])).toEqual([['用户叫小王', true]])
    const team = h.store.state.profiles.find((p) => p.id === TEAM)!
    expect(team.memory.items.map((it) => it.text)).toEqual(['用户希望评审先说结论'])
    // Approving is the user's choice: then the fact is About you's like any other.
    await h.store.command({ op: 'memory.approve', target: { user: true }, itemId: userItems()[0]!.id })
    expect(userItems().map((it) => [it.text, it.pending === true])).toEqual([['用户叫小王', false]])
    // The user's own profile answering writes About you as ever.
    await extractIn('s-own', '- [用户] 用户住在杭州', 2)
    expect(userItems().map((it) => [it.text, it.pending === true])).toEqual([
      ['用户叫小王', false],
      ['用户住在杭州', false],
    ])
  })
})
