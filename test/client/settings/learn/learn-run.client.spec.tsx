/**
 * The learning run in "Learn from ChatGPT or Claude" (lib/client/settings/learn/LearnRun.tsx) with real React on the
 * real routes, store, import worker and learning run, its calls answered by a scripted model behind the real dsh
 * model service: once the cost is shown the user starts it, sees the progress bar (conversations done of all, suggestions
 * found), pauses and resumes it, and undoes the import, which takes away every suggestion it brought. A section
 * opened before a run was started elsewhere (another tab, another dsh on the same home) shows that run once the push
 * channel tells of its first suggestions, without being opened again.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createApiClient } from '../../../../lib/client/data/api.ts'
import { openLive } from '../../../../lib/client/data/live.ts'
import { userItemsOf } from '../../../../lib/state/model.ts'
import { readHead, runFiles } from '../../../../lib/store/learn-run-file.ts'
import { button, chooseFile, click, text } from '../../../support/dom.tsx'
import { chooseModel, learningSpec, until } from '../../../support/learn-page.tsx'
import { claudeExport, exportZip } from '../../../support/learn-exports.ts'
import { SPINE_MODEL } from '../../../support/spine.ts'
import { simBrowser, type SimPage } from '../../../support/tabs.ts'

const spec = learningSpec()
/** The section on a real host with the learning part installed, in English. */
const open = () => spec.open('en')

const bar = (page: HTMLElement) => page.querySelector('[role="progressbar"]')
const runText = (page: HTMLElement) => text(page.querySelector('[data-ap-learn-run]') ?? page)
const zipFile = (conversations: unknown[]) =>
  new File([new Uint8Array(exportZip(conversations))], 'export.zip', { type: 'application/zip' })

describe('the learning run on the page', () => {
  it('starts from the pick, shows its progress, pauses and resumes, and undoes the import', async () => {
    const page = await open()
    await chooseFile(
      page.querySelector<HTMLInputElement>('.ap-learn-export input[type="file"]')!,
      zipFile(claudeExport(3, 4).conversations),
    )
    await until(() => page.querySelector('[data-ap-learn-plan]') !== null)
    await chooseModel(page)
    await click(button('Show what it costs', page))
    await until(() => text(page.querySelector('[data-ap-learn-plan]') ?? page).includes('on Mock / M'))
    expect(bar(page)).toBeNull()
    let release!: () => void
    const held = new Promise<void>((r) => (release = r))
    spec.h.model.script(
      'extract',
      { gate: held, text: '- [用户] 住在青岛' },
      { text: '无' },
      { text: '- [用户] 养了一只猫' },
    )
    await click(button('Start learning', page))
    await until(() => bar(page) !== null)
    expect(runText(page)).toBe('Learning… · conversations 0 of 3; suggestions found: 0')
    expect(bar(page)!.getAttribute('aria-valuemax')).toBe('3')
    // While paused the page asks how the run stands every 15 seconds: the test moves the clock on at once instead of
    // waiting them out (the clock otherwise runs as it does).
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], shouldAdvanceTime: true })
    await click(button('Pause', page))
    await until(() => runText(page).startsWith('Paused'))
    release()
    // The runner's step for the call that was out ends with the run's progress on disk; it then looks at the run's
    // state before it sends another.
    const head = runFiles(spec.h.store.file).head
    await vi.waitFor(async () => expect((await readHead(head))?.next).toBe(1), { timeout: 10_000, interval: 20 })
    // Paused: the call that was out is kept, no other goes; the page says so when it asks again.
    await vi.advanceTimersByTimeAsync(15_000)
    await until(() => runText(page) === 'Paused · conversations 1 of 3; suggestions found: 1')
    expect(spec.h.model.of('extract')).toHaveLength(1)
    expect(userItemsOf(spec.h.store.state)).toHaveLength(1)
    await click(button('Resume', page))
    await until(() => runText(page).startsWith('Done'), 30_000)
    expect(runText(page)).toBe(
      'Done: approve the suggestions in the memory list · conversations 3 of 3; suggestions found: 2',
    )
    expect(userItemsOf(spec.h.store.state).map((it) => [it.text, it.pending])).toEqual([
      ['住在青岛', true],
      ['养了一只猫', true],
    ])
    await click(button('Undo this import', page))
    // The page says so once the command's reply is in; the store changes a moment before it.
    await until(() => text(page).includes('Undone: 2 memories from this import were taken away'))
    expect(userItemsOf(spec.h.store.state)).toEqual([])
  })
})

