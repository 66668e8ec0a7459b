/**
 * The plugin's configuration: defaults, and validation of the Loader row's `config` with errors that name the field.
 * Written by hand because the host's schema library may only be imported as a type from an out-of-tree plugin.
 */

/** Resolved configuration. Every field has a default; the row's `config` may set any of them. */
export interface Config {
  /** Data file; default `$DSH_AGENT_PROFILES_DATA`, else `<DSH_HOME>/agent-profiles/profiles.sqlite`. */
  dataFile?: string
  /** Characters of memory (summary + items) injected per request. */
  memoryBudget: number
  /**
   * Characters of recall per turn: the memory items relevant to the user's new message, sent after it as runtime
   * context (0 turns recall off).
   */
  recallBudget: number
  /** What a subagent inherits from its parent conversation's profile. */
  subagents: 'none' | 'inherit'
  /**
   * A running conversation keeps the memory text it started with while only the model's tool, the background job and
   * compression write (hand edits, a profile switch and the ⚙ panel's refresh still apply from the next turn).
   */
  cacheStableMemory: boolean
  /** How often (ms) the host's sessions are listed to forget the settings of conversations it no longer has. */
  sessionCheckMs: number
  memory: {
    /** Background extraction on/off. */
    autoExtract: boolean
    /** Extract after every N completed turns of a conversation. */
    everyTurns: number
    /** Characters of conversation excerpt sent per extraction. */
    excerptChars: number
    /** Compress a profile's memory when summary + items pass this many characters. */
    compressAt: number
    /** Give up on one background model call after this long. */
    timeoutMs: number
    /** Start an extraction only after the conversation has been idle this long (ms). */
    idleMs: number
  }
}

export const DEFAULT_CONFIG: Config = {
  memoryBudget: 3000,
  recallBudget: 2000,
  subagents: 'none',
  cacheStableMemory: true,
  sessionCheckMs: 600_000,
  memory: { autoExtract: true, everyTurns: 5, excerptChars: 6000, compressAt: 5000, timeoutMs: 60_000, idleMs: 1000 },
}

/** Thrown for a bad row config; the message names the field and what it accepts. */
export class ConfigError extends Error {}

function integer(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`agent-profiles: config: ${field} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`)
  }
  return value
}

function object(value: unknown, field: string): Record<string, unknown> {
  if (value === undefined || value === null) return {}
  if (typeof value !== 'object' || Array.isArray(value)) throw new ConfigError(`agent-profiles: config: ${field} must be an object`)
  return value as Record<string, unknown>
}

/** Merge the row config over the defaults, validating every field it sets. */
export function resolveConfig(raw: unknown): Config {
  const c = object(raw, 'config')
  const m = object(c.memory, 'memory')
  const d = DEFAULT_CONFIG
  if (c.dataFile !== undefined && (typeof c.dataFile !== 'string' || c.dataFile.trim() === '')) {
    throw new ConfigError('agent-profiles: config: dataFile must be a non-empty path')
  }
  if (c.subagents !== undefined && c.subagents !== 'none' && c.subagents !== 'inherit') {
    throw new ConfigError(`agent-profiles: config: subagents must be "none" or "inherit", got ${JSON.stringify(c.subagents)}`)
  }
  if (c.cacheStableMemory !== undefined && typeof c.cacheStableMemory !== 'boolean') {
    throw new ConfigError('agent-profiles: config: cacheStableMemory must be true or false')
  }
  if (m.autoExtract !== undefined && typeof m.autoExtract !== 'boolean') {
    throw new ConfigError('agent-profiles: config: memory.autoExtract must be true or false')
  }
  return {
    ...(typeof c.dataFile === 'string' ? { dataFile: c.dataFile } : {}),
    memoryBudget: c.memoryBudget === undefined ? d.memoryBudget : integer(c.memoryBudget, 'memoryBudget', 200, 100_000),
    recallBudget: c.recallBudget === undefined ? d.recallBudget : integer(c.recallBudget, 'recallBudget', 0, 20_000),
    subagents: (c.subagents as Config['subagents'] | undefined) ?? d.subagents,
    cacheStableMemory: (c.cacheStableMemory as boolean | undefined) ?? d.cacheStableMemory,
    sessionCheckMs: c.sessionCheckMs === undefined ? d.sessionCheckMs : integer(c.sessionCheckMs, 'sessionCheckMs', 1000, 86_400_000),
    memory: {
      autoExtract: (m.autoExtract as boolean | undefined) ?? d.memory.autoExtract,
      everyTurns: m.everyTurns === undefined ? d.memory.everyTurns : integer(m.everyTurns, 'memory.everyTurns', 1, 1000),
      excerptChars: m.excerptChars === undefined ? d.memory.excerptChars : integer(m.excerptChars, 'memory.excerptChars', 500, 100_000),
      compressAt: m.compressAt === undefined ? d.memory.compressAt : integer(m.compressAt, 'memory.compressAt', 500, 1_000_000),
      timeoutMs: m.timeoutMs === undefined ? d.memory.timeoutMs : integer(m.timeoutMs, 'memory.timeoutMs', 1000, 600_000),
      idleMs: m.idleMs === undefined ? d.memory.idleMs : integer(m.idleMs, 'memory.idleMs', 0, 600_000),
    },
  }
}
