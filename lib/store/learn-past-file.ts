/**
 * The past dsh conversations learning runs learned (`learn-past.txt` beside the data), so a later run leaves them out,
 * and each with the run that learned it, so undoing that run offers them again. One line a conversation,
 * `<run id><TAB><session id>`, appended and flushed as each is learned; a line of a session id alone (the list as
 * it was kept before runs were named) still counts as learned and belongs to no run. An undone run gets a line
 * `!undone<TAB><run id>`, and its conversations count as learned again only while memory holds an item of that run:
 * what the memory holds decides, so `memory.revert` of the undo (its facts come back) makes them learned again with
 * nothing written here, and undoing it once more offers them again. The list is only ever appended to: a crash
 * mid-append leaves at most a torn last line, which names no session (that one conversation is offered again,
 * nothing else changes), and the next line starts on a line of its own. Reading is bounded by a size cap. It lives
 * with the store, the one room that touches the data's files; it never decides what is learned
 * (lib/learn/run/runner.ts does) and never writes the memory.
 */
import { open, readFile, stat } from 'node:fs/promises'
import { dirname } from 'node:path'
import { FILE_MODE, makePrivateDir } from './db/private-files.ts'
import { KeyedQueue } from '../runtime/keyed-queue.ts'

/** What starts the line saying a run was undone (no session id or run id starts with `!`). */
const UNDONE = '!undone'

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

/** Changes to one list, one after another in this process (two appends never interleave their bytes). */
const changes = new KeyedQueue()

/**
 * The past conversations (session ids) runs learned; none for no file or one over the cap. `kept` says whether
 * memory holds an item of a run (its `importId`): an undone run's conversations count only while it does.
 */
export async function readLearned(path: string, kept: (runId: string) => boolean): Promise<Set<string>> {
  const lines = (await linesOf(path)).map(lineOf)
  const undone = new Set(lines.filter((l) => l.run === UNDONE).map((l) => l.session))
  const learned = (l: { run?: string }) => l.run === undefined || !undone.has(l.run) || kept(l.run)
  return new Set(lines.filter((l) => l.run !== UNDONE && learned(l)).map((l) => l.session))
}

/** Append `line` to the list, on a line of its own, flushed to disk before this returns. */
function append(path: string, line: string): Promise<void> {
  return changes.run(path, async () => {
    makePrivateDir(dirname(path))
    const file = await open(path, 'a+', FILE_MODE)
    try {
      // A torn last line (a crash mid-append) is ended first, so it cannot swallow this one.
      const { size } = await file.stat()
      const last = Buffer.alloc(1)
      const torn = size > 0 && (await file.read(last, 0, 1, size - 1)).bytesRead === 1 && last[0] !== 0x0a
      await file.appendFile(`${torn ? '\n' : ''}${line}\n`)
      await file.sync()
    } finally {
      await file.close()
    }
  })
}

/** Add `sessionId`, learned by the run `runId`, to the list. */
export function addLearned(path: string, sessionId: string, runId: string): Promise<void> {
  return append(path, `${runId}\t${sessionId}`)
}

/**
 * Say the run `runId` was undone: its conversations are offered again while memory holds none of its items (see the
 * module's header).
 */
export function markUndone(path: string, runId: string): Promise<void> {
  return append(path, `${UNDONE}\t${runId}`)
}
