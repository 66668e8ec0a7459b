/** Types of scripts/sizes.mjs, a plain script node runs as it is, for the spec that imports it. */

/** Where the list of today's offenders lives, relative to the repository root. */
export declare const BASELINE: string
/** Where to look: the repository root (holding .oxlintrc.json), the folders to lint, the list file. */
export interface SizesOptions {
  root?: string
  sources?: string[]
  baseline?: string
}
/** The offenders oxlint reports, `file <path>` or `function <path> <name>`, sorted. */
export declare function findOffenders(options?: SizesOptions): string[]
/** The gate's problems, one sentence each (empty when the sources and the list agree). */
export declare function checkSizes(options?: SizesOptions): string[]
/** Drops the list's entries that no longer offend; returns how many went. */
export declare function shrinkSizes(options?: SizesOptions): number
