/**
 * Import and export: the portable envelope (format name + version, profiles with their avatars as data URLs, never
 * conversation settings) and `state.import` in `merge` or `replace` mode. Owns payload checking and what a merge does
 * with a profile already there (identical: skipped; same id, other content: kept beside it, replacing it, or left
 * for the user to choose, the report naming the profile it clashed with and the fields that differ).
 * All-or-nothing: the payload is validated completely before anything is built, and the result is one new state.
 */
import { createHash } from 'node:crypto'
import { LIMITS, userItemsOf } from '../state/model.ts'
import type { Envelope, MemoryItem, Profile, State, UserLayer } from '../state/model.ts'
import { blankContent } from '../state/defaults.ts'
import type { ClashDiff, MergeReport, NameChange } from '../shared/import-report.ts'
import { cleanName, distinctName, isReservedName, nameKey, namesTaken } from '../shared/profile-names.ts'
import { assertPlainJson, invalid, isRecord, newName, parse, profile, record, userLayer } from '../validate/state.ts'
import { ENVELOPE_KEYS, STATE_FILE_KEYS } from '../state/schema-state.ts'
import type { CommandOf } from '../shared/schema-commands.ts'
import { carry, notice, unbindMissing, unique, withUser, type OpContext, type OpResult } from './kit.ts'
import { fromFile, profileOf, userLayerOf } from '../provenance/provenance.ts'
import { heldAsSuggestion } from './model-suggestion.ts'
import { StoreError } from '../shared/errors.ts'

/** The envelope's format name. */
export const ENVELOPE_FORMAT = 'dsh-agent-profiles'

/** Build the export envelope for `ids` (all profiles when omitted), in the state's order; with `user`, the user layer too. */
export function exportEnvelope(
  state: State,
  ids: readonly string[] | undefined,
  now: number,
  options: { user?: boolean } = {},
): Envelope {
  let profiles = state.profiles
  if (ids !== undefined) {
    const known = new Set(profiles.map((p) => p.id))
    const missing = ids.find((x) => !known.has(x))
    if (missing !== undefined) throw new StoreError('not-found', `ids: no profile with id "${missing}"`, 'ids')
    const wanted = new Set(ids)
    profiles = profiles.filter((p) => wanted.has(p.id))
  }
  const activeId = profiles.some((p) => p.id === state.activeId) ? state.activeId : (profiles[0]?.id ?? '')
  const envelope: Envelope = {
    format: ENVELOPE_FORMAT,
    version: 1,
    exportedAt: new Date(now).toISOString(),
    activeId,
    profiles: [...profiles],
  }
  if (options.user === true) envelope.user = { items: [...userItemsOf(state)] }
  return envelope
}

/** Fill what a hand-written profile may leave out, so only fields that are present need to be right. */
function withDefaults(raw: Record<string, unknown>, ctx: OpContext): Record<string, unknown> {
  return {
    ...blankContent(),
    createdAt: ctx.now,
    updatedAt: ctx.now,
    ...raw,
    id: raw.id === undefined ? ctx.newId('p') : raw.id,
  }
}

/** What an import brings: profiles, when it names one the profile to make active, and the user layer when it has one. */
export interface Incoming {
  profiles: Profile[]
  activeId?: string
  user?: UserLayer
}

/**
 * Read an envelope or a bare state. Conversation settings and undo history in a bare state are local to the machine
 * that wrote it, so they are accepted as objects and not imported (the same rule as export).
 */
