/**
 * Tool profiles as pure rules: which of the host's tools a profile's conversations may see and call, the catalogue of
 * the tool names this host (dsh 0.1.0-rc.8) ships, and the size of the tool schemas a request then carries.
 * Shared by the host half (lib/tools/install.ts) and the settings page. It never touches the host, the store or the
 * network; what is actually offered is decided by the caller's list of available names.
 *
 * The profiles:
 * - `full` — every tool, unchanged; overrides are ignored (and not offered), so nothing differs from running without
 *   tool profiles at all.
 * - `read-only` — reading, searching, the web, planning, asking the user and memory. No tool that writes files, runs
 *   commands or code, or starts or steers subagents. Fail-closed: a tool this catalogue does not know (another
 *   plugin's, an MCP server's) is hidden until the user adds it by name.
 * - `worker` — everything except asking the user (an unattended worker would wait forever) and subagent tools (one
 *   job must not spawn more). Fail-open: unknown tools stay.
 * - `custom` — starts from nothing: exactly the tools in `add` (minus `remove`). Starting empty makes the list the
 *   user typed the whole truth, which a deny list starting from `full` could not promise once the host adds tools.
 * Every profile keeps this plugin's `memory_save` (the profile's memory switch governs it), its `memory_search` and a
 * subagent's `report`: all three live in the conversation's own scope, where the host lets no restriction reach.
 * Overrides apply after the profile's rule, `remove` wins over `add`, and only when the profile is not `full`.
 */
import type { ToolProfileName, ToolSettings } from '../state/model.ts'

/** What a tool does, as far as tool profiles care. */
export type ToolKind =
  | 'read'
  | 'web'
  | 'plan'
  | 'ask'
  | 'memory'
  | 'write'
  | 'run'
  | 'delegate'
  /** A subagent's way to hand its answer back; never narrowed (the host keeps it in the child's own scope anyway). */
  | 'reply'

/**
 * The tool names dsh 0.1.0-rc.8 ships (every shipped agent preset, headless and web, plus this plugin's own
 * `memory_save` and `memory_search`), as recorded from real requests and read from the tool packages.
 */
export const TOOL_KINDS: Readonly<Record<string, ToolKind>> = {
  read: 'read',
  read_image: 'read',
  glob: 'read',
  grep: 'read',
  skill: 'read',
  cordis_inspect_list: 'read',
  cordis_inspect_query: 'read',
  cordis_inspect_self: 'read',
  web_search: 'web',
  web_fetch: 'web',
  todo_write: 'plan',
  exit_plan_mode: 'plan',
  create_goal: 'plan',
  get_goal: 'plan',
  update_goal: 'plan',
  ask_user_question: 'ask',
  memory_save: 'memory',
  memory_search: 'memory',
  write: 'write',
  edit: 'write',
  str_replace_editor: 'write',
  bash: 'run',
  pwsh: 'run',
  job_list: 'run',
  job_output: 'run',
  job_kill: 'run',
  cordis_define: 'run',
  cordis_run: 'run',
  cordis_stop: 'run',
  cordis_undefine: 'run',
  subagent: 'delegate',
  subagent_fork: 'delegate',
  subagent_codex: 'delegate',
  subagent_claude_code: 'delegate',
  send_message: 'delegate',
  interrupt_agent: 'delegate',
  list_agents: 'delegate',
  ralph: 'delegate',
  workflow: 'delegate',
  report: 'reply',
}

/** The host's Code Mode transport: never narrowed (the host refuses to), its SDK follows the restriction instead. */
export const CODE_TRANSPORT = 'run_code'

const READ_ONLY: ReadonlySet<ToolKind> = new Set(['read', 'web', 'plan', 'ask', 'memory', 'reply'])
const WORKER_DROPS: ReadonlySet<ToolKind> = new Set(['ask', 'delegate'])

/** The kind of a tool name, or undefined for a tool this catalogue does not know. */
export function kindOf(name: string): ToolKind | undefined {
  return Object.hasOwn(TOOL_KINDS, name) ? TOOL_KINDS[name] : undefined
}

/** The profile in effect for stored settings (absent = full). */
export function profileOf(settings: ToolSettings | undefined): ToolProfileName {
  return settings?.profile ?? 'full'
}

