/**
 * The routes of learning from another assistant's data export (their entries are the wire table's `learn.*`): what
 * the export last read holds, reading a new one from its raw bytes in the import worker (the table's `raw` body: the
 * zip the service mails or its conversations.json, under the export's byte cap and content types), the plan of a
 * pick before anything is spent, the user's own past dsh conversations read in place of an export, and starting, following, pausing, resuming and canceling the background run. Owns these handlers only; what an export holds and the plan are
 * lib/learn/run/exports.ts's, the fence and the body's cap routes.ts's.
 */
import { DEFAULT_CONFIG } from '../config/config.ts'
import { brokeRule } from '../validate/core.ts'
import type { LearnPick } from '../shared/learn.ts'
import { jsonOf, type Handler, type RouteDeps } from './route-kit.ts'
import { SETTINGS_CAPS, TINY_CAPS } from './caps.ts'
import type { Unplanned } from '../learn/run/exports.ts'
import type { LearnRunner } from '../learn/run/runner.ts'
import { pastConversations } from '../learn/past-sessions.ts'
import { runFiles } from '../store/learn-run-file.ts'
import { markUndone, readLearned } from '../store/learn-past-file.ts'
import { userItemsOf, type State } from '../state/model.ts'
import { errorText } from '../shared/errors.ts'
import { StoreError } from '../shared/errors.ts'

/** Characters one extraction call reads, as the memory job is configured (its default when the job is not up). */
function excerptChars(deps: RouteDeps): number {
  return deps.meta().memoryJob?.excerptChars ?? DEFAULT_CONFIG.memory.excerptChars
}

/** A pick as the plan takes it: a word of only spaces picks every conversation, as no word does. */
function normalPick(body: LearnPick): LearnPick {
  if (body.word === undefined || body.word.trim() !== '') return body
  const { word: _word, ...rest } = body
  return rest
}

/** The learning run, or a refusal saying the host has no model service to learn with. */
function runner(deps: RouteDeps): LearnRunner {
  const part = deps.learn?.()
  if (part === undefined) throw new StoreError('not-found', 'learn: this host has no model service to learn with')
  return part
}

/**
 * Whether conversation `sessionId` writes no memory: incognito, or answered by a profile whose memory is off. Who
 * answered is the record of its turns (any of them memory-off keeps it out: its words were said to that profile);
 * with no record, the profile it follows now.
 */
function writesNoMemory(deps: RouteDeps, sessionId: string): boolean {
  const { store } = deps
  const { profile, setting } = store.effective(sessionId)
  if (setting?.incognito === true) return true
  const answered = new Set(Object.values(store.turnsOf(sessionId)))
  if (answered.size === 0) return profile.memoryEnabled === false
  return store.state.profiles.some((p) => answered.has(p.id) && p.memoryEnabled === false)
}

/** The learning runs (and imports) memory holds an item of: the user layer's and every profile's. */
function importsHeld(state: State): Set<string> {
  const held = new Set<string>()
  for (const items of [userItemsOf(state), ...state.profiles.map((p) => p.memory.items)])
    for (const it of items) if (it.importId !== undefined) held.add(it.importId)
  return held
}

/** A pick that cannot be planned or learned, as its refusal. */
function unplanned(why: Unplanned): StoreError {
  if (why === 'no-export') return new StoreError('not-found', 'export: no export has been read yet', 'export')
  if (why === 'no-profile') return new StoreError('not-found', 'into.profileId: no such profile', 'into.profileId')
  return brokeRule(
    'conflict',
    'into.profileId: memory is off in this profile; it learns nothing',
    'into.profileId',
    'learn.memory-off',
  )
}

/**
 * After `memory.unlearn` of the run `importId` succeeded ("Undo this import"): the past conversations that run
 * learned are offered again while memory holds none of its items (a `memory.revert` of the undo brings them back,
 * and with them the conversations count as learned again). A disk that refuses is logged and the undo stands (its
 * facts are gone; those conversations are only not offered again).
 */
export async function offerUndoneAgain(deps: RouteDeps, importId: string): Promise<void> {
  try {
    await markUndone(runFiles(deps.store.file).learned, importId)
  } catch (error) {
    deps.log.warn(
      `agent-profiles: learn: the undone run's conversations could not be offered again: ${errorText(error)}`,
    )
  }
}

/** The handlers of the `learn.*` routes. */
export const LEARN_ROUTES = {
  'learn.export': { run: (_deps, call) => jsonOf(call.learn.reply()) },
  // An export that cannot be read answers why (200, `refused`), and the export read before stays in place.
  'learn.export.send': {
    run: async (_deps, call) => {
      const bytes = Buffer.from(call.body.buffer, call.body.byteOffset, call.body.byteLength)
      return jsonOf(call.learn.take(await call.imports.readExport(bytes)))
    },
  },
  'learn.plan': {
    caps: SETTINGS_CAPS,
    run: async (deps, call) => {
      const plan = await call.learn.plan(normalPick(call.body), deps.store.state, excerptChars(deps))
      if (typeof plan === 'string') throw unplanned(plan)
      return jsonOf(plan)
    },
  },
  'learn.run': { run: async (deps) => jsonOf((await deps.learn?.()?.current()) ?? {}) },
  'learn.start': {
    caps: SETTINGS_CAPS,
    run: async (deps, call) => {
      const part = runner(deps)
      const pick = normalPick(call.body)
      const picked = await call.learn.picked(pick, deps.store.state)
      if (typeof picked === 'string') throw unplanned(picked)
      return { ...jsonOf(await part.start(picked, pick)), status: 202 }
    },
  },
  'learn.control': {
    caps: TINY_CAPS,
    run: async (deps, call) => jsonOf(await runner(deps).control(call.body.action)),
  },
  'learn.past': {
    caps: SETTINGS_CAPS,
    run: async (deps, call) => {
      const reader = deps.past?.()
      if (reader === undefined)
        throw new StoreError('not-found', 'learn: this host has no session query to read past conversations from')
      const { cwd } = call.body
      const held = importsHeld(deps.store.state)
      const read = await pastConversations(reader, {
        ...(cwd === undefined ? {} : { cwd }),
        writesNoMemory: (sessionId) => writesNoMemory(deps, sessionId),
        learned: await readLearned(runFiles(deps.store.file).learned, (run) => held.has(run)),
      })
      return jsonOf({
        ...call.learn.takePast(read.conversations),
        workspaces: read.workspaces,
        unread: read.unread.length,
      })
    },
  },
} satisfies {
  [
    K in
      'learn.export' | 'learn.export.send' | 'learn.plan' | 'learn.run' | 'learn.start' | 'learn.control' | 'learn.past'
  ]: Handler<K>
}
