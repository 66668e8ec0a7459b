/**
 * The routes of the sync part and of the background import of a large own file: the sync settings and status, sync
 * now, the team libraries (list, add, remove), and starting or following the import. Each hands the parsed body to
 * its part and answers what the part says. Owns these handlers only.
 */
import { COMMAND_CAPS, SETTINGS_CAPS, TINY_CAPS } from './caps.ts'
import { getOwnImport, ownImportDoor, postOwnImport } from './own-import-routes.ts'
import { jsonOf, syncPart, type Handler } from './route-kit.ts'

/** The handlers of the sync part's routes and the background import's. */
export const SYNC_ROUTES = {
  sync: { run: (deps) => jsonOf(syncPart(deps).reply()) },
  /** Set the sync settings `{remote, branch}` (an empty remote turns sync off); answers the settings and status. */
  'sync.settings': {
    caps: SETTINGS_CAPS,
    run: async (deps, call) => {
      const part = syncPart(deps)
      return jsonOf(await part.configure({ remote: call.body.remote, branch: call.body.branch ?? '' }))
    },
  },
  /** Sync now; answers the status after the run. */
  'sync.now': { caps: TINY_CAPS, run: async (deps) => jsonOf(await syncPart(deps).now()) },
  libraries: { run: (deps) => jsonOf(syncPart(deps).libraries.reply()) },
  /** Add the team library `{remote, branch?, name?}` and answer the libraries after its first pull. */
  'libraries.add': {
    caps: SETTINGS_CAPS,
    run: async (deps, call) => {
      const part = syncPart(deps).libraries
      return jsonOf(await part.add(call.body))
    },
  },
  /** Remove the team library `{id}`; answers the libraries left. */
  'libraries.remove': {
    caps: TINY_CAPS,
    run: async (deps, call) => jsonOf(await syncPart(deps).libraries.remove(call.body.id)),
  },
  // The body of an import command with one file: the same caps as `/command`, its files read in the worker.
  'import-own.start': {
    caps: COMMAND_CAPS,
    door: ownImportDoor,
    run: (_deps, call) => postOwnImport(call.own, call.imports, call.body),
  },
  'import-own': { run: (_deps, call) => getOwnImport(call.own) },
} satisfies {
  [
    K in
      | 'sync'
      | 'sync.settings'
      | 'sync.now'
      | 'libraries'
      | 'libraries.add'
      | 'libraries.remove'
      | 'import-own.start'
      | 'import-own'
  ]: Handler<K>
}
