/**
 * Files kept beside the database: names stamped with the time, and moving a file aside without ever overwriting one.
 * It never decides when a file is kept aside (the store's open does) and never reads the state.
 */
import { existsSync, renameSync } from 'node:fs'

/** A timestamp for names of files kept aside: `2025-01-02T03-04-05-678Z`. */
export function stamp(now: number): string {
  return new Date(now).toISOString().replace(/[:.]/g, '-')
}

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
