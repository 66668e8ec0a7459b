/**
 * Opening the store on a data file, every way the data can be found: none yet (the factory profiles, nothing
 * written until the first save, unless the caller asks the database made early on a worker thread), the files of the layout before the database (imported), a database of this
 * version, an older one (migrated), a newer one (read-only, or not at all), one whose rows are partly set aside, and
 * one SQLite cannot use (kept aside, its readable rows salvaged). Every way makes its store from the same options, so
 * none drops what the caller asked. It never runs a command; the store it makes does.
 */
import { existsSync, statSync } from 'node:fs'
import { basename, resolve } from 'node:path'
import { factoryState } from '../state/defaults.ts'
import { errorText } from '../shared/errors.ts'
import type { LoadWhy } from '../shared/reasons.ts'
import { AvatarFiles } from './db/avatars.ts'
import type { Database } from './db/database.ts'
import { layoutOf } from './db/layout.ts'
import type { Loaded } from './db/load.ts'
import { hasLegacyFiles, migrate, retireLegacyFiles } from './db/migrate.ts'
import { notOurs, openDatabase, quarantine } from './db/open.ts'
import { readSurvivors, salvageInto } from './db/salvage.ts'
import { Store, type StoreParts } from './live-store.ts'
import { EarlyCreate } from './early-create.ts'
import { sqliteCode } from './db/connection.ts'
import type { ProfileStore, StoreOptions } from './store.ts'
import { storedValuesAt } from './stored-values.ts'
import { DatabaseProblem } from './db/errors.ts'

const silent = { warn() {}, error() {} }

/** A home with no data yet: the factory profiles, and the database made early on a worker thread when `early`. */
function freshHome(made: Omit<StoreParts, 'loaded'>, early: boolean, now: number): Store {
  const creating = early ? new EarlyCreate(made.layout.file, made.log) : undefined
  return new Store({ ...made, early: creating, loaded: { state: factoryState(now), revision: 0 } })
}

/**
 * Open the store on `options.file`. Never throws: no database yet starts on the factory profiles (or on the data of
 * the layout before the database, imported now); a database of an older schema is migrated; one of a newer schema is
 * opened read-only (or, when this version cannot read it, not at all); rows this version's rules refuse are set
 * aside one by one; only a database SQLite cannot use is kept aside, reported through `lastError`.
 */
