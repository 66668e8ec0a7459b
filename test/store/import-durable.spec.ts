/**
 * A large own import's batches never make the event loop wait for the disk (lib/store/db/durable-later.ts): each is
 * committed with synchronous OFF and no automatic checkpoint on the store's connection, then synced off the event
 * loop (libuv's thread pool) before the next batch begins, and the WAL is checkpointed on a worker thread so that it
 * stays short. A user's command committed meanwhile is durable when it is answered (synchronous FULL, as ever).
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { open, stat } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { readParsedFile } from '../../lib/commands/file-read.ts'
import { Connection } from '../../lib/store/db/connection.ts'
import { OwnImports } from '../../lib/store/import-batches.ts'
import { DatabaseSync } from '../../lib/store/db/sqlite.ts'
import { backedUp, freshStore } from '../support/store-helpers.ts'

let ids = 0
const disposers: (() => Promise<void>)[] = []
afterEach(async () => {
  vi.restoreAllMocks()
  for (const d of disposers.splice(0)) await d()
})

/** What the store's connection did, in order: a commit and how durable it was on return, or a sync of a file. */
type Event = { commit: 'off' | 'full'; autoCheckpoint: number } | { sync: true }

/** Record every commit of a store connection (with its settings) and every datasync, both still doing their work. */
async function watch(): Promise<Event[]> {
  const events: Event[] = []
  const commit = Connection.prototype.commit
  vi.spyOn(Connection.prototype, 'commit').mockImplementation(function (this: Connection) {
    const synchronous = this.pragma('synchronous')
    events.push({ commit: synchronous === 0 ? 'off' : 'full', autoCheckpoint: this.pragma('wal_autocheckpoint') })
    expect([0, 2]).toContain(synchronous)
    commit.call(this)
  })
  const handle = await open(fileURLToPath(import.meta.url), 'r')
  const proto = Object.getPrototypeOf(handle) as { datasync(): Promise<void> }
  await handle.close()
  const datasync = proto.datasync
  vi.spyOn(proto, 'datasync').mockImplementation(async function (this: unknown) {
    events.push({ sync: true })
    return datasync.call(this)
  })
  return events
}

/** A file of `count` profiles of 1,000 items each, long enough that the WAL passes SQLite's 1,000 pages often. */
function bigFile(count: number) {
  const profiles = Array.from({ length: count }, (_, i) => ({
    id: `big${i}`,
    name: `Big ${i}`,
    memory: {
      summary: '',
      items: Array.from({ length: 1000 }, (_, k) => ({
        text: `第${i}.${k}条 remembered fact number ${k * 7919} of profile ${i}, kept`,
      })),
    },
  }))
  return readParsedFile(
    {
      name: 'mine.json',
      format: 'envelope',
      own: true,
      text: JSON.stringify({ format: 'dsh-agent-profiles', version: 1, profiles }),
    },
    0,
    { now: Date.now(), newId: (p) => `${p}-t${ids++}` },
  )
}

describe('a large own import and the disk', () => {
  it('checkpoints on one thread for the whole import, however many checkpoints the file needs', async () => {
    const s = await freshStore()
    disposers.push(() => s.dispose())
    await s.store.command({ op: 'profile.update', id: s.store.state.profiles[0]!.id, patch: { role: 'first save' } })
    await backedUp(s.store)
    // Every thread Node starts is announced on this channel (the day's backup of the save above is over).
    let threads = 0
    const started = () => void threads++
    subscribe('worker_threads', started)
    disposers.push(async () => void unsubscribe('worker_threads', started))
    const own = new OwnImports(s.store)
    own.start({ read: bigFile(12), choice: { conflicts: 'keep-both', replace: new Set() } })
    const end = await own.settled()
    expect(end.state).toBe('done')
    // The WAL was checkpointed many times (12,000 items write over 8,000 pages), each start of a thread costing
    // hundreds of milliseconds of a core that the host's event loop shares: one thread served them all.
    const reader = new DatabaseSync(s.store.file)
    const { log } = reader.prepare('PRAGMA wal_checkpoint(PASSIVE)').get() as { log: number }
    reader.close()
    expect(log).toBeLessThan(2000)
    expect(threads).toBe(1)
  }, 120_000)

  it('commits its batches without a sync on the store thread, syncs each off it before the next, checkpoints off it', async () => {
    const s = await freshStore()
    disposers.push(() => s.dispose())
    await s.store.command({ op: 'profile.update', id: s.store.state.profiles[0]!.id, patch: { role: 'first save' } })
    const events = await watch()
    const own = new OwnImports(s.store)
    own.start({
      read: bigFile(12),
      choice: { conflicts: 'keep-both', replace: new Set() },
    })
    // The user's own command while it runs.
    while (!s.store.state.profiles.some((p) => p.id === 'big0')) await new Promise((r) => setTimeout(r, 1))
    await s.store.command({ op: 'profile.update', id: 'big0', patch: { role: 'edited while importing' } })
    const end = await own.settled()
    expect(end.error).toBeUndefined()
    expect(end.state).toBe('done')
    expect(s.store.state.profiles.find((p) => p.id === 'big11')?.memory.items).toHaveLength(1000)

    const commits = events.filter((e) => 'commit' in e)
    const later = commits.filter((e) => e.commit === 'off')
    // Every profile's first batch and the rest of its items: many batches, none of them synced on the store thread,
    // none checkpointing there.
    expect(later.length).toBeGreaterThanOrEqual(16)
    expect(later.every((e) => e.autoCheckpoint === 0)).toBe(true)
    // The user's command was durable when answered, with SQLite's checkpoint as ever.
    expect(commits.filter((e) => e.commit === 'full').length).toBeGreaterThanOrEqual(1)
    expect(commits.filter((e) => e.commit === 'full').every((e) => e.autoCheckpoint > 0)).toBe(true)
    // After each batch the WAL was synced before the import committed its next one (a user's command may commit in
    // between: its FULL commit syncs the WAL too).
    const order = events.flatMap((e) => ('sync' in e ? ['sync'] : e.commit === 'off' ? ['batch'] : []))
    order.forEach((e, k) => {
      if (e === 'batch') expect(order[k + 1] ?? 'sync').toBe('sync')
    })
    // The checkpoints ran (on a worker): what the import wrote is in the database file, and the WAL is short.
    const reader = new DatabaseSync(s.store.file)
    const pages = (name: string) => Object.values(reader.prepare(`PRAGMA ${name}`).get()!)[0] as number
    const bytes = pages('page_count') * pages('page_size')
    const { log } = reader.prepare('PRAGMA wal_checkpoint(PASSIVE)').get() as { log: number }
    reader.close()
    expect(bytes).toBeGreaterThan(8 * 1024 * 1024)
    expect((await stat(s.store.file)).size).toBeGreaterThan(bytes / 2)
    expect(log).toBeLessThan(2000)
  }, 120_000)
})
