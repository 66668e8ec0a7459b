/**
 * The pure tool-profile rules (lib/shared/tool-profiles.ts) over the tool names the real host ships, and the store's
 * handling of a profile's tool settings: validation naming the field and limit, duplicate, export and import.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { LIMITS, type ToolSettings } from '../../lib/state/model.ts'
import { openStore } from '../../lib/store/open-store.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import {
  TOOL_KINDS,
  admits,
  kindOf,
  requestBytes,
  sameToolSettings,
  selectTools,
  utf8Bytes,
  wireEntry,
  withTool,
} from '../../lib/shared/tool-profiles.ts'
import { STANDARD_TOOLS } from '../support/host-tools.ts'
import { StoreError } from '../../lib/shared/errors.ts'

/** The extra tools of the `cordis` preset, and the headless editor. */
const EXTRA = [
  'cordis_define',
  'cordis_inspect_list',
  'cordis_inspect_query',
  'cordis_inspect_self',
  'cordis_run',
  'cordis_stop',
  'cordis_undefine',
  'str_replace_editor',
]
const MCP = 'mcp__tracker__create_issue'

const settings = (profile: ToolSettings['profile'], add: string[] = [], remove: string[] = []): ToolSettings => ({
  profile,
  add,
  remove,
})

describe('what each tool profile allows', () => {
  it('knows every tool name the host ships', () => {
    for (const name of [...STANDARD_TOOLS, ...EXTRA]) expect(kindOf(name), name).toBeDefined()
  })

  it('full offers everything, unknown tools included, and ignores stored overrides', () => {
    const all = [...STANDARD_TOOLS, ...EXTRA, MCP]
    expect(selectTools(undefined, all)).toEqual({ allowed: all, hidden: [], unknown: [] })
    expect(selectTools(settings('full', ['nope'], ['bash']), all)).toEqual({ allowed: all, hidden: [], unknown: [] })
  })

  it('read-only keeps reading, searching, the web, planning, asking and memory; drops writers, shells, code and subagents', () => {
    const { allowed, hidden } = selectTools(settings('read-only'), [...STANDARD_TOOLS, ...EXTRA, MCP])
    expect(allowed).toEqual([
      'ask_user_question',
      'create_goal',
      'exit_plan_mode',
      'get_goal',
      'glob',
      'grep',
      'memory_save',
      'read',
      'read_image',
      'skill',
      'todo_write',
      'update_goal',
      'web_search',
      'cordis_inspect_list',
      'cordis_inspect_query',
      'cordis_inspect_self',
    ])
    for (const name of [
      'write',
      'edit',
      'str_replace_editor',
      'bash',
      'job_kill',
      'cordis_run',
      'cordis_define',
      'subagent',
      'subagent_fork',
      'send_message',
      'workflow',
      'ralph',
    ])
      expect(hidden, name).toContain(name)
    // Fail-closed: a tool nobody classified (an MCP server's) could write anything.
    expect(hidden).toContain(MCP)
  })

  it('worker drops asking the user and every subagent tool, and keeps tools it does not know', () => {
    const { allowed, hidden } = selectTools(settings('worker'), [...STANDARD_TOOLS, MCP])
    expect(hidden.sort()).toEqual([
      'ask_user_question',
      'interrupt_agent',
      'list_agents',
      'ralph',
      'send_message',
      'subagent',
      'subagent_fork',
      'workflow',
    ])
    expect(allowed).toContain('bash')
    expect(allowed).toContain('write')
    expect(allowed).toContain(MCP)
  })

  it('custom starts from nothing: exactly what is added, besides the memory tool', () => {
    expect(selectTools(settings('custom'), STANDARD_TOOLS).allowed).toEqual(['memory_save'])
    expect(selectTools(settings('custom', ['read', 'grep']), STANDARD_TOOLS).allowed).toEqual([
      'grep',
      'memory_save',
      'read',
    ])
  })

  it('a subagent keeps its way to report back, and the plugin its memory tool, under every profile', () => {
    for (const p of ['read-only', 'worker', 'custom'] as const) {
      expect(admits(settings(p), 'report'), p).toBe(true)
      expect(admits(settings(p), 'memory_save'), p).toBe(true)
    }
  })

  it('tools the host will not let a restriction hide are listed as kept, whatever the settings say', () => {
    const s = settings('custom', [], ['memory_save'])
    expect(selectTools(s, ['read', 'memory_save']).allowed).toEqual([])
    expect(selectTools(s, ['read', 'memory_save'], ['memory_save']).allowed).toEqual(['memory_save'])
  })

  it('overrides apply after the profile, and remove wins over add', () => {
    const s = settings('read-only', ['bash', MCP, 'write'], ['grep', 'write'])
    const { allowed, hidden } = selectTools(s, [...STANDARD_TOOLS, MCP])
    expect(allowed).toContain('bash')
    expect(allowed).toContain(MCP)
    expect(hidden).toContain('grep')
    expect(hidden).toContain('write')
    expect(admits(settings('worker', [], ['bash']), 'bash')).toBe(false)
    expect(admits(settings('worker', ['subagent']), 'subagent')).toBe(true)
  })

  it("turning one tool on or off records an override only where the profile's rule differs", () => {
    const ro = settings('read-only')
    const on = withTool(ro, 'bash', true)
    expect(on).toEqual(settings('read-only', ['bash']))
    expect(withTool(on, 'bash', false)).toEqual(ro)
    expect(withTool(ro, 'grep', false)).toEqual(settings('read-only', [], ['grep']))
    expect(withTool(settings('read-only', [], ['grep']), 'grep', true)).toEqual(ro)
    expect(selectTools(withTool(withTool(ro, 'bash', true), 'read', false), STANDARD_TOOLS).allowed).toContain('bash')
  })

  it('treats absent settings as full without overrides when comparing', () => {
    expect(sameToolSettings(undefined, settings('full'))).toBe(true)
    expect(sameToolSettings(undefined, settings('full', ['x']))).toBe(false)
    expect(sameToolSettings(settings('worker'), settings('read-only'))).toBe(false)
  })

  it('reports override names the host does not offer, once each, instead of ignoring them', () => {
    const s = settings('worker', ['bsah', 'read', 'mcp__gone__x'], ['bsah', 'nothing_here'])
    expect(selectTools(s, STANDARD_TOOLS).unknown).toEqual(['bsah', 'mcp__gone__x', 'nothing_here'])
  })

  it('never narrows the Code Mode transport, whose program calls are narrowed instead', () => {
    expect(admits(settings('custom'), 'run_code')).toBe(true)
  })

  it('does not take inherited object keys for tool names', () => {
    expect(kindOf('constructor')).toBeUndefined()
    expect(kindOf('__proto__')).toBeUndefined()
    expect(Object.keys(TOOL_KINDS)).not.toContain('constructor')
  })
})

