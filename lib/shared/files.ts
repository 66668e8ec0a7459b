/**
 * The bounds of a file the user imports, which the browser checks before it sends one and the store when it reads
 * one: the formats a file may be given as and the most of each kind it reads. Constants only; no schema, so the
 * browser's bundle needs no schema library for them.
 */

/** Bytes of one card file we read (real-world readers cap at this order: SillyTavern 10 MB, dsh-tavern 32 MiB). */
export const CARD_FILE_LIMIT = 20 * 1024 * 1024
/** Characters of a text file (Markdown, JSON card, envelope) we read. */
export const TEXT_FILE_LIMIT = 16 * 1024 * 1024
/** The most one file may bring: JSON values (counted before it is parsed), profiles, and memory items of one profile. */
export interface FileBounds {
  values: number
  profiles: number
  items: number
}

/**
 * What any file may bring, whatever its format, unless the user says it is their own: the JSON values of one card
 * (100,000: a lorebook of 2,000 entries of 20 fields is 40,000, and 100,000 parse in about 60 ms on a 2-core machine),
 * 20 profiles (a shared cast is a handful; 20 is more than twice a conversation's cast of 8) and 2,000 memory items a
 * profile (a card's lorebook of 2,000 entries, the most a card brings). A file past one of these is not read into the
 * store; the page asks the user first (OWN_FILE_BOUNDS).
 */
export const FILE_BOUNDS: FileBounds = { values: 100_000, profiles: 20, items: 2_000 }

/**
 * What a file the user confirmed as their own (an export of this plugin: an envelope) may bring: every profile the
 * store holds (200) and every item one may hold (10,000), within 1,000,000 JSON values in all (about 100,000 small
 * memory items, parsed in under a second off the event loop). Past it, a file is refused whoever made it: a whole
 * store that large is restored from the backups folder, not uploaded (a 16 MB envelope of 950,000 items made a
 * 366 MB database whose every start took 32 s).
 */
export const OWN_FILE_BOUNDS: FileBounds = { values: 1_000_000, profiles: 200, items: 10_000 }

/** The formats a file may be given as. */
export const FILE_FORMATS = ['card', 'markdown', 'envelope'] as const

/**
 * The files of an import command as the import worker read them, set by the HTTP route (lib/http/import-pool.ts). A
 * symbol, so no JSON body can carry it: a command without it reads its files itself, on the calling thread.
 */
export const READ_FILES = Symbol('agent-profiles: files read off the event loop')

/** Our namespace under a card's `extensions`. */
export const EXTENSION_KEY = 'dsh_agent_profiles'
