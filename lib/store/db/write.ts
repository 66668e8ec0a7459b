/**
 * Writing a batch: what changed from the state the database holds to the next one, as the rows it changed and
 * nothing else (the profiles, memory items, conversation settings, undo copies and history entries that differ),
 * each stamped with the batch's revision, inside the transaction the store opened. Keeps the search index in step
 * (index-upkeep.ts) and never touches a row set aside (set-aside.ts). It never opens or commits a transaction and
 * never decides what the next state is.
 */
import { userItemsOf, type MemoryItem, type MemoryWrite, type Profile, type State } from '../../state/model.ts'
import { changedKeys, diffKeys } from '../../state/sessions.ts'
import { changedParts, sameEnds, type Part } from '../../state/list-ends.ts'
import { appendStep } from '../../state/lazy-list.ts'
import { lastAppended, takeSteps, type DiskOp } from '../../state/items-on-disk.ts'
import type { Connection } from './connection.ts'
import type { HeldRevisions } from './held-revisions.ts'
import type { IndexUpkeep } from './index-upkeep.ts'
import { conversationOwner } from './memory-index.ts'
import { profileChanges } from './profile-changes.ts'
import { NO_MEMORIES, USER_OWNER } from './rows.ts'
import type { SetAside } from './set-aside.ts'
import { UPSERT_ITEM } from './item-kinds.ts'
import { SET_TEXT_KEY, textKeyOf } from './text-keys.ts'
import { normalizedItem } from '../../shared/memory-text.ts'
import type { Positions } from './positions.ts'
import { COLUMNS, rowOf } from './row-read.ts'

/** Deleted profiles whose look is kept; the ones deleted longest ago go first. */
export const RETIRED_KEPT = 200

/**
 * Tombstones of removed conversations kept. Whether every process has read past a tombstone cannot be known (a
 * process may sleep for days), so the oldest beyond this many go and `sessionsReset` moves up to the newest of those:
 * a process holding an older revision reloads every conversation's settings, as after clearing them all, and one
 * holding a newer revision still finds every tombstone it needs. A process falls that far behind only when this many
 * conversations went while it read nothing, so the whole reload stays rare while the table stays small.
 */
export const GONE_KEPT = 10_000

/** What a batch's write needs: the connection, the rows set aside, the index, and the revision this process holds. */
export interface WriteParts {
  connection: Connection
  aside: SetAside
  index: IndexUpkeep
  held: HeldRevisions
  positions: Positions
}

/** One batch's change: from `prev` (the state the database holds) to `next`, as rows of `revision`. */
export interface RowChange {
  prev: State
  next: State
  revision: number
  /** The avatar file a profile's row names (undefined: no avatar). */
  avatarFile(p: Profile): string | undefined
}

/** Write the rows `change` changed. Throws on any failure; the caller rolls back. */
export function writeRows(parts: WriteParts, change: RowChange): void {
  const { prev, next, revision } = change
  parts.positions.begin()
  if (next === prev) return
  new RowWriter(parts, revision).write(change)
}

/** The write of one batch's rows. */
class RowWriter {
  readonly #conn: Connection
  readonly #aside: SetAside
  readonly #index: IndexUpkeep
  readonly #held: HeldRevisions
  readonly #revision: number
  readonly #positions: Positions

  constructor(parts: WriteParts, revision: number) {
    this.#positions = parts.positions
    this.#conn = parts.connection
    this.#aside = parts.aside
    this.#index = parts.index
    this.#held = parts.held
    this.#revision = revision
  }

  write({ prev, next, avatarFile }: RowChange): void {
    const revision = this.#revision
    // An index behind the rows (an older plugin wrote them, or it failed a query) is rebuilt from them below.
    this.#index.beforeWrite(this.#conn.revision())
    if (revision !== this.#held.revision) this.#conn.setMeta('revision', revision)
    if (prev.activeId !== next.activeId) this.#conn.setMeta('activeId', next.activeId)
    this.#profiles(prev, next, avatarFile)
    this.#sessions(prev, next)
    this.#undo(prev, next)
    this.#history(prev, next)
    if (prev.user !== next.user) {
      this.#items(USER_OWNER, userItemsOf(prev), userItemsOf(next))
      this.#conn.setMeta('userRev', revision)
    }
    this.#index.afterWrite(this.#conn, revision)
  }

  #statement(sql: string) {
    return this.#conn.statement(sql)
  }

