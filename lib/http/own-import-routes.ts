/**
 * `/__ap/import-own`: the background import of one large file the user confirmed as their own. `POST` takes the body
 * of a `profiles.importFiles` command with that one file (marked `own`), reads it in the import worker like any
 * import, starts writing it in batches (lib/store/import-batches.ts) and answers 202 with the first status at once;
 * `GET` answers how it is going, for a page that polls the progress or comes back to it. Owns the two handlers only.
 */
import type { OwnImportStatus } from '../shared/own-import.ts'
import { READ_FILES } from '../shared/files.ts'
import type { FileRead } from '../commands/file-read.ts'
import { parseCommand } from '../validate/command.ts'
import type { CommandOf } from '../shared/schema-commands.ts'
import { invalid } from '../validate/state.ts'
import type { OwnImports } from '../store/import-batches.ts'
import type { ImportPool } from './import-pool.ts'
import { json, type Reply } from './reply.ts'

/** The status as a reply. */
function statusReply(status: OwnImportStatus, code = 200): Reply {
  return { ...json(JSON.stringify({ status })), status: code }
}

/** `GET /__ap/import-own`: the current (or last) background import. */
export function getOwnImport(own: OwnImports): Reply {
  return statusReply(own.status())
}

/** The body of `POST /__ap/import-own` parsed at the door: a `profiles.importFiles` command, refused naming the field. */
export function ownImportDoor(body: unknown): CommandOf<'profiles.importFiles'> {
  const cmd = parseCommand(body)
  if (cmd.op !== 'profiles.importFiles') throw invalid('op', 'must be "profiles.importFiles"')
  return cmd
}

/**
 * `POST /__ap/import-own`: start importing the one own file of `cmd`. Refused, naming the field, when the command
 * holds other than exactly one file, when the file cannot be read (its reason), and (409, rule `import.running`)
 * while another runs.
 */
export async function postOwnImport(
  own: OwnImports,
  imports: ImportPool,
  cmd: CommandOf<'profiles.importFiles'>,
): Promise<Reply> {
  if (cmd.files.length !== 1) throw invalid('files', 'must hold exactly one file')
  // The page asks before it sends; refused before the worker reads 16 MB for nothing.
  own.assertFree()
  const reads: FileRead[] = (cmd as { [READ_FILES]?: FileRead[] })[READ_FILES] ?? (await imports.readFiles(cmd.files))
  const read = reads[0]!
  if (read.refused !== undefined)
    throw invalid(read.refused.field ?? 'files[0]', read.refused.message, read.refused.limit)
  const choice = { conflicts: cmd.conflicts ?? 'keep-both', replace: new Set(cmd.replace) }
  return statusReply(own.start({ read, choice }), 202)
}
