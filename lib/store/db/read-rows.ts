/**
 * Reading rows into the state, each row checked alone by this version's rules: a row that breaks them is set aside
 * (set-aside.ts) and every other row still reads. The full load (load.ts) and the reload of what other processes
 * wrote (reload.ts) are both made of these reads. It never writes a row and never decides which rows to read.
 */
import {
  LIMITS,
  USER_HISTORY,
  type Memory,
  type MemoryItem,
  type MemoryWrite,
  type Profile,
  type SessionSetting,
} from '../../state/model.ts'
import {
  bareRecord,
  invalid,
  isEmptySetting,
  isRecord,
  memoryItem,
  profile as checkedProfile,
  sessionId,
  sessionSetting,
  undoEntry,
} from '../../validate/state.ts'
import { AVATAR_FILE, type AvatarFiles } from './avatars.ts'
import { BUSY_TIMEOUT_MS, Connection } from './connection.ts'
import { USER_OWNER } from './rows.ts'
import { SetAside } from './set-aside.ts'
import { COLUMNS, byProfile, rowOf, rowsOf, rowsSetAside, type Row } from './row-read.ts'
import { Positions } from './positions.ts'
import type { StoredValues } from './stored-values.ts'
import { lazyList, type CoreWant, type ItemTally, type MemoryCore } from '../../state/lazy-list.ts'
import { DatabaseSync } from './sqlite.ts'
import { damagedRefusal, isDamage } from './damage.ts'
import { errorText } from '../../shared/errors.ts'
import { NEWEST_SQL, TALLY_BY_TEXT } from './core-sql.ts'
import { KIND } from './kind-bits.ts'
import { rowTexts, rowsSay } from './row-texts.ts'
import { textKeysReady } from './text-keys.ts'
import { COUNTS_OF } from './item-counts.ts'
import { kindsReady } from './item-kinds.ts'
import { StoreError } from '../../shared/errors.ts'
import { HistoryRows } from './read-history.ts'

/** What the reads need: the connection, the list of rows set aside, and the avatar files profiles are read with. */
export interface RowReaderParts {
  connection: Connection
  aside: SetAside
  avatars: AvatarFiles
  /** Where each item's row sits: recorded as the rows are read. */
  positions: Positions
  /** Told when a read meets a damaged page, with SQLite's words, before the read is refused. */
  damaged?: (detail: string) => void
}

/** The checked reads of one database's rows. */
export class RowReader {
  readonly #conn: Connection
  readonly #aside: SetAside
  readonly #avatars: AvatarFiles
  readonly #positions: Positions
  readonly #damaged: ((detail: string) => void) | undefined
  readonly #history: HistoryRows
  /** The item columns are filled, indexed and counted (item-kinds.ts): once seen, for good. */
  #kinds = false
  /** The rows' text keys are filled and indexed (text-keys.ts): once seen, for good. */
  #keys = false

  constructor(parts: RowReaderParts) {
    this.#positions = parts.positions
    this.#damaged = parts.damaged
    this.#conn = parts.connection
    this.#aside = parts.aside
    this.#avatars = parts.avatars
    this.#history = new HistoryRows(parts.connection, parts.aside)
  }

