/**
 * Validation of a profile's tool settings (state/model.ts `ToolSettings`): one of the four tool profiles, and override
 * lists of distinct tool names within LIMITS.toolOverrides names of LIMITS.toolName characters. It never decides
 * which tools a profile gets (lib/shared/tool-profiles.ts does).
 */
import { LIMITS, TOOL_NAME, TOOL_PROFILES, type ToolProfileName, type ToolSettings } from '../state/model.ts'
import { invalid, kind, onlyKeys, record } from './core.ts'

/** One list of tool names in a profile's tool settings: distinct names, within the count and length limits. */
function toolNames(v: unknown, field: string): string[] {
  if (v === undefined) return []
  if (!Array.isArray(v)) throw invalid(field, `must be an array of tool names (got ${kind(v)})`)
  if (v.length > LIMITS.toolOverrides) {
    throw invalid(field, `has ${v.length} names, over the limit of ${LIMITS.toolOverrides}`, LIMITS.toolOverrides)
  }
  const seen = new Set<string>()
  return v.map((name: unknown, i) => {
    const f = `${field}[${i}]`
    if (typeof name !== 'string') throw invalid(f, `must be a string (got ${kind(name)})`)
    if (name.length > LIMITS.toolName) throw invalid(f, `is ${name.length} characters, over the limit of ${LIMITS.toolName}`, LIMITS.toolName)
    if (!TOOL_NAME.test(name)) throw invalid(f, 'must be a tool name: letters, digits, "_", "-", "." or ":", starting with a letter, digit or "_"')
    if (seen.has(name)) throw invalid(f, `repeats "${name}"`)
    seen.add(name)
    return name
  })
}

/** A profile's tool settings (lib/state/model.ts `ToolSettings`); absent lists are empty. */
export function toolSettings(v: unknown, field: string): ToolSettings {
  const o = record(v, field)
  onlyKeys(o, ['profile', 'add', 'remove'], field)
  if (!(TOOL_PROFILES as readonly unknown[]).includes(o.profile)) {
    throw invalid(`${field}.profile`, `must be one of ${TOOL_PROFILES.join(', ')} (got ${JSON.stringify(o.profile) ?? 'nothing'})`)
  }
  return { profile: o.profile as ToolProfileName, add: toolNames(o.add, `${field}.add`), remove: toolNames(o.remove, `${field}.remove`) }
}
