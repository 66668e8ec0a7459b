/**
 * Reading rows into the state, each row checked alone by this version's rules: a row that breaks them is set aside
 * (set-aside.ts) and every other row still reads. The full load (load.ts) and the reload of what other processes
 * wrote (reload.ts) are both made of these reads. It never writes a row and never decides which rows to read.
 */
import {
  HISTORY_LIMITS,
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
  memoryWrite,
  profile as checkedProfile,
  sessionId,
  sessionSetting,
  undoEntry,
} from '../../validate/state.ts'
import { itemOf, profileOf, settingOf, undoOf, writeOf, type Provenance } from '../../commands/provenance.ts'
import { AVATAR_FILE, type AvatarFiles } from './avatars.ts'
import type { Connection } from './connection.ts'
import { USER_OWNER, type ItemRow, type ProfileRow, type SessionRow, type UndoRow } from './rows.ts'
import type { SetAside } from './set-aside.ts'

/** What the reads need: the connection, the list of rows set aside, and the avatar files profiles are read with. */
export interface RowReaderParts {
  connection: Connection
  aside: SetAside
  avatars: AvatarFiles
}

/** The checked reads of one database's rows. */
export class RowReader {
  readonly #conn: Connection
  readonly #aside: SetAside
  readonly #avatars: AvatarFiles

  constructor(parts: RowReaderParts) {
    this.#conn = parts.connection
    this.#aside = parts.aside
    this.#avatars = parts.avatars
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
  items(owner: string | undefined, d: Provenance): Map<string, MemoryItem[]> {
    const rows =
      owner === undefined
        ? (this.#conn
            .statement('SELECT profile_id, id, data FROM memory_items ORDER BY profile_id, pos')
            .all() as unknown as ItemRow[])
        : (this.#conn
            .statement('SELECT profile_id, id, data FROM memory_items WHERE profile_id = ? ORDER BY pos')
            .all(owner) as unknown as ItemRow[])
    if (owner !== undefined) this.#aside.forgetPrefix('memory_items', `${owner}/`)
    const out = new Map<string, MemoryItem[]>()
    for (const row of rows) {
      const list = out.get(row.profile_id) ?? []
      out.set(row.profile_id, list)
      const key = `${row.profile_id}/${row.id}`
      const limit = row.profile_id === USER_OWNER ? LIMITS.userItems : LIMITS.memoryItems
      if (list.length >= limit) {
        this.#aside.overLimit('memory_items', key, limit, 'items')
        continue
      }
      const item = this.#aside.take('memory_items', key, () =>
        itemOf(memoryItem(JSON.parse(row.data), `memory_items.${key}`), d),
      )
      if (item !== undefined) list.push(item)
    }
    return out
  }

  /**
   * A profile from its row and its (checked) items, its avatar read from its file ('' and listed in `unreadable` if
   * it cannot be); undefined, and set aside, when the row breaks this version's rules. An avatar file name that is
   * not one is mended in memory (no avatar) and listed.
   */
  profile(row: ProfileRow, items: MemoryItem[], unreadable: string[], d: Provenance): Profile | undefined {
    let avatarFile: unknown
    const p = this.#aside.take('profiles', row.id, () => {
      const data: unknown = JSON.parse(row.data)
      if (!isRecord(data)) throw invalid(`profiles.${row.id}`, 'is not an object')
      const { avatarFile: file, memory, ...fields } = data
      avatarFile = file
      const summary = isRecord(memory) ? memory.summary : undefined
      const f = `profiles.${row.id}`
      const out = profileOf(checkedProfile({ ...fields, avatar: '', memory: { summary } }, f), f, d)
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
    rows: Iterable<SessionRow>,
    count: number,
    known: ReadonlySet<string>,
    d: Provenance,
  ): [string, SessionSetting][] {
    const out: [string, SessionSetting][] = []
    let n = 0
    for (const row of rows) {
      if (n++ >= LIMITS.sessions && count > LIMITS.sessions) {
        this.#aside.overLimit('sessions', row.id, LIMITS.sessions, 'conversations')
        continue
      }
      const s = this.#aside.take('sessions', row.id, () => {
        const key = sessionId(row.id, `sessions.${row.id}`)
        const f = `sessions.${row.id}`
        return [key, settingOf(sessionSetting(JSON.parse(row.data), f, known), f, d)] as [string, SessionSetting]
      })
      if (s !== undefined && !isEmptySetting(s[1])) out.push(s)
    }
    return out
  }

  /** The undo copies from their rows, each checked alone (it must belong to a loaded profile). */
  undo(
    rows: readonly UndoRow[],
    known: ReadonlySet<string>,
    d: Provenance,
  ): Record<string, { memory: Memory; at: number }> {
    const out = bareRecord<{ memory: Memory; at: number }>()
    for (const row of rows) {
      if (!known.has(row.profile_id)) {
        this.#noProfile('memory_undo', row.profile_id, row.profile_id)
        continue
      }
      const entry = this.#aside.take('memory_undo', row.profile_id, () => {
        const f = `memory_undo.${row.profile_id}`
        return undoOf(undoEntry({ memory: JSON.parse(row.memory), at: row.at }, f), f, d)
      })
      if (entry !== undefined) out[row.profile_id] = entry
    }
    return out
  }

  /**
   * The memory history lists the rows hold (all, or those named), each oldest entry first; the lists in the order
   * they were last written, as the state keeps them (the least recently written conversation list goes first). Each
   * entry is checked alone, and a list must belong to a conversation, the user layer or a loaded profile.
   */
  historyLists(known: ReadonlySet<string>, d: Provenance, only?: ReadonlySet<string>): Record<string, MemoryWrite[]> {
    const lists = new Map<string, MemoryWrite[]>()
    for (const row of this.#conn
      .statement('SELECT list, id, data FROM memory_history ORDER BY pos')
      .all() as unknown as { list: string; id: string; data: string }[]) {
      if (only !== undefined && !only.has(row.list)) continue
      const list = lists.get(row.list) ?? []
      lists.delete(row.list)
      lists.set(row.list, list)
      const key = `${row.list}/${row.id}`
      if (list.length >= HISTORY_LIMITS.entries) {
        this.#aside.overLimit('memory_history', key, HISTORY_LIMITS.entries, 'entries')
        continue
      }
      if (!row.list.startsWith('s:') && row.list !== USER_HISTORY && !known.has(row.list)) {
        this.#noProfile('memory_history', key, row.list)
        continue
      }
      const entry = this.#aside.take('memory_history', key, () => {
        const f = `memory_history.${key}`
        if (row.list.startsWith('s:')) sessionId(row.list.slice(2), f)
        return writeOf(memoryWrite(JSON.parse(row.data), f), f, d)
      })
      if (entry !== undefined) list.push(entry)
    }
    for (const [key, list] of lists) if (list.length === 0) lists.delete(key)
    return bareRecord(lists)
  }
}
