/**
 * The front matter of a Markdown profile or agent file, read with a real YAML parser: our own keys (name, emoji,
 * memory on/off) and the keys coding tools' agent files carry (description, tools, model). A `tools` list becomes a
 * custom tool profile of the names this host has (tool-profiles.ts); every key or name that is not used is reported.
 * Pure.
 */
import { parse as parseYaml } from 'yaml'
import type { ModelChoice, ToolSettings } from '../state/model.ts'
import { LIMITS } from '../state/model.ts'
import { asText } from '../shared/card-text.ts'
import { note, type ImportNote } from '../shared/import-notes.ts'
import { kindOf } from '../shared/tool-profiles.ts'
import { checkYamlDepth } from './bounds.ts'
import { ImportError } from '../shared/errors.ts'

/** What front matter gives a profile. */
export interface Front {
  name?: string
  emoji?: string
  memory?: boolean
  /** An agent file's description of itself, kept as the first part of the role. */
  description?: string
  tools?: ToolSettings
  /** `model: <provider>/<model>`, as our own files write a profile's model. */
  model?: ModelChoice
  /** True when the file has keys only agent files have (description, tools, model): its body is a prompt. */
  agent: boolean
}

/** Front matter keys as we read them (a Map: a key `constructor` must not find Object's). */
const KEYS = new Map<string, 'name' | 'emoji' | 'memory' | 'description' | 'tools' | 'model'>(
  Object.entries({
    name: 'name',
    title: 'name',
    名称: 'name',
    名字: 'name',
    名称或名字: 'name',
    emoji: 'emoji',
    icon: 'emoji',
    表情: 'emoji',
    图标: 'emoji',
    memory: 'memory',
    memoryenabled: 'memory',
    记忆: 'memory',
    description: 'description',
    描述: 'description',
    简介: 'description',
    说明: 'description',
    tools: 'tools',
    'allowed-tools': 'tools',
    allowedtools: 'tools',
    工具: 'tools',
    model: 'model',
    模型: 'model',
  } as const),
)
const ON = ['on', 'true', 'yes', 'y', '1', '开', '开启', '启用', '是']
const OFF = ['off', 'false', 'no', 'n', '0', '关', '关闭', '停用', '否']

/**
 * Characters of front matter we read. Agent files carry a few hundred to a few thousand; a YAML parse costs up to
 * about 3 ms per thousand characters (a flow list of short names), so 16 KiB holds the host at most about 50 ms.
 */
export const FRONT_LIMIT = 16 * 1024

/** Characters of a key that are looked at; no key we read is longer. */
const KEY_MATCH = 40
const keyOf = (k: string) =>
  KEYS.get(
    k
      .slice(0, KEY_MATCH)
      .trim()
      .replace(/[:：]$/, '')
      .replace(/[\s_]/g, '')
      .toLowerCase(),
  )
/** Tool names of a `tools` list that are read; a list longer than every host's tools is cut, and said so. */
const TOOL_NAMES = 500
/** Unknown tool names a warning names; the rest are counted. */
const NAMED = 20

/**
 * `key: value` lines, each value read as written. Hand-written agent files in the wild often hold values YAML refuses
 * (a description with `: ` or `<example>` in it); this keeps them readable instead of losing the whole front matter.
 */
