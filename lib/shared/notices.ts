/**
 * Every message the host half sends for the page to word: a key and the values its wording uses, never a sentence.
 * Owns the one list of notice keys the commands may answer with (the type of `notice()` in lib/commands/kit.ts is
 * drawn from it, so a command cannot send a key that is not listed), and the shape any other family of keyed
 * messages takes (an import note is one). It holds no words: both languages' texts are in lib/client/copy, and a
 * spec checks that every key listed here has them.
 */

/** A value a message's wording uses: a name or text, a count, or a list of names (worded as a list). */
export type MessageValue = string | number | readonly string[]

/** A message for the page to word: the key of its text, and the values the text uses. */
export interface Keyed<K extends string = string> {
  key: K
  params?: Readonly<Record<string, MessageValue>>
}

/**
 * How one message is worded: `params` are the values its lead sentence uses; each of `clauses` is a value said in a
 * clause of its own after the lead, only when it is not 0 and not '' (the copy's key `<family>.<key>.<clause>`, with
 * the value also as `{count}` so that the clause takes its plural form from it).
 */
export interface MessageShape {
  readonly params?: readonly string[]
  readonly clauses?: readonly string[]
}

/** The notices of the host's commands: each key, the values its sentence uses and the clauses it may add. */
export const NOTICES = {
  'profile.created': { params: ['name'] },
  'profile.unchanged': {},
  'profile.updated': { params: ['name'] },
  'profile.duplicated': { params: ['name'] },
  // `active` is the new default's name, given only when the deleted profile was the default.
  'profile.deleted': { params: ['name'], clauses: ['unbound', 'uncast', 'active'] },
  'profile.activated': { params: ['name'] },
  'session.unchanged': {},
  'session.cast': { params: ['names', 'count'] },
  'session.castCleared': {},
  'session.incognitoOn': {},
  'session.incognitoOff': {},
  'session.cleared': {},
  'session.pinned': { params: ['name'] },
  'session.updated': {},
  'session.memoryRefreshed': {},
  'sessions.clearedAll': { params: ['count'] },
  'sessions.forgotten': { params: ['count'] },
  'sync.applied': { params: ['count'] },
  'library.applied': { params: ['count'] },
  'user.unchanged': {},
  'user.saved': { params: ['count'] },
  'state.restored': {},
  'state.imported': { params: ['count'], clauses: ['renamed', 'replaced', 'unchanged', 'conflicts'] },
  'state.replaced': { params: ['count'], clauses: ['unbound'] },
  'files.imported': {
    params: ['count', 'files'],
    clauses: ['unchanged', 'conflicts', 'userAdded', 'failed', 'warned'],
  },
  'memory.added': { params: ['count'], clauses: ['replaced', 'duplicates'] },
  'memory.duplicate': {},
  'memory.approved': { params: ['text'] },
  'memory.learned': { params: ['count'] },
  'memory.unlearned': { params: ['count'] },
  'memory.approvedMany': { params: ['count'] },
  'memory.dismissedMany': { params: ['count'] },
  'memory.unchanged': {},
  'memory.updated': {},
  'memory.removed': {},
  'memory.cleared': {},
  'memory.compressed': { params: ['name', 'before', 'after'] },
  'memory.undone': { params: ['name'] },
  'memory.history': { params: ['count'] },
  'memory.reverted': { params: ['count'] },
  'memory.revertNothing': {},
  'turn.recorded': { params: ['turn', 'name'] },
} as const satisfies Record<string, MessageShape>

/** A key the host's commands may answer with. */
export type NoticeKey = keyof typeof NOTICES

/** Every notice key, in the order of {@link NOTICES}. */
export const NOTICE_KEYS = Object.keys(NOTICES) as NoticeKey[]

/** The names a message shape `S` lists under `F` (its `params` or its `clauses`); never when it lists none. */
export type Named<S, F extends keyof MessageShape> = S extends {
  readonly [P in F]: readonly (infer N extends string)[]
}
  ? N
  : never

/** The values notice `K` needs: every value its lead uses, and its clauses' values (0 or '' when not said). */
export type NoticeParams<K extends NoticeKey> = {
  [P in Named<(typeof NOTICES)[K], 'params'> | Named<(typeof NOTICES)[K], 'clauses'>]: MessageValue
}

/** What a command tells the user: a notice key and the values its wording uses. */
export type Notice = Keyed<NoticeKey>
