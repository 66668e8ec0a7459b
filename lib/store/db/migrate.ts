/**
 * The move from the files of the layout before the database (a JSON snapshot `<stem>.json`, its write-ahead log
 * `<stem>.wal`, the turn ledger `<stem>.turns.jsonl`, the writer lock `<stem>.lock`) into the database, on the first
 * start that finds them and no database. Owns reading those files exactly as that code did (the log's line format and
 * its replay, the ledger's lines) and the import itself; it never writes them, and after a successful import renames
 * them to `<name>.migrated-<ts>` so that nothing reads them again.
 *
 * The import is all or nothing: the database is built under a temporary name in one transaction and renamed into
 * place only once it is durable, and the old files are renamed only after that. A failure removes the temporary
 * database and leaves every old file as it was; the store then shows the old data and saves nothing, saying why.
 */
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, renameSync, unlinkSync } from 'node:fs'
import { hostname } from 'node:os'
import { basename } from 'node:path'
import * as z from 'zod'
import type { Profile, State } from '../../state/model.ts'
import { factoryState } from '../../state/defaults.ts'
import { AVATAR_FILE, syncDir, type AvatarFiles } from './avatars.ts'
import { keepAside } from './copies.ts'
import type { Layout } from './layout.ts'
import type { Turn } from './ledger.ts'
import { avatarsProblem, type Loaded } from './load.ts'
import { openDatabase } from './open.ts'
import type { StoredValues, StoredValuesAt } from './stored-values.ts'
import { EMPTY } from './rows.ts'
import { invalid, isRecord, state as validState } from '../../validate/state.ts'
import { errorText } from '../../shared/errors.ts'
import { StoreError } from '../../shared/errors.ts'

/** Whether the files of the layout before the database are there to import. */
export function hasLegacyFiles(layout: Layout): boolean {
  return existsSync(layout.legacy.file) || existsSync(layout.legacy.walFile) || existsSync(layout.legacy.ledgerFile)
}

/** What the old files held: the state (or why it could not be used) and the turns. */
interface Legacy extends Loaded {
  turns: Turn[]
  /** The old files that were damaged, to keep aside as `.bad-<ts>` rather than `.migrated-<ts>`. */
  bad: string[]
}

/**
 * Import the old files into a new database at `layout.file`. Returns what the store starts from: the imported state,
 * or the factory profiles when the old snapshot was unusable (kept aside, as that code did), or the old state with
 * `blocked` when the import failed (nothing on disk changed).
 */
export async function migrate(
  layout: Layout,
  avatars: AvatarFiles,
  now: number,
  values: StoredValuesAt,
): Promise<Loaded> {
  const holder = liveLockHolder(layout.legacy.lockFile)
  const legacy = readLegacy(layout, avatars, now, values)
  if (holder !== undefined) {
    const blocked = `an older version of this plugin (process ${holder}) still saves this data in the old format; it is shown as it is and nothing is saved until that process ends and this one restarts`
    const why = { key: 'old-process', params: { pid: holder } } as const
    return { state: legacy.state, revision: legacy.revision, problem: { message: blocked, why }, blocked }
  }
  const temp = `${layout.file}.migrating`
  try {
    for (const f of [temp, `${temp}-wal`, `${temp}-shm`]) if (existsSync(f)) unlinkSync(f)
    await avatars.ensure(legacy.state, new Set(legacy.state.profiles.map((p) => p.id)))
    const db = openDatabase({ layout: { ...layout, file: temp }, avatars, create: true })
    try {
      db.begin()
      const avatarFile = (p: Profile) => (p.avatar === '' ? undefined : avatars.infoOf(p).file)
      db.write({ prev: EMPTY, next: legacy.state, revision: legacy.revision, turns: legacy.turns, avatarFile })
      db.setMetaValue('migratedFrom', basename(layout.legacy.file))
      db.setMetaValue('migratedAt', now)
      db.commit()
    } finally {
      db.close()
    }
    renameSync(temp, layout.file)
    await syncDir(layout.dir)
  } catch (e) {
    for (const f of [temp, `${temp}-wal`, `${temp}-shm`]) {
      try {
        unlinkSync(f)
      } catch {
        // Never created: nothing to remove.
      }
    }
    const blocked = `the data could not be moved into the database (${errorText(e)}); nothing on disk was changed; it is shown as it is and nothing is saved until the plugin restarts`
    const why = { key: 'import-failed', detail: errorText(e) } as const
    return { state: legacy.state, revision: legacy.revision, problem: { message: blocked, why }, blocked }
  }
  const kept = retireLegacyFiles(layout, now, legacy.bad)
  const { state, revision, problem } = legacy
  if (problem === undefined) return { state, revision }
  if (legacy.bad.length === 0) return { state, revision, problem }
  const names = legacy.bad.map((f) => kept.get(f)).filter((f) => f !== undefined)
  const message = `${problem.message}; started on the factory profiles; the file was kept as ${names.map((f) => basename(f)).join(' and ')}`
  const why = { ...problem.why, outcome: 'factory-kept' } as const
  return { state, revision, problem: names.length > 0 ? { message, why, keptAs: names[0]! } : { message, why } }
}

