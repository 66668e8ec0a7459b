/**
 * What an import did, as data the page words: the profiles it renamed, left unchanged, replaced or left for the user
 * to choose, what differs in each clash, and what became of each file. Both halves import these declarations. Types
 * only; no behaviour.
 */
import type { FileError, ImportNote } from './import-notes.ts'

/**
 * One way an imported profile differs from the profile already there under its id, as data the browser words: the
 * field, and for a name, a memory or a model what a user compares at a glance (the two names, the two item counts, the
 * two models — '' for "the conversation's model"). `mine` is the profile already there, `theirs` the file's.
 */
export type ClashDiff =
  | { field: 'name' | 'model'; mine: string; theirs: string }
  | { field: 'memory'; mine: number; theirs: number }
  | { field: 'emoji' | 'avatar' | 'role' | 'personality' | 'speakingStyle' | 'rules' | 'memoryEnabled' | 'tools' }

/**
 * An imported profile whose id, or (when no id matches) name, is taken by one with other content: which one it clashed
 * with, and what differs. `id` is the profile already there (the one a `replace` names).
 */
export interface ImportClash {
  id: string
  /** The imported profile's name. */
  name: string
  /** The name of the profile already there. */
  existing: string
  differs: ClashDiff[]
  /** The clash is by name: the file's profile has an id of its own (a card, a Markdown file). */
  byName?: boolean
  /** The name the file's profile is kept under beside the one there (a conflict waiting for the user's choice). */
  keepAs?: string
}

/** An imported profile renamed: its name was a word of the plugin (`所有人`, `all`…) or another profile's. */
export interface NameChange {
  id: string
  from: string
  to: string
  why: 'reserved' | 'taken'
}

/** What a merge did with each incoming profile that was not simply added; every clash says what differs. */
export interface MergeReport {
  /** Kept beside the one there under a new id (`from` was taken by the profile named `existing`). */
  renamed: ({ from: string; to: string } & Omit<ImportClash, 'id'>)[]
  /** Incoming profiles identical to one already there (`id` is the one there), not imported again. */
  unchanged: { id: string; name: string }[]
  replaced: ImportClash[]
  /** Incoming profiles left out under `ask`: same id (or, with an id of their own, name) as an existing one, other content. */
  conflicts: ImportClash[]
  /** Imported profiles renamed, as each arrived (the import report says so). */
  names: NameChange[]
}

/** What became of one file of `profiles.importFiles`. */
export interface FileResult extends Omit<MergeReport, 'renamed' | 'names'> {
  name: string
  imported: number
  /** Ids of the profiles it added or replaced, in order. */
  profileIds: string[]
  warnings: ImportNote[]
  error?: FileError
}
