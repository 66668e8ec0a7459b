/**
 * A team library through the real `dsh web` and the offline model: a bare repository on disk holds one team profile
 * (the personal sync's folder layout) whose files ask for every tool and the pro model; added over the library route,
 * it joins the list marked with the library, a conversation pinned to it answers with its rules in the system prompt,
 * on the conversation's model (the files' model is only a suggestion) and without the tools read-only leaves out; an
 * edit of it over the command route is refused naming the library.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { profileFiles, folderOf } from '../../lib/sync/layout.ts'
import { factoryState } from '../../lib/state/defaults.ts'
import { bootHost, postJson, type Host } from '../support/host-api.ts'
import { isTitleRequest, startModelServer, type ModelServer, type Reply } from '../support/model-server.ts'

const FLASH = 'deepseek-v4-flash'

let model: ModelServer
let host: Host
let dir: string

/** A bare repository whose main branch holds one team profile, committed from a work tree. */
function teamRepository(): string {
  const remote = join(dir, 'team-profiles.git')
  const work = join(dir, 'work')
  execFileSync('git', ['init', '--bare', '--quiet', '--initial-branch=main', remote])
  execFileSync('git', ['init', '--quiet', '--initial-branch=main', work])
  const coder = factoryState(1).profiles.find((p) => p.id === 'coder')!
  const reviewer = {
    ...coder,
    id: 'reviewer',
    name: '团队审查员',
    rules: 'TEAM-RULE：审查时先看测试，再看命名。',
    tools: { profile: 'full' as const, add: [], remove: [] },
    model: { provider: 'deepseek-official', model: 'deepseek-v4-pro', reasoningEffort: 'max' },
    memory: { summary: '', items: [] },
  }
  for (const [name, text] of Object.entries(profileFiles(reviewer))) {
    const file = join(work, folderOf(reviewer.id), name)
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, text)
  }
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 't',
    GIT_AUTHOR_EMAIL: 't@t',
    GIT_COMMITTER_NAME: 't',
    GIT_COMMITTER_EMAIL: 't@t',
  }
  execFileSync('git', ['-C', work, 'add', '-A'], { env })
  execFileSync('git', ['-C', work, 'commit', '--quiet', '-m', 'team profiles'], { env })
  execFileSync('git', ['-C', work, 'push', '--quiet', remote, 'HEAD:main'], { env })
  return remote
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ap-team-e2e-'))
  model = await startModelServer()
  model.respond((r): Reply | undefined => (isTitleRequest(r) ? undefined : { text: `已收到：${r.lastUser}` }))
  host = await bootHost(model)
})

afterAll(async () => {
  await host?.stop()
  await model?.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('a team library (web)', () => {
  it('its profile answers a turn with its rules, on the conversation model and read-only tools', async () => {
    const remote = teamRepository()
    const added = await fetch(`${host.web.url}/__ap/sync/libraries/add`, postJson({ remote, name: '平台组' }))
    const body = (await added.json()) as { libraries: { status: { error?: unknown; profiles: number } }[] }
    expect(added.status, JSON.stringify(body)).toBe(200)
    expect(body.libraries[0]!.status).toMatchObject({ profiles: 1 })
    const { state } = await host.read()
    const head = state.profiles.find((p) => p.library === '平台组')!
    expect(head.name).toBe('团队审查员')
    const sessionId = await host.conversation()
    await host.command({ op: 'session.set', sessionId, patch: { profileId: head.id } })
    const [request] = await host.say(sessionId, 'TEAM-TURN')
    expect(request!.system).toContain('TEAM-RULE：审查时先看测试，再看命名。')
    expect(request!.model).toBe(FLASH)
    const tools = request!.tools.map((t) => t.function.name)
    expect(tools).toContain('memory_save')
    expect(tools).not.toContain('bash')
    const edit = await fetch(
      `${host.web.url}/__ap/command`,
      postJson({ op: 'profile.update', id: head.id, patch: { rules: '改掉' } }),
    )
    expect(edit.status).toBe(409)
    expect(((await edit.json()) as { error: unknown }).error).toMatchObject({
      rule: 'profile.library',
      values: ['平台组'],
    })
  })
})