  /** Set aside a row of `table` that belongs to `owner`, a profile that is not there. */
  #noProfile(table: string, key: string, owner: string): void {
    this.#aside.add(table, key, `names no profile ("${owner}")`, { key: 'no-profile', params: { id: owner } })
  }

  /** The active profile: meta's, or, when it names no profile this version loaded, the first (listed as mended). */
  activeId(known: ReadonlySet<string>, profiles: readonly Profile[]): string {
    const activeId = String(this.#conn.meta('activeId') ?? '')
    if (known.has(activeId) || profiles.length === 0) {
      this.#aside.forget('meta', 'activeId')
      return known.has(activeId) ? activeId : ''
    }
    this.#aside.add(
      'meta',
      'activeId',
      `names no profile ("${activeId}"); the first profile is active until another is chosen`,
      { key: 'active-missing', params: { id: activeId } },
      true,
    )
    return profiles[0]!.id
  }

  /**
   * The memory item rows, by owner (all owners, or the one named), each checked alone and within its owner's limit;
   * a row that breaks the rules is set aside.
   */
  items(owner: string | undefined, d: StoredValues): Map<string, MemoryItem[]> {
    const rows =
      owner === undefined
        ? this.#conn.statement('SELECT profile_id, id, pos, data FROM memory_items ORDER BY profile_id, pos').all()
        : this.#conn
            .statement('SELECT profile_id, id, pos, data FROM memory_items WHERE profile_id = ? ORDER BY pos')
            .all(owner)
    if (owner !== undefined) this.#aside.forgetPrefix('memory_items', `${owner}/`)
    const out = new Map<string, MemoryItem[]>()
    const keyOf = (r: { profile_id?: unknown; id?: unknown }) => `${String(r.profile_id)}/${String(r.id)}`
    for (const row of rowsSetAside('memory_items', COLUMNS.item, rows, this.#aside, keyOf)) {
      const list = out.get(row.profile_id) ?? []
      out.set(row.profile_id, list)
      const key = `${row.profile_id}/${row.id}`
      const limit = row.profile_id === USER_OWNER ? LIMITS.userItems : LIMITS.memoryItems
      if (list.length >= limit) {
        this.#aside.overLimit('memory_items', key, limit, 'items')
        continue
      }
      const item = this.#checked(row.profile_id, row, d)
      if (item === undefined) continue
      list.push(item)
      this.#positions.set(row.profile_id, item, row.pos)
    }
    return out
  }

  /**
   * A profile from its row and its (checked) items, its avatar read from its file ('' and listed in `unreadable` if
   * it cannot be); undefined, and set aside, when the row breaks this version's rules. An avatar file name that is
   * not one is mended in memory (no avatar) and listed.
   */
  profile(row: Row<'profile'>, items: MemoryItem[], unreadable: string[], d: StoredValues): Profile | undefined {
    let avatarFile: unknown
    const p = this.#aside.take('profiles', row.id, () => {
      const data: unknown = JSON.parse(row.data)
      if (!isRecord(data)) throw invalid(`profiles.${row.id}`, 'is not an object')
      const { avatarFile: file, memory, ...fields } = data
      avatarFile = file
      const summary = isRecord(memory) ? memory.summary : undefined
      const f = `profiles.${row.id}`
      const out = d.profile(checkedProfile({ ...fields, avatar: '', memory: { summary } }, f), f)
      if (out.id !== row.id) throw invalid(`profiles.${row.id}.id`, `differs from the row's key ("${out.id}")`)
      return { ...out, memory: { summary: out.memory.summary, items } }
    })
    if (p === undefined || avatarFile === undefined) return p
    if (typeof avatarFile !== 'string' || !AVATAR_FILE.test(avatarFile)) {
      // No file is read for it: the profile shows its emoji, and the row keeps the value until a new avatar is saved.
      this.#aside.add(
        'profiles',
        row.id,
        'avatarFile: is not an avatar file name; the profile is shown without its avatar',
        { key: 'avatar-file' },
        true,
      )
      return p
    }
    const read = this.#avatars.read(avatarFile)
    if (read === undefined) unreadable.push(avatarFile)
    else {
      p.avatar = read
      this.#avatars.learn(row.id, avatarFile, read)
    }
    return p
  }

  /** Conversation settings from their rows, each checked alone (a pin must name a loaded profile); empty ones dropped. */
  sessions(
    rows: Iterable<Row<'session'>>,
    count: number,
    known: ReadonlySet<string>,
    d: StoredValues,
  ): [string, SessionSetting][] {
    const out: [string, SessionSetting][] = []
    let n = 0
    for (const row of rows) {
      if (n++ >= LIMITS.sessions && count > LIMITS.sessions) {
        this.#aside.overLimit('sessions', row.id, LIMITS.sessions, 'conversations')
        continue
      }
      const s = this.#aside.take('sessions', row.id, (): [string, SessionSetting] => {
        const key = sessionId(row.id, `sessions.${row.id}`)
        const f = `sessions.${row.id}`
        return [key, d.setting(sessionSetting(JSON.parse(row.data), f, known), f)]
      })
      if (s !== undefined && !isEmptySetting(s[1])) out.push(s)
    }
    return out
  }

  /** The revision of each undo copy's row (a row whose revision is not an integer is set aside). */
  undoRevisions(): Row<'undoRev'>[] {
    const rows = this.#conn.statement('SELECT profile_id, rev FROM memory_undo').all()
    return [...rowsSetAside('memory_undo', COLUMNS.undoRev, rows, this.#aside, byProfile)]
  }

  /** The undo copies from their rows, each checked alone (it must belong to a loaded profile). */
  undo(
    rows: readonly Row<'undo'>[],
    known: ReadonlySet<string>,
    d: StoredValues,
  ): Record<string, { memory: Memory; at: number }> {
    const out = bareRecord<{ memory: Memory; at: number }>()
    for (const row of rows) {
      if (!known.has(row.profile_id)) {
        this.#noProfile('memory_undo', row.profile_id, row.profile_id)
        continue
      }
      const entry = this.#aside.take('memory_undo', row.profile_id, () => {
        const f = `memory_undo.${row.profile_id}`
        return d.undo(undoEntry({ memory: JSON.parse(row.memory), at: row.at }, f), f)
      })
      if (entry !== undefined) out[row.profile_id] = entry
    }
    return out
  }

  /**
   * One owner's items, read from its rows when a reader first looks at them (see lazy-list.ts): the archive stays on
   * disk until recall, a command, the list, an export or a sync needs it. Checked then as at load.
   */
  lazyItems(owner: string, d: StoredValues): MemoryItem[] {
    // The list this replaces is gone from the state: so are the positions of its items (positions.ts `forget`).
    this.#positions.forget(owner)
    const what = `the memory items of "${owner}"`
    return lazyList({
      load: () => this.#live(what, (rows) => rows.items(owner, d).get(owner) ?? []),
      tally: () => this.#live(what, (rows) => rows.#tally(owner)),
      core: (want) => this.#live(what, (rows) => rows.#core(owner, want, d)),
      byIds: (ids) => this.#live(what, (rows) => rows.#byIds(owner, ids, d)),
      texts: () => this.#live(what, (rows) => rowTexts(rows.#conn, owner)),
      says: (want) => this.#live(what, (rows) => rowsSay(rows.#conn, owner, { ...want, indexed: rows.#keyed() })),
    })
  }

  /**
   * `read` run on the rows as the database holds them now: on this connection while it is open (its statements
   * prepared on it, so a list is never read through a connection that was closed or replaced), else on a read-only
   * connection opened for this read alone. A state stays readable after its store closed (a caller may have kept it),
   * and closing never reads the lists no one looked at; when the file cannot be read then, the error says what was not.
   */
  #live<T>(what: string, read: (rows: RowReader) => T): T {
    try {
      return this.#liveRead(what, read)
    } catch (e) {
      // A damaged page fails this read alone, said as such; the rest of the store reads on (damage.ts).
      if (!isDamage(e)) throw e
      this.#damaged?.(errorText(e))
      throw damagedRefusal(this.#conn.path, what, e)
    }
  }

  /** {@link #live}'s read itself. */
  #liveRead<T>(what: string, read: (rows: RowReader) => T): T {
    if (!this.#conn.closed) return read(this)
    let sql: DatabaseSync
    try {
      sql = new DatabaseSync(this.#conn.path, { readOnly: true, timeout: BUSY_TIMEOUT_MS })
    } catch (e) {
      throw new StoreError(
        'io',
        `${what} were not read before the profile store closed, and its database cannot be read now: ${errorText(e)}`,
      )
    }
    try {
      // Nothing more is written through this closed store: what these reads would set aside or place is dropped.
      const connection = new Connection(this.#conn.path, sql)
      return read(
        new RowReader({ connection, aside: new SetAside(), avatars: this.#avatars, positions: new Positions() }),
      )
    } finally {
      sql.close()
    }
  }

  /**
   * What an owner's rows hold by kind, without parsing them: its row of counts (item-counts.ts) once the database
   * has them, from the rows' text until then.
   */
  #tally(owner: string): ItemTally {
    const row = this.#ready()
      ? this.#counts(owner)
      : rowOf('memory_items', COLUMNS.tally, this.#conn.statement(TALLY_BY_TEXT).get(owner))
    const limit = owner === USER_OWNER ? LIMITS.userItems : LIMITS.memoryItems
    return { items: Math.min(row.items, limit), archived: row.archived, pending: row.pending }
  }

  /** An owner's row of counts (none: it has no items). */
  #counts(owner: string): Row<'counts'> {
    const row = this.#conn.statement(COUNTS_OF).get(owner)
    return row === undefined
      ? { items: 0, archived: 0, pending: 0, memory: 0 }
      : rowOf('memory_counts', COLUMNS.counts, row)
  }

  /**
   * The core of an owner's items for a render (see lazy-list.ts's MemoryCore), each checked as at load: the pinned
   * items, then the others newest first until what they take passes the budget; the count of
   * memory from the owner's row of counts. Undefined (the render reads the list whole, as it always could) until the
   * columns are filled, indexed and counted, or when the rows are more than the limit (the whole read drops the rows
   * past it).
   */
  #core(owner: string, want: CoreWant<MemoryItem>, d: StoredValues): MemoryCore<MemoryItem> | undefined {
    if (!this.#ready()) return undefined
    const counts = this.#counts(owner)
    if (counts.items > (owner === USER_OWNER ? LIMITS.userItems : LIMITS.memoryItems)) return undefined
    const items = [...this.#coreRows(owner, KIND.pinned, d)]
    let used = 0
    // Stepped a row at a time: the first that passes the budget is the last read, the rest of the profile never is.
    for (const taken of this.#coreRows(owner, 0, d)) {
      items.push(taken)
      used += want.size(taken.item)
      if (used > want.budget) break
    }
    return { items, total: counts.memory }
  }

  /** The owner's memory items of `kind`, newest first, as the statement is stepped, each checked as at load. */
  *#coreRows(owner: string, kind: number, d: StoredValues): Generator<{ item: MemoryItem; order: number }> {
    const rows = this.#conn.statement(NEWEST_SQL).iterate(owner, kind)
    for (const row of rowsSetAside(
      'memory_items',
      COLUMNS.itemAt,
      rows,
      this.#aside,
      (r) => `${owner}/${String(r.id)}`,
    )) {
      const item = this.#checked(owner, row, d)
      if (item !== undefined) yield { item, order: row.pos }
    }
  }

  /**
   * Whether the item columns are filled, indexed and counted (item-kinds.ts): once seen, for good. Asked again until
   * then: the fill ends while the store runs.
   */
  #ready(): boolean {
    this.#kinds ||= kindsReady((key) => this.#conn.meta(key))
    return this.#kinds
  }

  /** Whether every row has its text's key and the keys are indexed (text-keys.ts): once seen, for good. */
  #keyed(): boolean {
    this.#keys ||= textKeysReady((key) => this.#conn.meta(key))
    return this.#keys
  }

  /** The owner's items of these ids the rows hold, each checked as at load. */
  #byIds(owner: string, ids: readonly string[], d: StoredValues): MemoryItem[] {
    const rows = rowsSetAside(
      'memory_items',
      COLUMNS.itemData,
      this.#conn
        .statement('SELECT id, data FROM memory_items WHERE profile_id = ? AND id IN (SELECT value FROM json_each(?))')
        .all(owner, JSON.stringify(ids)),
      this.#aside,
      (r) => `${owner}/${String(r.id)}`,
    )
    return [...rows].map((row) => this.#checked(owner, row, d)).filter((it) => it !== undefined)
  }

  /** One item row of `owner`, checked as at load (set aside when it breaks this version's rules). */
  #checked(owner: string, row: Row<'itemData'>, d: StoredValues): MemoryItem | undefined {
    const key = `${owner}/${row.id}`
    return this.#aside.take('memory_items', key, () => d.item(memoryItem(JSON.parse(row.data), `memory_items.${key}`)))
  }

  /**
   * Every owner of item rows, one index seek each (never a scan of the rows): at load, the rows of an owner that is
   * no profile are set aside without reading anyone else's.
   */
  owners(): string[] {
    const next = this.#conn.statement(
      'SELECT profile_id FROM memory_items WHERE profile_id > ? ORDER BY profile_id LIMIT 1',
    )
    const out: string[] = []
    const owner = (after: string) => {
      const row = next.get(after)
      return row === undefined ? undefined : rowOf('memory_items', COLUMNS.owner, row).profile_id
    }
    for (let id = owner(''); id !== undefined; id = owner(id)) out.push(id)
    return out
  }

  /** The ids of an owner's item rows (to set aside the rows of an owner that is no profile). */
  itemIds(owner: string): string[] {
    return rowsOf(
      'memory_items',
      COLUMNS.key,
      this.#conn.statement('SELECT id FROM memory_items WHERE profile_id = ?').all(owner),
    ).map((r) => r.id)
  }

  /**
   * The memory history lists the rows hold (all, or those named), each oldest entry first and read from its rows when
   * first looked at when `lazy`; the lists in the order they were last written, as the state keeps them (the least
   * recently written conversation list goes first). Each entry is checked alone, and a list must belong to a
   * conversation, the user layer or a loaded profile (the rows of one that does not are set aside at once).
   */
  historyLists(
    known: ReadonlySet<string>,
    d: StoredValues,
    only?: ReadonlySet<string>,
    lazy = false,
  ): Record<string, MemoryWrite[]> {
    const lists = new Map<string, MemoryWrite[]>()
    for (const key of this.#history.keys()) {
      if (only !== undefined && !only.has(key)) continue
      if (!key.startsWith('s:') && key !== USER_HISTORY && !known.has(key)) {
        for (const r of rowsOf(
          'memory_history',
          COLUMNS.key,
          this.#conn.statement('SELECT id FROM memory_history WHERE list = ?').all(key),
        ))
          this.#noProfile('memory_history', `${key}/${r.id}`, key)
        continue
      }
      lists.set(
        key,
        lazy
          ? lazyList({
              load: () => this.#live(`the memory history "${key}"`, (rows) => rows.#history.list(key, d)),
              lastId: () => this.#live(`the memory history "${key}"`, (rows) => rows.#history.lastEntryId(key)),
              sizes: () => this.#live(`the memory history "${key}"`, (rows) => rows.#history.entrySizes(key)),
              byIds: (ids) => this.#live(`the memory history "${key}"`, (rows) => rows.#history.list(key, d, ids)),
            })
          : this.#history.list(key, d),
      )
    }
    for (const [key, list] of lists) if (!lazy && list.length === 0) lists.delete(key)
    return bareRecord(lists)
  }
}
