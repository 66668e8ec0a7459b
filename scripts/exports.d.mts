/** Types of scripts/exports.mjs, a plain script node runs as it is, for the spec that imports it. */

/** Where the list of today's unused exports lives, relative to the repository root. */
export declare const BASELINE: string
/** Where to look: the repository root (holding knip.json), the list file. */
export interface ExportsOptions {
  root?: string
  baseline?: string
}
/** What knip finds unused, `export <path> <name>`, `type <path> <name>` or `file <path>`, sorted. */
export declare function findUnused(options?: ExportsOptions): string[]
/** The gate's problems, one sentence each (empty when the sources and the list agree). */
export declare function checkExports(options?: ExportsOptions): string[]
/** Drops the list's entries that are used or gone now; returns how many went. */
export declare function shrinkExports(options?: ExportsOptions): number
