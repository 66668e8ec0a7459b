/**
 * Summary statistics for the benchmarks' figures (the median and percentiles they report, the prefix two requests share). Pure
 * arithmetic; it never times anything.
 */
import { seededRng } from './fuzz.ts'

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

/**
 * The `level` (e.g. 0.9) confidence interval of `stat` over `n` paired samples by the percentile bootstrap: `stat` is
 * computed on `draws` resamples of the indices 0…n−1 drawn with replacement, from a fixed seed so that one run's
 * figures can be read again from its data. A benchmark's ratio is only as good as its spread: this says how far
 * another run of as many rounds could read.
 */
export function bootstrap(
  n: number,
  stat: (indices: number[]) => number,
  level = 0.9,
  draws = 2_000,
): [number, number] {
  const rng = seededRng(41)
  const values = Array.from({ length: draws }, () => stat(Array.from({ length: n }, () => rng.int(n))))
  const tail = ((1 - level) / 2) * 100
  return [percentile(values, tail), percentile(values, 100 - tail)]
}
