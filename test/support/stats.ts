/**
 * Summary statistics for the benchmarks' figures (the median they report, the prefix two requests share). Pure
 * arithmetic; it never times anything.
 */

/** The median of `xs` (the mean of the middle two for an even count). */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

/** How many leading UTF-16 units `a` and `b` share: what a prefix cache reuses of `b` after `a`. */
export function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length)
  let i = 0
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++
  return i
}