/** True when the settings change nothing (full, whatever overrides are stored). */
export function isFull(settings: ToolSettings | undefined): boolean {
  return profileOf(settings) === 'full'
}

function baseAdmits(profile: ToolProfileName, name: string): boolean {
  const kind = kindOf(name)
  switch (profile) {
    case 'full':
      return true
    case 'read-only':
      return kind !== undefined && READ_ONLY.has(kind)
    case 'worker':
      return kind === undefined || !WORKER_DROPS.has(kind)
    case 'custom':
      return kind === 'reply' || kind === 'memory'
  }
}

/** Whether a conversation under `settings` may see and call the tool `name`. */
export function admits(settings: ToolSettings | undefined, name: string): boolean {
  if (name === CODE_TRANSPORT || settings === undefined || settings.profile === 'full') return true
  if (settings.remove.includes(name)) return false
  return settings.add.includes(name) || baseAdmits(settings.profile, name)
}

/** The settings with the tool `name` turned on or off, as an override only where the profile's own rule differs. */
export function withTool(settings: ToolSettings, name: string, on: boolean): ToolSettings {
  const add = settings.add.filter((n) => n !== name)
  const remove = settings.remove.filter((n) => n !== name)
  const base = admits({ profile: settings.profile, add: [], remove: [] }, name)
  if (on && !base) add.push(name)
  if (!on && base) remove.push(name)
  return { profile: settings.profile, add, remove }
}

/** True when two stored settings mean and say the same (absent equals `full` without overrides). */
export function sameToolSettings(a: ToolSettings | undefined, b: ToolSettings | undefined): boolean {
  const norm = (s: ToolSettings | undefined) => JSON.stringify(s ?? { profile: 'full', add: [], remove: [] })
  return norm(a) === norm(b)
}

/** The outcome of a profile over the tools a host offers. */
export interface ToolSelection {
  /** Offered names the conversation keeps, in the order given. */
  allowed: string[]
  /** Offered names it does not get. */
  hidden: string[]
  /** Names in `add`/`remove` that the host does not offer (misspelt, or from a plugin that is not installed). */
  unknown: string[]
}

/**
 * Apply `settings` to the names the host offers (`available`); `kept` are names the host would not let a restriction
 * hide (registered in a conversation's own scope), which stay whatever the settings say.
 */
export function selectTools(
  settings: ToolSettings | undefined,
  available: readonly string[],
  kept: readonly string[] = [],
): ToolSelection {
  const allowed: string[] = []
  const hidden: string[] = []
  for (const name of available) (admits(settings, name) || kept.includes(name) ? allowed : hidden).push(name)
  if (settings === undefined || settings.profile === 'full') return { allowed, hidden, unknown: [] }
  const offered = new Set(available)
  const unknown = [...new Set([...settings.add, ...settings.remove])].filter((name) => !offered.has(name))
  return { allowed, hidden, unknown }
}

/** One tool's schema size as a request carries it. */
export interface ToolSize {
  name: string
  /** UTF-8 bytes of its entry in the request's `tools` array. */
  bytes: number
}

/** The wire entry of one tool schema, as the host's OpenAI-style adapters send it. */
export function wireEntry(schema: { name: string; description: string; parameters: unknown }): string {
  return JSON.stringify({
    type: 'function',
    function: { name: schema.name, description: schema.description, parameters: schema.parameters },
  })
}

/** UTF-8 byte length of a string. */
export function utf8Bytes(text: string): number {
  let n = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x80) n += 1
    else if (c < 0x800) n += 2
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4
      i++
    } else n += 3
  }
  return n
}

/**
 * Bytes of the `tools` array a request carries when it offers `names` (sizes from `sizes`): the entries, their commas
 * and the brackets; 0 when nothing is offered, because the request then has no `tools` at all.
 */
export function requestBytes(sizes: readonly ToolSize[], names: readonly string[]): number {
  const wanted = new Set(names)
  const picked = sizes.filter((s) => wanted.has(s.name))
  return picked.length === 0 ? 0 : picked.reduce((n, s) => n + s.bytes, 0) + picked.length - 1 + 2
}