describe('the progress in conversations', () => {
  it('counts a conversation done once its last call is answered, not at its first', async () => {
    const page = await open()
    // Two conversations; the first says more than one call reads: three calls in all.
    const conversations = claudeExport(2, 4).conversations as { chat_messages: Record<string, unknown>[] }[]
    const long = `我每天早上去海边跑步。${'很长的一段话。'.repeat(1000)}`
    Object.assign(conversations[0]!.chat_messages[0]!, { text: long, content: [{ type: 'text', text: long }] })
    await chooseFile(
      page.querySelector<HTMLInputElement>('.ap-learn-export input[type="file"]')!,
      zipFile(conversations),
    )
    await until(() => page.querySelector('[data-ap-learn-plan]') !== null)
    await chooseModel(page)
    await click(button('Show what it costs', page))
    await until(() => text(page.querySelector('[data-ap-learn-plan]') ?? page).includes('3 model calls'))
    let second!: () => void
    let third!: () => void
    const secondHeld = new Promise<void>((r) => (second = r))
    const thirdHeld = new Promise<void>((r) => (third = r))
    spec.h.model.script(
      'extract',
      { text: '- [用户] 住在青岛' },
      { gate: secondHeld, text: '无' },
      { gate: thirdHeld, text: '无' },
    )
    await click(button('Start learning', page))
    // The first call of the long conversation is answered: that conversation is not done yet.
    await until(() => runText(page).includes('suggestions found: 1'), 10_000)
    expect(runText(page)).toBe('Learning… · conversations 0 of 2; suggestions found: 1')
    expect(bar(page)!.getAttribute('aria-valuemax')).toBe('2')
    expect(bar(page)!.getAttribute('aria-valuenow')).toBe('0')
    second()
    await until(() => runText(page).includes('conversations 1 of 2'), 10_000)
    expect(runText(page)).toBe('Learning… · conversations 1 of 2; suggestions found: 1')
    expect(bar(page)!.getAttribute('aria-valuenow')).toBe('1')
    third()
    await until(() => runText(page).startsWith('Done'), 30_000)
    expect(runText(page)).toBe(
      'Done: approve the suggestions in the memory list · conversations 2 of 2; suggestions found: 1',
    )
  })
})

/** Another tab (its own client on the same host) reads an export of three conversations and starts learning it. */
async function startElsewhere(): Promise<void> {
  const other = createApiClient(spec.page.base, globalThis.fetch)
  const bytes = new Uint8Array(exportZip(claudeExport(3, 4).conversations)).buffer
  await other.call('learn.export.send', { raw: { bytes, type: 'application/zip' } })
  await other.call('learn.start', { body: { into: { user: true }, model: SPINE_MODEL } })
}

const tabs: SimPage[] = []
afterEach(() => {
  for (const tab of tabs.splice(0)) tab.close()
  vi.useRealTimers()
})

describe('a run started elsewhere', () => {
  it('shows on a section opened before it, once the push channel tells of its suggestions', async () => {
    const page = await open()
    const tab = simBrowser().page('settings')
    tabs.push(tab)
    const channel = openLive(spec.page.client, tab.options)
    await until(() => tab.sources.length === 1)
    const source = tab.sources[0]!
    source.open()
    await until(() => channel.mode === 'live')
    // The section has its answer to how a run stands (none yet), and shows it.
    await until(() => spec.page.runAnswers() >= 1)
    expect(bar(page)).toBeNull()

    // Another tab reads an export and starts learning; its second call stays out.
    let release!: () => void
    const held = new Promise<void>((r) => (release = r))
    spec.h.model.script('extract', { text: '- [用户] 住在青岛' }, { gate: held, text: '无' }, { text: '无' })
    await startElsewhere()
    await until(() => userItemsOf(spec.h.store.state).length === 1)

    // The push channel tells this page the memory changed: the section asks how the run stands and shows it.
    source.emit({
      kind: 'change',
      revision: spec.h.store.revision,
      change: { profiles: [], memory: [], removed: [], sessions: [], user: 1 },
    })
    await until(() => bar(page) !== null, 5_000)
    expect(runText(page)).toBe('Learning… · conversations 1 of 3; suggestions found: 1')
    expect(button('Pause', page)).toBeDefined()
    release()
    await until(() => runText(page).startsWith('Done'), 30_000)
    channel.close()
  })

  it('shows on a section opened before it that is told of nothing: asked again every 15 seconds', async () => {
    // The clock runs as it does (the host, the worker and the model go on as usual), except that the test moves it
    // 15 seconds on at once instead of waiting them out.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], shouldAdvanceTime: true })
    const page = await open()
    await until(() => spec.page.runAnswers() >= 1)
    expect(bar(page)).toBeNull()
    let release!: () => void
    const held = new Promise<void>((r) => (release = r))
    // Nothing found yet: no suggestion, no revision, no push.
    spec.h.model.script('extract', { gate: held, text: '无' }, { text: '无' }, { text: '无' })
    await startElsewhere()
    await vi.advanceTimersByTimeAsync(15_000)
    await until(() => bar(page) !== null, 5_000)
    expect(runText(page)).toBe('Learning… · conversations 0 of 3; suggestions found: 0')
    release()
    await until(() => runText(page).startsWith('Done'), 30_000)
  }, 60_000)
})
