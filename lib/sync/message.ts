/**
 * The message of a sync commit: what changed, in the words a reviewer scans in `git log` — `memory: +1 (编程搭档)`,
 * `profile: edited (Writer)`, `about you: +2` — one line per profile, the first ones as the subject. Pure; it reads
 * only the files that changed (their item ids and the profile's name).
 */
import { folderOfPath, PROFILE_FILES, USER_FILE } from './layout.ts'
import { teamIdOfPath } from './library-memory.ts'
import { linesOf, wholeText, type FileText } from './file-text.ts'

/** Item id → line of a memory file's items (history lines are left out). */
function itemsOf(lines: readonly string[]): Map<string, string> {
  const out = new Map<string, string>()
  for (const line of lines) {
    // Every item line starts with its id (layout.ts writes `id` first); a history line starts `{"write":`.
    const m = /^\{"id":"([A-Za-z0-9_-]{1,64})"/.exec(line)
    if (m !== null) out.set(m[1]!, line)
  }
  return out
}

/**
 * The lines where two files differ: each with its common first and last lines left out. A line outside is the same
 * line at the same place in both, so an item there (ids are unique in a file) is unchanged; what a change added,
 * removed or edited is inside. So one fact saved in a file of 10,000 items is counted from a few lines. The lines a
 * run keeps are the same strings run to run, so most compare by identity.
 */
function differing(before: FileText, after: FileText): [readonly string[], readonly string[]] {
  const a = linesOf(before)
  const b = linesOf(after)
  const n = Math.min(a.length, b.length)
  let start = 0
  while (start < n && a[start] === b[start]) start++
  let end = 0
  while (end < n - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++
  return [a.slice(start, a.length - end), b.slice(start, b.length - end)]
}

/** `+a -r ~e` of a memory file's change, or '' when its items did not change. */
function counts(before: FileText | undefined, after: FileText | undefined): string {
  const [was, now] = differing(before ?? '', after ?? '')
  const a = itemsOf(was)
  const b = itemsOf(now)
  let added = 0
  let edited = 0
  for (const [id, line] of b) {
    const was = a.get(id)
    if (was === undefined) added++
    else if (was !== line) edited++
  }
  const removed = [...a.keys()].filter((id) => !b.has(id)).length
  return [added > 0 ? `+${added}` : '', removed > 0 ? `-${removed}` : '', edited > 0 ? `~${edited}` : '']
    .filter((s) => s !== '')
    .join(' ')
}

/** The name in a profile.json, or the one `names` knows, or its folder when neither says. */
function nameOf(json: FileText | undefined, folder: string, names: (folder: string) => string | undefined): string {
  const known = names(folder)
  if (known !== undefined && json === undefined) return known
  try {
    const o = JSON.parse(wholeText(json ?? '')) as { name?: unknown }
    if (typeof o.name === 'string') return o.name
  } catch {
    // The folder names it well enough.
  }
  return folder.slice(folder.lastIndexOf('/') + 1)
}

/**
 * The commit message of a change from `before` to `after` (texts of the changed paths; undefined: absent); `names`
 * gives a profile's name by folder when its profile.json did not change.
 */
export function commitMessage(
  before: ReadonlyMap<string, FileText | undefined>,
  after: ReadonlyMap<string, FileText | undefined>,
  names: (folder: string) => string | undefined = () => undefined,
): string {
  const lines: string[] = []
  const folders = new Set<string>()
  for (const path of new Set([...before.keys(), ...after.keys()])) {
    const folder = folderOfPath(path)
    if (folder !== undefined) folders.add(folder)
  }
  for (const folder of [...folders].sort()) {
    const json = `${folder}/${PROFILE_FILES.json}`
    const mem = `${folder}/${PROFILE_FILES.memory}`
    const md = `${folder}/${PROFILE_FILES.markdown}`
    const name = nameOf(after.get(json) ?? before.get(json), folder, names)
    const was = before.has(json) ? before.get(json) : 'unchanged'
    const now = after.has(json) ? after.get(json) : 'unchanged'
    if (was === undefined && now !== undefined) lines.push(`profile: +1 (${name})`)
    else if (now === undefined && was !== undefined) lines.push(`profile: -1 (${name})`)
    else if ((before.has(json) && was !== now) || (before.has(md) && before.get(md) !== after.get(md)))
      lines.push(`profile: edited (${name})`)
    if (now === undefined) continue
    const c = before.has(mem) || after.has(mem) ? counts(before.get(mem), after.get(mem)) : ''
    if (c !== '') lines.push(`memory: ${c} (${name})`)
    else if (before.has(mem) && before.get(mem) !== after.get(mem) && was !== undefined) lines.push(`history (${name})`)
  }
  // The user's memory of a team profile (`names` knows it by its path when this machine shows the profile).
  const team = [...new Set([...before.keys(), ...after.keys()])].filter((p) => teamIdOfPath(p) !== undefined)
  for (const path of team.sort()) {
    const c = counts(before.get(path), after.get(path))
    const name = names(path) ?? teamIdOfPath(path)!
    lines.push(c === '' ? `history (${name})` : `memory: ${c} (${name})`)
  }
  if (before.has(USER_FILE) || after.has(USER_FILE)) {
    const c = counts(before.get(USER_FILE), after.get(USER_FILE))
    lines.push(c === '' ? 'about you: history' : `about you: ${c}`)
  }
  if (lines.length === 0) return 'sync'
  let subject = lines.join('; ')
  if (subject.length > 72) subject = `${subject.slice(0, 71)}…`
  return lines.length === 1 ? subject : `${subject}\n\n${lines.join('\n')}`
}