describe('schema bytes', () => {
  const schemas = [
    {
      name: 'read',
      description: 'Read a file.',
      parameters: { type: 'object', properties: { path: { type: 'string' } } },
    },
    { name: 'memory_save', description: '存入长期记忆', parameters: { type: 'object' } },
  ]

  it('measure each tool as its UTF-8 wire entry, and a request as entries plus commas and brackets', () => {
    const sizes = schemas.map((s) => ({ name: s.name, bytes: utf8Bytes(wireEntry(s)) }))
    const wire = `[${schemas.map(wireEntry).join(',')}]`
    expect(requestBytes(sizes, ['read', 'memory_save'])).toBe(Buffer.byteLength(wire))
    expect(requestBytes(sizes, ['memory_save'])).toBe(Buffer.byteLength(`[${wireEntry(schemas[1]!)}]`))
    expect(requestBytes(sizes, [])).toBe(0)
  })

  it('counts UTF-8 like Node does, astral characters included', () => {
    for (const s of ['abc', '记忆', 'é', '😀x', '\u{10FFFF}']) expect(utf8Bytes(s)).toBe(Buffer.byteLength(s))
  })
})

describe("the store keeps a profile's tool settings", () => {
  let dir: string
  let store: ProfileStore
  const open = async () => {
    dir = mkdtempSync(join(tmpdir(), 'ap-tools-'))
    store = await openStore({ file: join(dir, 'profiles.json') })
  }
  afterEach(async () => {
    await store?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const refusal = async (tools: unknown): Promise<StoreError> => {
    const before = JSON.stringify(store.state)
    const error = await store.command({ op: 'profile.update', id: 'general', patch: { tools } as never }).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(StoreError)
    expect(JSON.stringify(store.state)).toBe(before)
    return error as StoreError
  }

  it('saves, duplicates, exports and imports them; a profile without them is full', async () => {
    await open()
    expect(store.state.profiles.every((p) => p.tools === undefined)).toBe(true)
    const tools = settings('read-only', ['bash'], ['grep'])
    await store.command({ op: 'profile.update', id: 'general', patch: { tools } })
    expect(store.state.profiles.find((p) => p.id === 'general')!.tools).toEqual(tools)
    const { profile: copy } = (await store.command({ op: 'profile.duplicate', id: 'general' })) as unknown as {
      profile: { id: string }
    }
    expect(store.state.profiles.find((p) => p.id === copy.id)!.tools).toEqual(tools)
    const envelope = JSON.parse(JSON.stringify(store.exportEnvelope(['general'])))
    expect(envelope.profiles[0].tools).toEqual(tools)
    // Edited since the export, so the merge keeps the exported one beside it instead of skipping it as identical.
    await store.command({ op: 'profile.update', id: 'general', patch: { role: 'edited' } })
    await store.command({ op: 'state.import', payload: envelope, mode: 'merge' })
    expect(store.state.profiles.at(-1)).toMatchObject({ id: 'general-2', tools })
    // Survives a reopen from disk.
    const file = store.file
    await store.close()
    store = await openStore({ file })
    expect(store.state.profiles.find((p) => p.id === 'general')!.tools).toEqual(tools)
  })

  it('refuses bad settings naming the field and the limit, and changes nothing', async () => {
    await open()
    expect((await refusal({ profile: 'admin', add: [], remove: [] })).field).toBe('patch.tools.profile')
    expect((await refusal({ profile: 'custom', add: ['read', 7], remove: [] })).field).toBe('patch.tools.add[1]')
    expect((await refusal({ profile: 'custom', add: ['read', 'read'], remove: [] })).message).toContain(
      'repeats "read"',
    )
    expect((await refusal({ profile: 'custom', add: [], remove: ['rm -rf'] })).field).toBe('patch.tools.remove[0]')
    expect((await refusal({ profile: 'custom', add: [''], remove: [] })).field).toBe('patch.tools.add[0]')
    const long = await refusal({ profile: 'custom', add: ['x'.repeat(LIMITS.toolName + 1)], remove: [] })
    expect(long).toMatchObject({ field: 'patch.tools.add[0]', limit: LIMITS.toolName })
    const many = await refusal({
      profile: 'custom',
      add: Array.from({ length: LIMITS.toolOverrides + 1 }, (_, i) => `t${i}`),
      remove: [],
    })
    expect(many).toMatchObject({ field: 'patch.tools.add', limit: LIMITS.toolOverrides })
    expect((await refusal({ profile: 'custom', add: [], remove: [], extra: 1 })).field).toBe('patch.tools.extra')
    expect((await refusal('read-only')).field).toBe('patch.tools')
  })

  it('refuses an import whose tool settings are bad, naming the profile', async () => {
    await open()
    const envelope = JSON.parse(JSON.stringify(store.exportEnvelope(['general'])))
    envelope.profiles[0].tools = { profile: 'worker', add: [], remove: [42] }
    const error = await store.command({ op: 'state.import', payload: envelope, mode: 'merge' }).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toMatchObject({ code: 'invalid', field: 'payload.profiles[0].tools.remove[0]' })
  })
})
