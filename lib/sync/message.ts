/**
 * The message of a sync commit: what changed, in the words a reviewer scans in `git log` — `memory: +1 (编程搭档)`,
 * `profile: edited (Writer)`, `about you: +2` — one line per profile, the first ones as the subject. Pure; it reads
 * only the files that changed (their item ids and the profile's name).
 */
import { folderOfPath, PROFILE_FILES, USER_FILE } from './layout.ts'
import { teamIdOfPath } from './library-memory.ts'

/** Characters compared at once while looking for where two texts differ. */
const BLOCK = 4096

/** Item id → line of a memory file's items (history lines are left out). */
function itemsOf(text: string | undefined): Map<string, string> {
  const out = new Map<string, string>()
  if (text === undefined) return out
  for (const line of text.split('\n')) {
    // Every item line starts with its id (layout.ts writes `id` first); a history line starts `{"write":`.
    const m = /^\{"id":"([A-Za-z0-9_-]{1,64})"/.exec(line)
    if (m !== null) out.set(m[1]!, line)
  }
  return out
}

/**
 * The lines where two texts differ: each with its common first and last whole lines cut off. A line outside is the
 * same line at the same place in both, so an item there (ids are unique in a file) is unchanged; what a change added,
 * removed or edited is inside. So one fact saved in a file of 10,000 items is counted from a few lines.
 */
function differing(before: string, after: string): [string, string] {
  const n = Math.min(before.length, after.length)
  // Compared a block at a time (a native comparison), then a character at a time within the block that differs.
  let start = 0
  while (start + BLOCK <= n && before.slice(start, start + BLOCK) === after.slice(start, start + BLOCK)) start += BLOCK
  while (start < n && before.charCodeAt(start) === after.charCodeAt(start)) start++
  start = start === 0 ? 0 : before.lastIndexOf('\n', start - 1) + 1
  const room = n - start
  const tail = (end: number, size: number) =>
    before.slice(before.length - end - size, before.length - end) ===
    after.slice(after.length - end - size, after.length - end)
  let end = 0
  while (end + BLOCK <= room && tail(end, BLOCK)) end += BLOCK
  while (end < room && before.charCodeAt(before.length - 1 - end) === after.charCodeAt(after.length - 1 - end)) end++
  // The common end cut at a line start: in each text, on to the next line when it starts within a line.
  const cut = (text: string) => {
    const from = text.length - end
    if (from === 0 || text.charCodeAt(from - 1) === 10) return end
    const nl = text.indexOf('\n', from)
    return nl < 0 ? 0 : text.length - nl - 1
  }
  const same = Math.min(cut(before), cut(after))
  return [before.slice(start, before.length - same), after.slice(start, after.length - same)]
}

/** `+a -r ~e` of a memory file's change, or '' when its items did not change. */
function counts(before: string | undefined, after: string | undefined): string {
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
function nameOf(json: string | undefined, folder: string, names: (folder: string) => string | undefined): string {
  const known = names(folder)
  if (known !== undefined && json === undefined) return known
  try {
    const o = JSON.parse(json ?? '') as { name?: unknown }
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
  before: ReadonlyMap<string, string | undefined>,
  after: ReadonlyMap<string, string | undefined>,
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
