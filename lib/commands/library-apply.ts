/**
 * `library.apply`: the profiles of one read-only team library as its last pull gave them, applied to the state as
 * one command (host-only: the page never sends it). The command itself holds the bounds a team profile keeps,
 * whatever its repository says: it is marked with its library (so the page shows it read-only and every edit is
 * refused), it runs with at most the `read-only` tool profile (what its files asked for is kept beside it, to be
 * shown), its model is only a suggestion the user accepts, and its memory is the user's own — a pull changes the
 * fields, never the items the model or the user saved. A library never touches About you or the user's own profiles
 * (an id of theirs is refused). Profiles the library no longer holds leave the list: conversations pinned to them
 * follow the default again and a default among them falls back to the first profile, as a deleted profile does.
 */
import {
  LIMITS,
  type LibraryMark,
  type MemoryWrite,
  type Profile,
  type State,
  type ToolSettings,
} from '../state/model.ts'
import type { CommandOf } from '../shared/schema-commands.ts'
import { admits, sameToolSettings } from '../shared/tool-profiles.ts'
import { distinctName, nameKey, namesTaken } from '../shared/profile-names.ts'
import { brokeRule, invalid, profile as parseProfile } from '../validate/state.ts'
import { notice, unbindMissing, type OpContext, type OpResult } from './kit.ts'
import { asStored, profileOf } from '../provenance/provenance.ts'
import { historyOf } from './sync-apply.ts'

/** The widest tool settings a team profile runs with. */
const READ_ONLY: ToolSettings = { profile: 'read-only', add: [], remove: [] }

/**
 * The tools a team profile runs with: what its files ask for, narrowed to `read-only` (an added tool that
 * `read-only` would not admit is dropped; `full` and `worker` become `read-only`), and what it asked for when that
 * was more (undefined when it runs as it asked).
 */
function teamTools(asked: ToolSettings | undefined): { tools: ToolSettings; asks?: ToolSettings } {
  const want = asked ?? { profile: 'full', add: [], remove: [] }
  const tools: ToolSettings =
    want.profile === 'read-only' || want.profile === 'custom'
      ? { profile: want.profile, add: want.add.filter((n) => admits(READ_ONLY, n)), remove: [...want.remove] }
      : READ_ONLY
  return sameToolSettings(tools, want) ? { tools } : { tools, asks: want }
}

/**
 * The refusal of an edit of a team profile, with the rule the page words in the user's language and the library's
 * name for it to say where the profile is changed.
 */
export function teamRefusal(p: Profile, field: string) {
  return Object.assign(
    brokeRule(
      'conflict',
      `${field}: "${p.name}" comes from the team library "${p.library?.name ?? ''}" and is changed there`,
      field,
      'profile.library',
    ),
    { values: [p.library?.name ?? ''] },
  )
}

/** A library's profile as the state keeps it: the library's fields, bounded, over the user's own memory. */
function bounded(p: Profile, mark: { id: string; name: string }, current: Profile | undefined, now: number): Profile {
  const { tools, asks } = teamTools(p.tools)
  const { card: _card, model: named, suggestedModel: _s, library: _l, ...fields } = p
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)
  // The model the files name is offered once, when it arrives or changes: an accepted one is the profile's model
  // (the user's choice, kept), a dismissed one is not offered again until the library names another.
  const offer =
    named === undefined || same(named, current?.model)
      ? undefined
      : current === undefined || !same(named, current.library?.model)
        ? named
        : current.suggestedModel
  const library: LibraryMark = {
    id: mark.id,
    name: mark.name,
    ...(asks === undefined ? {} : { asks }),
    ...(named === undefined ? {} : { model: named }),
  }
  const next: Profile = {
    ...fields,
    tools,
    memory: current?.memory ?? { summary: p.memory.summary, items: p.memory.items },
    createdAt: current?.createdAt ?? now,
    updatedAt: now,
    library,
    ...(current?.model === undefined ? {} : { model: current.model }),
    ...(offer === undefined ? {} : { suggestedModel: offer }),
  }
  if (current === undefined) return next
  return same({ ...current, updatedAt: 0 }, { ...next, updatedAt: 0 }) ? current : next
}

