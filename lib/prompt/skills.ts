/**
 * The profiles as skills: a skill provider named `agent-profiles` that lists every profile with content
 * in the host's skill catalog, so the model can load any profile's full text by name and the user can see which
 * agents this machine has. Owns the skill names, the one-line descriptions and the provider's failure containment.
 * It never renders ahead of time (a skill's text is rendered from the profile as it is when the skill is loaded),
 * never writes the store, and never lets a failure reach the host: `list` and `get` degrade to "no such skill".
 */
import type { Context } from '@deepseek-ai/cordis'
import type { SkillCandidate, SkillDefinition, SkillResourceBase } from '@deepseek-ai/dsh-skill'
import { createHash } from 'node:crypto'
import type { Config } from '../config/config.ts'
import { hasContent, type Profile } from '../state/model.ts'
import { renderProfile } from './render.ts'
import type { ProfileStore } from '../store/store.ts'
import { errorText } from '../shared/errors.ts'
import type { SkillsStatus } from '../shared/diagnostics.ts'
import type { Log } from '../shared/log.ts'

/** The provider's name in the host's skill registry; every candidate carries it. */
export const SKILL_PROVIDER = 'agent-profiles'
/** Every skill name starts with this, so the profiles read as one family in the catalog. */
const SKILL_PREFIX = 'agent-profile-'
/** Longest description, in UTF-16 units (the unit the host measures descriptions in). */
export const DESCRIPTION_MAX = 80

// The host's rank for bundled skills, its lowest precedence: a skill file of the user's own with the same name wins.
const RANK = 600
const SOURCE = 'custom'
const INVOCATION = { modelInvocable: true, userInvocable: true } as const
const RESOURCES: SkillResourceBase = { kind: 'opaque', description: '无（智能体配置只有这段正文）' }
// The host's skill-name grammar (`isSkillName`), re-stated because host values may only be imported as types.
const SKILL_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/
/** Distinct failure messages logged; past this, failures are only counted. */
const LOGGED_MAX = 100

/** One catalog line: which profile, under which name, described how. */
interface SkillEntry {
  name: string
  description: string
  profileId: string
}

/** Letters and digits of `text` in lower-case ASCII, runs of anything else as one hyphen; accents are dropped. */
function asciiKebab(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
}

/** The name a profile asks for before uniqueness: from its name when that has ASCII letters, else from its id. */
function baseName(profile: Pick<Profile, 'id' | 'name'>): string {
  const fromName = asciiKebab(profile.name)
  // The id never changes, so a Chinese-named profile keeps its skill name through every rename.
  return SKILL_PREFIX + (/[a-z]/.test(fromName) ? fromName : asciiKebab(profile.id))
}

function idHash(id: string): string {
  return createHash('sha256').update(id).digest('hex')
}

/** The first sentence of `text` on one line: up to the first sentence mark or line break. */
function firstSentence(text: string): string {
  // Only the start can reach an 80-character line; scanning all 4,000 characters of a long role would be waste.
  const trimmed = text.trim().slice(0, DESCRIPTION_MAX * 4)
  const end = /[。！？!?；;]|\.(?=\s|$)|\n/.exec(trimmed)
  const sentence = end === null ? trimmed : trimmed.slice(0, end.index + (end[0] === '\n' ? 0 : 1))
  return sentence.replace(/\s+/g, ' ').trim()
}

/** `text` cut to `max` UTF-16 units with an ellipsis, never inside a surrogate pair. */
function bounded(text: string, max: number): string {
  if (text.length <= max) return text
  let cut = max - 1
  const code = text.charCodeAt(cut - 1)
  if (code >= 0xd800 && code <= 0xdbff) cut--
  return `${text.slice(0, cut).trimEnd()}…`
}

/** One line of at most {@link DESCRIPTION_MAX} units: the profile's name, then its role's first sentence. */
function skillDescription(profile: Pick<Profile, 'name' | 'role'>): string {
  const name = profile.name.replace(/\s+/g, ' ').trim() || '未命名配置'
  const sentence = firstSentence(profile.role) || '智能体配置'
  return bounded(`${name}：${sentence}`, DESCRIPTION_MAX)
}

/**
 * The catalog of a profile list: profiles with content, each under a unique valid skill name. Names are handed out
 * oldest profile first, and a profile whose name is taken gets a suffix from its id — so a new profile never renames
 * an existing skill. Pure.
 */
function skillCatalog(profiles: readonly Profile[]): SkillEntry[] {
  // A stable sort: profiles created in the same millisecond keep the store's order, which is creation order (an id
  // tie-break would hand the plain name to whichever random id sorts first).
  const ordered = profiles.filter((p) => hasContent(p)).sort((a, b) => a.createdAt - b.createdAt)
  const taken = new Set<string>()
  const entries: SkillEntry[] = []
  for (const profile of ordered) {
    const base = baseName(profile)
    let name = base
    if (taken.has(name)) {
      const hash = idHash(profile.id)
      for (let n = 6; taken.has(name) && n <= hash.length; n += 2) name = `${base}-${hash.slice(0, n)}`
      for (let n = 2; taken.has(name); n++) name = `${base}-${hash.slice(0, 6)}-${n}`
    }
    if (!SKILL_NAME.test(name)) continue
    taken.add(name)
    entries.push({ name, description: skillDescription(profile), profileId: profile.id })
  }
  return entries
}