export function readPayload(payload: unknown, ctx: OpContext): Incoming {
  assertPlainJson(payload, 'payload')
  const o = record(payload, 'payload')
  if (o.format !== undefined) {
    parse(ENVELOPE_KEYS, o, 'payload')
    if (o.format !== ENVELOPE_FORMAT) throw invalid('payload.format', `must be "${ENVELOPE_FORMAT}"`)
  } else {
    parse(STATE_FILE_KEYS, o, 'payload')
    if (o.sessions !== undefined) record(o.sessions, 'payload.sessions')
    if (o.memoryUndo !== undefined) record(o.memoryUndo, 'payload.memoryUndo')
    if (o.history !== undefined) record(o.history, 'payload.history')
  }
  if (o.version !== 1) throw invalid('payload.version', `must be 1 (got ${JSON.stringify(o.version) ?? 'nothing'})`)
  if (o.exportedAt !== undefined && typeof o.exportedAt !== 'string')
    throw invalid('payload.exportedAt', 'must be a string')
  if (!Array.isArray(o.profiles)) throw invalid('payload.profiles', 'must be an array')
  if (o.profiles.length === 0) throw invalid('payload.profiles', 'must hold at least one profile')
  if (o.profiles.length > LIMITS.profiles) {
    throw invalid(
      'payload.profiles',
      `has ${o.profiles.length} profiles, over the limit of ${LIMITS.profiles}`,
      LIMITS.profiles,
    )
  }
  const defaults = fromFile(ctx)
  const profiles = o.profiles.map((raw, i) => {
    const field = `payload.profiles[${i}]`
    // A model a file names is the user's to accept, never the profile's at once.
    // A team library's mark is the library's to set: an imported copy is the user's own, editable profile.
    const { library: _library, ...p } = heldAsSuggestion(
      profileOf(profile(isRecord(raw) ? withDefaults(raw, ctx) : raw, field), field, defaults),
    )
    return { ...p, name: newName(p.name, `${field}.name`) }
  })
  const seen = new Set<string>()
  profiles.forEach((p, i) => {
    if (seen.has(p.id)) throw invalid(`payload.profiles[${i}].id`, `repeats the id "${p.id}"`)
    seen.add(p.id)
  })
  const user =
    o.user === undefined ? {} : { user: userLayerOf(userLayer(o.user, 'payload.user'), 'payload.user', defaults) }
  if (o.activeId === undefined || o.activeId === '') return { profiles, ...user }
  if (typeof o.activeId !== 'string' || !seen.has(o.activeId)) {
    throw invalid('payload.activeId', 'must name one of the imported profiles')
  }
  return { profiles, activeId: o.activeId, ...user }
}

/**
 * The user layer after an import: `merge` appends the file's items whose text the layer does not hold yet (new ids
 * where an id is taken) as suggestions, which reach no prompt until the user approves each one: a persona file shared
 * on the internet must not plant standing facts about the user in every profile's prompt. `replace` (restoring a
 * whole backup, every profile included) takes the file's layer as it is. A file without a user layer leaves it as it is.
 */
export function importUser(
  state: State,
  incoming: Incoming,
  mode: 'merge' | 'replace',
  ctx: OpContext,
): { state: State; added: number } {
  if (incoming.user === undefined) return { state, added: 0 }
  const current = mode === 'merge' ? userItemsOf(state) : []
  const carried = carry(current, incoming.user.items, ctx)
  const added =
    mode === 'replace'
      ? carried
      : carried.map(({ pinned: _pin, replaces: _replaces, ...it }): MemoryItem => ({ ...it, pending: true }))
  const items = [...current, ...added]
  if (items.length > LIMITS.userItems) {
    throw invalid(
      'payload.user.items',
      `would make ${items.length} user-layer items, over the limit of ${LIMITS.userItems}`,
      LIMITS.userItems,
    )
  }
  if (mode === 'merge' && added.length === 0) return { state, added: 0 }
  return { state: withUser(state, items), added: added.length }
}

/** What a merge does with a profile whose id is taken by one with other content. */
export interface MergeChoice {
  /** `keep-both` gives the incoming profile a new id; `ask` leaves it out and reports it, for the user to choose. */
  conflicts: 'keep-both' | 'ask'
  /** Ids whose existing profile the incoming one replaces, in place (its conversations stay pinned to it). */
  replace: ReadonlySet<string>
}

/**
 * What a user sees of a profile, field by field: everything but its id, timestamps, memory provenance and the card
 * it came from. Two profiles with equal facets are the same profile to the user; the facets that differ are a clash's.
 */
function facetsOf(p: Profile): Record<ClashDiff['field'], string> {
  const tools = p.tools === undefined || p.tools.profile === 'full' ? undefined : p.tools
  const s = JSON.stringify
  return {
    name: p.name,
    emoji: p.emoji,
    avatar: p.avatar,
    role: p.role,
    personality: p.personality,
    speakingStyle: p.speakingStyle,
    rules: p.rules,
    memoryEnabled: s(p.memoryEnabled),
    memory: s([p.memory.summary, p.memory.items.map((it) => it.text)]),
    tools: s(tools ?? null),
    // A model held as a suggestion is the same model to the user: an export imported again is no clash.
    model: s(p.model ?? p.suggestedModel ?? null),
  }
}

/**
 * A profile's content as an import compares it: its facets under `name`, as a SHA-256 digest. The key is kept per
 * profile for as long as the profile is (see {@link CONTENTS}); the facets' JSON holds every memory item's text, so
 * keeping it kept a second copy of each compared memory in the host (95 imported profiles of 5,200 items: 15 MB of
 * the heap after the import, more as the texts are longer).
 */
