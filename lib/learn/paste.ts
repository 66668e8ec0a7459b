/**
 * A pasted list of facts as memory texts: ChatGPT's "saved memories" copied from its settings page, or any list typed
 * or copied elsewhere. One fact a line; the marks lists put before a line (bullets, numbers, circled numbers, Chinese
 * ordinals, check boxes, quote marks) are taken off, blank lines dropped, runs of spaces made one. Repeats are left to
 * the memory command, which compares every text with the list's and with the others the way it always does. Pure;
 * linear in the text (one pattern anchored at a line's start, each part of it bounded).
 */

/** A list mark at a line's start: bullets and dashes, `1.` `1)` `(1)` `1、`, ①…⑳, 一、, `[ ]`/`[x]`, `>`. */
const MARK =
  /^(?:[-*•·‣◦▪●○–—+>]{1,3}|\d{1,4}\s?[.)、．:：]|[(（]\d{1,4}[)）]|[\u2460-\u2473]|[一二三四五六七八九十百]{1,4}[、.．]|\[[ xX]?\])\s*/

/** The facts of a pasted list, in order, each a line as the user would read it. */
export function pastedFacts(text: string): string[] {
  const facts: string[] = []
  for (const raw of text.split(/\r\n|\r|\n/)) {
    let line = raw.replace(/[\t\u00a0\u3000 ]+/g, ' ').trim()
    // A mark inside a mark ("- 1. …", "> - …"): at most three are taken off.
    for (let i = 0; i < 3; i++) {
      const m = MARK.exec(line)
      if (m === null || m[0].length === 0) break
      line = line.slice(m[0].length).trim()
    }
    if (line !== '') facts.push(line)
  }
  return facts
}
