/**
 * A data directory left by a newer version of the plugin, through the real `dsh web`: the plugin opens the database
 * read-only. The prompt keeps working from what it read (the model receives the profile's rules and memory), the
 * state says read-only, a command is refused with code `read-only`, the model's `memory_save` answers that nothing is
 * saved and why, and the database file is byte-identical after the host stopped.
 */
import { readFile } from 'node:fs/promises'
import { DatabaseSync } from 'node:sqlite'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { SCHEMA_VERSION } from '../../lib/store/db/schema.ts'
import { openStore } from '../../lib/store/open-store.ts'
import { makeHome, type Home } from '../support/dsh.ts'
import { bootHost, type Host } from '../support/host-api.ts'
import { savesMemory, startModelServer, type ModelServer } from '../support/model-server.ts'

let model: ModelServer
let home: Home
let host: Host | undefined
let before: Buffer

beforeAll(async () => {
  model = await startModelServer()
  home = makeHome(['web'])
  const seed = await openStore({ file: home.dataFile })
  await seed.command({ op: 'profile.update', id: 'general', patch: { rules: '新版本写下的规矩：先给结论' } })
  await seed.command({ op: 'memory.add', target: { profileId: 'general' }, items: [{ text: '用户喜欢猫' }] })
  await seed.close()
  // What a later version leaves: its schema number, still readable by this one.
  const db = new DatabaseSync(home.dataFile)
  db.exec(`UPDATE meta SET value = ${SCHEMA_VERSION + 1} WHERE key = 'schema'`)
  db.close()
  before = await readFile(home.dataFile)
  host = await bootHost(model, { home })
})
afterAll(async () => {
  await host?.stop()
  await model?.close()
  home?.cleanup()
})

it('a newer database: read-only, the prompt carries what was read, commands and memory_save refuse with the reason, the file is untouched', async () => {
  const { state, meta } = await host!.read<{
    state: { activeId: string }
    meta: { data?: { readOnly?: { kind: string; message: string } } }
  }>()
  expect(state.activeId).toBe('general')
  expect(meta.data?.readOnly).toMatchObject({
    kind: 'newer',
    message: expect.stringMatching(/newer version of this plugin.*update to edit/),
  })

  const sessionId = await host!.conversation()
  const [first] = await host!.say(sessionId, '你好')
  expect(first!.system).toContain('新版本写下的规矩：先给结论')
  expect(first!.system).toContain('用户喜欢猫')

  await expect(host!.command({ op: 'profile.update', id: 'general', patch: { rules: '改不了' } })).rejects.toThrow(
    /"code":"read-only"/,
  )

  model.respond(savesMemory(['用户住在杭州']))
  const [, afterTool] = await host!.say(sessionId, '请记住我住在杭州', 2)
  model.respond(undefined)
  const result = afterTool!.messages.slice(afterTool!.lastUserAt).find((m) => m.role === 'tool')
  expect(JSON.stringify(result?.content)).toMatch(/更新版本写成.*不能保存/)
  expect((await host!.profile('general')).memory.items.map((it) => it.text)).toEqual(['用户喜欢猫'])

  await host!.stop()
  host = undefined
  expect((await readFile(home.dataFile)).equals(before)).toBe(true)
}, 240_000)
