/**
 * Why the host refused a request, as the wire says it: the one list of error codes the routes can answer with, and
 * the rules a refusal may name. The page words a refusal from its code, field, limit and rule in the user's language
 * (lib/client/common/feedback.ts); the wire's `message` is for logs and for a page older than the host. A spec
 * checks that every code and rule listed here has words in both copy files. No behaviour.
 */

/** Every `code` of a refusal the routes send. */
export const REFUSAL_CODES = [
  'forbidden',
  'not-found',
  'method-not-allowed',
  'unsupported-media-type',
  'too-large',
  'bad-json',
  'invalid',
  'conflict',
  'locked',
  'read-only',
  'io',
  'unwritable',
  'internal',
] as const

/** The `code` of a refusal. */
export type RefusalCode = (typeof REFUSAL_CODES)[number]

/**
 * The rules a refusal names for the page to word (most refusals name none and are worded from code, field and limit):
 * a profile name of invisible characters only, with a broken character or with a direction control, a word of the
 * plugin (`all`, `所有人`…) or another profile's name; a memory text
 * another item of the list already says; search keys the user typed: too many, one too long, too long together, with
 * markup, a control character or a secret's shape; the last profile, which cannot be deleted; a memory write into an
 * incognito conversation; a profile's model the host does not offer now (no such provider, a model its provider does
 * not list, a reasoning effort the model lacks, other settings the host refused) or cannot check (no model service);
 * and what an option of the row config accepts (a whole number from `min` to `limit`, true or false, one of `values`,
 * an object of options, a path); and a backup that cannot be restored: damaged, made by a newer version, or holding
 * no profile; and a memory search of too many different words (`limit`); and a sync repository's settings: a remote
 * that is not a git remote we accept, a branch that is not a plain branch name; and learning into a profile whose
 * memory is off, a second learning run while one is under way, or one with no model to learn with; and a read that met
 * a damaged page of the data file.
 */
export const REFUSAL_RULES = [
  'name.invisible',
  'name.surrogate',
  'name.bidi',
  'name.reserved',
  'name.taken',
  'memory.same',
  'keys.count',
  'keys.length',
  'keys.total',
  'keys.markup',
  'keys.control',
  'keys.secret',
  'profile.last',
  'session.incognito',
  'model.no-provider',
  'model.not-listed',
  'model.effort',
  'model.refused',
  'model.unchecked',
  'config.integer',
  'config.flag',
  'config.choice',
  'config.section',
  'config.path',
  'backup.damaged',
  'backup.newer',
  'backup.empty',
  'search.words',
  'import.running',
  'learn.memory-off',
  'learn.running',
  'learn.no-model',
  'learn.elsewhere',
  'sync.remote.form',
  'sync.branch.form',
  'profile.library',
  'library.added',
  'data.damaged',
] as const

/** A rule a refusal names. */
export type RefusalRule = (typeof REFUSAL_RULES)[number]
