/**
 * Tombstones of removed conversations (`sessions_gone`), which tell other processes on the same data which
 * conversations' settings went: the table keeps at most GONE_KEPT of them whatever the number of conversations ever
 * removed, and every process still sees every removal — one that kept reading through the tombstones left, one that
 * read nothing for longer by reloading every conversation's settings. Each store here has its own connection, as a
 * second dsh process has.
 */
import { DatabaseSync } from 'node:sqlite'
import { afterEach, expect, it } from 'vitest'
import { factoryState } from '../../lib/state/defaults.ts'
import { GONE_KEPT } from '../../lib/store/db/write.ts'
import { layoutOf } from '../../lib/store/db/layout.ts'
import { freshStore } from '../support/store-helpers.ts'

let ctx: Awaited<ReturnType<typeof freshStore>> | undefined
afterEach(async () => ctx?.dispose())

/** The data file of the layout before the database, with settings for conversations `s0`…`s<n-1>`. */
function seed(n: number): string {
  const { activeId, profiles } = factoryState(1)
  const sessions = Object.fromEntries(
    Array.from({ length: n }, (_, i) => [`s${i}`, { profileId: null, note: `第 ${i} 个对话`, memories: [] }]),
  )
  return JSON.stringify({ version: 1, revision: 0, activeId, profiles, sessions })
}

function tombstones(file: string): { rows: number; reset: number } {
  const db = new DatabaseSync(layoutOf(file).file, { readOnly: true })
  try {
    const rows = (db.prepare('SELECT count(*) AS n FROM sessions_gone').get() as { n: number }).n
    const reset = Number(
      (db.prepare("SELECT value FROM meta WHERE key = 'sessionsReset'").get() as { value?: unknown } | undefined)
        ?.value ?? 0,
    )
    return { rows, reset }
  } finally {
    db.close()
  }
}

const ids = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `s${from + i}`)

it('keeps at most GONE_KEPT tombstones, and every other process still sees every conversation that went', async () => {
  const first = GONE_KEPT - 4_000
  const total = GONE_KEPT + 2_000
  ctx = await freshStore(seed(total + 10))
  const { store } = ctx
  // One process reads now and then not again; another reads after every removal.
  const asleep = await ctx.open()
  const awake = await ctx.open()
  expect(asleep.state.sessions.size).toBe(total + 10)

  await store.command({ op: 'sessions.forget', sessionIds: ids(0, first) })
  expect(awake.state.sessions.size).toBe(total + 10 - first)
  expect(tombstones(ctx.file)).toEqual({ rows: first, reset: 0 })

  // Past the bound: the older batch's tombstones go, and the reset mark moves up to the revision that wrote them.
  const before = store.revision
  await store.command({ op: 'sessions.forget', sessionIds: ids(first, total) })
  const { rows, reset } = tombstones(ctx.file)
  expect(rows).toBe(total - first)
  expect(rows).toBeLessThanOrEqual(GONE_KEPT)
  expect(reset).toBe(before)

  // The awake process holds that revision: the tombstones left are all it needs. The one asleep holds an older
  // revision, so it reloads every conversation's settings. Both end with exactly the conversations that are left.
  const left = [...ids(total, total + 10)].sort()
  expect([...awake.state.sessions.keys()].sort()).toEqual(left)
  expect([...asleep.state.sessions.keys()].sort()).toEqual(left)
  expect(asleep.effective('s0').setting).toBeUndefined()

  // A conversation set again after it went is back everywhere, and its tombstone is gone.
  await store.command({ op: 'session.set', sessionId: `s${total - 1}`, patch: { note: '又回来了' } })
  expect(awake.effective(`s${total - 1}`).setting?.note).toBe('又回来了')
  expect(asleep.effective(`s${total - 1}`).setting?.note).toBe('又回来了')
  expect(tombstones(ctx.file).rows).toBe(total - first - 1)
}, 120_000)

it('removing more conversations in one go than it keeps tombstones of leaves none, and a reset mark instead', async () => {
  const total = GONE_KEPT + 500
  ctx = await freshStore(seed(total))
  const other = await ctx.open()
  expect(other.state.sessions.size).toBe(total)
  await ctx.store.command({ op: 'sessions.forget', sessionIds: ids(0, total - 1) })
  expect(tombstones(ctx.file)).toEqual({ rows: 0, reset: ctx.store.revision })
  expect([...other.state.sessions.keys()]).toEqual([`s${total - 1}`])
}, 120_000)
