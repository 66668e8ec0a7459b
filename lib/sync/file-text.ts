/**
 * A file's content as a sync writes it: one string, or a memory file's lines kept as they are. A memory file of 2,000
 * items is ~150,000 characters; made one string it is one object past V8's large-object size, allocated whole in
 * the old generation at every saved fact (the string joined, then flattened to be hashed and sent), and that was
 * what set off a full collection every ~10 runs, on the host's thread and helpers while a turn ran. Kept as lines, a
 * run hashes, sizes and sends the lines the store's items already have, and compares them with the last commit's
 * line by line; a string of the whole is made only where a file is read back from git or a test asks. It never
 * reads or writes anything.
 */
import { createHash } from 'node:crypto'

/** A file as its lines, each without its newline: the file is every line followed by `\n` (none: empty). */
export interface FileLines {
  readonly lines: readonly string[]
  /** The file's size in UTF-8 bytes, newlines included. */
  readonly bytes: number
}

/** A file's content: one string, or its lines. */
export type FileText = string | FileLines

/** The text of a file of `lines`: each followed by a newline, none an empty file (what git hashes and stores). */
export function fileOfLines(lines: readonly string[]): string {
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`
}

/** The file as one string (made only where a caller needs one). */
export function wholeText(t: FileText): string {
  return typeof t === 'string' ? t : fileOfLines(t.lines)
}

/** The file's lines, each without its newline (a string's last line, when it lacks a newline, as it is). */
export function linesOf(t: FileText): readonly string[] {
  if (typeof t !== 'string') return t.lines
  if (t === '') return []
  const lines = t.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  return lines
}

/** The git blob id of a file, as `git hash-object` computes it (so unchanged files are known without a git call). */
export function blobId(t: FileText): string {
  const hash = createHash('sha1')
  if (typeof t === 'string') {
    // Hashed as it is (encoded by the hash as it reads), not copied into a Buffer first.
    return hash
      .update(`blob ${Buffer.byteLength(t, 'utf8')}\0`)
      .update(t, 'utf8')
      .digest('hex')
  }
  hash.update(`blob ${t.bytes}\0`)
  // Line by line: no string of the whole is made (0.6 ms for 2,000 lines, against 2.6 ms to join and hash them).
  for (const line of t.lines) hash.update(line, 'utf8').update('\n')
  return hash.digest('hex')
}

/**
 * Lines fed to git's stdin, each followed by a newline: a memory file as the host keeps it, joined in the git helper's
 * process (git-spawn.ts), so that the host never makes one string of it.
 */
export interface LinesInput {
  lines: readonly string[]
}

/** What git reads on its stdin for a file: the string, or the lines for the git helper to join. */
export function gitInput(t: FileText): string | LinesInput {
  return typeof t === 'string' ? t : { lines: t.lines }
}

/** Lines joined per this many: each piece a small string, never one of the whole file. */
const LINES_A_PIECE = 256

/** The file in pieces of a few hundred lines each, newlines included (to be written to a file piece by piece). */
export function* pieces(t: FileText): Generator<string> {
  if (typeof t === 'string') return yield t
  for (let i = 0; i < t.lines.length; i += LINES_A_PIECE) yield fileOfLines(t.lines.slice(i, i + LINES_A_PIECE))
}