  #profiles(prev: State, next: State, avatarFile: (p: Profile) => string | undefined): void {
    const { changed, previous, sameOrder } = profileChanges(prev, next)
    const upsert = this.#statement(
      'INSERT INTO profiles (id, pos, rev, data) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET pos = excluded.pos, rev = excluded.rev, data = excluded.data',
    )
    const position = sameOrder ? undefined : new Map(next.profiles.map((p, i) => [p.id, i]))
    changed.forEach((p, i) => {
      const { avatar: _avatar, memory, ...fields } = p
      const file = avatarFile(p)
      const data = {
        ...fields,
        ...(file === undefined ? {} : { avatarFile: file }),
        memory: { summary: memory.summary },
      }
      const pos = position?.get(p.id) ?? next.profiles.indexOf(p)
      this.#aside.guard('profiles', p.id)
      upsert.run(p.id, pos, this.#revision, JSON.stringify(data))
      this.#items(p.id, previous[i]?.memory.items ?? [], memory.items)
    })
    if (sameOrder) return
    const live = new Set(next.profiles.map((p) => p.id))
    for (const p of prev.profiles) {
      if (live.has(p.id)) continue
      this.#statement('DELETE FROM profiles WHERE id = ?').run(p.id)
      // Nothing else of it: deleting a profile deletes what it knew (its rows set aside stay, as every such row does).
      this.#items(p.id, p.memory.items, [])
      this.#statement(
        'INSERT INTO retired_profiles (id, at, data) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET at = excluded.at, data = excluded.data',
      ).run(p.id, Date.now(), JSON.stringify({ name: p.name, emoji: p.emoji, avatar: p.avatar }))
    }
    this.#statement(
      'DELETE FROM retired_profiles WHERE id IN (SELECT id FROM retired_profiles ORDER BY at DESC, id LIMIT -1 OFFSET ?)',
    ).run(RETIRED_KEPT)
    const move = this.#statement('UPDATE profiles SET pos = ? WHERE id = ?')
    next.profiles.forEach((p, i) => move.run(i, p.id))
  }

  /**
   * The item rows of one owner: rows for new, changed or moved items; removed items' rows deleted. Positions are
   * sparse (positions.ts): the items both lists hold as the same objects at their start and end keep their rows, and
   * what lies between is placed between them, so removing or editing an early item of 10,000 writes one row, not
   * every row after it. Only when the items between do not fit are the rows after the start placed again.
   */
  #items(profileId: string, before: readonly MemoryItem[], after: readonly MemoryItem[]): void {
    if (before === after) return
    const onDisk = takeSteps(before, after)
    if (onDisk !== undefined) return this.#stepRows(profileId, before, onDisk)
    const parts = changedParts(before, after)
    if (parts.length > 1 && this.#itemParts(profileId, before, after, parts)) return
    const at = (it: MemoryItem | undefined) => this.#positions.get(profileId, it)
    const ends = sameEnds(before, after)
    // An item whose row position is not known here (no row read or written yet) is placed again, with all after it.
    const head = ends.head > 0 && at(after[ends.head - 1]) === undefined ? 0 : ends.head
    let tail = Math.min(ends.tail, after.length - head)
    if (tail > 0 && at(after[after.length - tail]) === undefined) tail = 0
    // The old items between the kept ends, by id: only the part that changed is walked, never the rest of the list.
    const wasOf = (t: number) => idsBetween(before, head, before.length - Math.min(t, before.length - head))
    let was = wasOf(tail)
    const placed = (t: number) =>
      this.#positions.place(
        after.length - t - head,
        head === 0 ? undefined : at(after[head - 1]),
        t === 0 ? undefined : at(after[after.length - t]),
        (k) => at(was.get(after[head + k]!.id)),
      )
    let where = placed(tail)
    if (where === undefined) {
      // The items between do not fit between their neighbours: every row after the start is placed again.
      was = wasOf((tail = 0))
      where = placed(0)!
    }
    const changed: { old?: MemoryItem; now: MemoryItem }[] = []
    const removed: MemoryItem[] = []
    this.#writeRun(profileId, after, { a0: head, a1: after.length - tail, was, where }, changed, removed)
    if (this.#index.live) this.#index.index.apply(profileId, changed, removed)
  }

  /**
   * The rows of a list changed on disk (items-on-disk.ts), step by step: appended items placed after the owner's last
   * row (the last item appended before, when this process wrote it; else found by its position), an edited item's
   * row rewritten where it is, a removed item's row deleted; no other row is read or written.
   */
  #stepRows(profileId: string, before: readonly MemoryItem[], steps: readonly DiskOp<MemoryItem>[]): void {
    let last = this.#positions.get(profileId, lastAppended(before))
    const changed: { old?: MemoryItem; now: MemoryItem }[] = []
    const removed: MemoryItem[] = []
    for (const step of steps) {
      if ('add' in step) {
        const where = this.#positions.place(
          step.add.length,
          last ?? this.#lastPosition(profileId),
          undefined,
          () => undefined,
        )!
        const upsert = this.#statement(UPSERT_ITEM)
        step.add.forEach((it, i) => {
          this.#positions.stage(profileId, it, where[i]!)
          this.#aside.guard('memory_items', `${profileId}/${it.id}`)
          upsert.run(profileId, it.id, where[i]!, JSON.stringify(it), keyOf(it))
          changed.push({ now: it })
        })
        last = where.at(-1)
      } else if ('edit' in step) {
        const pos = this.#positions.get(profileId, step.was)
        if (pos !== undefined) this.#positions.stage(profileId, step.edit, pos)
        this.#aside.guard('memory_items', `${profileId}/${step.edit.id}`)
        this.#statement('UPDATE memory_items SET data = ? WHERE profile_id = ? AND id = ?').run(
          JSON.stringify(step.edit),
          profileId,
          step.edit.id,
        )
        // After the text: its trigger empties a key the new text did not change (text-keys.ts).
        this.#statement(SET_TEXT_KEY).run(keyOf(step.edit), profileId, step.edit.id)
        changed.push({ old: step.was, now: step.edit })
      } else {
        this.#statement('DELETE FROM memory_items WHERE profile_id = ? AND id = ?').run(profileId, step.remove.id)
        removed.push(step.remove)
        last = undefined
      }
    }
    if (this.#index.live) this.#index.index.apply(profileId, changed, removed)
  }

  /** The position of the owner's last row (none: undefined). */
  #lastPosition(profileId: string): number | undefined {
    const row = this.#statement('SELECT pos FROM memory_items WHERE profile_id = ? ORDER BY pos DESC LIMIT 1').get(
      profileId,
    )
    return row === undefined ? undefined : rowOf('memory_items', COLUMNS.pos, row).pos
  }

  /**
   * The rows of a list a command marked with several changed parts (list-ends.ts: one fact gone from the middle and
   * its replacement appended): each part placed between its kept neighbours, every item between the parts keeping
   * its row. False, having written nothing, when a neighbour's position is not known here or a part does not fit
   * between its neighbours: the caller then writes the list as one part.
   */
  #itemParts(
    profileId: string,
    before: readonly MemoryItem[],
    after: readonly MemoryItem[],
    parts: readonly Part[],
  ): boolean {
    const at = (it: MemoryItem | undefined) => this.#positions.get(profileId, it)
    const runs: Run[] = []
    for (const { b0, b1, a0, a1 } of parts) {
      const lo = a0 === 0 ? undefined : at(after[a0 - 1])
      const hi = a1 === after.length ? undefined : at(after[a1])
      if ((a0 > 0 && lo === undefined) || (a1 < after.length && hi === undefined)) return false
      const was = idsBetween(before, b0, b1)
      const where = this.#positions.place(a1 - a0, lo, hi, (k) => at(was.get(after[a0 + k]!.id)))
      if (where === undefined) return false
      runs.push({ a0, a1, was, where })
    }
    const changed: { old?: MemoryItem; now: MemoryItem }[] = []
    const removed: MemoryItem[] = []
    for (const run of runs) this.#writeRun(profileId, after, run, changed, removed)
    if (this.#index.live) this.#index.index.apply(profileId, changed, removed)
    return true
  }

  /**
   * Write one placed run of `after` (its items from `a0` to `a1` at `where`, the old items it replaces in `was`):
   * rows for new, changed or moved items, the rows of the old ones it no longer holds deleted; what changed and what
   * was removed are added to `changed` and `removed` for the search index.
   */
  #writeRun(
    profileId: string,
    after: readonly MemoryItem[],
    { a0, a1, was, where }: Run,
    changed: { old?: MemoryItem; now: MemoryItem }[],
    removed: MemoryItem[],
  ): void {
    const at = (it: MemoryItem | undefined) => this.#positions.get(profileId, it)
    const upsert = this.#statement(UPSERT_ITEM)
    const kept = new Set<string>()
    for (let i = a0; i < a1; i++) {
      const it = after[i]!
      const pos = where[i - a0]!
      kept.add(it.id)
      const old = was.get(it.id)
      if (old !== it) changed.push({ old, now: it })
      this.#positions.stage(profileId, it, pos)
      if (old === it && at(it) === pos) continue
      this.#aside.guard('memory_items', `${profileId}/${it.id}`)
      upsert.run(profileId, it.id, pos, JSON.stringify(it), keyOf(it))
      // A changed item's row: its key set again after its text, which the key's trigger may have emptied.
      if (old !== undefined && old !== it) this.#statement(SET_TEXT_KEY).run(keyOf(it), profileId, it.id)
    }
    const remove = this.#statement('DELETE FROM memory_items WHERE profile_id = ? AND id = ?')
    for (const it of was.values())
      if (!kept.has(it.id)) {
        remove.run(profileId, it.id)
        removed.push(it)
      }
  }

  #sessions(prev: State, next: State): void {
    if (prev.sessions === next.sessions) return
    if (next.sessions.size === 0 && prev.sessions.size > 0) {
      // Clearing every conversation is one reset mark, not a tombstone per conversation. Rows set aside stay.
      this.#statement('DELETE FROM sessions WHERE id NOT IN (SELECT value FROM json_each(?))').run(
        JSON.stringify(this.#aside.keys('sessions')),
      )
      this.#statement('DELETE FROM sessions_gone').run()
      // The rows set aside keep their items, so the index is made again from what the table still holds.
      if (this.#aside.keys('sessions').length > 0) this.#index.markStale()
      else if (this.#index.live) this.#index.index.dropConversations()
      this.#conn.setMeta('sessionsReset', this.#revision)
      return
    }
    const keys = changedKeys(prev.sessions, next.sessions) ?? diffKeys(prev.sessions, next.sessions)
    const upsert = this.#statement(
      'INSERT INTO sessions (id, rev, data) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET rev = excluded.rev, data = excluded.data',
    )
    const revive = this.#statement('DELETE FROM sessions_gone WHERE id = ?')
    const remove = this.#statement('DELETE FROM sessions WHERE id = ?')
    const bury = this.#statement(
      'INSERT INTO sessions_gone (id, rev) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET rev = excluded.rev',
    )
    let buried = 0
    for (const key of keys) {
      const setting = next.sessions.get(key)
      const before = prev.sessions.get(key)?.memories ?? NO_MEMORIES
      if (this.#index.live && before !== setting?.memories)
        this.#index.index.sync(conversationOwner(key), before, setting?.memories ?? NO_MEMORIES)
      if (setting !== undefined) {
        this.#aside.guard('sessions', key)
        upsert.run(key, this.#revision, JSON.stringify(setting))
        revive.run(key)
      } else {
        remove.run(key)
        bury.run(key, this.#revision)
        buried++
      }
    }
    if (buried > 0) this.#pruneGone()
  }

  /** Drop the tombstones beyond the newest {@link GONE_KEPT}, moving `sessionsReset` past them. */
  #pruneGone(): void {
    const cut = this.#statement('SELECT rev FROM sessions_gone ORDER BY rev DESC LIMIT 1 OFFSET ?').get(GONE_KEPT) as
      { rev: number } | undefined
    if (cut === undefined) return
    this.#statement('DELETE FROM sessions_gone WHERE rev <= ?').run(cut.rev)
    if (cut.rev > Number(this.#conn.meta('sessionsReset') ?? 0)) this.#conn.setMeta('sessionsReset', cut.rev)
  }

  /** The history rows: appended entries inserted, entries a list dropped deleted, lists that went deleted. */
  #history(prev: State, next: State): void {
    if (prev.history === next.history) return
    const insert = this.#statement(
      'INSERT INTO memory_history (list, id, pos, rev, data) VALUES (?, ?, ?, ?, ?) ON CONFLICT (list, id) DO UPDATE SET pos = excluded.pos, rev = excluded.rev, data = excluded.data',
    )
    const remove = this.#statement('DELETE FROM memory_history WHERE list = ? AND id = ?')
    // Positions grow with the revision, so rows read back in order give each list oldest first.
    let pos = this.#revision * 1_000
    const put = (key: string, e: MemoryWrite) => {
      this.#aside.guard('memory_history', `${key}/${e.id}`)
      insert.run(key, e.id, pos++, this.#revision, JSON.stringify(e))
    }
    for (const [key, list] of Object.entries(next.history ?? {})) {
      const old = prev.history?.[key] ?? []
      if (old === list) continue
      // A list appended to while on disk (lazy-list.ts appendedOnDisk) says its rows' change itself: reading both
      // lists to compare them would read the whole history the append left on disk.
      const step = appendStep(old, list)
      if (step !== undefined) {
        for (const e of step.added) put(key, e)
        for (const id of step.dropped) remove.run(key, id)
        continue
      }
      const had = new Set(old.map((e) => e.id))
      const has = new Set(list.map((e) => e.id))
      for (const e of list) if (!had.has(e.id)) put(key, e)
      for (const e of old) if (!has.has(e.id)) remove.run(key, e.id)
    }
    const drop = this.#statement(
      'DELETE FROM memory_history WHERE list = ? AND id NOT IN (SELECT value FROM json_each(?))',
    )
    for (const key of Object.keys(prev.history ?? {})) {
      if (next.history?.[key] === undefined)
        drop.run(key, JSON.stringify(this.#aside.keys('memory_history', `${key}/`).map((k) => k.slice(key.length + 1))))
    }
  }

  #undo(prev: State, next: State): void {
    if (prev.memoryUndo === next.memoryUndo) return
    const upsert = this.#statement(
      'INSERT INTO memory_undo (profile_id, rev, at, memory) VALUES (?, ?, ?, ?) ON CONFLICT DO UPDATE SET rev = excluded.rev, at = excluded.at, memory = excluded.memory',
    )
    for (const [id, entry] of Object.entries(next.memoryUndo ?? {})) {
      if (prev.memoryUndo?.[id] === entry) continue
      this.#aside.guard('memory_undo', id)
      upsert.run(id, this.#revision, entry.at, JSON.stringify(entry.memory))
    }
    const remove = this.#statement('DELETE FROM memory_undo WHERE profile_id = ?')
    for (const id of Object.keys(prev.memoryUndo ?? {})) if (next.memoryUndo?.[id] === undefined) remove.run(id)
  }
}

/** One run of a list's items placed for writing: `after`'s items from `a0` to `a1` at `where`, replacing `was`. */
interface Run {
  a0: number
  a1: number
  was: Map<string, MemoryItem>
  where: readonly number[]
}

/** The key of an item's text as its row keeps it (text-keys.ts). */
const keyOf = (it: MemoryItem) => textKeyOf(normalizedItem(it))

/** The items of `list` from `from` to `to` (not included), by id. */
function idsBetween(list: readonly MemoryItem[], from: number, to: number): Map<string, MemoryItem> {
  const ids = new Map<string, MemoryItem>()
  for (let i = from; i < to; i++) ids.set(list[i]!.id, list[i]!)
  return ids
}