/** The profile id a candidate points at, or undefined; reading a hostile candidate may throw (the caller contains it). */
function locatedId(candidate: unknown): string | undefined {
  if (typeof candidate !== 'object' || candidate === null) return undefined
  const locator = (candidate as { locator?: unknown }).locator
  if (typeof locator !== 'object' || locator === null) return undefined
  const id = (locator as { profileId?: unknown }).profileId
  return typeof id === 'string' ? id : undefined
}

/**
 * The provider's state: its catalog (memoized on the store's state), the load and failure counts, and the two calls the
 * host's skill registry makes (`list`, `get`), each containing its own failures.
 */
class SkillProvider {
  loaded = 0
  failures = 0
  lastFailure: SkillsStatus['lastFailure']
  readonly #logged = new Set<string>()
  readonly #store: Pick<ProfileStore, 'state'>
  readonly #config: Pick<Config, 'memoryBudget'>
  readonly #log: Pick<Log, 'warn'>
  // The store replaces its frozen state on every change, so the state object itself is the cache key.
  #memo: { state: unknown; entries: SkillEntry[]; candidates: SkillCandidate[] } | undefined

  constructor(store: Pick<ProfileStore, 'state'>, config: Pick<Config, 'memoryBudget'>, log: Pick<Log, 'warn'>) {
    this.#store = store
    this.#config = config
    this.#log = log
  }

  /** The catalog of the store's state now, with the candidates the registry lists. */
  current(): { entries: SkillEntry[]; candidates: SkillCandidate[] } {
    const state = this.#store.state
    if (this.#memo?.state !== state) {
      const entries = skillCatalog(state.profiles)
      this.#memo = { state, entries, candidates: entries.map(candidateOf) }
    }
    return this.#memo
  }

  // A failure is "no such skill" for the caller; the user hears about each distinct one once, not on every turn.
  #fail(message: string): undefined {
    this.failures++
    this.lastFailure = { at: Date.now(), message }
    if (this.#logged.size < LOGGED_MAX && !this.#logged.has(message)) {
      this.#logged.add(message)
      this.#log.warn(`agent-profiles: skill ${message}`)
    }
    return undefined
  }

  /** The registry's `list`: every profile with content as a candidate. */
  async list(): Promise<SkillCandidate[]> {
    try {
      return this.current().candidates
    } catch (error) {
      // An empty list rather than a throw: the host drops the whole catalog, every provider's, when one list() throws.
      this.#fail(`catalog failed: ${errorText(error)}`)
      return []
    }
  }

  /** The registry's `get`: the profile a candidate points at, rendered as it is now. */
  async get(candidate: unknown): Promise<SkillDefinition | undefined> {
    try {
      const id = locatedId(candidate)
      if (id === undefined) return this.#fail('load refused: the candidate names no profile')
      const entry = this.current().entries.find((e) => e.profileId === id)
      const profile = this.#store.state.profiles.find((p) => p.id === id)
      if (entry === undefined || profile === undefined)
        return this.#fail(`load refused: no profile with content has id "${id}"`)
      const content = renderProfile(profile, undefined, { memoryBudget: this.#config.memoryBudget }).text
      this.loaded++
      // The current name, not the candidate's: after a rename the registry sees the mismatch and refreshes its catalog.
      return {
        name: entry.name,
        description: entry.description,
        invocation: INVOCATION,
        source: SOURCE,
        provider: SKILL_PROVIDER,
        resourceBase: RESOURCES,
        content,
      }
    } catch (error) {
      return this.#fail(`load failed: ${errorText(error)}`)
    }
  }

  /** Skills listed now; 0 when the catalog cannot be read (counted when list() meets it). */
  listed(): number {
    try {
      return this.current().entries.length
    } catch {
      return 0
    }
  }
}

/** The candidate the registry lists for one catalog line. */
function candidateOf(e: SkillEntry): SkillCandidate {
  return Object.freeze({
    name: e.name,
    description: e.description,
    invocation: INVOCATION,
    source: SOURCE,
    provider: SKILL_PROVIDER,
    resourceBase: RESOURCES,
    rank: RANK,
    locator: Object.freeze({ profileId: e.profileId }),
  })
}

/**
 * Register the provider and keep its catalog in step with the store. Returns the status reader; the registration and
 * the store subscription end when `ctx` unloads. `ctx` must carry the skills service (index.ts installs this part
 * only when it does).
 */
export function installSkills(
  ctx: Context,
  store: Pick<ProfileStore, 'state' | 'onChange'>,
  config: Pick<Config, 'memoryBudget'>,
  log: Pick<Log, 'warn'>,
): { status(): SkillsStatus } {
  const provider = new SkillProvider(store, config, log)
  let available = false
  let reason: string | undefined
  let invalidate: (() => void) | undefined
  try {
    ctx.skills.registerProvider((control) => {
      invalidate = control.invalidate
      return {
        name: SKILL_PROVIDER,
        list: () => provider.list(),
        get: (candidate: unknown) => provider.get(candidate),
      }
    })
    available = true
  } catch (error) {
    reason = `the skill provider could not be registered: ${errorText(error)}`
    log.warn(`agent-profiles: ${reason}`)
  }
  if (available && invalidate !== undefined) {
    // onChange fires only after a successful write, so the catalog is never recomputed from a change that failed.
    const off = store.onChange(() => invalidate?.())
    ctx.effect(() => off, 'agent-profiles:skills')
  }

  return {
    status: () => ({
      available,
      ...(reason === undefined ? {} : { reason }),
      listed: available ? provider.listed() : 0,
      loaded: provider.loaded,
      failures: provider.failures,
      ...(provider.lastFailure === undefined ? {} : { lastFailure: provider.lastFailure }),
    }),
  }
}
