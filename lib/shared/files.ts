/**
 * The bounds of a file the user imports, which the browser checks before it sends one and the store when it reads
 * one: the formats a file may be given as and the most of each kind it reads. Constants only; no schema, so the
 * browser's bundle needs no schema library for them.
 */

/** Bytes of one card file we read (real-world readers cap at this order: SillyTavern 10 MB, dsh-tavern 32 MiB). */
export const CARD_FILE_LIMIT = 20 * 1024 * 1024
/** Characters of a text file (Markdown, JSON card, envelope) we read. */
export const TEXT_FILE_LIMIT = 16 * 1024 * 1024
/** The formats a file may be given as. */
export const FILE_FORMATS = ['card', 'markdown', 'envelope'] as const

/**
 * The files of an import command as the import worker read them, set by the HTTP route (lib/http/import-pool.ts). A
 * symbol, so no JSON body can carry it: a command without it reads its files itself, on the calling thread.
 */
export const READ_FILES = Symbol('agent-profiles: files read off the event loop')