export async function openStore(options: StoreOptions): Promise<ProfileStore> {
  const log = options?.log ?? silent
  const file = typeof options?.file === 'string' ? options.file.trim() : ''
  const layout = layoutOf(resolve(file || 'profiles.sqlite'))
  const avatars = new AvatarFiles(layout.avatarDir)
  const now = Date.now()
  const made = { layout, avatars, log, recordHistory: options.recordHistory !== false }
  /** A store on the factory profiles that saves nothing: `reason` for the log, `why` for the page. */
  const offline = (reason: string, why: LoadWhy) => {
    const message = `${reason}; started on the factory profiles and nothing is saved until the plugin restarts`
    const problem = { message, why: { ...why, outcome: 'factory-unsaved' } } as const
    const loaded = { state: factoryState(now), revision: 0, problem, blocked: message }
    return new Store({ ...made, loaded, offline: {} })
  }
  if (file === '') return offline('no data file was configured', { key: 'no-data-file' })
  let db: Database | undefined
  try {
    let migrated: Loaded | undefined
    if (!existsSync(layout.file)) {
      if (!hasLegacyFiles(layout)) return freshHome(made, options.createEarly === true, now).retermInBackground(options)
      migrated = await migrate(layout, avatars, now, storedValuesAt)
      if (migrated.blocked !== undefined) return new Store({ ...made, loaded: migrated })
    }
    if (!statSync(layout.file).isFile()) throw notOurs(layout.file, 'could not be read (it is not a file)')
    db = openDatabase({ layout, avatars, create: false, log: (m) => log.warn(m) })
    let loaded: Loaded = loadChecked(db, now, layout.file) ?? { state: factoryState(now), revision: 0 }
    if (loaded.state.profiles.length === 0) {
      // Every profile row is set aside: they stay as they are, and nothing is written beside them.
      const message =
        'no profile in the database can be read by this version of the plugin (see the rows set aside); started on the factory profiles and nothing is saved'
      const problem = { message, why: { key: 'no-readable-profile' } } as const
      loaded = { state: factoryState(now), revision: loaded.revision, problem, blocked: message }
    }
    if (db.readOnly?.kind === 'newer')
      loaded = { ...loaded, problem: { message: db.readOnly.message, why: { key: 'newer' } } }
    // What the import found wrong with the old files (an unreadable avatar, a damaged snapshot kept aside) is reported.
    if (migrated?.problem !== undefined) loaded = { ...loaded, problem: migrated.problem }
    // A crash between the import and renaming the old files leaves them: rename them now.
    if (db.readOnly === undefined && db.metaValue('migratedFrom') !== undefined && hasLegacyFiles(layout))
      retireLegacyFiles(layout, now)
    return new Store({ ...made, db, loaded }).checkInBackground().retermInBackground(options)
  } catch (e) {
    db?.close()
    if (!(e instanceof DatabaseProblem))
      return offline(`the data could not be loaded (${errorText(e)})`, { key: 'unloadable', detail: errorText(e) })
    if (e.newer) {
      // Never moved, never beside a fresh database: this process runs without the user's data and says why.
      const message = `${e.message}; running without it (the factory profiles are shown, nothing is saved)`
      const loaded = { state: factoryState(now), revision: 0, problem: { message, why: e.why }, blocked: message }
      return new Store({
        ...made,
        loaded,
        offline: { readOnly: { kind: 'newer', message: e.message, unreadable: true } },
      })
    }
    if (!e.damaged) return offline(e.message, e.why)
    // Read before it moves: in place, its -wal is still beside it and read with it.
    const survivors = readSurvivors(layout.file)
    const kept = quarantine(layout, now)
    if (kept === undefined) {
      const message = `${e.message}; started on the factory profiles; the database could not be moved aside, so nothing is saved until it is fixed or removed`
      const problem = { message, why: { ...e.why, outcome: 'stuck' } } as const
      return new Store({
        ...made,
        loaded: { state: factoryState(now), revision: 0, problem, blocked: message },
      })
    }
    if (survivors !== undefined && survivors.saved > 0) {
      const salvaged = salvageInto(
        { layout, avatars, survivors, keptAs: kept, warn: (m) => log.warn(m) },
        storedValuesAt,
      )
      if (salvaged !== undefined) {
        const { salvage } = salvaged
        const lost = `${salvage.lost}${salvage.lostUncounted === true ? ' or more' : ''} lost`
        const message = `${e.message}; the database was kept as ${basename(kept)}, and ${salvage.saved} rows that could still be read were copied into a new one (${lost})`
        const why = { ...e.why, outcome: 'salvaged' } as const
        salvaged.loaded = { ...salvaged.loaded, problem: { message, why, keptAs: kept }, salvage }
        return new Store({ ...made, db: salvaged.db, loaded: salvaged.loaded })
      }
    }
    const message = `${e.message}; started on the factory profiles; the database was kept as ${basename(kept)}`
    const problem = { message, why: { ...e.why, outcome: 'factory-kept' }, keptAs: kept } as const
    return new Store({ ...made, loaded: { state: factoryState(now), revision: 0, problem } })
  }
}

/** SQLite's result codes for a file whose pages cannot be read as a database. */
const DAMAGED_CODES = new Set([11, 26])

/**
 * The database's state, loaded; a page SQLite cannot read on the way is damage, as the full check at open said before
 * it moved to the background: the file is kept aside and its readable rows salvaged, never started on as empty.
 */
function loadChecked(db: Database, now: number, path: string): Loaded | undefined {
  try {
    return db.loadAll(now, storedValuesAt)
  } catch (e) {
    if (!DAMAGED_CODES.has(sqliteCode(e) ?? -1)) throw e
    const file = basename(path)
    const detail = errorText(e)
    throw new DatabaseProblem(
      `${file} failed its integrity check (${detail})`,
      { key: 'damaged', params: { file }, detail },
      true,
    )
  }
}
