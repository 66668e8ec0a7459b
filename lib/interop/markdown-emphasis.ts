/**
 * Emphasis marks (`*…*`, `**…**`, `_…_`, `__…__`) taken out of one line of a persona file from the wild, the words
 * they stressed kept: a role that reads "_You are not a search box._" in an editor is "You are not a search box." to
 * the user. Owns only which marks are emphasis; never touches a line with a code span (`` ` ``) or an indented code
 * line, a run of three or more marks, a `*` or `_` that stands alone (`2 * 3`, a bullet) or sits inside a word
 * (`snake_case`), or a mark escaped with `\`. Marks pair within the line, each opener with the nearest closer of its
 * kind. One pass with a table of at most four open marks: linear in the line, no regex over it. Pure.
 */

/** A mark's kind: its character and how many (`*`, `**`, `_`, `__`). */
type Kind = '*1' | '*2' | '_1' | '_2'

const isSpace = (c: string | undefined) => c === undefined || c === ' ' || c === '\t' || c === '\u3000' || c === '\r'
const isWordChar = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}]/u.test(c)

/** `line` without the marks that only stress words. */
export function withoutEmphasis(line: string): string {
  if (
    (!line.includes('*') && !line.includes('_')) ||
    line.includes('`') ||
    line.startsWith('    ') ||
    line.startsWith('\t')
  )
    return line
  const open = new Map<Kind, number>()
  // The marks of the pairs found (where each starts, how long); the text is rebuilt without them once at the end.
  const cuts: { at: number; size: number }[] = []
  for (let i = 0; i < line.length; i++) {
    const c = line[i]
    if (c === '\\') {
      i++
      continue
    }
    if (c !== '*' && c !== '_') continue
    let j = i
    while (j < line.length && line[j] === c) j++
    const size = j - i
    if (size <= 2) {
      const before = line[i - 1]
      const after = line[j]
      const kind = `${c}${size}` as Kind
      const canClose = !isSpace(before) && (c === '*' || !isWordChar(after))
      const canOpen = !isSpace(after) && (c === '*' || !isWordChar(before))
      const from = open.get(kind)
      if (canClose && from !== undefined) {
        cuts.push({ at: from, size }, { at: i, size })
        // Marks opened inside this pair and still open would cross it: they are text.
        for (const [k, at] of open) if (at >= from) open.delete(k)
      } else if (canOpen) open.set(kind, i)
    }
    i = j - 1
  }
  if (cuts.length === 0) return line
  cuts.sort((a, b) => a.at - b.at)
  let out = ''
  let from = 0
  for (const cut of cuts) {
    out += line.slice(from, cut.at)
    from = cut.at + cut.size
  }
  return out + line.slice(from)
}
