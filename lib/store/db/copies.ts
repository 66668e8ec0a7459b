/**
 * Files kept beside the database: names stamped with the time, moving a file aside without ever overwriting one,
 * whole copies of a live database (`VACUUM INTO`, taken under a temporary name and renamed once complete, so a copy
 * interrupted by a crash is never taken for a whole one), and keeping only the newest copies of one kind. It never
 * decides when a copy is taken (schema.ts and the store do) and never reads the state.
 */
import { existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import type { DatabaseSync } from './sqlite.ts'
import { privateFile } from './private-files.ts'

/** A timestamp for names of files kept aside: `2025-01-02T03-04-05-678Z`. */
export function stamp(now: number): string {
  return new Date(now).toISOString().replace(/[:.]/g, '-')
}

/** The stamp pattern, as names carry it. */
const STAMP = String.raw`\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z(?:-\d+)?`

/** A name `<file>.<tag>-<timestamp>` that no file has yet (a second one at the same instant gets `-2`…). */
function freeName(file: string, tag: string, now: number): string | undefined {
  for (let n = 1; n < 100; n++) {
    const target = `${file}.${tag}-${stamp(now)}${n === 1 ? '' : `-${n}`}`
    if (!existsSync(target)) return target
  }
  return undefined
}

/** Rename `file` to `<file>.<tag>-<timestamp>` (never onto an existing file); undefined when it cannot move. */
export function keepAside(file: string, tag: string, now: number): string | undefined {
  const target = freeName(file, tag, now)
  if (target === undefined) return undefined
  try {
    renameSync(file, target)
    return target
  } catch {
    return undefined
  }
}

/**
 * Copy the database `db` has open to `<file>.<tag>-<timestamp>` with `VACUUM INTO` (a consistent snapshot of what is
 * committed, WAL included, compacted) and return the copy's path. Written as `<name>.partial` and renamed when
 * complete, so a process killed meanwhile leaves only a `.partial` file, which {@link pruneCopies} removes. Throws
 * when the copy cannot be made (a full disk); nothing is left behind then.
 */
export function copyDatabase(db: DatabaseSync, file: string, tag: string, now: number): string {
  const target = freeName(file, tag, now)
  if (target === undefined) throw new Error(`no free name for a copy of ${basename(file)}`)
  const partial = `${target}.partial`
  try {
    db.prepare('VACUUM INTO ?').run(partial)
    privateFile(partial)
    renameSync(partial, target)
    return target
  } catch (e) {
    rmSync(partial, { force: true })
    throw e
  }
}

/** The copies `<file>.<tag>-<timestamp>` beside `file`, oldest first. */
function copiesOf(file: string, tag: RegExp | string): string[] {
  const name = basename(file)
  const tagPattern = typeof tag === 'string' ? tag.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : tag.source
  const pattern = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.(?:${tagPattern})-(${STAMP})$`)
  let names: string[]
  try {
    names = readdirSync(dirname(file))
  } catch {
    return []
  }
  return names
    .map((n) => ({ n, at: pattern.exec(n)?.[1] }))
    .filter((x): x is { n: string; at: string } => x.at !== undefined)
    .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.n < b.n ? -1 : 1))
    .map((x) => join(dirname(file), x.n))
}

/** A `.partial` copy older than this was left by a process that died (a copy takes seconds at most). */
const PARTIAL_STALE_MS = 10 * 60_000

/** Remove all but the newest `keep` copies of `tag`, and the `.partial` copies a crash left; never throws. */
export function pruneCopies(file: string, tag: RegExp | string, keep: number): void {
  const old = copiesOf(file, tag)
  for (const f of old.slice(0, Math.max(0, old.length - keep))) rmSync(f, { force: true })
  const name = basename(file)
  let names: string[] = []
  try {
    names = readdirSync(dirname(file))
  } catch {
    return
  }
  for (const n of names) {
    if (!n.startsWith(`${name}.`) || !n.endsWith('.partial')) continue
    const path = join(dirname(file), n)
    // Another process may be writing a copy right now: only one long abandoned goes.
    try {
      if (Date.now() - statSync(path).mtimeMs > PARTIAL_STALE_MS) rmSync(path, { force: true })
    } catch {
      // Gone meanwhile.
    }
  }
}