/**
 * Rename the old files aside once their data is in the database (a crash right after the import leaves them for the
 * next start, which finds the database and comes here again). Damaged ones are kept as `.bad-<ts>`.
 */
export function retireLegacyFiles(layout: Layout, now: number, bad: readonly string[] = []): Map<string, string> {
  const { file, walFile, ledgerFile, lockFile } = layout.legacy
  const kept = new Map<string, string>()
  for (const f of [file, walFile, ledgerFile]) {
    const target = existsSync(f) ? keepAside(f, bad.includes(f) ? 'bad' : 'migrated', now) : undefined
    if (target !== undefined) kept.set(f, target)
  }
  try {
    unlinkSync(lockFile)
  } catch {
    // No lock was left: nothing to remove.
  }
  return kept
}

/** What the old writer lock said: the holder's process id and host name. */
const OldLock = z.object({ pid: z.number(), host: z.string() })

/** The pid of a live process on this host holding the old writer lock, if any. */
function liveLockHolder(lockFile: string): number | undefined {
  try {
    const h = OldLock.safeParse(JSON.parse(readFileSync(lockFile, 'utf8'))).data
    if (h === undefined || h.host !== hostname() || h.pid === process.pid) return undefined
    process.kill(h.pid, 0)
    return h.pid
  } catch {
    return undefined
  }
}

function readLegacy(layout: Layout, avatars: AvatarFiles, now: number, values: StoredValuesAt): Legacy {
  const turns = readLedger(layout.legacy.ledgerFile)
  const { file, walFile } = layout.legacy
  /** The old files cannot be used: `reason` for the log, the file at fault and the OS's or parser's own text. */
  const unusable = (reason: string, at: string, detail?: string): Legacy => {
    const bad = [file, walFile].filter((f) => existsSync(f))
    const why = {
      key: 'old-file-damaged',
      params: { file: basename(at) },
      ...(detail === undefined ? {} : { detail }),
    } as const
    return { state: factoryState(now), revision: 0, problem: { message: reason, why }, turns, bad }
  }
  let raw: string
  try {
    raw = readFileSync(file, 'utf8')
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT')
      return unusable(`${basename(file)} could not be read (${errorText(e)})`, file, errorText(e))
    if (existsSync(walFile)) return unusable(`${basename(walFile)} has no ${basename(file)} to apply to`, walFile)
    return { state: factoryState(now), revision: 0, turns, bad: [] }
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch (e) {
    return unusable(`${basename(file)} is not valid JSON (${errorText(e)})`, file, errorText(e))
  }
  let log: Change[]
  try {
    log = readLog(walFile)
  } catch (e) {
    // Damage is said in this plugin's own English (the log has it); a read failure in the OS's words.
    if (e instanceof LogDamage) return unusable(`${basename(walFile)} is damaged (${e.message})`, walFile)
    return unusable(`${basename(walFile)} could not be read (${errorText(e)})`, walFile, errorText(e))
  }
  try {
    if (isRecord(parsed)) {
      for (const change of log) {
        if (typeof parsed.revision === 'number' && change.r <= parsed.revision) continue
        replay(parsed, change)
        parsed.revision = change.r
      }
    }
    const { state, revision, unreadable } = fromSnapshot(parsed, avatars, values(now))
    if (unreadable.length === 0) return { state, revision, turns, bad: [] }
    return { state, revision, problem: avatarsProblem(unreadable), turns, bad: [] }
  } catch (e) {
    if (!(e instanceof StoreError)) throw e
    // The refusal is this plugin's own English: the log has it, the page says the file is damaged.
    return unusable(`${basename(file)} does not hold valid data (${e.message})`, file)
  }
}

/** The snapshot (stored form, avatars as `avatarFile`) as a validated state. */
function fromSnapshot(
  parsed: unknown,
  avatars: AvatarFiles,
  stored: StoredValues,
): { state: State; revision: number; unreadable: string[] } {
  if (!isRecord(parsed)) throw invalid('data', 'is not an object')
  const { revision = 0, profiles, ...rest } = parsed
  if (typeof revision !== 'number' || !Number.isSafeInteger(revision) || revision < 0)
    throw invalid('data.revision', 'must be a non-negative integer')
  if (!Array.isArray(profiles)) throw invalid('data.profiles', 'must be an array')
  const unreadable: string[] = []
  const resolved = profiles.map((p, i) => {
    if (!isRecord(p) || p.avatarFile === undefined) return p
    const { avatarFile, ...fields } = p
    if (typeof avatarFile !== 'string' || !AVATAR_FILE.test(avatarFile))
      throw invalid(`data.profiles[${i}].avatarFile`, 'is not an avatar file name')
    const dataUrl = avatars.read(avatarFile)
    if (dataUrl === undefined) unreadable.push(avatarFile)
    return { ...fields, avatar: dataUrl ?? '' }
  })
  const state = stored.state(validState({ ...rest, profiles: resolved }, 'data'), 'data')
  return { state, revision, unreadable }
}

/** The turn ledger's entries, later lines winning; a torn or foreign line is skipped, as that code did. */
/** One line of the old turn ledger: the session, the turn's number and the profile that answered it. */
const OldTurn = z.object({ s: z.string(), t: z.int(), p: z.string() })

function readLedger(path: string): Turn[] {
  let text = ''
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    return []
  }
  const turns = new Map<string, Turn>()
  for (const line of text.split('\n')) {
    if (line === '') continue
    try {
      const read = OldTurn.safeParse(JSON.parse(line))
      if (!read.success) continue
      const { s, t, p } = read.data
      turns.set(`${t} ${s}`, { sessionId: s, turn: t, profileId: p })
    } catch {
      // A torn last line: it was never acknowledged.
    }
  }
  return [...turns.values()]
}

