/**
 * The routes of the state as a whole: the state and its meta, a draft's preview, the backups and a restore, and the
 * push channel's plain-GET answer. Owns these handlers only; it never writes its own data rules (a preview refuses
 * what a save would, through the commands' provenance policy) and never renders prompt text (prompt/render.ts does).
 */
import type { BackupsReply } from '../shared/wire-replies.ts'
import { asDraft, patchOf, settingOf } from '../provenance/provenance.ts'
import { profilePatch, record, sessionSetting } from '../validate/state.ts'
import { json, refusalReply, type Reply } from './reply.ts'
import { PREVIEW_CAPS, SETTINGS_CAPS } from './caps.ts'
import { jsonOf, metaJson, stateReply, type Call, type Handler, type RouteDeps } from './route-kit.ts'
import { userReply } from './routes-profiles.ts'

/** Only what the renderer reads is taken from a draft; ids, times and the avatar of an unsaved draft do not matter. */
const RENDERED_FIELDS = ['name', 'role', 'personality', 'speakingStyle', 'rules', 'memoryEnabled', 'memory'] as const

function pick(value: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => value[k] !== undefined).map((k) => [k, value[k]]))
}

function postPreview(deps: RouteDeps, call: Call<'preview'>): Reply {
  const body = call.body
  // The same rules as saving, so a preview refuses exactly what a save would (with the same field and limit).
  const d = asDraft(Date.now())
  const profile = patchOf(
    profilePatch(pick(record(body.profile ?? {}, 'profile'), RENDERED_FIELDS), 'profile'),
    'profile',
    d,
  )
  const setting =
    body.setting === undefined || body.setting === null
      ? undefined
      : settingOf(
          sessionSetting(pick(record(body.setting, 'setting'), ['note', 'memories']), 'setting', new Set()),
          'setting',
          d,
        )
  const { text, chars, tokens } = deps.preview(profile, setting)
  return jsonOf({ text, chars, tokens })
}

/**
 * Restore the backup `{name}`; answers the state it restored, like a command, with the user layer it restored (the
 * state carries only its count), so the page takes both from the reply.
 */
async function postRestore(deps: RouteDeps, call: Call<'backups.restore'>): Promise<Reply> {
  await deps.store.restoreBackup(call.body.name)
  return stateReply(deps, JSON.stringify({ user: userReply(deps) }))
}

/** The push channel is a WebSocket (upgrade.ts): a plain GET is told so. */
function getEvents(): Reply {
  return refusalReply({
    status: 426,
    code: 'invalid',
    message: 'the event channel is a WebSocket: open it with an Upgrade request',
    field: 'upgrade',
    headers: { Upgrade: 'websocket', Connection: 'Upgrade' },
  })
}

/** The handlers of the state's routes. */
export const STATE_ROUTES = {
  state: { run: (deps) => stateReply(deps) },
  /** The `meta` alone (counts, diagnostics, the revision), for a page that heard of a change. */
  meta: { run: (deps) => json(`{"meta":${metaJson(deps)}}`) },
  preview: { caps: PREVIEW_CAPS, run: postPreview },
  backups: { run: (deps) => jsonOf({ backups: deps.store.backups() } satisfies BackupsReply) },
  'backups.restore': { caps: SETTINGS_CAPS, run: postRestore },
  events: { run: getEvents },
} satisfies { [K in 'state' | 'meta' | 'preview' | 'backups' | 'backups.restore' | 'events']: Handler<K> }