/** `library.apply {library, profiles, remove?}`. */
export function applyLibrary(state: State, cmd: CommandOf<'library.apply'>, ctx: OpContext): OpResult {
  const mark = cmd.library
  if (cmd.remove === true && cmd.profiles.length > 0) throw invalid('profiles', 'must be empty when the library goes')
  const others = state.profiles.filter((p) => p.library?.id !== mark.id)
  const mine = new Map(state.profiles.filter((p) => p.library?.id === mark.id).map((p) => [p.id, p]))
  const taken = namesTaken(others)
  const arriving = new Map<string, Profile>()
  cmd.profiles.forEach((raw, i) => {
    const field = `profiles[${i}]`
    const p = profileOf(parseProfile(raw, field), field, asStored(ctx.now))
    if (others.some((o) => o.id === p.id) || arriving.has(p.id))
      throw invalid(`${field}.id`, `"${p.id}" is not this library's to set`)
    const current = mine.get(p.id)
    // A name the user's own profiles (or the plugin) already use gets a number, so that @ reaches each one.
    const name = current !== undefined && current.name.startsWith(p.name) ? current.name : p.name
    const next = bounded({ ...p, name: distinctName(name, taken, LIMITS.name) }, mark, current, ctx.now)
    taken.add(nameKey(next.name))
    arriving.set(p.id, next)
  })
  const profiles: Profile[] = []
  for (const p of state.profiles) {
    if (p.library?.id !== mark.id) profiles.push(p)
    else if (arriving.has(p.id)) profiles.push(arriving.get(p.id)!)
  }
  for (const [pid, p] of arriving) if (!mine.has(pid)) profiles.push(p)
  if (profiles.length === 0) throw invalid('profiles', 'would leave no profile; one must stay')
  if (profiles.length > LIMITS.profiles)
    throw invalid('profiles', `would make ${profiles.length} profiles, over the limit of ${LIMITS.profiles}`)
  const changed = profiles.length !== state.profiles.length || profiles.some((p, i) => p !== state.profiles[i])
  if (!changed)
    return { state, notice: notice('library.applied', { count: 0 }), extra: { profiles: 0, gone: [] }, changed }
  let next: State = { ...state, profiles }
  const ids = new Set(profiles.map((p) => p.id))
  const kept = keptHistory(cmd, arriving, mine)
  if (state.profiles.some((p) => !ids.has(p.id)) || kept.size > 0) {
    next = { ...next, sessions: unbindMissing(state.sessions, ids).sessions }
    if (!ids.has(next.activeId)) next.activeId = others[0]?.id ?? profiles[0]!.id
    const history = Object.assign(Object.create(null), state.history) as NonNullable<State['history']>
    for (const pid of Object.keys(history)) if (mine.has(pid) && !ids.has(pid)) delete history[pid]
    for (const [pid, entries] of kept) history[pid] = entries
    next.history = history
  }
  const count =
    [...arriving].filter(([pid, p]) => mine.get(pid) !== p).length +
    [...mine.keys()].filter((pid) => !ids.has(pid)).length
  // What the user saved for the profiles that left, as it was when they left: the caller keeps it for their return.
  const gone = [...mine.values()]
    .filter((p) => !ids.has(p.id))
    .map((p) => ({ id: p.id, summary: p.memory.summary, items: p.memory.items, history: state.history?.[p.id] ?? [] }))
  return { state: next, notice: notice('library.applied', { count }), extra: { profiles: count, gone }, changed }
}

/**
 * The memory history kept aside for profiles that arrive now (their items arrive in the profiles), each entry
 * checked; a history for a profile already shown, or not arriving, is refused naming it.
 */
function keptHistory(
  cmd: CommandOf<'library.apply'>,
  arriving: ReadonlyMap<string, Profile>,
  mine: ReadonlyMap<string, Profile>,
): Map<string, MemoryWrite[]> {
  const out = new Map<string, MemoryWrite[]>()
  ;(cmd.history ?? []).forEach((h, i) => {
    const field = `history[${i}]`
    if (!arriving.has(h.id) || mine.has(h.id) || out.has(h.id))
      throw invalid(`${field}.id`, `"${h.id}" is not a profile arriving with this library`)
    if (h.entries.length > 0) out.set(h.id, historyOf(h.entries, `${field}.entries`))
  })
  return out
}
