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
import type { State } from '../state/model.ts'
import { importUser, mergeProfiles, type MergeChoice } from './transfer.ts'
import type { FileResult } from '../shared/import-report.ts'
import type { CommandOf } from '../shared/schema-commands.ts'
import { READ_FILES } from '../shared/files.ts'
import { fileFailure, readParsedFile, type FileRead } from './file-read.ts'
import { unpackRead } from './packed-items.ts'
import { note } from '../shared/import-notes.ts'
import { notice, type OpContext, type OpResult } from './kit.ts'
import { StoreError } from '../shared/errors.ts'

/**
 * A merge whose added profiles (those from `from` on) keep only their first `keep` memory items. A replaced profile
 * stays whole: cutting it would leave the user's own profile short of memory until the rest arrived.
 */
function withKept<R extends { state: State }>(r: R, from: number, keep: number | undefined): R {
  if (keep === undefined || r.state.profiles.length === from) return r
  const profiles = r.state.profiles.map((p, i) =>
    i < from || p.memory.items.length <= keep
      ? p
      : { ...p, memory: { ...p.memory, items: p.memory.items.slice(0, keep) } },
  )
  return { ...r, state: { ...r.state, profiles } }
}

/**
 * `profiles.importFiles {files, conflicts?, replace?}`: import each file that can be imported, report every one.
 * A profile identical to one already there is skipped and reported as unchanged; one with the id of an existing
 * profile and other content replaces it when its id is in `replace`, else is kept beside it with a new id
 * (`conflicts: 'keep-both'`, the default) or left out and reported for the user to choose (`'ask'`).
 */
export function applyFileImport(state: State, cmd: CommandOf<'profiles.importFiles'>, ctx: OpContext): OpResult {
  const prepared = (cmd as { [READ_FILES]?: FileRead[] })[READ_FILES]
  const reads = (prepared ?? cmd.files.map((f, i) => readParsedFile(f, i, ctx))).map(unpackRead)
  const refused = reads.find((r) => r.refused !== undefined)?.refused
  if (refused !== undefined) throw new StoreError('invalid', refused.message, refused.field, refused.limit)
  const choice: MergeChoice = { conflicts: cmd.conflicts ?? 'keep-both', replace: new Set(cmd.replace) }
  let current = state
  let userAdded = 0
  const results: FileResult[] = reads.map((read) => {
    const none = (): FileResult => ({
      name: read.name,
      imported: 0,
      profileIds: [],
      warnings: read.warnings,
      unchanged: [],
      replaced: [],
      conflicts: [],
    })
    const incoming = read.incoming
    if (read.error !== undefined || incoming === undefined)
      return { ...none(), error: read.error ?? { ...note('unreadable'), field: 'file' } }
    try {
      const r = withKept(mergeProfiles(current, incoming, choice), current.profiles.length, read.keep)
      const report = r.extra
      const profileIds = [
        ...r.state.profiles.slice(current.profiles.length).map((p) => p.id),
        ...report.replaced.map((p) => p.id),
      ]
      // An envelope exported with the user layer brings its facts the layer does not hold yet, as suggestions.
      const user = importUser(r.state, incoming, 'merge', ctx)
      userAdded += user.added
      current = user.state
      // A renamed profile is said in the file's notes, where the user reads what became of it.
      const renamed = report.names.map((c) =>
        note(c.why === 'reserved' ? 'nameReserved' : 'nameTaken', { from: c.from, to: c.to }),
      )
      return {
        ...none(),
        warnings: [...read.warnings, ...renamed],
        imported: profileIds.length,
        profileIds,
        unchanged: report.unchanged,
        replaced: report.replaced,
        conflicts: report.conflicts,
      }
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
    notice: notice('files.imported', {
      count: imported,
      files: reads.length - failed.length,
      unchanged,
      conflicts,
      userAdded,
      failed: failed.length,
      warned,
    }),
    extra: { imported, files: results, userAdded },
    changed: current !== state,
  }
}
