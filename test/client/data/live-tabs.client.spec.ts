import { afterEach, describe, expect, it, vi } from 'vitest'
import { openFeed, type FeedMode, type LiveFeed } from '../../../lib/client/data/live-tabs.ts'
import type { LiveEvent } from '../../../lib/shared/wire-state.ts'
import { simBrowser, type SimBrowser, type SimPage } from '../../support/tabs.ts'

/** One page's share of the channel, with what it was handed. */
interface Joined {
  page: SimPage
  feed: LiveFeed
  revisions: number[]
  reloads: number
  modes: FeedMode[]
}

const opened: Joined[] = []
afterEach(() => {
  for (const j of opened.splice(0)) {
    j.feed.close()
    j.page.close()
  }
})

function join(browser: SimBrowser, name: string, since: number | undefined = 0): Joined {
  const page = browser.page(name)
  const joined: Joined = { page, feed: undefined as unknown as LiveFeed, revisions: [], reloads: 0, modes: [] }
  joined.feed = openFeed({ url: '/__ap/events', ...page.options }, since, {
    event: (e) => {
      if (e.kind === 'reload') joined.reloads++
      else joined.revisions.push(e.revision)
    },
    mode: (m) => joined.modes.push(m),
  })
  opened.push(joined)
  return joined
}

const change = (revision: number): LiveEvent => ({
  kind: 'change',
  revision,
  change: { profiles: ['a'], memory: [], removed: [], sessions: [] },
})

/** The one open source, once exactly one is open. */
async function theSource(browser: SimBrowser): Promise<ReturnType<SimBrowser['openSources']>[number]> {
  await vi.waitFor(() => expect(browser.openSources()).toHaveLength(1))
  return browser.openSources()[0]!
}

/**
 * Until `page` has checked its leader (once a beat, on its interval timer) for longer than a leader may stay silent,
 * and twice more: a steal waits up to a beat after the check that decides it, and opening the new stream a task.
 */
async function checksPast(page: SimPage): Promise<void> {
  const { beatMs, staleMs } = page.options
  const from = page.ticks
  await vi.waitFor(() => expect(page.ticks - from).toBeGreaterThan(Math.ceil(staleMs / beatMs) + 2), {
    timeout: 10_000,
  })
}

const leaderOf = (pages: Joined[]): Joined => {
  const leaders = pages.filter((p) => p.feed.leading)
  expect(leaders).toHaveLength(1)
  return leaders[0]!
}

