/** Types of scripts/sizes.mjs, a plain script node runs as it is, for the spec that imports it. */

/** Where the list of today's offenders lives, relative to the repository root. */
export declare const BASELINE: string
/** Where to look: the repository root (holding .oxlintrc.json), the folders to lint, the baseline file. */
export interface SizesOptions {
  root?: string
  sources?: string[]
  baseline?: string
}
/** The offenders oxlint reports, `file <path>` or `function <path> <name>`, sorted. */
export declare function findOffenders(options?: SizesOptions): string[]
/** The entries of a baseline text, comments and blank lines skipped, sorted. */
export declare function parseBaseline(text: string): string[]
/** What `found` has beyond `listed`, and what `listed` has beyond `found`, counting repeats. */
export declare function compare(found: string[], listed: string[]): { added: string[]; gone: string[] }
/** The gate's problems, one sentence each (empty when the sources and the list agree). */
export declare function checkSizes(options?: SizesOptions): string[]
/** Drops the baseline entries that no longer offend; returns how many went. */
export declare function shrinkBaseline(options?: SizesOptions): number
