/**
 * What an import tells the user about one file, as data: a note (something repaired, left out or read another way)
 * or the reason a file cannot be imported, each a key and its parameters that the settings page words in the user's
 * language (the `import.` keys of lib/client/copy). The readers of outside files (lib/interop, the file reading of
 * lib/commands) give only these keys, so no English diagnostic and no path inside a file reaches a page: a place in
 * the file travels as a token (`where`) and a 1-based number (`n`) that the page names. Pure; no wording here.
 */

/**
 * Every key a note or a per-file refusal can carry; the copy files word each one (test/shared/import-notes.spec.ts).
 * `note()` and ImportError take only these, so a reader cannot give a key the page has no words for.
 */
export const IMPORT_NOTE_KEYS = [
  // Notes: the file was imported, with this repaired, left out or read another way.
  'more',
  'forbiddenKeys',
  'specGuessed',
  'avatarUnusable',
  'chunkSkipped',
  'chunksNotRead',
  'pictureCut',
  'pictureTooBig',
  'iconTooBig',
  'iconType',
  'iconUnreadable',
  'toolsUnusable',
  'surrogates',
  'bidi',
  'readAsText',
  'listJoined',
  'notText',
  'controls',
  'cut',
  'cutKept',
  'unnamed',
  'extrasDropped',
  'greetings',
  'bookKeys',
  'memoryItems',
  'bookNotObject',
  'bookEntriesNotList',
  'bookEntriesCut',
  'bookEntryNotObject',
  'bookDisabled',
  'bookSplit',
  'bookArchived',
  'bookArchivedAll',
  'tavernLike',
  'unusedText',
  'roleFile',
  'notImported',
  'toolsNotList',
  'toolsCut',
  'toolsUnknown',
  'frontNotYaml',
  'frontNotMap',
  'frontUnknownKey',
  'modelNoProvider',
  'modelSuggested',
  'memorySwitch',
  'headingsCut',
  'textBefore',
  'noSections',
  'sectionTwice',
  'sectionMemory',
  'sectionAs',
  'sectionRules',
  'titleFileName',
  'nameReserved',
  'nameTaken',
  // Refusals: the file was not imported.
  'tooDeep',
  'tooManyValues',
  'largeFile',
  'charxOutside',
  'charxMissing',
  'charxEntryTooBig',
  'chunkEmpty',
  'chunkNotCard',
  'truncated',
  'jsonTooLong',
  'notJson',
  'notCard',
  'noData',
  'frontTooLong',
  'tooLong',
  'tooManyLines',
  'frontUnclosed',
  'empty',
  'zipUnreadable',
  'zipTooManyEntries',
  'zipMethod',
  'zipDamaged',
  'zipBomb',
  'pngNoCard',
  'charxNoCard',
  'pngDamaged',
  'unreadable',
  'notStorable',
  'tooSlow',
  'notFinished',
  'tooBig',
  'notReached',
  // Refusals of a data export another assistant mailed (lib/learn/export-read.ts).
  'exportNotExport',
  'exportNoConversations',
  'exportEmpty',
  'exportTooLarge',
  'exportTooDeep',
  'exportTooManyValues',
  'exportTooManyConversations',
  'exportTooManyMessages',
  'exportConversationTooBig',
] as const

/** A key of {@link IMPORT_NOTE_KEYS}. */
export type ImportNoteKey = (typeof IMPORT_NOTE_KEYS)[number]

/** A note's parameters: numbers, tokens (`where`, `into`) and text quoted from the file (`title`, `name`). */
export type NoteParams = Record<string, string | number>

/** One note or refusal of an import, for the page to word. */
export interface ImportNote {
  key: ImportNoteKey
  params?: NoteParams
}

/** Why one file was not imported: the reason as the page words it, with the path in the file and the limit broken. */
export interface FileError extends ImportNote {
  field?: string
  limit?: number
}

/**
 * The places in a file a note can name, as tokens the page words: card fields (by their card names), profile fields,
 * lorebook and memory parts, and parts of a file. A key the card made up is `other`, with the key itself quoted.
 */
export const IMPORT_WHERE = [
  'file',
  'chunk',
  'charxCard',
  'front',
  'name',
  'nickname',
  'description',
  'personality',
  'scenario',
  'first_mes',
  'mes_example',
  'system_prompt',
  'post_history_instructions',
  'creator_notes',
  'alternate_greetings',
  'tags',
  'creator',
  'character_version',
  'spec',
  'role',
  'speakingStyle',
  'rules',
  'emoji',
  'summary',
  'items',
  'memory',
  'memoryItem',
  'book',
  'bookEntry',
  'tools',
  'model',
  'cardField',
] as const

/** A token of {@link IMPORT_WHERE}. */
export type ImportWhere = (typeof IMPORT_WHERE)[number]

const WHERE = new Set<string>(IMPORT_WHERE)
/** Our paths' words for the same places: the Markdown reader's and the profile fields' own names. */
const ALIASES = new Map(
  Object.entries({ speaking_style: 'speakingStyle', 'speaking style': 'speakingStyle', 'ground rules': 'rules' }),
)

/**
 * The place a path inside a file names (`data.character_book.entries[2].content`, `front matter tools`, `memory item 3`,
 * `chunk ccv3`), as a token and a 1-based number: the last part of the path that is a known place, else the key itself.
 */
export function whereOf(path: string): { where: ImportWhere; n?: number; key?: string } {
  // The part of the file a path starts from (`file.`, `chunk ccv3.`, `card.json.`) matters only when nothing follows.
  const inner = path.replace(/^(file|chunk \S+|card\.json)\./, '')
  if (inner !== path) return whereOf(inner)
  const entry = /entries\[(\d+)\]/.exec(path)
  if (entry !== null) return { where: 'bookEntry', n: Number(entry[1]) + 1 }
  const item = /items\[(\d+)\]|memory item (\d+)/.exec(path)
  if (item !== null) return { where: 'memoryItem', n: item[1] !== undefined ? Number(item[1]) + 1 : Number(item[2]) }
  if (path.startsWith('chunk ')) return { where: 'chunk' }
  if (path === 'card.json') return { where: 'charxCard' }
  if (/character_book/.test(path)) return { where: 'book' }
  const parts = path
    .replace(/^front matter\s*/, 'front.')
    .split('.')
    .filter((p) => p !== '' && p !== 'data')
  for (const part of parts.reverse()) {
    const bare = part.replace(/\s*\(.*$/, '')
    const word = ALIASES.get(bare) ?? bare
    if (WHERE.has(word)) return { where: word as ImportWhere }
  }
  return { where: 'cardField', key: path.split('.').pop()!.slice(0, 60) }
}

/** A note of `key`; a param `at` (a path inside the file) becomes the place it names. */
export function note(key: ImportNoteKey, params: NoteParams & { at?: string } = {}): ImportNote {
  const { at, ...rest } = params
  if (at === undefined) return Object.keys(rest).length === 0 ? { key } : { key, params: rest }
  return { key, params: { ...whereOf(at), ...rest } }
}
