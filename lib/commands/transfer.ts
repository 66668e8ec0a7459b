/**
 * Import and export: the portable envelope (format name + version, profiles with their avatars as data URLs, never
 * conversation settings) and `state.import` in `merge` or `replace` mode. Owns payload checking and id renumbering.
 * All-or-nothing: the payload is validated completely before anything is built, and the result is one new state.
 */
import { LIMITS } from '../shared/model.ts'
import type { Envelope, Profile, State } from '../shared/model.ts'
import { StoreError, assertPlainJson, invalid, isRecord, onlyKeys, profile, record, bareRecord } from '../validate/state.ts'
import { notice, unbindMissing, unique, type OpContext, type OpResult } from './kit.ts'

/** The envelope's format name. */
export const ENVELOPE_FORMAT = 'dsh-agent-profiles'

/** Build the export envelope for `ids` (all profiles when omitted), in the state's order. */
export function exportEnvelope(state: State, ids: readonly string[] | undefined, now: number): Envelope {
  let profiles = state.profiles
  if (ids !== undefined) {
    const known = new Set(profiles.map((p) => p.id))
    const missing = ids.find((x) => !known.has(x))
    if (missing !== undefined) throw new StoreError('not-found', `ids: no profile with id "${missing}"`, 'ids')
    const wanted = new Set(ids)
    profiles = profiles.filter((p) => wanted.has(p.id))
  }
  const activeId = profiles.some((p) => p.id === state.activeId) ? state.activeId : profiles[0]?.id ?? ''
  return { format: ENVELOPE_FORMAT, version: 1, exportedAt: new Date(now).toISOString(), activeId, profiles: [...profiles] }
}

/** Fill what a hand-written profile may leave out, so only fields that are present need to be right. */
function withDefaults(raw: Record<string, unknown>, ctx: OpContext): Record<string, unknown> {
  return {
    emoji: '🙂', avatar: '', role: '', personality: '', speakingStyle: '', rules: '', memoryEnabled: true,
    memory: { summary: '', items: [] }, createdAt: ctx.now, updatedAt: ctx.now,
    ...raw,
    id: raw.id === undefined ? ctx.newId('p') : raw.id,
  }
}

/** What an import brings: profiles and, when it names one, the profile to make active. */
interface Incoming {
  profiles: Profile[]
  activeId?: string
}

/**
 * Read an envelope or a bare state. Conversation settings and undo history in a bare state are local to the machine
 * that wrote it, so they are accepted as objects and not imported (the same rule as export).
 */
function readPayload(payload: unknown, ctx: OpContext): Incoming {
  assertPlainJson(payload, 'payload')
  const o = record(payload, 'payload')
  if (o.format !== undefined) {
    onlyKeys(o, ['format', 'version', 'exportedAt', 'activeId', 'profiles'], 'payload')
    if (o.format !== ENVELOPE_FORMAT) throw invalid('payload.format', `must be "${ENVELOPE_FORMAT}"`)
  } else {
    onlyKeys(o, ['version', 'activeId', 'profiles', 'sessions', 'memoryUndo'], 'payload')
    if (o.sessions !== undefined) record(o.sessions, 'payload.sessions')
    if (o.memoryUndo !== undefined) record(o.memoryUndo, 'payload.memoryUndo')
  }
  if (o.version !== 1) throw invalid('payload.version', `must be 1 (got ${JSON.stringify(o.version) ?? 'nothing'})`)
  if (o.exportedAt !== undefined && typeof o.exportedAt !== 'string') throw invalid('payload.exportedAt', 'must be a string')
  if (!Array.isArray(o.profiles)) throw invalid('payload.profiles', 'must be an array')
  if (o.profiles.length === 0) throw invalid('payload.profiles', 'must hold at least one profile')
  if (o.profiles.length > LIMITS.profiles) {
    throw invalid('payload.profiles', `has ${o.profiles.length} profiles, over the limit of ${LIMITS.profiles}`, LIMITS.profiles)
  }
  const defaults = { source: 'import' as const, at: ctx.now, newId: () => ctx.newId('m') }
  const profiles = o.profiles.map((raw, i) => {
    const field = `payload.profiles[${i}]`
    return profile(isRecord(raw) ? withDefaults(raw, ctx) : raw, field, defaults)
  })
  const seen = new Set<string>()
  profiles.forEach((p, i) => {
    if (seen.has(p.id)) throw invalid(`payload.profiles[${i}].id`, `repeats the id "${p.id}"`)
    seen.add(p.id)
  })
  if (o.activeId === undefined || o.activeId === '') return { profiles }
  if (typeof o.activeId !== 'string' || !seen.has(o.activeId)) {
    throw invalid('payload.activeId', 'must name one of the imported profiles')
  }
  return { profiles, activeId: o.activeId }
}

function merge(state: State, incoming: Incoming): OpResult {
  const total = state.profiles.length + incoming.profiles.length
  if (total > LIMITS.profiles) {
    throw invalid('payload.profiles', `would make ${total} profiles, over the limit of ${LIMITS.profiles}`, LIMITS.profiles)
  }
  const taken = new Set(state.profiles.map((p) => p.id))
  const renamed: { from: string; to: string }[] = []
  const added = incoming.profiles.map((p) => {
    // `<id>-2`, `<id>-3`…: still a valid id, since ids start with a letter or digit.
    const newId = unique(p.id, taken, 64, '-')
    taken.add(newId)
    if (newId === p.id) return p
    renamed.push({ from: p.id, to: newId })
    return { ...p, id: newId }
  })
  const n = added.length
  const line = `已导入 ${n} 套配置` + (renamed.length > 0 ? `，其中 ${renamed.length} 套因 id 重复已改号` : '')
  return {
    state: { ...state, profiles: [...state.profiles, ...added] },
    notice: notice('state.imported', line, { imported: n, renamed: renamed.length, mode: 'merge' }),
    extra: { imported: n, renamed },
    changed: true,
  }
}

/** Replace every profile; conversation settings stay, but pins to profiles that no longer exist are released. */
function replace(state: State, incoming: Incoming): OpResult {
  const profiles = incoming.profiles
  const { sessions, unbound } = unbindMissing(state.sessions, new Set(profiles.map((p) => p.id)))
  const n = profiles.length
  const line = `已用导入的 ${n} 套配置替换全部配置` + (unbound > 0 ? `，${unbound} 个对话改回跟随全局` : '')
  return {
    state: { version: 1, activeId: incoming.activeId ?? profiles[0]!.id, profiles, sessions, memoryUndo: bareRecord() },
    notice: notice('state.imported', line, { imported: n, unbound, mode: 'replace' }),
    extra: { imported: n, unbound },
    changed: true,
  }
}

/** `state.import {payload, mode}`: merge renumbers colliding ids and keeps the active profile; replace swaps all. */
export function applyImport(state: State, cmd: Record<string, unknown>, ctx: OpContext): OpResult {
  onlyKeys(cmd, ['op', 'payload', 'mode'], 'command')
  if (cmd.mode !== 'merge' && cmd.mode !== 'replace') throw invalid('mode', 'must be "merge" or "replace"')
  const incoming = readPayload(cmd.payload, ctx)
  return cmd.mode === 'merge' ? merge(state, incoming) : replace(state, incoming)
}
