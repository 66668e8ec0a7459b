/**
 * Forgetting conversations the host no longer has, against the real `dsh web`: the settings of a conversation the
 * host's session persistence does not list (and that is not live) go after two listings; a conversation that exists,
 * and one the user archived, keep theirs, turns included.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { bootHost, type Host } from '../support/host-api.ts'
import { startModelServer, type ModelServer } from '../support/model-server.ts'

let model: ModelServer
let host: Host
const CHECK_MS = 1_500

beforeAll(async () => {
  model = await startModelServer()
  host = await bootHost(model, { patch: `- id: agent-profiles\n  config:\n    sessionCheckMs: ${CHECK_MS}\n` })
})
afterAll(async () => {
  await host?.stop()
  await model?.close()
})

const conversation = async (id: string) =>
  (await (await fetch(`${host.web.url}/__ap/session/${id}`)).json()) as { setting: { note: string } | null }
const turns = async (id: string) =>
  ((await (await fetch(`${host.web.url}/__ap/turns/${id}`)).json()) as { turns: Record<number, string> }).turns

it('drops the settings of a conversation the host does not have, keeps those of existing and archived ones', async () => {
  const kept = await host.conversation()
  await host.say(kept, '留下的对话')
  const archived = await host.conversation()
  await host.say(archived, '要归档的对话')
  await host.rpc('workspace.archiveSession', { sessionId: archived })
  for (const id of [kept, archived, 'session-long-deleted']) {
    await host.command({ op: 'session.set', sessionId: id, patch: { note: `备注 ${id}` } })
  }
  expect((await conversation('session-long-deleted')).setting?.note).toBe('备注 session-long-deleted')
  // Two listings apart, with margin for a loaded machine.
  const deadline = Date.now() + 60_000
  while ((await conversation('session-long-deleted')).setting !== null && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 500))
  expect((await conversation('session-long-deleted')).setting).toBeNull()
  expect((await conversation(kept)).setting?.note).toBe(`备注 ${kept}`)
  expect((await conversation(archived)).setting?.note).toBe(`备注 ${archived}`)
  expect(Object.keys(await turns(kept)).length).toBeGreaterThan(0)
  expect(Object.keys(await turns(archived)).length).toBeGreaterThan(0)
  const state = await host.read<{
    state: { conversations: number }
    meta: { sessionPrune?: { forgotten: number; skipped: string | null } }
  }>()
  expect(state.state.conversations).toBe(2)
  expect(state.meta.sessionPrune).toMatchObject({ forgotten: 1, skipped: null })
}, 180_000)
