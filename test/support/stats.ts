/**
 * Summary statistics for the benchmarks' figures (the median and percentiles they report, the prefix two requests share). Pure
 * arithmetic; it never times anything.
 */

/** The median of `xs` (the mean of the middle two for an even count). */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

/** The `p`th percentile of `xs` (nearest rank: the smallest value with at least `p` % of `xs` at or below it). */
export function percentile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!
}

/** How many leading UTF-16 units `a` and `b` share: what a prefix cache reuses of `b` after `a`. */
export function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length)
  let i = 0
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++
  return i
}