function contentOf(p: Profile, name = p.name): string {
  return createHash('sha256')
    .update(JSON.stringify({ ...facetsOf(p), name }))
    .digest('base64')
}

/**
 * The contents a profile already there answers to: its own, and for a name ending in ` 2`, ` 3`… (what an earlier
 * import of the same file added to keep it distinct) also the name without it, so a file imported twice adds nothing
 * the second time — while `Profile 1` and `Profile 2` of one file, alike but for the name, both arrive.
 */
export function contentsOf(p: Profile): string[] {
  const known = CONTENTS.get(p)
  if (known !== undefined) return known
  const bare = p.name.replace(/ \d+$/, '')
  const contents = bare === p.name ? [contentOf(p)] : [contentOf(p), contentOf(p, bare)]
  CONTENTS.set(p, contents)
  return contents
}

/**
 * The contents of each profile an import has compared, by the profile object: a stored profile is never changed in
 * place (a change makes a new object), so its contents are worked out once, not again at every import — the
 * background import of a large file compares each of its profiles with every one already there, one batch at a time,
 * and serialising every memory item of the store at each batch would hold the event loop longer and longer.
 */
const CONTENTS = new WeakMap<Profile, string[]>()

/**
 * Have `to`, the same profile as `from` with its memory list kept on disk instead of in memory (lib/store/
 * lists-on-disk.ts), answer to `from`'s contents without its list being read: an own import compares every profile it
 * brings with each one already there, the ones it just wrote included, which would read each list back whole.
 */
export function sameContents(from: Profile, to: Profile): void {
  CONTENTS.set(to, contentsOf(from))
}

/**
 * Have `to` answer to `contents` (what {@link contentsOf} gave for the same profile with its whole list) without its
 * list being read: an own import whose items were appended off the host's thread sees the profile come back from
 * the rows as a new object, whose list the next comparison would otherwise read whole.
 */
export function knownContents(to: Profile, contents: string[]): void {
  CONTENTS.set(to, contents)
}

/** The fields in which `theirs` (imported) differs from `mine` (the profile there under its id), in the editor's order. */
function clashOf(mine: Profile, theirs: Profile): ClashDiff[] {
  const a = facetsOf(mine)
  const b = facetsOf(theirs)
  const out: ClashDiff[] = []
  for (const field of Object.keys(a) as ClashDiff['field'][]) {
    if (a[field] === b[field]) continue
    if (field === 'name') out.push({ field, mine: mine.name, theirs: theirs.name })
    else if (field === 'memory') out.push({ field, mine: mine.memory.items.length, theirs: theirs.memory.items.length })
    else if (field === 'model')
      out.push({
        field,
        mine: mine.model?.model ?? '',
        theirs: theirs.model?.model ?? theirs.suggestedModel?.model ?? '',
      })
    else out.push({ field })
  }
  return out
}

/** The name an imported profile arrives with, in the form a typed name is stored in; never empty. */
function arrivingName(name: string): string {
  const clean = cleanName(name, LIMITS.name)
  return clean === '' ? '导入的配置' : clean
}

/**
 * `p`'s name made distinct among `others` (by key) and never a word of the plugin, the rename said in `names`. A file
 * is someone else's: its `所有人` must not take `@所有人`, and a second `Seraphina` must not make `@Seraphina` ambiguous.
 */
function settleName(p: Profile, others: readonly Profile[], names: NameChange[]): Profile {
  const to = distinctName(p.name, namesTaken(others), LIMITS.name)
  if (to === p.name) return p
  names.push({ id: p.id, from: p.name, to, why: isReservedName(p.name) ? 'reserved' : 'taken' })
  return { ...p, name: to }
}

/**
 * Merge `incoming` beside the existing profiles: identical ones are skipped; one with the id of an existing profile, or
 * (when no id matches) its name, clashes with that profile and goes as `choice` says — replacing it in place (its id,
 * and so its conversations, stay), waiting for the user's choice, or kept beside it under a new id and a distinct name.
 * Every name that arrives is cleaned as a typed one is and renamed when it is a word of the plugin or taken.
 */
