/**
 * The past dsh conversations learning runs learned (`learn-past.txt` beside the data), so a later run leaves them out,
 * and each with the run that learned it, so undoing that run offers them again. One line a conversation,
 * `<run id><TAB><session id>`, appended and flushed as each is learned; a line of a session id alone (the list as
 * it was kept before runs were named) still counts as learned and belongs to no run. A crash mid-append leaves at
 * most a torn last line, which names no session (that one conversation is offered again, nothing else changes).
 * Dropping a run's lines writes the rest whole to a temporary name renamed over the list, so a crash leaves the old
 * list or the new one. Reading is bounded by a size cap. It lives with the store, the one room that touches the
 * data's files; it never decides what is learned (lib/learn/run/runner.ts does) and never writes the memory.
 */
import { open, readFile, stat } from 'node:fs/promises'
import { dirname } from 'node:path'
import { FILE_MODE, makePrivateDir } from './db/private-files.ts'
import { writeWhole } from './learn-run-file.ts'
import { KeyedQueue } from '../shared/keyed-queue.ts'

/**
 * Bytes of the list at most: a run id, a session id and the line's tab and end are under 140 bytes, so this holds
 * over 100,000 conversations; a longer file (not ours) reads as nothing learned.
 */
const LEARNED_BYTES = 16 * 1024 * 1024

/** One line of the list: the session it names, and the run that learned it (none on a line of the older list). */
function lineOf(line: string): { run?: string; session: string } {
  const tab = line.indexOf('\t')
  return tab < 0 ? { session: line } : { run: line.slice(0, tab), session: line.slice(tab + 1) }
}

/** The list's lines (a torn last one too); none for no file or one over the cap. */
async function linesOf(path: string): Promise<string[]> {
  try {
    if ((await stat(path)).size > LEARNED_BYTES) return []
    return (await readFile(path, 'utf8')).split('\n').filter((line) => line !== '')
  } catch {
    return []
  }
}

/**
 * Changes to one list, one after another in this process: a run's lines dropped (read, then the rest written over
 * the list) while a run appends would otherwise lose the line appended in between.
 */
const changes = new KeyedQueue()

/** The past conversations (session ids) runs learned; none for no file or one over the cap. */
export async function readLearned(path: string): Promise<Set<string>> {
  return new Set((await linesOf(path)).map((line) => lineOf(line).session))
}

/** Add `sessionId`, learned by the run `runId`, to the list, flushed to disk before this returns. */
export function addLearned(path: string, sessionId: string, runId: string): Promise<void> {
  return changes.run(path, async () => {
    makePrivateDir(dirname(path))
    const file = await open(path, 'a', FILE_MODE)
    try {
      await file.appendFile(`${runId}\t${sessionId}\n`)
      await file.sync()
    } finally {
      await file.close()
    }
  })
}

/**
 * Take the conversations the run `runId` learned off the list, so they are offered again (the run was undone); the
 * rest stay. Nothing is written when the run learned none. Answers how many were taken.
 */
export function dropLearned(path: string, runId: string): Promise<number> {
  return changes.run(path, async () => {
    const lines = await linesOf(path)
    const kept = lines.filter((line) => lineOf(line).run !== runId)
    if (kept.length === lines.length) return 0
    await writeWhole(path, kept.map((line) => `${line}\n`).join(''))
    return lines.length - kept.length
  })
}