function looseLines(text: string): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const line of text.split('\n')) {
    const m = /^([^\s:：#][^:：]*)[:：]\s?(.*)$/.exec(line.replace(/\r$/, ''))
    if (m !== null) out[m[1]!.trim()] = m[2]!.trim().replace(/^(["'])(.*)\1$/, '$2')
  }
  return out
}

/** Host tool names for the names an agent file lists: `Read`, `WebFetch`, `web-fetch`, `Bash(git:*)` → read, web_fetch, bash. */
function hostName(name: string): string {
  // The first `(` of a name that ends in `)`, found by hand: `\(.*\)$` retried `.*` from every `(` of a long run.
  const open = name.indexOf('(')
  const bare = open >= 0 && name.endsWith(')') ? name.slice(0, open) : name
  return bare
    .slice(0, LIMITS.toolName + 1)
    .trim()
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/-/g, '_')
    .toLowerCase()
}

/** An agent file's `tools` (a list, a comma-separated text, or a map of name → on/off) as a custom tool profile. */
function toolsOf(value: unknown, w: ImportNote[]): ToolSettings | undefined {
  let names: string[]
  if (typeof value === 'string') names = value.split(/[,\s]+/)
  else if (Array.isArray(value)) names = value.map((v) => String(v))
  else if (typeof value === 'object' && value !== null)
    names = Object.entries(value)
      .filter(([, on]) => on === true)
      .map(([n]) => n)
  else {
    w.push(note('toolsNotList'))
    return undefined
  }
  names = names.map((n) => n.trim()).filter((n) => n !== '')
  if (names.length > TOOL_NAMES) {
    w.push(note('toolsCut', { count: names.length, limit: TOOL_NAMES }))
    names = names.slice(0, TOOL_NAMES)
  }
  if (names.length === 0 || names.some((n) => n === '*' || /^all$/i.test(n))) return undefined
  const known: string[] = []
  const unknown: string[] = []
  for (const n of names) {
    const host = hostName(n)
    if (kindOf(host) !== undefined) {
      if (!known.includes(host)) known.push(host)
    } else unknown.push(n)
  }
  if (unknown.length > 0) {
    const names = unknown
      .slice(0, NAMED)
      .map((n) => n.slice(0, LIMITS.toolName))
      .join(', ')
    w.push(note('toolsUnknown', { names, count: unknown.length, more: Math.max(0, unknown.length - NAMED) }))
  }
  return { profile: 'custom', add: known.slice(0, LIMITS.toolOverrides), remove: [] }
}

/** Read front matter text (between the `---` lines). What it cannot use is reported in `w`, never guessed. */
export function readFront(text: string, w: ImportNote[]): Front {
  let value: unknown
  if (text.length > FRONT_LIMIT)
    throw new ImportError('front matter', 'frontTooLong', { length: text.length, limit: FRONT_LIMIT })
  checkYamlDepth(text, 'front matter')
  try {
    // Silent: a file from the internet must not write the yaml package's warnings into the host's log.
    value = parseYaml(text, { maxAliasCount: 50, uniqueKeys: false, logLevel: 'error' })
  } catch {
    w.push(note('frontNotYaml'))
    value = looseLines(text)
  }
  const front: Front = { agent: false }
  if (value === null || value === undefined) return front
  if (typeof value !== 'object' || Array.isArray(value)) {
    w.push(note('frontNotMap'))
    return front
  }
  for (const [rawKey, raw] of Object.entries(value)) {
    const key = keyOf(rawKey)
    const field = `front matter ${rawKey.slice(0, KEY_MATCH)}`
    if (key === undefined) {
      w.push(note('frontUnknownKey', { key: field.replace(/^front matter /, '').slice(0, 60) }))
      continue
    }
    if (key === 'tools') {
      front.agent = true
      const tools = toolsOf(raw, w)
      if (tools !== undefined) front.tools = tools
      continue
    }
    if (key === 'memory' && typeof raw === 'boolean') {
      front.memory = raw
      continue
    }
    const text = asText(raw === null ? '' : raw, field, w)
    if (key === 'model') {
      const model = modelOf(text)
      if (model !== undefined) front.model = model
      else {
        // A coding tool's agent file names its own models (`sonnet`, `inherit`): no provider this host could route.
        front.agent = true
        if (text.trim() !== '') w.push(note('modelNoProvider', { value: text.slice(0, 40) }))
      }
    } else if (key === 'memory') {
      const v = text.trim().toLowerCase()
      if (ON.includes(v)) front.memory = true
      else if (OFF.includes(v)) front.memory = false
      else w.push(note('memorySwitch', { value: text.slice(0, 20) }))
    } else if (key === 'description') {
      front.agent = true
      if (text.trim() !== '') front.description = text.trim()
    } else {
      front[key] = text
    }
  }
  return front
}

/** `provider/model` (the model id may hold more `/`) within the id limits, else undefined. */
function modelOf(text: string): ModelChoice | undefined {
  const v = text.trim()
  const cut = v.indexOf('/')
  if (cut <= 0 || cut === v.length - 1 || /\s/.test(v) || v.length > 2 * LIMITS.modelId) return undefined
  const provider = v.slice(0, cut)
  const model = v.slice(cut + 1)
  return provider.length <= LIMITS.modelId && model.length <= LIMITS.modelId ? { provider, model } : undefined
}

/** A value as a YAML scalar, quoted only when plain YAML (1.1 or 1.2) would read it differently. */
export function yamlScalar(v: string): string {
  const plain =
    v !== '' &&
    v === v.trim() &&
    !/^[-?:,[\]{}#&*!|>'"%@`~]/.test(v) &&
    !/:\s|:$|\s#/.test(v) &&
    !/^(true|false|yes|no|on|off|null|y|n|[-+]?[\d.]+)$/i.test(v)
  return plain ? v : JSON.stringify(v)
}