export function mergeProfiles(
  state: State,
  incoming: Incoming,
  choice: MergeChoice = { conflicts: 'keep-both', replace: new Set() },
): OpResult & { extra: { imported: number } & MergeReport } {
  const profiles = [...state.profiles]
  const contents = new Map(profiles.flatMap((p) => contentsOf(p).map((c) => [c, p.id] as const)))
  const taken = new Set(profiles.map((p) => p.id))
  const report: MergeReport = { renamed: [], unchanged: [], replaced: [], conflicts: [], names: [] }
  let added = 0
  for (const arrived of incoming.profiles) {
    const p = { ...arrived, name: arrivingName(arrived.name) }
    const content = contentOf(p)
    const same = contents.get(content)
    if (same !== undefined) {
      report.unchanged.push({ id: same, name: p.name })
      continue
    }
    const byId = profiles.findIndex((q) => q.id === p.id)
    const key = nameKey(p.name)
    const at = byId >= 0 ? byId : profiles.findIndex((q) => nameKey(q.name) === key)
    const mine = at >= 0 ? profiles[at]! : undefined
    const clash = mine === undefined ? undefined : { name: p.name, existing: mine.name, differs: clashOf(mine, p) }
    let next = p
    if (mine !== undefined && clash !== undefined && choice.replace.has(mine.id)) {
      for (const c of contentsOf(mine)) contents.delete(c)
      next = settleName(
        { ...p, id: mine.id },
        profiles.filter((q) => q !== mine),
        report.names,
      )
      profiles[at] = next
      report.replaced.push({ id: mine.id, ...clash })
    } else if (mine !== undefined && clash !== undefined && choice.conflicts === 'ask') {
      const keepAs = distinctName(p.name, namesTaken(profiles), LIMITS.name)
      report.conflicts.push({ id: mine.id, ...clash, ...(byId >= 0 ? {} : { byName: true }), keepAs })
      continue
    } else {
      // `<id>-2`, `<id>-3`…: still a valid id, since ids start with a letter or digit. (`taken` holds exactly the ids
      // of `profiles`, so an id is renumbered exactly when it clashes.)
      if (byId >= 0 && clash !== undefined) {
        const newId = unique(p.id, taken, 64, '-')
        report.renamed.push({ from: p.id, to: newId, ...clash })
        next = { ...p, id: newId }
      }
      next = settleName(next, profiles, report.names)
      profiles.push(next)
      added++
    }
    taken.add(next.id)
    for (const c of contentsOf(next)) contents.set(c, next.id)
  }
  if (profiles.length > LIMITS.profiles) {
    throw invalid(
      'payload.profiles',
      `would make ${profiles.length} profiles, over the limit of ${LIMITS.profiles}`,
      LIMITS.profiles,
    )
  }
  const n = added + report.replaced.length
  return {
    state: n === 0 ? state : { ...state, profiles },
    notice: notice('state.imported', {
      count: n,
      renamed: report.renamed.length,
      replaced: report.replaced.length,
      unchanged: report.unchanged.length,
      conflicts: report.conflicts.length,
    }),
    extra: { imported: n, ...report },
    changed: n > 0,
  }
}

/** Replace every profile; conversation settings stay, but pins to profiles that no longer exist are released. */
function replace(state: State, incoming: Incoming): OpResult {
  const names: NameChange[] = []
  const profiles: Profile[] = []
  for (const p of incoming.profiles) profiles.push(settleName({ ...p, name: arrivingName(p.name) }, profiles, names))
  const { sessions, unbound } = unbindMissing(state.sessions, new Set(profiles.map((p) => p.id)))
  const n = profiles.length
  const kept: State = { version: 1, activeId: incoming.activeId ?? profiles[0]!.id, profiles, sessions }
  // The user layer is no profile's: a file that does not carry one leaves it as it is.
  if (state.user !== undefined) kept.user = state.user
  return {
    state: kept,
    notice: notice('state.replaced', { count: n, unbound }),
    extra: { imported: n, unbound, names },
    changed: true,
  }
}

/**
 * `state.import {payload, mode}`: merge skips profiles identical to one already there, renumbers colliding ids and
 * keeps the active profile; replace swaps all.
 */
export function applyImport(state: State, cmd: CommandOf<'state.import'>, ctx: OpContext): OpResult {
  const incoming = readPayload(cmd.payload, ctx)
  const result = cmd.mode === 'merge' ? mergeProfiles(state, incoming) : replace(state, incoming)
  const user = importUser(result.state, incoming, cmd.mode, ctx)
  if (user.state === result.state) return result
  return { ...result, state: user.state, extra: { ...result.extra, userAdded: user.added }, changed: true }
}
