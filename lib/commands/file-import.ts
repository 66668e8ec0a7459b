/**
 * `profiles.importFiles`: profile files as users have them — Character Cards (PNG, JSON or CHARX, V1/V2/V3, and the
 * JSON role files of other apps), Markdown profile, agent and persona files, our own envelope — several at once,
 * always merged beside the existing profiles. Owns the command's arguments and the per-file outcome (imported,
 * unchanged or waiting for the user's choice, with warnings, or refused with a precise error); reading each file into
 * a payload is file-read.ts's, done here or beforehand off the event loop (lib/http/import-pool.ts).
 *
 * Why its own command rather than a `format` on `state.import`: that one is all-or-nothing over one payload with a
 * replace mode; here each file stands alone (one broken card in a folder must not block the rest) and nothing ever
 * replaces unless asked to. A file that fails changes nothing, and is reported with its reason; when every file
 * failed the command changes nothing and still answers with each file's outcome, for the page to word. Only a
 * malformed argument (the caller's mistake, not a file's) refuses the command.
 */
import { LIMITS, type State } from '../state/model.ts'
import { importUser, mergeProfiles, type MergeChoice } from './transfer.ts'
import type { FileResult, MergeReport } from '../shared/contract.ts'
import { StoreError, id, invalid, onlyKeys } from '../validate/state.ts'
import { fileFailure, readFile, type FileRead } from './file-read.ts'
import { note } from '../shared/import-notes.ts'
import { notice, type OpContext, type OpResult } from './kit.ts'

/**
 * The files of a command as the import worker read them, set by the HTTP route (lib/http/import-pool.ts). A symbol,
 * so no JSON body can carry it: a command without it reads its files itself, on the calling thread.
 */
export const READ_FILES = Symbol('agent-profiles: files read off the event loop')

/** The command's choice for profiles whose id is taken by one with other content. */
function choiceArg(cmd: Record<string, unknown>): MergeChoice {
  if (cmd.conflicts !== undefined && cmd.conflicts !== 'keep-both' && cmd.conflicts !== 'ask') throw invalid('conflicts', 'must be "keep-both" or "ask"')
  if (cmd.replace !== undefined && (!Array.isArray(cmd.replace) || cmd.replace.length > LIMITS.profiles)) {
    throw invalid('replace', `must be a list of at most ${LIMITS.profiles} profile ids`, LIMITS.profiles)
  }
  const replace = new Set(((cmd.replace ?? []) as unknown[]).map((x, i) => id(x, `replace[${i}]`)))
  return { conflicts: (cmd.conflicts as MergeChoice['conflicts'] | undefined) ?? 'keep-both', replace }
}

/**
 * `profiles.importFiles {files, conflicts?, replace?}`: import each file that can be imported, report every one.
 * A profile identical to one already there is skipped and reported as unchanged; one with the id of an existing
 * profile and other content replaces it when its id is in `replace`, else is kept beside it with a new id
 * (`conflicts: 'keep-both'`, the default) or left out and reported for the user to choose (`'ask'`).
 */
export function applyFileImport(state: State, cmd: Record<string, unknown>, ctx: OpContext): OpResult {
  onlyKeys(cmd, ['op', 'files', 'conflicts', 'replace'], 'command')
  if (!Array.isArray(cmd.files) || cmd.files.length === 0) throw invalid('files', 'must be a non-empty list of files')
  if (cmd.files.length > LIMITS.profiles) {
    throw invalid('files', `has ${cmd.files.length} files, over the limit of ${LIMITS.profiles}`, LIMITS.profiles)
  }
  const prepared = (cmd as { [READ_FILES]?: FileRead[] })[READ_FILES]
  const reads = prepared ?? cmd.files.map((f, i) => readFile(f, i, ctx))
  const refused = reads.find((r) => r.refused !== undefined)?.refused
  if (refused !== undefined) throw new StoreError('invalid', refused.message, refused.field, refused.limit)
  const choice = choiceArg(cmd)
  let current = state
  let userAdded = 0
  const results: FileResult[] = reads.map((read) => {
    const none = (): FileResult => ({ name: read.name, imported: 0, profileIds: [], warnings: read.warnings, unchanged: [], replaced: [], conflicts: [] })
    const incoming = read.incoming
    if (read.error !== undefined || incoming === undefined) return { ...none(), error: read.error ?? { ...note('unreadable'), field: 'file' } }
    try {
      const r = mergeProfiles(current, incoming, choice)
      const report = r.extra as unknown as MergeReport
      const profileIds = [...r.state.profiles.slice(current.profiles.length).map((p) => p.id), ...report.replaced.map((p) => p.id)]
      // An envelope exported with the user layer brings its facts the layer does not hold yet, as suggestions.
      const user = importUser(r.state, incoming, 'merge', ctx)
      userAdded += user.added
      current = user.state
      return { ...none(), imported: profileIds.length, profileIds, unchanged: report.unchanged, replaced: report.replaced, conflicts: report.conflicts }
    } catch (e) {
      // Whatever one file throws costs only that file: the others are still imported.
      return { ...none(), error: fileFailure(e, read.format) }
    }
  })
  const imported = results.reduce((n, r) => n + r.imported, 0)
  const failed = results.filter((r) => r.error !== undefined)
  const count = (k: 'unchanged' | 'conflicts') => results.reduce((n, r) => n + r[k].length, 0)
  const unchanged = count('unchanged')
  const conflicts = count('conflicts')
  const warned = results.filter((r) => r.warnings.length > 0).length
  return {
    state: current,
    notice: notice('files.imported', { count: imported, files: reads.length - failed.length, unchanged, conflicts, userAdded, failed: failed.length, warned }),
    extra: { imported, files: results, userAdded },
    changed: current !== state,
  }
}