describe('one push connection for every page of the browser', () => {
  it('three pages: one connection, and every event reaches every page once, in order', async () => {
    const browser = simBrowser()
    const pages = [join(browser, 'settings'), join(browser, 'chat 1'), join(browser, 'chat 2')]
    const source = await theSource(browser)
    expect(source.page).toBe(pages[0]!.page)
    expect(source.url).toBe('/__ap/events?since=0')
    source.open()
    for (const r of [1, 2, 3]) source.emit(change(r))
    await vi.waitFor(() => {
      for (const p of pages) expect(p.revisions).toEqual([1, 2, 3])
    })
    // Each follower learns the leader's stream is open.
    await vi.waitFor(() => {
      for (const p of pages) expect(p.feed.mode).toBe('live')
    })
    expect(browser.openSources()).toHaveLength(1)
  })

  it("when the leader's page closes, the next page takes over at once and resumes from the newest event handed on", async () => {
    const browser = simBrowser({ beatMs: 20, staleMs: 60_000 })
    const pages = [join(browser, 'a'), join(browser, 'b'), join(browser, 'c')]
    const first = await theSource(browser)
    first.open()
    first.emit(change(4))
    first.emit(change(6))
    await vi.waitFor(() => {
      for (const p of pages) expect(p.revisions).toEqual([4, 6])
    })
    const leader = leaderOf(pages)
    leader.feed.close()
    leader.page.close()
    const rest = pages.filter((p) => p !== leader)
    // No silence to wait for (stale is a minute here): the lock goes to the next page when the leader's page goes.
    const next = await theSource(browser)
    expect(next).not.toBe(first)
    expect(next.url).toBe('/__ap/events?since=6')
    next.open()
    // The server resends nothing already handed on (since=6); a later event reaches both pages once.
    next.emit(change(9))
    await vi.waitFor(() => {
      for (const p of rest) expect(p.revisions).toEqual([4, 6, 9])
    })
    expect(leaderOf(rest).page).toBe(next.page)
  })

  it('a leader whose page froze is noticed and replaced; thawed, it gives up its stream and follows', async () => {
    const browser = simBrowser({ beatMs: 20, staleMs: 100 })
    const pages = [join(browser, 'a'), join(browser, 'b'), join(browser, 'c')]
    const first = await theSource(browser)
    first.open()
    first.emit(change(1))
    await vi.waitFor(() => {
      for (const p of pages) expect(p.revisions).toEqual([1])
    })
    const frozen = leaderOf(pages)
    const rest = pages.filter((p) => p !== frozen)
    // One follower is in a background tab, so exactly one steals: on a loaded machine two visible followers can both
    // steal before either hears the other, and the later one wins, which would make "the new leader" a moving target.
    rest[1]!.page.hidden = true
    frozen.page.freeze()
    // Saves go on while it is frozen: its stream gets them, but it relays nothing.
    first.emit(change(2))
    await vi.waitFor(() => expect(rest.filter((p) => p.feed.leading)).toHaveLength(1), { timeout: 2_000 })
    const taken = browser.openSources().find((s) => s !== first)!
    expect(taken.url).toBe('/__ap/events?since=1')
    taken.open()
    taken.emit(change(2))
    taken.emit(change(3))
    await vi.waitFor(() => {
      for (const p of rest) expect(p.revisions).toEqual([1, 2, 3])
    })

    frozen.page.thaw()
    // It learns the lock was taken, closes its stream, and follows the new leader; what it relayed late is ignored.
    await vi.waitFor(() => expect(first.closed).toBe(true))
    expect(frozen.feed.leading).toBe(false)
    taken.emit(change(5))
    // What reached it while frozen runs once it thaws: its own stream's 2, then the new leader's relays, each once.
    await vi.waitFor(() => {
      for (const p of pages) expect(p.revisions).toEqual([1, 2, 3, 5])
    })
    expect(browser.openSources()).toEqual([taken])
  })

  it('two pages opened at the same moment: one leads, the other follows', async () => {
    const browser = simBrowser()
    const pages = [join(browser, 'a'), join(browser, 'b')]
    const source = await theSource(browser)
    // The loser checks its leader past the time a silent one is taken over from, and then some: it hears the
    // winner's beats and never steals.
    await checksPast(pages.find((p) => !p.feed.leading)!.page)
    expect(browser.openSources()).toEqual([source])
    leaderOf(pages)
    source.open()
    source.emit(change(1))
    await vi.waitFor(() => {
      for (const p of pages) expect(p.revisions).toEqual([1])
    })
  })

  it('a page that joins late is caught up from the leader, or told to reload when the gap is too old', async () => {
    const browser = simBrowser()
    const first = join(browser, 'a', 3)
    const source = await theSource(browser)
    source.open()
    for (const r of [4, 5, 6]) source.emit(change(r))
    await vi.waitFor(() => expect(first.revisions).toEqual([4, 5, 6]))
    // Loaded its state at 4: 5 and 6 came before it listened.
    const late = join(browser, 'b', 4)
    await vi.waitFor(() => expect(late.revisions).toEqual([5, 6]))
    source.emit(change(7))
    await vi.waitFor(() => expect(late.revisions).toEqual([5, 6, 7]))
    // Loaded at 2, older than what the leader heard from: a reload, then the events after it.
    const older = join(browser, 'c', 2)
    await vi.waitFor(() => expect(older.reloads).toBe(1))
    source.emit(change(8))
    await vi.waitFor(() => expect(older.revisions).toEqual([8]))
    expect(browser.openSources()).toHaveLength(1)
  })

  it('a "reload" from the server reaches every page', async () => {
    const browser = simBrowser()
    const pages = [join(browser, 'a', 10), join(browser, 'b', 10)]
    const source = await theSource(browser)
    source.emit({ kind: 'reload', revision: 2 })
    await vi.waitFor(() => {
      for (const p of pages) expect(p.reloads).toBe(1)
    })
    // After a reload from another data file, its lower revisions count again.
    source.emit(change(3))
    await vi.waitFor(() => {
      for (const p of pages) expect(p.revisions).toEqual([3])
    })
  })

  it('a stream refused for good puts every page on refresh-on-focus', async () => {
    const browser = simBrowser()
    const pages = [join(browser, 'a'), join(browser, 'b')]
    const source = await theSource(browser)
    source.fail(0)
    await vi.waitFor(() => {
      for (const p of pages) expect(p.feed.mode).toBe('connecting')
    })
    source.fail(2)
    await vi.waitFor(() => {
      for (const p of pages) expect(p.feed.mode).toBe('fallback')
    })
  })

  it('a hidden page does not take the lead from a silent leader; shown again, it does', async () => {
    const browser = simBrowser({ beatMs: 20, staleMs: 80 })
    const pages = [join(browser, 'a'), join(browser, 'b')]
    await theSource(browser)
    const leader = leaderOf(pages)
    const other = pages.find((p) => p !== leader)!
    other.page.hidden = true
    leader.page.freeze()
    // Checked past the time a silent leader is taken over from: a page shown would have stolen by then.
    await checksPast(other.page)
    expect(other.feed.leading).toBe(false)
    other.page.hidden = false
    await vi.waitFor(() => expect(other.feed.leading).toBe(true), { timeout: 2_000 })
  })

  it('without Web Locks or BroadcastChannel no stream is opened', () => {
    const page = simBrowser().page('old browser')
    const modes: FeedMode[] = []
    const noLocks = openFeed({ url: '/__ap/events', ...page.options, locks: undefined }, 0, {
      event: () => {},
      mode: (m) => modes.push(m),
    })
    expect(noLocks.mode).toBe('fallback')
    expect(page.sources).toHaveLength(0)
    noLocks.close()
  })
})