/** What one committed batch of the old log changed, in stored form. Absent fields did not change. */
const ChangeSchema = z.object({
  /** The revision it made. */
  r: z.int(),
  /** activeId. */
  a: z.string().optional(),
  /** Profile ids in order, when the list's membership or order changed. */
  o: z.array(z.string()).optional(),
  /** Profiles that are new or changed, by id. */
  p: z.record(z.string(), z.unknown()).optional(),
  /** Conversation settings that are new or changed, by session id; null = removed. */
  s: z.record(z.string(), z.unknown()).optional(),
  /** Session ids in order, when replaying `s` would not give the new order by itself. */
  so: z.array(z.string()).optional(),
  /** memoryUndo, null when it went away. */
  u: z.unknown().optional(),
})
type Change = z.output<typeof ChangeSchema>

class LogDamage extends Error {}

const checksum = (payload: string) => createHash('sha256').update(payload).digest('hex').slice(0, 16)

/**
 * The old log's complete lines (`<16 hex of SHA-256 of the payload> <payload JSON>`). A bad last line is torn (it was
 * never acknowledged) and skipped; a bad line anywhere else means the log cannot be trusted.
 */
function readLog(path: string): Change[] {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw e
  }
  const pieces = text.split('\n')
  if (pieces.at(-1) === '') pieces.pop()
  const changes: Change[] = []
  for (const [i, piece] of pieces.entries()) {
    const c = decodeLine(piece)
    if (c === undefined || (changes.length > 0 && c.r <= changes.at(-1)!.r)) {
      if (i < pieces.length - 1) throw new LogDamage(`line ${i + 1} of ${pieces.length} is damaged`)
      break
    }
    changes.push(c)
  }
  return changes
}

function decodeLine(line: string): Change | undefined {
  if (line.length < 18 || line[16] !== ' ') return undefined
  const payload = line.slice(17)
  if (checksum(payload) !== line.slice(0, 16)) return undefined
  try {
    return ChangeSchema.safeParse(JSON.parse(payload)).data
  } catch {
    return undefined
  }
}

function replaySessions(
  base: Record<string, unknown>,
  s: Record<string, unknown>,
  order?: unknown,
): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(base)) {
    if (!Object.hasOwn(s, key)) out[key] = value
    else if (s[key] !== null) out[key] = s[key]
  }
  for (const [key, value] of Object.entries(s)) if (value !== null && !Object.hasOwn(base, key)) out[key] = value
  if (order === undefined) return out
  if (!Array.isArray(order) || order.length !== Object.keys(out).length)
    throw invalid('log.so', 'does not match the conversations')
  return Object.fromEntries(
    order.map((key) => {
      if (typeof key !== 'string' || !Object.hasOwn(out, key))
        throw invalid('log.so', 'names a conversation that is not there')
      return [key, out[key]]
    }),
  )
}

/** Replay one change onto a parsed snapshot, in place. Throws StoreError when it does not fit. */
function replay(data: Record<string, unknown>, c: Change): void {
  if (c.a !== undefined) data.activeId = c.a
  if (c.p !== undefined || c.o !== undefined) {
    if (!Array.isArray(data.profiles)) throw invalid('data.profiles', 'must be an array')
    const current = new Map(data.profiles.map((p) => [isRecord(p) ? p.id : undefined, p]))
    const order = c.o ?? [...current.keys()]
    if (!Array.isArray(order)) throw invalid('log.o', 'must be an array')
    const p = isRecord(c.p) ? c.p : {}
    data.profiles = order.map((id) => {
      const profile = typeof id === 'string' && Object.hasOwn(p, id) ? p[id] : current.get(id)
      if (profile === undefined) throw invalid('log.o', `names a profile that is not there (${String(id)})`)
      return profile
    })
  }
  if (c.s !== undefined || c.so !== undefined) {
    const sessions = isRecord(data.sessions) ? data.sessions : {}
    data.sessions = replaySessions(sessions, isRecord(c.s) ? c.s : {}, c.so)
  }
  if (c.u === null) delete data.memoryUndo
  else if (c.u !== undefined) data.memoryUndo = c.u
}
